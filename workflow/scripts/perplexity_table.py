from lmgap.report.perplexity import write_tables
from lmgap.scriptio import run

run(snakemake, lambda log: write_tables(snakemake.input, snakemake.params, snakemake.output))
