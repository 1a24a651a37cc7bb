import json

from lmgap.neural.train import train
from lmgap.scriptio import run


def main(log):
    record = train(snakemake.input, snakemake.params.settings, snakemake.output, snakemake.threads)
    log.write(json.dumps(record, indent=2, sort_keys=True) + "\n")


run(snakemake, main)
