"""The cloze family's cost at the real corpus's size: its training and its prediction of dev-0.

    .venv/bin/python benchmarks/cloze.py --words 123700000
    .venv/bin/python benchmarks/cloze.py --corpus /path/to/corpus --steps 300

A clean pipeline run on a generated corpus of --words training words whose dev-0 has the real
one's 3.08M words (10,519 lines), or on the corpus --corpus names, with one cloze model
(`neural: {cloze: {kind: cloze, train: {...}}}`, the defaults unless --steps is given), up to that
model's dev-0 out.tsv: the text rebuilt, the held-out lines, the training and the prediction, and no
n-gram. Prints each job's wall and CPU seconds and peak memory against what it reserved, the
training record and the temperature fit. Its quality is measured beside the other families by
`benchmarks/gap.py speed --cloze`.
"""

import argparse
import ast
import csv
import json
import time
from pathlib import Path

from compare import machine
from gap import corpus_for, run

RULES = ("rebuild_text", "train_cloze", "gap_cloze")


def job_rows(folder, rule):
    """{benchmark file: wall and CPU seconds, peak memory and the memory the job reserved} of a rule's jobs."""
    rows = {}
    for path in sorted((folder / "results/benchmarks" / rule).rglob("*.tsv")):
        with open(path, newline="") as handle:
            row = next(csv.DictReader(handle, delimiter="\t"))
        rows[str(path.relative_to(folder / "results/benchmarks"))] = {
            "s": float(row["s"]),
            "cpu_s": float(row["cpu_time"]),
            "max_rss_mb": float(row["max_rss"]),
            "reserved_mb": ast.literal_eval(row["resources"])["mem_mb"],
        }
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, default=123_700_000, help="training words of the generated corpus")
    parser.add_argument("--corpus", help="a corpus in the challenge's format instead of a generated one")
    parser.add_argument("--steps", type=int, help="the training budget (default: the schema's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", default="/tmp/lmgap-benchmark")
    args = parser.parse_args()
    corpus = Path(args.corpus).resolve() if args.corpus else corpus_for(args.work, args.words, args.seed)
    folder = Path(args.work) / f"cloze-{corpus.name}-{time.strftime('%Y%m%dT%H%M%S')}"
    train = {"steps": args.steps} if args.steps else {}
    config = {"corpus": {"source": str(corpus)}, "orders": [3], "neural": {"cloze": {"kind": "cloze", "train": train}}}
    whole = run(folder, config, "--benchmark-extended", "results/gap/both/cloze/dev-0/out.tsv")
    report = {"machine": machine(), "corpus": str(corpus), "run": whole}
    for rule in RULES:
        report[rule] = job_rows(folder, rule)
    report["training"] = json.loads((folder / "results/neural/cloze/training.json").read_text())
    fit = json.loads((folder / "results/gap/both/cloze/dev-0/fit.json").read_text())
    report["temperature"] = {key: fit[key] for key in ("temperature", "heldout_gaps")}
    print(json.dumps(report, indent=1))
    print(f"the run's folder: {folder}")


if __name__ == "__main__":
    main()
