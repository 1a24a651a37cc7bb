"""Entry point of rule gap_candidates."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.gap.candidates import write_candidates
from lmgap.scriptio import run, split_dir

run(
    snakemake,
    lambda log: write_candidates(
        {"text": snakemake.input.text, "split_dir": split_dir(snakemake), "heldout": snakemake.input.heldout},
        {"per_context": snakemake.params.per_context, "frequent": snakemake.params.frequent},
        snakemake.output,
        log,
    ),
)
