"""What scoring one very long document costs: one line of N words, most of them unknown to a small
model, through KenLM's query alone and through the pipeline's reading of query's output (the
per-token sums, OOVs found and checked against query's own summary).

    .venv/bin/python benchmarks/long_line.py --words 300000 [--kenlm-bin DIR]

Prints the wall seconds of each, median of --repeats runs.
"""

import argparse
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from compare import kenlm_tools, machine

from lmgap.ngram.scoring import query


def seconds(action, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, default=300_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kenlm-bin", default=None)
    args = parser.parse_args()
    bin_dir = kenlm_tools(args.kenlm_bin)
    with tempfile.TemporaryDirectory(prefix="lmgap-long-line-") as work:
        work = Path(work)
        (work / "train.txt").write_text("the cat sat on the mat\nthe dog sat on the log\n" * 50)
        subprocess.run(
            f"{bin_dir / 'lmplz'} -o 3 --discount_fallback --skip_symbols < {work / 'train.txt'} | "
            f"{bin_dir / 'build_binary'} /dev/stdin {work / 'model.binary'}",
            shell=True,
            check=True,
            capture_output=True,
        )
        # Nine words in ten unknown, as in the probe's page of OCR noise.
        words = [("the" if i % 10 == 0 else f"w{i}") for i in range(args.words)]
        (work / "line.txt").write_text(" ".join(words) + "\n")
        alone = seconds(
            lambda: subprocess.run(
                [str(bin_dir / "query"), "-v", "word", "-v", "sentence", "-v", "summary", str(work / "model.binary")],
                stdin=open(work / "line.txt"),
                stdout=subprocess.DEVNULL,
                check=True,
            ),
            args.repeats,
        )
        with open(work / "query.log", "w") as log:
            scored = seconds(
                lambda: query(bin_dir / "query", work / "model.binary", work / "line.txt", 3, log), args.repeats
            )
    print(f"{machine()}; one line of {args.words:,} words, 90% unknown; wall seconds, median of {args.repeats}")
    print(f"KenLM's query alone\t{alone:.2f}")
    print(f"query and the pipeline's reading of its output\t{scored:.2f}")


if __name__ == "__main__":
    main()
