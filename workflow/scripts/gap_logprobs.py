"""Entry point of rule gap_logprobs."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))
# A kenlm Python module built for orders above the .venv's comes first.
sys.path[:0] = list(snakemake.input.kenlm_python)

from lmgap.gap.predict import write_scores
from lmgap.scriptio import run, split_dir

run(
    snakemake,
    lambda log: write_scores(
        snakemake.input.binary,
        split_dir(snakemake),
        snakemake.input.candidates,
        snakemake.threads,
        snakemake.output.logprobs,
        log,
    ),
)
