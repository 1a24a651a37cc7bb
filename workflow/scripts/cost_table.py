from lmgap.report.cost import write_cost_tables
from lmgap.scriptio import run


def main(log):
    write_cost_tables(snakemake.input.metrics, snakemake.params.files, snakemake.params.settings, snakemake.output)


run(snakemake, main)
