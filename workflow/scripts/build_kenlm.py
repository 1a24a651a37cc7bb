from lmgap.ngram.build import build_kenlm
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: build_kenlm(
        snakemake.params, int(snakemake.wildcards.max_order), snakemake.output, snakemake.threads, log
    ),
)
