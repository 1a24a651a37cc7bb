"""Entry point of rule sample_training_text."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.sampling import write_sample
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_sample(
        snakemake.input.text, snakemake.params.fraction, snakemake.output.text, snakemake.output.stats
    ),
)
