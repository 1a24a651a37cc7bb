"""Entry point of rule comparison_table."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.report.comparison import write_comparison
from lmgap.scriptio import run


def main(log):
    models, neural, splits = snakemake.params.models, snakemake.params.neural, snakemake.params.splits
    # The documents files come in the order n-grams x splits, then neural models x splits.
    paths = iter(snakemake.input.documents)
    documents = {(model, split): next(paths) for model in [*sorted(models), *sorted(neural)] for split in splits}
    write_comparison(
        models,
        splits,
        documents,
        snakemake.input.table,
        snakemake.params.resamples,
        snakemake.params.seed,
        snakemake.output.tsv,
        snakemake.output.md,
        neural,
    )


run(snakemake, main)
