from lmgap.neural.cloze_train import train_cloze
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: train_cloze(snakemake.input, snakemake.params.settings, snakemake.output, snakemake.threads, log),
)
