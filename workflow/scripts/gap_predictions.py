from lmgap.gap.submission import write_model_predictions
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_model_predictions(
        snakemake.input,
        {"variant": snakemake.wildcards.context, "top_k": snakemake.params.top_k},
        snakemake.output,
    ),
)
