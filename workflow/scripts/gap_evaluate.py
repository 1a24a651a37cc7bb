from lmgap.gap.evaluate import evaluate
from lmgap.scriptio import run, split_dir

run(
    snakemake,
    lambda log: evaluate(
        snakemake.input, split_dir(snakemake) / "expected.tsv", snakemake.params.variant, snakemake.output
    ),
)
