from pathlib import Path

from lmgap.gap.gonito import write_submission
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_submission(
        snakemake.params.outs,
        snakemake.input.weights[0],
        snakemake.input.provenance,
        Path(snakemake.output.gonito).parent,
    ),
)
