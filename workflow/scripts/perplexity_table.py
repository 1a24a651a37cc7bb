"""Entry point of rule perplexity_table."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.scriptio import run
from lmgap.tables import write_tables

run(
    snakemake,
    lambda log: write_tables(snakemake.input.metrics, snakemake.output.tsv, snakemake.output.md),
)
