"""Entry point of rule score_neural: the same record of a split as rule query writes."""

from lmgap.neural.evaluate import score_text
from lmgap.neural.files import model_folder
from lmgap.neural.model import load, window_scorer
from lmgap.record import write_split_record
from lmgap.scriptio import run


def main(log):
    import torch

    torch.set_num_threads(snakemake.threads)
    window = snakemake.params.window
    model, tokenizer = load(model_folder(snakemake.input.model))
    scores, subwords = score_text(snakemake.input.text, tokenizer, window_scorer(model), **window)
    names = {"model": snakemake.wildcards.neural, "split": snakemake.wildcards.split}
    record = {**names, "family": "neural", **window, "subword_tokens": subwords, "sums": scores.sums()}
    write_split_record(record, scores.documents, snakemake.output)


run(snakemake, main)
