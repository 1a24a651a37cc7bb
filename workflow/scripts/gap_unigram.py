"""Entry point of rule gap_unigram."""

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
