"""The gap task's cost and quality on generated corpora.

    .venv/bin/python benchmarks/gap.py speed --words 10000000 --orders 5
    .venv/bin/python benchmarks/gap.py speed --words 10000000 --orders 3 4 5   # the quality table
    .venv/bin/python benchmarks/gap.py growth --words 1000000 4000000 16000000 64000000
    .venv/bin/python benchmarks/gap.py speed --corpus /tmp/vim --orders 3 5    # real_english.py's
    .venv/bin/python benchmarks/gap.py speed --corpus /tmp/vim --orders 3 5 --neural   # a neural member
    .venv/bin/python benchmarks/gap.py speed --corpus /tmp/vim --orders 3 5 --neural --cloze   # and a cloze one
    .venv/bin/python benchmarks/gap.py processes --words 10000000 --repeat 1 4

speed: a clean pipeline run with the gap task off (models, perplexity tables), then the same
folder with it on, so that the second run's wall time is the gap task alone, candidate index
included; dev-0 has the real corpus's 10,519 lines (3.08M words), or the corpus --corpus names. Prints
that wall time, each gap job's wall and CPU seconds and peak memory, the blend's weights, the gap
table and the run's folder (kept, so that another commit's gap task can be run on its models).

growth: the candidate pass alone (rule gap_candidates, with its held-out set and the rebuilt
training text) on corpora of each size; prints its peak resident memory against the size of the
training text, for the memory estimate of lmgap.gap.candidates.index_memory_mb.

processes: the candidate pass alone (lmgap.gap.candidates.write_candidates, 4,000 held-out gaps)
counted by one process and by two, on the corpus's rebuilt training text and on that text
repeated (--repeat 4: four times the text, the vocabulary of one); prints each pass's wall time
and peak memory (the resident memory of the process and its children, summed) against the
estimate, and stops unless both give the same bytes and the estimate is 20% above the peak.
"""

import argparse
import csv
import json
import shutil
import sys
import time
from pathlib import Path

import psutil

REPO = Path(__file__).resolve().parents[1]

from compare import MAIN_JOB, kenlm_tools, machine, measured  # noqa: E402
from generate_corpus import generate  # noqa: E402
from lmgap.corpus.rebuild import rebuild_split  # noqa: E402
from lmgap.gap.candidates import index_memory_mb  # noqa: E402
from lmgap.gap.heldout import write_heldout  # noqa: E402

DEV_WORDS = 3_080_000  # the real dev-0: 10,519 lines of about 290 words


def corpus_for(work, words, seed):
    corpus = Path(work) / f"corpus-{words}-dev{DEV_WORDS}-seed{seed}"
    if not (corpus / "dev-0/expected.tsv").exists():
        generate(corpus, words, seed, DEV_WORDS)
    return corpus


def run(folder, config, *targets):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.yaml").write_text(json.dumps(config))
    with open(folder / "snakemake.log", "a") as log:
        return measured(
            [*MAIN_JOB, "--snakefile", str(REPO / "Snakefile"), *targets],
            cwd=folder,
            stdout=log,
            stderr=log,
        )


def benchmark_rows(folder, rule):
    rows = {}
    for path in sorted((folder / "results/benchmarks" / rule).rglob("*.tsv")):
        with open(path) as handle:
            row = next(csv.DictReader(handle, delimiter="\t"))
        rows[str(path.relative_to(folder / "results/benchmarks"))] = {
            "s": float(row["s"]),
            "cpu_s": float(row["cpu_time"]),
            "max_rss_mb": float(row["max_rss"]),
        }
    return rows


def speed(args, bin_dir):
    corpus = Path(args.corpus).resolve() if args.corpus else corpus_for(args.work, args.words, args.seed)
    folder = Path(args.work) / f"gap-speed-{corpus.name}-{time.strftime('%Y%m%dT%H%M%S')}"
    config = {"corpus": {"source": str(corpus)}, "orders": args.orders, "kenlm": {"bin_dir": str(bin_dir)}}
    # The default small neural model and the default cloze model, trained with the models, as members
    # of the blend.
    neural = {"small": {"train": {}}} if args.neural else {}
    neural |= {"cloze": {"kind": "cloze", "train": {}}} if args.cloze else {}
    config |= {"neural": neural} if neural else {}
    models = run(folder, {**config, "gap": {"enabled": False}})
    gap = run(folder, config)
    report = {"machine": machine(), "corpus": str(corpus), "orders": args.orders, "models_run": models, "gap_run": gap}
    rules = (
        "gap_candidates",
        "gap_logprobs",
        "gap_predictions",
        "gap_document",
        "gap_neural",
        "train_cloze",
        "gap_cloze",
    )
    for rule in rules:
        report[rule] = benchmark_rows(folder, rule)
    weights = json.loads((folder / "results/gap/both/blend/dev-0/weights.json").read_text())
    report["blend_weights"] = weights["weights"]
    print(json.dumps(report, indent=1))
    print((folder / "results/tables/gap.md").read_text())
    print(f"the run's folder: {folder}")


