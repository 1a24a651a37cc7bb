"""The paired bootstrap against intervals known in closed form, and the pairs it compares."""

from math import comb

import numpy as np
import pandas as pd
import pytest

from lmgap.corpus.sampling import line_keys, sample_mask
from lmgap.errors import LmgapError
from lmgap.models import models_from_config
from lmgap.record import DOCUMENT_COLUMNS
from lmgap.report.comparison import (
    TABLE,
    Pair,
    bootstrap_log10_ratios,
    compare,
    comparison_markdown,
    interval,
    model_pairs,
    neural_pairs,
)


def binomial_quantile(n, p, level):
    """The smallest b with P(Binomial(n, p) <= b) >= level, and how far that cdf and the one
    below it lie from level."""
    cdf = np.cumsum([comb(n, b) * p**b * (1 - p) ** (n - b) for b in range(n + 1)])
    b = int(np.argmax(cdf >= level))
    return b, min(abs(cdf[b] - level), abs(cdf[b - 1] - level) if b else 1.0)


def test_bootstrap_interval_is_the_binomial_quantiles():
    # 30 one-token documents, 4 of them 1 log10 unit better: a resample's mean difference is
    # Binomial(30, 4/30) / 30, so the percentile interval is 10 ** (its quantiles / 30).
    n, k = 30, 4
    difference = np.array([1.0] * k + [0.0] * (n - k))
    tokens = np.ones(n, dtype=np.int64)
    low, low_margin = binomial_quantile(n, k / n, 0.025)
    high, high_margin = binomial_quantile(n, k / n, 0.975)
    # Far enough from the levels that 20,000 resamples cannot land on the neighbouring value.
    assert min(low_margin, high_margin) > 0.005
    ratios = bootstrap_log10_ratios(difference, tokens, resamples=20_000, seed=1)
    assert interval(ratios) == (10 ** (low / n), 10 ** (high / n))
    assert (low, high) == (1, 8)


def test_a_difference_proportional_to_tokens_has_no_spread():
    # Documents of very different difficulty, the model better by 0.05 log10 per token on each:
    # every resample, whatever it draws, gives the ratio 10 ** 0.05 (an unpaired bootstrap would not).
    rng = np.random.default_rng(3)
    tokens = rng.integers(1, 400, size=500)
    difference = 0.05 * tokens
    low, high = interval(bootstrap_log10_ratios(difference, tokens, resamples=1000, seed=9))
    assert low == pytest.approx(10**0.05, rel=1e-12) and high == pytest.approx(10**0.05, rel=1e-12)


def test_bootstrap_is_fixed_by_its_seed_and_independent_of_blocking():
    rng = np.random.default_rng(4)
    tokens = rng.integers(1, 50, size=77)
    difference = rng.normal(size=77)
    first = bootstrap_log10_ratios(difference, tokens, resamples=1000, seed=12345)
    assert np.array_equal(first, bootstrap_log10_ratios(difference, tokens, resamples=1000, seed=12345))
    assert not np.array_equal(first, bootstrap_log10_ratios(difference, tokens, resamples=1000, seed=12346))
    # The first resamples do not depend on how many follow.
    assert np.array_equal(first[:100], bootstrap_log10_ratios(difference, tokens, resamples=100, seed=12345))


def test_pairs_differ_in_one_setting_and_meet_the_next_lower_value():
    models = models_from_config([3, 4], [(), (0, 1)], False, [0.01, 0.1, 1.0])
    pairs = {(pair.model, pair.baseline, pair.setting) for pair in model_pairs(models)}
    assert pairs == {
        *((f"o4{p}{f}", f"o3{p}{f}", "order") for p in ("", "-prune0.1") for f in ("-frac0.01", "-frac0.1", "")),
        *((f"o{n}{p}-frac0.1", f"o{n}{p}-frac0.01", "train_fraction") for n in (3, 4) for p in ("", "-prune0.1")),
        *((f"o{n}{p}", f"o{n}{p}-frac0.1", "train_fraction") for n in (3, 4) for p in ("", "-prune0.1")),
        *((f"o{n}-prune0.1{f}", f"o{n}{f}", "prune") for n in (3, 4) for f in ("-frac0.01", "-frac0.1", "")),
    }
    assert len(pairs) == 6 + 8 + 6


