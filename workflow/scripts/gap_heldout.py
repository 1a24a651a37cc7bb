"""Entry point of rule gap_heldout."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.gap.heldout import write_heldout
from lmgap.scriptio import run


def main(log):
    train_dir = Path(snakemake.params.train_dir)
    with open(snakemake.input.manifest) as handle:
        lines = json.load(handle)["files"][f"{train_dir.name}/expected.tsv"]["lines"]
    held = write_heldout(
        train_dir, lines, snakemake.params.wanted, snakemake.output.heldout, snakemake.output.gap_words
    )
    log.write(f"held out {held} of {lines} lines of {train_dir}\n")


run(snakemake, main)
