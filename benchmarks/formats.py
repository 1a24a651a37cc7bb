"""KenLM's binary formats measured on one generated corpus: a clean run of the pipeline that builds every
model in each format, and what each format's model costs (file, memory, loading, scoring, the gap task) and
changes (perplexity, PerplexityHashed, the bootstrap's verdict against its probing twin).

    .venv/bin/python benchmarks/formats.py --words 123700000 --formats probing trie trie-q8b8
    .venv/bin/python benchmarks/formats.py --words 123700000 --formats trie-q8b8 --budget-mb 12800 --no-gap

Orders 3-5, `snakemake --cores 8 --resources mem_mb=BUDGET` with memory.budget_mb BUDGET (by default 80% of
this machine's memory, as `make run` runs it). The train jobs' timeline shows what trained side by side.
"""

import argparse
import csv
import json
import sys
import time
from pathlib import Path

from compare import SNAKEMAKE, kenlm_tools, machine, measured
from gap import benchmark_rows, corpus_for
from schedule import train_timeline

from lmgap.machine import default_budget_mb

REPO = Path(__file__).resolve().parent.parent


def table(folder, name):
    path = folder / "results/tables" / name
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def model_rows(folder, gap):
    """A row per model: its format's costs and figures, and its gap task's."""
    costs = {row["model"]: row for row in table(folder, "cost.tsv") if row["family"] == "ngram"}
    logprobs = benchmark_rows(folder, "gap_logprobs") if gap else {}
    hashed = {(r["model"], r["context"]): r for r in table(folder, "gap.tsv")} if gap else {}
    rows = []
    for row in table(folder, "perplexity.tsv"):
        if row["family"] != "ngram":
            continue
        model, cost = row["model"], costs[row["model"]]
        own = {
            "model": model,
            "format": row.get("format", "probing"),
            "binary_mb": int(row["binary_bytes"]) / 2**20,
            "train_reserved_mb": int(cost["train_reserved_mb"]),
            "build_binary_peak_mb": float(cost["build_binary_peak_rss_mb"]),
            "build_binary_s": float(cost["build_binary_seconds"]),
            "train_job_s": float(cost["train_job_seconds"]),
            "query_s": float(cost["query_seconds"]),
            "load_s": float(cost["load_seconds"]) if cost.get("load_seconds") else None,
            "query_peak_mb": float(cost["query_peak_rss_mb"]) if cost.get("query_peak_rss_mb") else None,
            "ppl_incl": float(row["perplexity_including_oovs"]),
            "ppl_excl": float(row["perplexity_excluding_oovs"]),
            "ppl_oovs_as_words": float(row["perplexity_oovs_as_words"]),
        }
        if gap:
            own["gap_logprobs_s"] = sum(v["s"] for k, v in logprobs.items() if f"/{model}/" in k)
            own["perplexity_hashed"] = float(hashed[model, "both"]["perplexity_hashed"])
        rows.append(own)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, default=123_700_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--formats", nargs="+", default=["probing", "trie", "trie-q8b8"])
    parser.add_argument("--orders", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--budget-mb", type=int, default=None)
    parser.add_argument("--no-gap", action="store_true", help="the gap task off")
    parser.add_argument("--work", default="/tmp/lmgap-benchmark")
    parser.add_argument("--kenlm-bin", default=None)
    args = parser.parse_args()
    bin_dir = kenlm_tools(args.kenlm_bin)
    corpus = corpus_for(args.work, args.words, args.seed)
    budget = args.budget_mb or default_budget_mb()
    folder = Path(args.work) / f"formats-{'-'.join(args.formats)}-{budget}-{time.strftime('%Y%m%dT%H%M%S')}"
    folder.mkdir(parents=True)
    config = {
        "corpus": {"source": str(corpus)},
        "orders": args.orders,
        "build_binary": {"format": args.formats},
        "gap": {"enabled": not args.no_gap},
        "memory": {"budget_mb": budget},
        "kenlm": {"bin_dir": str(bin_dir)},
    }
    (folder / "config.yaml").write_text(json.dumps(config))
    cmd = [SNAKEMAKE, "--snakefile", str(REPO / "Snakefile"), "--cores", "8", "--resources", f"mem_mb={budget}"]
    with open(folder / "snakemake.log", "w") as log:
        run = measured(cmd, cwd=folder, stdout=log, stderr=log)
    comparison = [row for row in table(folder, "comparison.tsv") if row["differs_in"] == "format"]
    report = {
        "machine": machine(),
        "corpus": str(corpus),
        "formats": args.formats,
        "budget_mb": budget,
        "run": run,
        "train_jobs": train_timeline(folder),
        "models": model_rows(folder, not args.no_gap),
        "against_probing": [
            {key: row[key] for key in ("model", "baseline", "ratio", "ratio_ci_low", "ratio_ci_high", "real")}
            for row in comparison
        ],
    }
    json.dump(report, sys.stdout, indent=1)
    print(f"\nthe run's folder: {folder}")


if __name__ == "__main__":
    main()
