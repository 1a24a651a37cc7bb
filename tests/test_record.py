"""Every figure against worked examples and a hand-made model scored by the real query."""

import io
import math
import re

import numpy as np
import pytest

from lmgap.errors import LmgapError
from lmgap.ngram.output import parse_summary
from lmgap.ngram.scoring import check_against_summary, query, score_output
from lmgap.record import (
    hit_ratios,
    kenlm_perplexities,
    oov_rate,
    split_figures,
    srilm_perplexities,
)

# A trigram model small enough to score by hand (KenLM's backoff rules).
TINY_ARPA = """\\data\\
ngram 1=6
ngram 2=3
ngram 3=1

\\1-grams:
-1.5\t<unk>\t0
-99\t<s>\t-0.5
-0.7\t</s>\t0
-0.6\ta\t-0.3
-0.8\tb\t-0.2
-0.9\tc\t-0.1

\\2-grams:
-0.2\t<s> a\t-0.4
-0.3\ta b\t-0.25
-0.35\tb c\t0

\\3-grams:
-0.1\t<s> a b

\\end\\
"""
# Per token: (log10 p by hand, longest n-gram matched, OOV). `a=1` is a word with `=` in it.
BY_HAND = [
    [
        (-0.2, 2, False),  # a | <s>: bigram <s> a
        (-0.1, 3, False),  # b | <s> a: trigram <s> a b
        (-0.25 - 0.35, 2, False),  # c | a b: backoff(a b) + p(c | b)
        (0 - 0.1 - 0.6, 1, False),  # a | b c: backoff(b c) + backoff(c) + p(a)
        (-0.3 - 1.5, 1, True),  # zzz: backoff(a) + p(<unk>)
        (0 - 0.7, 1, False),  # </s> | a zzz: backoff(<unk>) + p(</s>)
    ],
    [
        (-0.5 - 1.5, 1, True),  # a=1 | <s>: backoff(<s>) + p(<unk>)
        (-0.8, 1, False),  # b | <unk>
        (-0.2 - 0.7, 1, False),  # </s> | b: backoff(b) + p(</s>)
    ],
]
TEXT = "a b c a zzz\na=1 b\n"


def score_text(tmp_path, kenlm_bin, arpa, text, order):
    (tmp_path / "model.arpa").write_text(arpa)
    (tmp_path / "text.txt").write_text(text)
    with open(tmp_path / "query.log", "w") as log:
        return query(kenlm_bin / "query", tmp_path / "model.arpa", tmp_path / "text.txt", order, log)[:2]


# `ngram -ppl` output that SRILM's users published (sentences, words, OOVs, logprob, ppl, ppl1 as
# printed), OOVs in each: a 3-word Vietnamese sentence whose per-word probabilities were printed
# too (learn-play-learn: p(hoc | <s>) = -1.556302, <unk>, -1.079181, </s> -0.30103), a Chinese
# question, a line that is only an OOV (ppl1 undefined), a 1,640-sentence held-out set of a
# Kaldi recipe and a German novel's 102 sentences.
SRILM_PRINTED = [
    (1, 3, 1, "-2.936513", "9.524403", "29.39386"),
    (1, 6, 1, "-13.8947", "206.912", "601.096"),
    (1, 1, 1, "-1.291743", "19.57686", "undefined"),
    (1640, 27119, 170, "-50683.1", "59.2678", "75.9811"),
    (102, 1648, 1, "-3094.877", "58.8183", "75.70068"),
]


def tolerance(logprob, printed, counted):
    """How far a value computed from the printed (rounded) logprob may lie from SRILM's printed
    one: the logprob's last digit moves the exponent, the printed value's own last digit rounds."""
    last = lambda text: 10.0 ** -len(text.split(".")[1])  # noqa: E731
    return math.log(10) * last(logprob) / 2 / counted + last(printed) / 2 / float(printed)


