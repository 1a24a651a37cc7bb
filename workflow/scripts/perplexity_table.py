"""Entry point of rule perplexity_table."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.report.perplexity import write_tables
from lmgap.scriptio import run


def main(log):
    files = {**snakemake.params.models, **snakemake.params.neural}
    write_tables(snakemake.input.metrics, files, snakemake.output)


run(snakemake, main)
