"""Entry point of rule training_text_stats."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.sampling import write_text_stats
from lmgap.scriptio import run

run(snakemake, lambda log: write_text_stats(snakemake.input.text, snakemake.output.stats))
