"""Entry point of rule gap_table."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.report.gap import write_model_tables
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_model_tables(
        snakemake.params.systems,
        snakemake.params.splits,
        list(snakemake.input.metrics),
        list(snakemake.input.stats),
        snakemake.params.timed,
        list(snakemake.input.seconds),
        list(snakemake.input.coverage),
        list(snakemake.input.weights),
        snakemake.params.base,
        snakemake.params.top_k,
        snakemake.output.tsv,
        snakemake.output.md,
    ),
)
