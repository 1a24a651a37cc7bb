"""Sweeps: the learning curve on a generated corpus, and the demo sweep locally against SLURM.

    .venv/bin/python benchmarks/sweep.py curve --words 10000000 --orders 3 4 5 --fractions 0.01 0.1 0.3 1 [--vocab-pad]
    .venv/bin/python benchmarks/sweep.py slurm --repeat 3

curve: a clean local run of orders x fractions on a newspaper-like corpus (dev-0 the real one's
size); prints wall time, the perplexity of each model against its training tokens, and the
comparison table's rows for each step of data.

slurm: the demo sweep of the tests (orders 2, 3 x fractions 0.5, 1 x unpruned and pruned, eight
models) on a small Markov corpus, run locally (`--cores 2`) and through profiles/slurm on a
one-node SLURM started on this machine (root, Debian); prints both wall times and whether every
table is byte-identical.
"""

import argparse
import csv
import json
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

from compare import SNAKEMAKE, kenlm_tools, machine, measured  # noqa: E402
from gap import corpus_for, run  # noqa: E402
from generate_corpus import MarkovSource, write_corpus  # noqa: E402

TABLES = ["perplexity.tsv", "perplexity.md", "comparison.tsv", "comparison.md", "decades.tsv", "hardest.tsv"]


def sweep_corpus(root, seed=11):
    """A corpus where more training data helps: a small-vocabulary Markov source, so that half
    the training text already sees most words and the rest sharpens the estimates."""
    source = MarkovSource(vocab_size=400, successors=5, mix=0.1, end=0.08, zipf=1.1, seed=seed)
    write_corpus(root, source, train_sentences=3000, dev_sentences=200, seed=seed)
    return root


def sweep_config(corpus, kenlm_bin):
    """The demo sweep: orders x training fractions x pruning, eight models."""
    return {
        "corpus": {"source": str(corpus)},
        "orders": [2, 3],
        "train_fraction": [0.5, 1.0],
        "lmplz": {"prune": [[], [0, 1]], "discount_fallback": True},
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }


def read_rows(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def curve(args, bin_dir):
    corpus = corpus_for(args.work, args.words, args.seed)
    folder = Path(tempfile.mkdtemp(prefix="curve-", dir=args.work))
    config = {
        "corpus": {"source": str(corpus)},
        "orders": args.orders,
        "train_fraction": args.fractions,
        "kenlm": {"bin_dir": str(bin_dir)},
        "gap": {"enabled": False},
        "lmplz": {"vocab_pad": args.vocab_pad},
    }
    cost = run(folder, config)
    print(
        f"{args.words:,} words, orders {args.orders}, fractions {args.fractions} on {machine()}: "
        f"{cost['wall_s']:.1f} s wall, {cost['cpu_s']:.1f} s CPU, peak {cost['peak_mb']:.0f} MB ({folder})"
    )
    vocabulary = json.loads((folder / "results/text/vocabulary.json").read_text())["words"]
    job = read_rows(folder / "results/benchmarks/vocabulary/vocabulary.tsv")[0]
    print(f"The run's vocabulary V: {vocabulary:,} words, counted in {float(job['s']):.1f} s")
    print(
        "| Order | Train fraction | Train tokens | Vocabulary | Unknown words | PPL incl. OOVs | "
        "PPL, OOVs as words | PPL excl. OOVs | OOV rate |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    figures = {}
    for row in read_rows(folder / "results/tables/perplexity.tsv"):
        figures[row["model"]] = row
        print(
            f"| {row['order']} | {row['train_fraction']} | {int(row['train_tokens']):,} | "
            f"{int(row['vocabulary']):,} | {int(row['unknown_words']):,} | "
            f"{float(row['perplexity_including_oovs']):.2f} | {float(row['perplexity_oovs_as_words']):.2f} | "
            f"{float(row['perplexity_excluding_oovs']):.2f} | {float(row['oov_rate']):.2%} |"
        )
    # The ratio of perplexities including OOVs, each priced as <unk>, is what the table compared before.
    print("\n| Model | Baseline | Differs in | Ratio incl. OOVs | Ratio, OOVs as words | 95% CI | Real |")
    print("|---|---|---|---:|---:|---:|---|")
    for row in read_rows(folder / "results/tables/comparison.tsv"):
        model, baseline = figures[row["model"]], figures[row["baseline"]]
        incl = float(model["perplexity_including_oovs"]) / float(baseline["perplexity_including_oovs"])
        print(
            f"| {row['model']} | {row['baseline']} | {row['differs_in']} | {incl:.4f} | {float(row['ratio']):.4f} | "
            f"[{float(row['ratio_ci_low']):.4f}, {float(row['ratio_ci_high']):.4f}] | {row['real']} |"
        )


def slurm(args, bin_dir):
    # The tests' one-node cluster, which starts SLURM on this machine.
    sys.path.insert(0, str(REPO / "tests/support"))
    from one_node_slurm import one_node_slurm, snakemake_on_slurm

    root = Path(tempfile.mkdtemp(prefix="sweep-", dir=args.work))
    config = sweep_config(sweep_corpus(root / "corpus"), bin_dir)
    local, cluster = [], []
    with one_node_slurm(root / "slurm", cpus=args.slurm_cpus) as env:
        for attempt in range(args.repeat):
            local.append(run(root / f"local{attempt}", config)["wall_s"])
            (root / f"slurm{attempt}").mkdir()
            (root / f"slurm{attempt}/config.yaml").write_text((root / f"local{attempt}/config.yaml").read_text())
            with open(root / f"slurm{attempt}/snakemake.log", "w") as log:
                cluster.append(
                    measured(snakemake_on_slurm(SNAKEMAKE, root / f"slurm{attempt}"), env=env, stdout=log, stderr=log)[
                        "wall_s"
                    ]
                )
    same = all(
        (root / f"local{attempt}/results/tables" / table).read_bytes()
        == (root / f"slurm{attempt}/results/tables" / table).read_bytes()
        for attempt in range(args.repeat)
        for table in TABLES
    )
    print(
        f"demo sweep, 8 models, on {machine()} (SLURM node of {args.slurm_cpus} CPUs): local "
        f"{statistics.median(local):.1f} s, SLURM {statistics.median(cluster):.1f} s wall (median of "
        f"{args.repeat}; local {', '.join(f'{s:.1f}' for s in local)}; SLURM "
        f"{', '.join(f'{s:.1f}' for s in cluster)}); tables byte-identical: {same} ({root})"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["curve", "slurm"])
    parser.add_argument("--words", type=int, default=10_000_000)
    parser.add_argument("--orders", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--fractions", type=float, nargs="+", default=[0.01, 0.1, 0.3, 1.0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--vocab-pad", action="store_true", help="curve: lmplz.vocab_pad: true")
    parser.add_argument("--slurm-cpus", type=int, default=8)
    parser.add_argument("--work", default="/tmp/lmgap-benchmark")
    parser.add_argument("--kenlm-bin", default=None)
    args = parser.parse_args()
    Path(args.work).mkdir(parents=True, exist_ok=True)
    bin_dir = kenlm_tools(args.kenlm_bin)
    {"curve": curve, "slurm": slurm}[args.mode](args, bin_dir)


if __name__ == "__main__":
    main()
