"""A model's per-document scores on a split (its documents.tsv), as the report's tables read them."""

from ..record import DOCUMENT_COLUMNS
from ..tsv import read_tsv


def read_scores(path, rows=None, pair=None):
    """One row per in.tsv line: its number, tokens and OOVs as integers, its sums and perplexities;
    given rows, as many as pair (the record that counts the split's lines) says (a damaged file
    named, with the fix)."""
    return read_tsv(path, DOCUMENT_COLUMNS, integers=DOCUMENT_COLUMNS[:3], rows=rows, pair=pair)
