"""Entry point of rule install_neural: a trained neural model's files moved into its folder."""

from lmgap.scriptio import install, run

run(snakemake, lambda log: install(snakemake, log))
