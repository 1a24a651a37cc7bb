from lmgap.corpus.sampling import write_sample
from lmgap.scriptio import run


def main(log):
    lines, total = write_sample(snakemake.input.text, snakemake.params.fraction, snakemake.output.text)
    log.write(f"kept {lines} of {total} lines (train_fraction {snakemake.params.fraction})\n")


run(snakemake, main)
