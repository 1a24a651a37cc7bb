from lmgap.gap.blend import write_blend
from lmgap.keyed import join_keyed
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_blend(
        join_keyed(snakemake.input, snakemake.params.input_keys), snakemake.params.cross_fit, snakemake.output
    ),
)
