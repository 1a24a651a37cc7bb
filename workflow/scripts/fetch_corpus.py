from lmgap.corpus.fetch import fetch_corpus
from lmgap.scriptio import run

run(snakemake, lambda log: fetch_corpus(snakemake.params, snakemake.output.record, log))
