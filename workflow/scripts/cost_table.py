from lmgap.report.cost import write_cost_tables
from lmgap.scriptio import run

run(snakemake, lambda log: write_cost_tables(snakemake.input, snakemake.params, snakemake.output))
