from lmgap.report.gap import write_model_tables
from lmgap.scriptio import run

run(snakemake, lambda log: write_model_tables(snakemake.input, snakemake.params, snakemake.output))
