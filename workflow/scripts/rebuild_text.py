"""Entry point of rule rebuild_text."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.rebuild import rebuild_split
from lmgap.scriptio import run


def main(log):
    lines = rebuild_split(snakemake.params.split_dir, snakemake.output.text)
    log.write(f"rebuilt {lines} lines from {snakemake.params.split_dir}\n")


run(snakemake, main)
