"""Entry point of rule cost_table."""

from lmgap.report.cost import write_cost_tables
from lmgap.scriptio import run


def main(log):
    files = snakemake.params.files
    write_cost_tables(
        snakemake.params.models,
        files["ngram"],
        snakemake.params.splits,
        snakemake.output,
        files["neural"],
    )


run(snakemake, main)
