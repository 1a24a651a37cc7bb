from pathlib import Path

from lmgap.ngram.build import build_kenlm
from lmgap.scriptio import run


def main(log):
    max_order = int(snakemake.wildcards.max_order)
    bin_dir = Path(snakemake.output.lmplz).parent
    build_kenlm(snakemake.params.version, snakemake.params.sha256, max_order, bin_dir, snakemake.threads, log)


run(snakemake, main)
