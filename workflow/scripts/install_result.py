from lmgap.scriptio import install_copies, run

run(snakemake, lambda log: install_copies(snakemake, log))
