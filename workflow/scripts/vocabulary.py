from lmgap.corpus.vocabulary import write_vocabulary
from lmgap.scriptio import run


def main(log):
    scored = dict(zip(snakemake.params.splits, snakemake.input.scored))
    words = write_vocabulary(snakemake.input.train[0], scored, snakemake.output.vocabulary)
    log.write(f"the run's vocabulary: {words:,} words\n")


run(snakemake, main)
