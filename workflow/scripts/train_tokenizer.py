"""Entry point of rule train_tokenizer."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.neural.tokenizer import train_tokenizer
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: train_tokenizer(snakemake.input.text, snakemake.params.vocab_size, snakemake.output.tokenizer),
)
