"""Entry point of rule document_years."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.rebuild import write_years
from lmgap.scriptio import run


def main(log):
    known = write_years(snakemake.params.split_dir, snakemake.output.years)
    log.write(f"{known} lines of {snakemake.params.split_dir} have a year\n")


run(snakemake, main)
