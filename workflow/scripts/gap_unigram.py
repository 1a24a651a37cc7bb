from lmgap.gap.submission import write_unigram_predictions
from lmgap.scriptio import run, split_dir

run(
    snakemake,
    lambda log: write_unigram_predictions(
        snakemake.input, split_dir(snakemake), snakemake.params.top_k, snakemake.output
    ),
)