def test_srilm_s_unigrams_meet_kenlm_s_and_every_pair_keeps_its_own_kind():
    models = models_from_config([3, 4], [()], False, [1.0], [True, False])
    pairs = {(pair.model, pair.baseline, pair.setting) for pair in model_pairs(models)}
    assert pairs == {
        ("o4", "o3", "order"),
        ("o4-interp0", "o3-interp0", "order"),
        ("o3-interp0", "o3", "interpolate_unigrams"),
        ("o4-interp0", "o4", "interpolate_unigrams"),
    }
    # A neural model meets KenLM's unigrams, not SRILM's.
    assert [(p.model, p.baseline) for p in neural_pairs(models, {"small": None})] == [("small", "o4")]
    # Under lmplz.vocab_pad the KenLM twin is padded too (lmplz pads no SRILM model): the pair says so.
    padded = models_from_config([3], [()], False, [1.0], [True, False], vocab_pad=True)
    assert [(p.model, p.baseline, p.setting) for p in model_pairs(padded)] == [
        ("o3-interp0", "o3-pad", "interpolate_unigrams+vocab_pad")
    ]


def test_a_binary_format_meets_its_probing_twin_and_orders_meet_within_a_format():
    models = models_from_config([3, 4], [()], False, [1.0], [True], formats=["probing", "trie-q8b8"])
    assert sorted(models) == ["o3", "o3-trie-q8b8", "o4", "o4-trie-q8b8"]
    pairs = {(pair.model, pair.baseline, pair.setting) for pair in model_pairs(models)}
    assert pairs == {
        ("o4", "o3", "order"),
        ("o4-trie-q8b8", "o3-trie-q8b8", "order"),
        ("o3-trie-q8b8", "o3", "format"),
        ("o4-trie-q8b8", "o4", "format"),
    }
    # A neural model meets the probing model; with no probing model built, the format that is.
    assert [(p.model, p.baseline) for p in neural_pairs(models, {"small": None})] == [("small", "o4")]
    alone = models_from_config([3, 4], [()], False, formats=["trie"])
    assert [(p.model, p.baseline) for p in neural_pairs(alone, {"small": None})] == [("small", "o4-trie")]
    assert {(p.model, p.baseline, p.setting) for p in model_pairs(alone)} == {("o4-trie", "o3-trie", "order")}


def write_scores(path, rows, oovs=0):
    """A documents.tsv as the scoring jobs write it, from (line, tokens, log10_prob) rows, each
    document with oovs OOV tokens."""
    lines = [
        f"{line}\t{tokens}\t{oovs}\t{log10}\t{log10}\t{10 ** (-log10 / tokens)}\t{10 ** (-log10 / tokens)}\n"
        for line, tokens, log10 in rows
    ]
    path.write_text("\t".join(DOCUMENT_COLUMNS) + "\n" + "".join(lines))


def test_models_that_scored_different_documents_are_refused(tmp_path):
    for name, lines in (("a", [1, 2]), ("b", [1, 3])):
        write_scores(tmp_path / f"{name}.tsv", [(line, 5, -3.0) for line in lines])
    documents = {("a", "dev-0"): tmp_path / "a.tsv", ("b", "dev-0"): tmp_path / "b.tsv"}
    figures = {(name, "dev-0"): {"sentences": "2"} for name in ("a", "b")}
    with pytest.raises(LmgapError, match="a and b scored different documents of dev-0; rerun"):
        compare(Pair("a", "b", "order"), "dev-0", documents, figures, 100, 1)


def test_documents_short_of_the_split_s_lines_are_named_as_damaged_with_the_fix(tmp_path):
    # Cut at a line end, a documents.tsv still reads; perplexity.tsv's record of its model on the
    # split counts the lines it must have.
    for name in ("a", "b"):
        write_scores(tmp_path / f"{name}.tsv", [(line, 5, -3.0) for line in (1, 2)])
    documents = {(name, "dev-0"): tmp_path / f"{name}.tsv" for name in ("a", "b")}
    figures = {(name, "dev-0"): {"sentences": "3"} for name in ("a", "b")}
    with pytest.raises(
        LmgapError, match=r"a.tsv is damaged \(it has 2 rows where its record in perplexity.tsv has 3\)"
    ):
        compare(Pair("a", "b", "order"), "dev-0", documents, figures, 100, 1)


def test_samples_are_nested_exact_and_the_same_whatever_the_split_size():
    masks = {fraction: sample_mask(10_000, fraction) for fraction in (0.01, 0.1, 0.5, 1.0)}
    assert {fraction: int(mask.sum()) for fraction, mask in masks.items()} == {
        0.01: 100,
        0.1: 1000,
        0.5: 5000,
        1.0: 10_000,
    }
    assert not (masks[0.01] & ~masks[0.1]).any() and not (masks[0.1] & ~masks[0.5]).any()
    assert np.array_equal(line_keys(1000), line_keys(10_000)[:1000])
    assert sample_mask(3, 0.001).sum() == 1 and not sample_mask(0, 0.5).size


