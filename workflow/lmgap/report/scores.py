"""A model's per-document scores on a split (its documents.tsv), as the report's tables read them."""

import pandas as pd

from ..files import DamagedRecord, read_table_record
from ..record import DOCUMENT_COLUMNS


def read_scores(path):
    """One row per in.tsv line: its number, tokens and OOVs as integers, its sums and perplexities
    (a damaged file named, with the fix)."""
    integers = {column: "int64" for column in DOCUMENT_COLUMNS[:3]}
    frame = read_table_record(path, lambda path: pd.read_csv(path, sep="\t", dtype=integers))
    if frame.empty or list(frame.columns) != list(DOCUMENT_COLUMNS) or frame.isna().any(axis=None):
        raise DamagedRecord(path, f"not a table of {', '.join(DOCUMENT_COLUMNS)} with every cell filled in")
    return frame
