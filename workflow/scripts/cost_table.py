"""Entry point of rule cost_table."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.scriptio import run
from lmgap.tables import write_cost_tables


def main(log):
    models = snakemake.params.models
    names = sorted(models)
    splits = snakemake.params.splits
    files = {}
    for kind in ("train", "usage", "binary", "counts"):
        for name, path in zip(names, snakemake.input[kind]):
            files[(kind, name)] = path
    queries = list(snakemake.input.query)
    for i, name in enumerate(names):
        files[("query", name)] = queries[i * len(splits) : (i + 1) * len(splits)]
    write_cost_tables(models, files, splits, snakemake.output.tsv, snakemake.output.md)


run(snakemake, main)
