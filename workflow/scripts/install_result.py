from lmgap.scriptio import install_copies, run

# What the user reads and copies: no seal beside it (no job reads it; the parse compares it with its staged copy).
run(snakemake, lambda log: install_copies(snakemake, log), seal_outputs=False)
