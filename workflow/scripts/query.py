"""Entry point of rule query: score a split once, write its raw sums and per-document scores."""

from lmgap.ngram.output import parse_summary
from lmgap.ngram.scoring import check_against_summary, query
from lmgap.record import write_split_record
from lmgap.scriptio import kenlm_tool, run


def main(log):
    options = snakemake.params.options
    scores, summary, loaded = query(
        kenlm_tool(snakemake, "query"), snakemake.input.binary, snakemake.input.text, options["order"], log
    )
    log.write(summary)
    printed = parse_summary(summary)
    sums = scores.sums()
    check_against_summary(sums, printed)
    names = {"model": snakemake.wildcards.model, "split": snakemake.wildcards.split}
    # Loading's seconds: what a format's structure costs before the first word (cost.tsv).
    record = {**names, **options, "kenlm_summary": printed, "sums": sums, "load_seconds": loaded}
    write_split_record(record, scores.documents, snakemake.output)


run(snakemake, main)
