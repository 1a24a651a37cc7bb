"""Entry point of rule gap_neural: a causal model rescores the n-gram's best words of each gap."""

from lmgap.neural.files import model_folder
from lmgap.neural.model import load
from lmgap.neural.rescore import Rescorer, write_rescored
from lmgap.scriptio import run, split_dir


def main(log):
    import torch

    torch.set_num_threads(snakemake.threads)
    model, tokenizer = load(model_folder(snakemake.input.model))
    rescorer = Rescorer(model, tokenizer, snakemake.params.max_length, snakemake.params.right_tokens)
    write_rescored(rescorer, split_dir(snakemake), snakemake.input, snakemake.params, snakemake.output, log)


run(snakemake, main)
