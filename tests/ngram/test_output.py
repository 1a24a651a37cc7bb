"""Parsing query's summary, on what the real query prints for a hand-made model and text."""

import subprocess

import pytest

from lmgap.errors import LmgapError
from lmgap.ngram.output import parse_summary
from test_record import TEXT, TINY_ARPA


@pytest.fixture
def printed(tmp_path, kenlm_bin):
    """query's output on TEXT with TINY_ARPA, by verbosity: its default (every token, each line's
    total, the summary), and the summary alone."""
    (tmp_path / "model.arpa").write_text(TINY_ARPA)

    def run(*verbosity, text=TEXT):
        done = subprocess.run(
            [str(kenlm_bin / "query"), *verbosity, str(tmp_path / "model.arpa")],
            input=text,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    return run


def test_the_summary_read_follows_from_the_lines_query_printed(printed):
    lines = [line.split("\t") for line in printed().splitlines() if "Total: " in line]
    tokens = [token for line in lines for token in line[:-1]]
    totals = [float(line[-1].split()[1]) for line in lines]
    oov_probabilities = [float(token.split()[2]) for token in tokens if token.split()[0].endswith("=0")]
    for output in (printed(), printed("-v", "summary")):
        summary = parse_summary(output)
        assert (summary["tokens"], summary["oovs"]) == (len(tokens), len(oov_probabilities)) == (9, 2)
        # query adds each line in single precision: the printed totals are that, so the
        # perplexities follow from them to single precision.
        assert summary["perplexity_including_oovs"] == pytest.approx(10 ** (-sum(totals) / 9), rel=1e-6)
        in_vocabulary = sum(totals) - sum(oov_probabilities)
        assert summary["perplexity_excluding_oovs"] == pytest.approx(10 ** (-in_vocabulary / 7), rel=1e-6)


def test_a_text_without_a_final_newline_puts_the_summary_after_its_last_words(printed):
    output = printed(text=TEXT.rstrip("\n"))
    assert "\tPerplexity including OOVs:\t" in output
    assert parse_summary(output) == parse_summary(printed("-v", "summary", text=TEXT.rstrip("\n")))


def test_a_summary_without_a_figure_is_an_error(printed):
    output = "".join(line for line in printed("-v", "summary").splitlines(keepends=True) if "excluding" not in line)
    with pytest.raises(LmgapError, match="query printed no perplexity_excluding_oovs"):
        parse_summary(output)
