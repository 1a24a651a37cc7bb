from lmgap.corpus.fetch import write_manifest
from lmgap.scriptio import run

run(snakemake, lambda log: write_manifest(snakemake.input.record, snakemake.output.manifest))
