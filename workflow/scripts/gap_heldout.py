from lmgap.gap.heldout import write_heldout
from lmgap.scriptio import run, split_dir


def main(log):
    train_dir = split_dir(snakemake, snakemake.config["train_split"])
    held = write_heldout(train_dir, snakemake.params.wanted, snakemake.output.heldout, snakemake.output.gap_words)
    log.write(f"held out {held} lines of {train_dir}\n")


run(snakemake, main)
