from lmgap.corpus.rebuild import rebuild_split
from lmgap.corpus.textrecord import write_text_record
from lmgap.scriptio import run, split_dir


def main(log):
    lines = rebuild_split(split_dir(snakemake), snakemake.output.text)
    write_text_record(snakemake.output.text)
    log.write(f"rebuilt {lines} lines from {split_dir(snakemake)}\n")


run(snakemake, main)
