from lmgap.corpus.fetch import write_fingerprint
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_fingerprint(
        snakemake.input.record,
        snakemake.wildcards.split,
        snakemake.output.fingerprint,
        snakemake.params.scored_for_gaps,
    ),
)
