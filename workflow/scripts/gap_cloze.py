"""Entry point of rule gap_cloze: a cloze model predicts each gap from the words on both sides of it."""

from lmgap.neural.cloze_gaps import ClozePredictor, load_cloze, write_cloze
from lmgap.neural.files import model_folder
from lmgap.scriptio import run, split_dir


def main(log):
    import torch

    torch.set_num_threads(snakemake.threads)
    predictor = ClozePredictor(*load_cloze(model_folder(snakemake.input.model)), snakemake.params.batch_size)
    write_cloze(predictor, split_dir(snakemake), snakemake.input, snakemake.params.top_k, snakemake.output, log)


run(snakemake, main)
