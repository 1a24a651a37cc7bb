"""Neural gap prediction on the 10M-word benchmark corpus: the default small model's rescoring of
dev-0's gaps (the real dev-0's size), its trade-offs, and the blend against its members.

    .venv/bin/python benchmarks/neural_gap.py [--words 10000000] [--orders 3 4 5]
        [--candidates 10 25 100] [--right-tokens 0 4 16]

A clean run of the gap table (`--cores 8`) with the n-grams and the default small neural model
(`neural: {small: {train: {}}}`, every gap setting at its default), then one rerun per other
value of `gap.neural_candidates` and of `gap.right_tokens`, which reruns only the rescoring,
the evaluations, the blend and the table. Prints, for each setting, the rescoring job's wall and
CPU seconds, its peak memory against the memory it reserved, and the PerplexityHashed of the
neural model and of the blend; and the first run's gap table.
"""

import argparse
import json
import re
import tempfile
from pathlib import Path

from compare import kenlm_tools, machine
from gap import add_run_arguments, benchmark_rows, corpus_for, run
from sweep import read_rows

RESCORING = "gap_neural/small/dev-0.tsv"


def reserved_mb(folder, rule):
    """The mem_mb the last run's job of a rule reserved, from the Snakemake log's job header."""
    log = (folder / "snakemake.log").read_text()
    blocks = re.findall(rf"rule {rule}:\n(.*?)\n\n", log, flags=re.S)
    found = re.findall(r"mem_mb=(\d+)", blocks[-1])
    return int(found[0])


def measure(folder, config, setting):
    cost = run(folder, config, "results/tables/gap.tsv")
    job = benchmark_rows(folder, "gap_neural")[RESCORING]
    rows = {row["model"]: row for row in read_rows(folder / "results/tables/gap.tsv") if row["context"] != "left"}
    weights = json.loads((folder / "results/gap/both/blend/dev-0/weights.json").read_text())["weights"]
    return {
        "setting": setting,
        "run_wall_s": round(cost["wall_s"], 1),
        "rescoring_s": job["s"],
        "rescoring_cpu_s": job["cpu_s"],
        "peak_mb": job["max_rss_mb"],
        "reserved_mb": reserved_mb(folder, "gap_neural"),
        "small": float(rows["small"]["perplexity_hashed"]),
        "blend": float(rows["blend"]["perplexity_hashed"]),
        "best_member": min((float(row["perplexity_hashed"]), name) for name, row in rows.items() if name != "blend"),
        "weights": {name: round(weight, 4) for name, weight in weights.items()},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, default=10_000_000)
    parser.add_argument("--orders", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--candidates", type=int, nargs="*", default=[10, 25, 100])
    parser.add_argument("--right-tokens", type=int, nargs="*", default=[0, 4, 16])
    add_run_arguments(parser)
    args = parser.parse_args()
    Path(args.work).mkdir(parents=True, exist_ok=True)
    corpus = corpus_for(args.work, args.words, args.seed)
    folder = Path(tempfile.mkdtemp(prefix="neural-gap-", dir=args.work))
    config = {
        "corpus": {"source": str(corpus)},
        "orders": args.orders,
        "kenlm": {"bin_dir": str(kenlm_tools(args.kenlm_bin))},
        "neural": {"small": {"train": {}}},
    }
    print(
        f"{args.words:,} words, orders {args.orders}, the default small neural model, on {machine()} ({folder})",
        flush=True,
    )
    results = [measure(folder, config, "defaults (50 candidates, 8 right tokens)")]
    first_table = (folder / "results/tables/gap.md").read_text()
    print(json.dumps(results[-1]), flush=True)
    for candidates in args.candidates:
        results.append(
            measure(folder, {**config, "gap": {"neural_candidates": candidates}}, f"{candidates} candidates")
        )
        print(json.dumps(results[-1]), flush=True)
    for right in args.right_tokens:
        results.append(measure(folder, {**config, "gap": {"right_tokens": right}}, f"{right} right tokens"))
        print(json.dumps(results[-1]), flush=True)
    print("\n| Setting | Rescoring (s) | CPU (s) | Peak / reserved (MB) | small | blend | best member |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for r in results:
        print(
            f"| {r['setting']} | {r['rescoring_s']:.1f} | {r['rescoring_cpu_s']:.1f} | {r['peak_mb']:.0f} / "
            f"{r['reserved_mb']:,} | {r['small']:.2f} | {r['blend']:.2f} | {r['best_member'][1]} "
            f"{r['best_member'][0]:.2f} |"
        )
    print("\n" + first_table)


if __name__ == "__main__":
    main()
