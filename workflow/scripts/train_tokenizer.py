from lmgap.neural.tokenizer import train_tokenizer
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: train_tokenizer(snakemake.input.text, snakemake.params.vocab_size, snakemake.output.tokenizer),
)
