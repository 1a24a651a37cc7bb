"""Entry point of rule build_binary."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.kenlm_run import build_binary
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: build_binary(
        snakemake.input.build_binary, snakemake.input.arpa, snakemake.output.binary, log
    ),
)
