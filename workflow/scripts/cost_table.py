"""Entry point of rule cost_table."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.scriptio import run
from lmgap.tables import write_cost_tables


def per_split(paths, names, splits):
    """{name: its files} from files in the order names x splits."""
    paths = list(paths)
    return {name: paths[i * len(splits) : (i + 1) * len(splits)] for i, name in enumerate(names)}


def main(log):
    models, neural = snakemake.params.models, snakemake.params.neural
    names = sorted(models)
    splits = snakemake.params.splits
    files = {}
    for kind in ("train", "usage", "binary", "counts"):
        for name, path in zip(names, snakemake.input[kind]):
            files[(kind, name)] = path
    # The metrics come n-grams first, then the neural models (see scored_outputs).
    metrics = per_split(snakemake.input.metrics, names + sorted(neural), splits)
    for name, paths in per_split(snakemake.input.query, names, splits).items():
        files[("query", name)] = paths
        files[("metrics", name)] = metrics[name]
    trained = dict(zip([name for name in sorted(neural) if neural[name]["record"]], snakemake.input.neural_train))
    scores = per_split(snakemake.input.neural_score, sorted(neural), splits)
    costs = {
        name: {
            "train": trained.get(name),
            "record": entry["record"],
            "score": scores[name],
            "metrics": metrics[name],
            "folder": entry["folder"],
            "train_fraction": entry["train_fraction"],
        }
        for name, entry in neural.items()
    }
    write_cost_tables(models, files, splits, snakemake.output.tsv, snakemake.output.md, costs)


run(snakemake, main)