@pytest.mark.parametrize("sentences, words, oovs, logprob, ppl, ppl1", SRILM_PRINTED)
def test_srilm_columns_reproduce_what_srilm_printed(sentences, words, oovs, logprob, ppl, ppl1):
    figures = srilm_perplexities(float(logprob), words=words, oovs=oovs, sentences=sentences)
    counted = words - oovs
    assert figures["srilm_ppl"] == pytest.approx(float(ppl), rel=tolerance(logprob, ppl, counted + sentences))
    if ppl1 == "undefined":
        assert math.isnan(figures["srilm_ppl1"])
    else:
        assert figures["srilm_ppl1"] == pytest.approx(float(ppl1), rel=tolerance(logprob, ppl1, counted))


def test_srilm_figures_of_the_published_sentence_leave_its_oov_out():
    # The Vietnamese sentence as query would print it: SRILM's per-word probabilities, the OOV
    # priced as <unk> (any value: SRILM leaves it out, and so must srilm_ppl and srilm_ppl1).
    probs = np.float32([-1.556302, -2.5, -1.079181, -0.30103])
    total = float(np.add.accumulate(probs)[-1])
    line = "hoc=5 1 -1.556302\tzzz=0 1 -2.5\tchoi=7 2 -1.079181\t</s>=2 2 -0.30103\t"
    scores, _ = score_output([f"{line}Total: {total!r} OOV: 1\n".encode()], 3)
    figures = split_figures(scores.sums())
    sentences, words, oovs, logprob, ppl, ppl1 = SRILM_PRINTED[0]
    assert (scores.sentences, scores.tokens - scores.sentences, scores.oovs) == (sentences, words, oovs)
    assert figures["srilm_ppl"] == pytest.approx(float(ppl), rel=tolerance(logprob, ppl, 3))
    assert figures["srilm_ppl1"] == pytest.approx(float(ppl1), rel=tolerance(logprob, ppl1, 2))


def test_one_billion_word_oov_rate_example(tmp_path, kenlm_bin):
    # "<S> I like bench-marking </S>" with bench-marking out of vocabulary: 1/4.
    assert oov_rate(tokens=4, oovs=1) == 0.25
    arpa = re.sub(r"\bb\b", "like", re.sub(r"\ba\b", "I", TINY_ARPA))
    scores, _ = score_text(tmp_path, kenlm_bin, arpa, "I like bench-marking\n", order=3)
    assert (scores.tokens, scores.oovs) == (4, 1)
    assert split_figures(scores.sums())["oov_rate"] == 0.25


def test_hand_made_model_scored_by_hand(tmp_path, kenlm_bin):
    scores, summary = score_text(tmp_path, kenlm_bin, TINY_ARPA, TEXT, order=3)
    sums = scores.sums()
    tokens = [token for line in BY_HAND for token in line]
    assert (sums["tokens"], sums["oovs"], sums["sentences"]) == (len(tokens), 2, 2)
    total = sum(p for p, _, _ in tokens)
    oov_total = sum(p for p, _, oov in tokens if oov)
    assert sums["log10_prob"] == pytest.approx(total, abs=1e-5)
    assert sums["log10_prob_oov"] == pytest.approx(oov_total, abs=1e-5)

    # Cumulative hits, counted by hand: a k-gram hit is a match of length k or more; OOVs miss.
    lengths = [n for _, n, oov in tokens if not oov]
    assert sums["matched_length"] == [0, lengths.count(1), lengths.count(2), lengths.count(3)] == [0, 4, 2, 1]
    assert hit_ratios(sums["matched_length"], sums["tokens"]) == {1: 7 / 9, 2: 3 / 9, 3: 1 / 9}

    figures = split_figures(sums)
    assert figures["perplexity_including_oovs"] == pytest.approx(10 ** (-total / 9), rel=1e-6)
    assert figures["perplexity_excluding_oovs"] == pytest.approx(10 ** (-(total - oov_total) / 7), rel=1e-6)
    assert figures["cross_entropy_bits_incl"] == pytest.approx(-total / 9 * math.log2(10), rel=1e-6)
    assert figures["ln_likelihood_excl"] == pytest.approx((total - oov_total) * math.log(10), rel=1e-6)
    assert figures["likelihood_incl"] == pytest.approx(10 ** (total / 9), rel=1e-6)
    # 7 words, 2 OOVs, 2 sentences: ppl over 7 - 2 + 2 tokens, ppl1 over 7 - 2.
    assert figures["srilm_ppl"] == pytest.approx(10 ** (-(total - oov_total) / 7), rel=1e-6)
    assert figures["srilm_ppl1"] == pytest.approx(10 ** (-(total - oov_total) / 5), rel=1e-6)

    # Recomputed from the sums, KenLM's two perplexities are query's own, bit for bit.
    printed = parse_summary(summary)
    assert kenlm_perplexities(sums) == {k: printed[k] for k in kenlm_perplexities(sums)}
    check_against_summary(sums, printed)
    assert [doc[:3] for doc in scores.documents] == [(1, 6, 1), (2, 3, 1)]


