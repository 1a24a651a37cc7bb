from lmgap.ngram.build import record_user_tools
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: record_user_tools(snakemake.params.bin_dir, [int(snakemake.wildcards.order)], snakemake.output.record),
)
