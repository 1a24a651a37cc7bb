"""The neural row on the 10M-word benchmark corpus: the default small model (`neural: {small:
{train: {}}}`) trained on the same text as the n-grams, against orders 3, 4, 5.

    .venv/bin/python benchmarks/neural.py --words 10000000 [--orders 3 4 5] [--steps 500]

A clean local run (`--cores 8`, dev-0 the real one's size, gap task off); prints the wall time,
the neural model's training throughput (subword tokens through the optimizer per second) and
dev-0 scoring time from its jobs' benchmark files, and the perplexity table, n-grams and neural
model at equal training text, with the comparison's family rows.
"""

import argparse
import json
import tempfile
from pathlib import Path

from compare import kenlm_tools, machine
from gap import add_run_arguments, benchmark_rows, corpus_for, run
from sweep import read_rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, default=10_000_000)
    parser.add_argument("--orders", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--steps", type=int, default=None, help="the model's budget; default: the config's default")
    add_run_arguments(parser)
    args = parser.parse_args()
    Path(args.work).mkdir(parents=True, exist_ok=True)
    corpus = corpus_for(args.work, args.words, args.seed)
    folder = Path(tempfile.mkdtemp(prefix="neural-", dir=args.work))
    train = {"steps": args.steps} if args.steps else {}
    config = {
        "corpus": {"source": str(corpus)},
        "orders": args.orders,
        "kenlm": {"bin_dir": str(kenlm_tools(args.kenlm_bin))},
        "gap": {"enabled": False},
        "neural": {"small": {"train": train}},
    }
    cost = run(folder, config)
    training = json.loads((folder / "results/neural/small/training.json").read_text())
    jobs = {**benchmark_rows(folder, "train_neural"), **benchmark_rows(folder, "score_neural")}
    scoring = jobs["score_neural/small/dev-0.tsv"]
    scored = json.loads((folder / "results/eval/small/dev-0.json").read_text())
    print(
        f"{args.words:,} words, orders {args.orders} and the small neural model on {machine()}: "
        f"{cost['wall_s']:.1f} s wall, peak {cost['peak_mb']:.0f} MB ({folder})"
    )
    print(
        f"neural training: {training['parameters']:,} parameters, {training['subword_tokens_seen']:,} subword "
        f"tokens seen ({training['epochs']:.3f} epochs of {training['training_subword_tokens']:,}) in "
        f"{training['train_seconds']:.1f} s: {training['train_tokens_per_second']:,.0f} tokens/s on "
        f"{training['threads']} threads; job {jobs['train_neural/small.tsv']['s']:.1f} s, peak "
        f"{jobs['train_neural/small.tsv']['max_rss_mb']:.0f} MB"
    )
    print(
        f"dev-0 scoring: {scored['sums']['tokens']:,} tokens ({scored['subword_tokens']:,} subword tokens), "
        f"window {scored['max_length']}, stride {scored['stride']}: {scoring['s']:.1f} s, peak "
        f"{scoring['max_rss_mb']:.0f} MB"
    )
    print("\n| Model | Train tokens | PPL incl. OOVs | PPL excl. OOVs | OOV rate | Bits/token |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in read_rows(folder / "results/tables/perplexity.tsv"):
        print(
            f"| {row['model']} | {int(row['train_tokens']):,} | {float(row['perplexity_including_oovs']):.2f} | "
            f"{float(row['perplexity_excluding_oovs']):.2f} | {float(row['oov_rate']):.2%} | "
            f"{float(row['cross_entropy_bits_incl']):.3f} |"
        )
    print("\n| Model | Baseline | Ratio | 95% CI | Real |")
    print("|---|---|---:|---:|---|")
    for row in read_rows(folder / "results/tables/comparison.tsv"):
        if row["differs_in"] == "family":
            print(
                f"| {row['model']} | {row['baseline']} | {float(row['ratio']):.4f} | "
                f"[{float(row['ratio_ci_low']):.4f}, {float(row['ratio_ci_high']):.4f}] | {row['real']} |"
            )


if __name__ == "__main__":
    main()
