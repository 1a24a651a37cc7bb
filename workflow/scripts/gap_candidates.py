from lmgap.gap.candidates import workers_within, write_candidates
from lmgap.ngram.memory import text_mb
from lmgap.scriptio import run, split_dir

# The processes whose pass fits the memory the job reserved (gap_index_mem_mb), one for a small text.
workers = workers_within(snakemake.threads, snakemake.resources.mem_mb, text_mb(snakemake.input.text))

run(
    snakemake,
    lambda log: write_candidates(
        {**snakemake.input, "split_dir": split_dir(snakemake)},
        {"per_context": snakemake.params.per_context, "frequent": snakemake.params.frequent, "workers": workers},
        snakemake.output,
        log,
    ),
)