def test_a_neural_model_is_set_against_the_best_unpruned_n_gram_of_its_training_text():
    models = models_from_config([2, 3], [[], [0, 1]], False, [0.5, 1.0])
    pairs = neural_pairs(models, {"half": 0.5, "saved": None, "third": 0.3})
    assert [(pair.model, pair.baseline, pair.setting) for pair in pairs] == [
        ("half", "o3-frac0.5", "family"),
        # A model the pipeline did not train, or one whose share no n-gram has: the whole split's.
        ("saved", "o3", "family"),
        ("third", "o3", "family"),
    ]


def test_a_small_sample_that_looks_better_through_its_oovs_pays_for_each_oov_word(tmp_path):
    # The case as found: a 1-line sample's model, half of dev-0's tokens OOV and priced as the
    # class <unk>, looked better than all the data. Here each of its 40 documents of 5 tokens has
    # 3 OOVs and a log10 P 1 higher than the whole split's model, which knows every word; among
    # the 10,000 words of the run's vocabulary it does not know, each OOV costs 4 more (log10 of
    # 1/10,000), so it is worse by 3 * 4 - 1 = 11 per document on every draw: the ratio is
    # 10 ** (11 / 5) at both ends of the interval, and real.
    write_scores(tmp_path / "small.tsv", [(line, 5, -2.0 - line / 100) for line in range(1, 41)], oovs=3)
    write_scores(tmp_path / "o3.tsv", [(line, 5, -3.0 - line / 100) for line in range(1, 41)])
    documents = {(name, "dev-0"): tmp_path / f"{name}.tsv" for name in ("small", "o3")}
    figures = {
        ("small", "dev-0"): {"perplexity_oovs_as_words": repr(100 * 10**2.2), "unknown_words": "10000"},
        ("o3", "dev-0"): {"perplexity_oovs_as_words": "100.0", "unknown_words": "0"},
    }
    for row in figures.values():
        row |= {"oov_rate": "0.5", "binary_bytes": "1", "sentences": "40"}
    row = compare(Pair("small", "o3", "train_fraction"), "dev-0", documents, figures, 200, 1)
    assert row["ratio_ci_low"] == pytest.approx(10**2.2, rel=1e-12)
    assert row["ratio_ci_high"] == pytest.approx(10**2.2, rel=1e-12)
    assert row["ratio"] == pytest.approx(10**2.2, rel=1e-12) and row["real"] == "yes"
    # A neural model's row has no unknown words: it spells each word, and pays for it as scored.
    figures[("small", "dev-0")]["unknown_words"] = ""
    row = compare(Pair("small", "o3", "family"), "dev-0", documents, figures, 200, 1)
    assert row["ratio_ci_low"] == pytest.approx(10**-0.2, rel=1e-12)
    # A model that knows every word of V cannot have met an OOV: its figures are older than V.
    figures[("small", "dev-0")]["unknown_words"] = "0"
    with pytest.raises(LmgapError, match="vocabulary.json is older than the models; delete it"):
        compare(Pair("small", "o3", "family"), "dev-0", documents, figures, 200, 1)


@pytest.mark.parametrize("count, real", [(1, "too few documents"), (5, "too few documents"), (6, "yes")])
def test_a_split_of_too_few_documents_calls_nothing_real(tmp_path, count, real):
    # Every document favours o4. From six on an exact sign test (p = 2 * 2**-6 < 0.05) could call
    # that real; below, no test could, though the bootstrap's interval excludes 1 (one document:
    # the ratio itself, a point).
    for name, log10 in (("o4", -2.0), ("o3", -3.0)):
        write_scores(tmp_path / f"{name}.tsv", [(line, 5, log10 - line / 100) for line in range(1, count + 1)])
    documents = {(name, "dev-0"): tmp_path / f"{name}.tsv" for name in ("o4", "o3")}
    figures = {
        (name, "dev-0"): {
            "perplexity_oovs_as_words": ppl,
            "unknown_words": "5",
            "oov_rate": "0.04",
            "binary_bytes": "1",
            "sentences": str(count),
        }
        for name, ppl in (("o4", "90.0"), ("o3", "100.0"))
    }
    row = compare(Pair("o4", "o3", "order"), "dev-0", documents, figures, 200, 1)
    assert row["real"] == real and row["ratio"] == 0.9 and row["documents"] == count
    frame = pd.DataFrame([row], columns=list(TABLE.definitions))
    if count < 6:
        assert row["ratio_ci_low"] is row["ratio_ci_high"] is None
        assert "| — |" in comparison_markdown(frame, 200, 1)
        assert TABLE.tsv(frame).split("\n")[1].split("\t")[9:11] == ["", ""]
    else:
        assert row["ratio_ci_high"] < 1
