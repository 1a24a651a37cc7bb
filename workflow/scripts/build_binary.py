"""Entry point of rule build_binary: the binary model, and the n-gram counts of its ARPA file."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.atomic import write_json
from lmgap.kenlm_output import arpa_ngram_counts
from lmgap.kenlm_run import build_binary
from lmgap.scriptio import run


def main(log):
    counts = arpa_ngram_counts(snakemake.input.arpa)
    build_binary(snakemake.input.build_binary, snakemake.input.arpa, snakemake.output.binary, log)
    # ngrams[k - 1]: distinct k-grams the model holds.
    write_json({"ngrams": [counts[k] for k in sorted(counts)]}, snakemake.output.counts)


run(snakemake, main)
