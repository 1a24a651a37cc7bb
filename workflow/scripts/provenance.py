from pathlib import Path

import snakemake as snakemake_package

from lmgap.report.provenance import write_provenance
from lmgap.scriptio import run

# The checkout this workflow's code is in (not the working folder's).
root = Path(snakemake.scriptdir).resolve().parents[1]
run(
    snakemake,
    lambda log: write_provenance(
        snakemake.input, snakemake.params, snakemake.output, root, snakemake_package.__version__
    ),
)
