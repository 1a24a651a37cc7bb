from lmgap.corpus.rebuild import write_years
from lmgap.scriptio import run, split_dir


def main(log):
    known = write_years(split_dir(snakemake), snakemake.output.years)
    log.write(f"{known} lines of {split_dir(snakemake)} have a year\n")


run(snakemake, main)
