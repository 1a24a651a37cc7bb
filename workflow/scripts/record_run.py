"""Entry point of rule record_run."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

import snakemake as snakemake_package

from lmgap.provenance import write_provenance
from lmgap.scriptio import run

run(
    snakemake,
    lambda log: write_provenance(
        snakemake.output.provenance,
        snakemake.input.manifest,
        {tool: snakemake.input[tool] for tool in ("lmplz", "query", "build_binary")},
        snakemake.params.kenlm,
        snakemake.params.experiment,
        snakemake_package.__version__,
    ),
)
