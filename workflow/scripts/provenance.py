from pathlib import Path

import snakemake as snakemake_package

from lmgap.report.provenance import checkout, write_provenance
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_provenance(
        snakemake.output.provenance,
        snakemake.input.manifest,
        dict(zip(snakemake.params.tools, snakemake.input.tools)),
        dict(snakemake.params.items()),
        {
            # The checkout this workflow's code is in (not the working folder's).
            "checkout": checkout(Path(snakemake.scriptdir).resolve().parents[1]),
            "snakemake": snakemake_package.__version__,
        },
    ),
)
