import pandas as pd

from lmgap.report import plots
from lmgap.report.documents import load_all_documents
from lmgap.scriptio import run


def main(log):
    table = plots.read_perplexity_table(snakemake.input.table)
    decades = pd.read_csv(snakemake.input.decades, sep="\t", keep_default_na=False)
    documents = load_all_documents(snakemake.input.documents, snakemake.input.years)
    plots.perplexity_by_order(table, snakemake.output.by_order)
    plots.hit_ratios(table, snakemake.output.hits)
    plots.learning_curve(table, snakemake.output.learning_curve)
    plots.perplexity_by_size(table, snakemake.output.by_size)
    plots.document_perplexity(documents, snakemake.output.documents)
    plots.perplexity_by_decade(decades, snakemake.output.by_decade)
    losses = {name: pd.read_csv(path, sep="\t") for name, path in zip(snakemake.params.trained, snakemake.input.losses)}
    plots.training_loss(losses, snakemake.output.training_loss)


run(snakemake, main)
