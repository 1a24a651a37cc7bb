from lmgap.corpus.sampling import write_sample
from lmgap.scriptio import run

run(snakemake, lambda log: write_sample(snakemake.input.text, snakemake.params.fraction, snakemake.output.text, log))
