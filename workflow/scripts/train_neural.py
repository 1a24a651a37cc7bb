from lmgap.neural.train import train
from lmgap.scriptio import run

run(snakemake, lambda log: train(snakemake.input, snakemake.params.settings, snakemake.output, snakemake.threads, log))
