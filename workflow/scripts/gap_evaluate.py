from lmgap.gap.evaluate import evaluate
from lmgap.scriptio import run, split_dir

run(
    snakemake,
    lambda log: evaluate(
        snakemake.input.out,
        split_dir(snakemake) / "expected.tsv",
        snakemake.output.metrics,
        snakemake.output.lines,
        snakemake.input.candidates[0] if snakemake.input.candidates else None,
        snakemake.params.variant,
    ),
)
