"""Entry point of rule gap_predictions."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.gap.submission import write_model_predictions
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_model_predictions(
        snakemake.input.candidates,
        snakemake.input.logprobs,
        snakemake.input.coverage,
        snakemake.wildcards.context,
        snakemake.params.top_k,
        snakemake.output.out,
        snakemake.output.stats,
    ),
)
