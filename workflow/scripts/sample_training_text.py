from lmgap.corpus.sampling import write_sample
from lmgap.corpus.textrecord import write_text_record
from lmgap.scriptio import run


def main(log):
    write_sample(snakemake.input.text, snakemake.params.fraction, snakemake.output.text, log)
    write_text_record(snakemake.output.text)


run(snakemake, main)
