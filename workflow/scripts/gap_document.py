from lmgap.gap.document import write_document_predictions
from lmgap.scriptio import run, split_dir

run(
    snakemake,
    lambda log: write_document_predictions(
        split_dir(snakemake),
        snakemake.input.heldout,
        snakemake.input.gap_words,
        {
            "decays": snakemake.params.decays,
            "rarity": snakemake.params.rarity,
            "top_k": snakemake.params.top_k,
            "variant": snakemake.wildcards.context,
        },
        snakemake.output,
        log,
    ),
)
