"""Entry point of rule gap_masked: a masked model predicts each gap from both contexts."""

from lmgap.neural.files import model_folder
from lmgap.neural.masked import MaskedPredictor, load_masked, write_masked
from lmgap.scriptio import run, split_dir


def main(log):
    import torch

    torch.set_num_threads(snakemake.threads)
    folder = model_folder(snakemake.input.model)
    model, tokenizer = load_masked(folder)
    predictor = MaskedPredictor(model, tokenizer, snakemake.params.max_length, snakemake.params.batch_size, folder)
    write_masked(predictor, split_dir(snakemake), snakemake.params.top_k, snakemake.output, log)


run(snakemake, main)
