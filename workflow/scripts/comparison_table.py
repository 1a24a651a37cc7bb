"""Entry point of rule comparison_table."""

from lmgap.report.comparison import write_comparison
from lmgap.scriptio import run


run(
    snakemake,
    lambda log: write_comparison(
        {"ngram": snakemake.params.models, "neural": snakemake.params.neural},
        {"table": snakemake.input.table, "documents": snakemake.params.documents},
        snakemake.params.settings,
        snakemake.output,
    ),
)