def growth(args, bin_dir):
    for words in args.words:
        corpus = corpus_for(args.work, words, args.seed)
        folder = Path(args.work) / f"gap-growth-{words}-{time.strftime('%Y%m%dT%H%M%S')}"
        config = {"corpus": {"source": str(corpus)}, "orders": [3], "kenlm": {"bin_dir": str(bin_dir)}}
        run(folder, config, "results/gap/candidates/dev-0.npz")
        text_mb = (folder / "results/text/train.txt").stat().st_size / 2**20
        (row,) = benchmark_rows(folder, "gap_candidates").values()
        estimate = index_memory_mb(text_mb)
        print(
            json.dumps(
                {
                    "words": words,
                    "text_mb": round(text_mb, 1),
                    "peak_mb": row["max_rss_mb"],
                    "seconds": row["s"],
                    "estimate_mb": estimate,
                    "margin": round(estimate / row["max_rss_mb"], 2),
                }
            ),
            flush=True,
        )
        # The estimate's promise (its docstring): at least 20% above what the pass took.
        if estimate < 1.2 * row["max_rss_mb"]:
            sys.exit(f"the estimate of {estimate} MB is less than 20% above the measured {row['max_rss_mb']} MB")


def processes(args):
    corpus = corpus_for(args.work, args.words, args.seed)
    folder = Path(args.work) / f"gap-processes-{corpus.name}"
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "train.txt").exists():
        rebuild_split(corpus / "train", folder / "train.part")
        (folder / "train.part").rename(folder / "train.txt")
    write_heldout(corpus / "train", 4000, folder / "heldout.tsv", folder / "words.tsv")
    failed = []
    for repeat in args.repeat:
        text = folder / f"train-x{repeat}.txt"
        with open(text, "wb") as out:
            for _ in range(repeat):
                with open(folder / "train.txt", "rb") as one:
                    shutil.copyfileobj(one, out)
        text_mb = text.stat().st_size / 2**20
        made = {}
        for workers in (1, 2):
            outputs = {"candidates": str(folder / f"candidates-{workers}.npz")}
            outputs["coverage"] = str(folder / f"coverage-{workers}.json")
            inputs = {"text": str(text), "split_dir": str(corpus / "dev-0"), "heldout": str(folder / "heldout.tsv")}
            settings = {"per_context": 400, "frequent": 400, "workers": workers}
            seconds, peak_mb = peak_of(PASS.format(workflow=REPO / "workflow", args=(inputs, settings, outputs)))
            made[workers] = b"".join(Path(path).read_bytes() for path in outputs.values())
            estimate = index_memory_mb(text_mb, workers)
            row = {"text_mb": round(text_mb, 1), "processes": workers, "seconds": round(seconds, 1)}
            row.update(peak_mb=round(peak_mb), estimate_mb=estimate, margin=round(estimate / peak_mb, 2))
            print(json.dumps(row), flush=True)
            if estimate < 1.2 * peak_mb:
                failed.append(f"{text.name}, {workers} processes: the estimate is less than 20% above the peak")
        text.unlink()
        if made[1] != made[2]:
            failed.append(f"{text.name}: one process and two gave different candidates")
    if failed:
        sys.exit("; ".join(failed))


# One candidate pass in a process of its own, as rule gap_candidates runs it.
PASS = """
import sys
from types import SimpleNamespace
from lmgap.gap.candidates import write_candidates
inputs, settings, outputs = {args!r}
write_candidates(inputs, settings, SimpleNamespace(**outputs), sys.stderr)
"""


def peak_of(code):
    """(wall seconds, peak MB of the resident memory of a Python process running code and of its
    children, summed)."""
    started = time.monotonic()
    process = psutil.Popen([sys.executable, "-c", code])
    peak = 0
    while process.poll() is None:
        try:
            tree = [process, *process.children(recursive=True)]
            peak = max(peak, sum(p.memory_info().rss for p in tree))
        except psutil.Error:
            pass
        time.sleep(0.02)
    if process.returncode:
        sys.exit(f"the candidate pass failed with exit code {process.returncode}")
    return time.monotonic() - started, peak / 2**20


def add_run_arguments(parser):
    """The options every run on a generated corpus takes: its seed, the work folder, KenLM's tools."""
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", default="/tmp/lmgap-benchmark")
    parser.add_argument("--kenlm-bin", default=None)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["speed", "growth", "processes"])
    parser.add_argument("--words", type=int, nargs="+", help="training words of the generated corpora")
    parser.add_argument("--corpus", help="speed: a corpus in the challenge's format instead of a generated one")
    parser.add_argument("--orders", type=int, nargs="+", default=[5])
    parser.add_argument("--neural", action="store_true", help="speed: with the default small neural model")
    parser.add_argument("--cloze", action="store_true", help="speed: with the default cloze model")
    parser.add_argument("--repeat", type=int, nargs="+", default=[1], help="processes: the text this many times")
    add_run_arguments(parser)
    args = parser.parse_args()
    if not args.words and not (args.mode == "speed" and args.corpus):
        parser.error("give --words (or, for speed, --corpus)")
    if args.mode == "processes":
        args.words = args.words[0]
        processes(args)
        return
    bin_dir = kenlm_tools(args.kenlm_bin)
    if args.mode == "speed":
        args.words = args.words[0] if args.words else None
        speed(args, bin_dir)
    else:
        growth(args, bin_dir)


if __name__ == "__main__":
    main()
