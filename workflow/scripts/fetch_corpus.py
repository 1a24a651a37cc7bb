from lmgap.corpus.fetch import fetch_corpus
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: fetch_corpus(
        source=snakemake.params.source,
        commit=snakemake.params.commit,
        clone_dir=snakemake.params.clone_dir,
        required=snakemake.params.required,
        record_path=snakemake.output.record,
        log=log,
    ),
)
