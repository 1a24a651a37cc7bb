from lmgap.ngram.build import build_python_module
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: build_python_module(snakemake.params, int(snakemake.wildcards.max_order), snakemake.output.module, log),
)
