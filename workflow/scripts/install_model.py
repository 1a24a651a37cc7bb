from lmgap.scriptio import install, run

run(snakemake, lambda log: install(snakemake, log))
