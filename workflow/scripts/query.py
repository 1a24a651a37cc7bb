"""Entry point of rule query: score a split and write its metrics file."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.atomic import write_json
from lmgap.kenlm_output import parse_summary
from lmgap.kenlm_run import query
from lmgap.scriptio import run


def main(log):
    output = query(snakemake.input.query, snakemake.input.binary, snakemake.input.text, log)
    log.write(output)
    metrics = {
        "model": snakemake.wildcards.model,
        "split": snakemake.wildcards.split,
        **snakemake.params.options,
        **parse_summary(output),
    }
    write_json(metrics, snakemake.output.metrics)


run(snakemake, main)
