"""Entry point of rule train_neural."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.neural.train import train
from lmgap.scriptio import run


def main(log):
    out = snakemake.output
    record = train(
        snakemake.input.text,
        snakemake.input.tokenizer,
        snakemake.params.settings,
        out.model,
        out.loss,
        out.record,
        snakemake.threads,
    )
    log.write(json.dumps(record, indent=2, sort_keys=True) + "\n")


run(snakemake, main)
