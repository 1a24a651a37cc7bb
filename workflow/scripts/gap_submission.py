from lmgap.gap.gonito import write_submission
from lmgap.keyed import join_keyed
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_submission(
        join_keyed(snakemake.input, snakemake.params.input_keys)["outs"], snakemake.input, snakemake.output
    ),
)
