"""Entry point of rule install_model: a trained n-gram model's files moved into its folder."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.scriptio import install, run

run(snakemake, lambda log: install(snakemake, log))
