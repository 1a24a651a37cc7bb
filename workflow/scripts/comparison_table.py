from lmgap.report.comparison import write_comparison
from lmgap.scriptio import run


run(
    snakemake,
    lambda log: write_comparison(
        {"ngram": snakemake.params.models, "neural": snakemake.params.neural},
        snakemake.input.table,
        snakemake.params.files,
        snakemake.params.settings,
        snakemake.output,
    ),
)
