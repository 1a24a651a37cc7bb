from lmgap.gap.submission import write_model_predictions
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_model_predictions(
        snakemake.input, {"top_k": snakemake.params.top_k, "variant": snakemake.wildcards.context}, snakemake.output
    ),
)
