"""A model's per-document scores on a split (its documents.tsv), as the report's tables read them."""

import pandas as pd

from ..record import DOCUMENT_COLUMNS


def read_scores(path):
    """One row per in.tsv line: its number, tokens and OOVs as integers, its sums and perplexities."""
    return pd.read_csv(path, sep="\t", dtype={column: "int64" for column in DOCUMENT_COLUMNS[:3]})
