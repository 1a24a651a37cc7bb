from lmgap.gap.blend import write_blend
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_blend(snakemake.params.members, snakemake.params.cross_fit, snakemake.output),
)
