"""Entry point of rule gap_unigram."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.gap.submission import write_unigram_predictions
from lmgap.scriptio import run, split_dir

run(
    snakemake,
    lambda log: write_unigram_predictions(
        snakemake.input.gap_words,
        snakemake.input.heldout,
        split_dir(snakemake),
        snakemake.params.top_k,
        snakemake.output.out,
        snakemake.output.stats,
    ),
)
