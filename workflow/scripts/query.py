"""Entry point of rule query: score a split once, write its raw sums and per-document scores."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.atomic import write_json
from lmgap.kenlm_output import parse_summary
from lmgap.kenlm_run import query
from lmgap.scoring import check_against_summary, write_documents
from lmgap.scriptio import run


def main(log):
    options = snakemake.params.options
    scores, summary = query(
        snakemake.input.query, snakemake.input.binary, snakemake.input.text, options["order"], log
    )
    log.write(summary)
    printed = parse_summary(summary)
    sums = scores.sums()
    check_against_summary(sums, printed)
    write_documents(scores.documents, snakemake.output.documents)
    metrics = {
        "model": snakemake.wildcards.model,
        "split": snakemake.wildcards.split,
        **options,
        "sums": sums,
        "kenlm_summary": printed,
    }
    write_json(metrics, snakemake.output.metrics)


run(snakemake, main)
