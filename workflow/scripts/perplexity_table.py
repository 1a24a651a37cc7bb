from lmgap.report.perplexity import write_tables
from lmgap.scriptio import run


def main(log):
    write_tables(
        snakemake.input.metrics,
        snakemake.input.vocabulary,
        snakemake.params.files,
        snakemake.params.settings,
        snakemake.output,
    )


run(snakemake, main)
