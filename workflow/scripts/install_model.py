"""Entry point of rule install_model: a trained n-gram model's files moved into its folder."""

from lmgap.scriptio import install, run

run(snakemake, lambda log: install(snakemake, log))
