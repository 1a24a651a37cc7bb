from lmgap.gap.gonito import write_submission
from lmgap.scriptio import run

run(snakemake, lambda log: write_submission(snakemake.params.outs, snakemake.input, snakemake.output))
