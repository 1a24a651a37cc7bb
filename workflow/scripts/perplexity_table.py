"""Entry point of rule perplexity_table."""

from lmgap.report.perplexity import write_tables
from lmgap.scriptio import run


def main(log):
    files = {**snakemake.params.models, **snakemake.params.neural}
    write_tables(snakemake.input.metrics, files, snakemake.output)


run(snakemake, main)
