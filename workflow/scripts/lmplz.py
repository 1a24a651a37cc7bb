"""Entry point of rule lmplz."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(snakemake.scriptdir).parent))

from lmgap.kenlm_run import temp_dir, train
from lmgap.scriptio import run

options = snakemake.params.options
run(
    snakemake,
    lambda log: train(
        lmplz=snakemake.input.lmplz,
        order=options["order"],
        mem_mb=snakemake.resources.mem_mb,
        tmpdir=temp_dir(snakemake.config, snakemake.wildcards.model),
        text=snakemake.input.text[0],
        arpa=snakemake.output.arpa,
        log=log,
        prune=options["prune"],
        discount_fallback=options["discount_fallback"],
    ),
)
