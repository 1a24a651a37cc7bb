"""Entry point of rule perplexity_table."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.scriptio import run
from lmgap.tables import write_tables


def by_model(paths):
    """{model: path} for files under results/models/{model}/."""
    return {Path(path).parent.name: path for path in paths}


run(
    snakemake,
    lambda log: write_tables(
        snakemake.input.metrics,
        by_model(snakemake.input.counts),
        by_model(snakemake.input.binary),
        snakemake.output.tsv,
        snakemake.output.md,
    ),
)
