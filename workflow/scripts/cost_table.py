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
    benchmarks = {}
    for rule in ("lmplz", "build_binary"):
        for name, path in zip(names, snakemake.input[rule]):
            benchmarks[(rule, name)] = [path]
    queries = list(snakemake.input.query)
    for i, name in enumerate(names):
        benchmarks[("query", name)] = queries[i * len(splits) : (i + 1) * len(splits)]
    binaries = dict(zip(names, snakemake.input.binary))
    write_cost_tables(models, benchmarks, binaries, splits, snakemake.output.tsv, snakemake.output.md)


run(snakemake, main)
