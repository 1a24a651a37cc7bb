from lmgap.report.comparison import write_comparison
from lmgap.scriptio import run

run(snakemake, lambda log: write_comparison(snakemake.input, snakemake.params, snakemake.output))
