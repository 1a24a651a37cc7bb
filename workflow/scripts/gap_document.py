from lmgap.gap.document import write_document_predictions
from lmgap.scriptio import run, split_dir

run(
    snakemake,
    lambda log: write_document_predictions(
        split_dir(snakemake),
        snakemake.input.heldout,
        snakemake.input.gap_words,
        {**snakemake.params, "variant": snakemake.wildcards.context},
        snakemake.output,
        log,
    ),
)
