"""Entry point of rule build_kenlm."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.kenlm_build import build_kenlm
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: build_kenlm(
        version=snakemake.params.version,
        sha256=snakemake.params.sha256,
        max_order=snakemake.params.max_order,
        bin_dir=Path(snakemake.output.lmplz).parent,
        threads=snakemake.threads,
        log=log,
    ),
)