def test_a_summary_the_tokens_do_not_add_up_to_is_refused(tmp_path, kenlm_bin):
    scores, summary = score_text(tmp_path, kenlm_bin, TINY_ARPA, TEXT, order=3)
    printed = parse_summary(summary)
    printed["perplexity_including_oovs"] = math.nextafter(printed["perplexity_including_oovs"], 0)
    with pytest.raises(LmgapError, match="per-token sums give perplexity_including_oovs"):
        check_against_summary(scores.sums(), printed)


def test_a_line_whose_tokens_disagree_with_its_total_is_refused():
    output = io.BytesIO(b"a=3 2 -0.2\t</s>=2 1 -0.7\tTotal: -1.5 OOV: 0\n")
    with pytest.raises(LmgapError, match="line 1: the tokens add up to"):
        score_output(output, order=3)


def test_output_without_per_token_fields_is_refused():
    with pytest.raises(LmgapError, match="not in the `-v word -v sentence` form"):
        score_output(io.BytesIO(b"Total: -1.5 OOV: 0\n"), order=3)


def test_a_line_of_neither_kind_is_named_where_it_is_met():
    # A damaged line among the scored ones, which the summary's check would only call a misreading.
    output = io.BytesIO(b"a=3 1 -0.5\t</s>=2 1 -0.5\tTotal: -1 OOV: 0\n\x01 garbage\nTokens:\t2\n")
    with pytest.raises(LmgapError, match=r"^query's output line 2 is neither a scored line .*: b'\\x01 garbage\\n'"):
        score_output(output, order=2)
    # query's own summary lines are taken.
    scores, summary = score_output(io.BytesIO(b"a=3 1 -0.5\t</s>=2 1 -0.5\tTotal: -1 OOV: 0\nTokens:\t2\n"), 2)
    assert summary == "Tokens:\t2\n" and scores.tokens == 2


def test_surfaces_holding_equals_signs_and_zeros_are_read_by_their_id():
    # `x=0` is in the vocabulary (id 5); `a=` is not (id 0); `=0` surfaces never fool the reader.
    line = b"x=0=5 1 -1.5\ta==0 1 -2\t=0=7 2 -0.25\t</s>=2 1 -0.5\tTotal: -4.25 OOV: 1\n"
    scores, _ = score_output(io.BytesIO(line), order=2)
    assert (scores.tokens, scores.oovs, scores.log10_prob_oov) == (4, 1, -2.0)
    assert scores.sums()["matched_length"] == [0, 2, 1]


def test_a_query_that_fails_after_its_whole_output_is_named_as_the_tool_not_the_model(tmp_path, kenlm_bin):
    # Deleting the model, as a damaged model's fix says, would change nothing: the tool is to blame.
    failing = tmp_path / "query"
    failing.write_text(f'#!/bin/bash\n{kenlm_bin / "query"} "$@"\nexit 1\n')
    failing.chmod(0o755)
    with pytest.raises(
        LmgapError, match=r"query exited with code 1 on .* after printing its whole output.*kenlm.bin_dir"
    ):
        score_text(tmp_path, failing.parent, TINY_ARPA, TEXT, order=3)
