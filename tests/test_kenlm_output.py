"""Parsing query's summary, as printed with and without `-v summary`."""

import pytest

from lmgap.errors import LmgapError
from lmgap.kenlm_output import parse_summary

# query on a two-line text; without -v the last sentence's words share the summary's first line.
FULL = (
    "a=3 2 -0.39120662\tb=4 2 -0.4507923\tzz=0 1 -1.3802112\t</s>=2 1 -0.6812412\tTotal: -2.9034514 OOV: 1\n"
    "c=5 1 -0.9822712\td=6 2 -0.62054336\t</s>=2 1 -0.5\tTotal: -2.1 OOV: 0\n"
    "Perplexity including OOVs:\t3.04725342455878\n"
    "Perplexity excluding OOVs:\t2.016731314194437\n"
    "OOVs:\t1\n"
    "Tokens:\t7\n"
    "Name:query\tVmPeak:7560 kB\tVmRSS:4440 kB\tRSSMax:4312 kB\tuser:0\tsys:0.002874\n"
)


def test_summary_numbers_as_printed():
    assert parse_summary(FULL) == {
        "perplexity_including_oovs": 3.04725342455878,
        "perplexity_excluding_oovs": 2.016731314194437,
        "oovs": 1,
        "tokens": 7,
    }


def test_summary_glued_to_last_sentence():
    glued = FULL.replace("Total: -2.1 OOV: 0\nPerplexity", "Perplexity")
    assert parse_summary(glued)["perplexity_including_oovs"] == 3.04725342455878


def test_missing_summary_is_an_error():
    with pytest.raises(LmgapError, match="perplexity_excluding_oovs"):
        parse_summary("Perplexity including OOVs:\t3.0\nOOVs:\t1\nTokens:\t7\n")
