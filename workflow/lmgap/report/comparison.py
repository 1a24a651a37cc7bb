"""Which differences are real: the perplexity ratio of models that differ in one setting, with an interval
from a paired bootstrap over the split's documents (lines), the same bytes on every run (the seed's draws)."""

import csv
import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..corpus.vocabulary import oov_price
from ..errors import LmgapError
from ..keyed import join_keyed
from ..ngram.formats import PROBING
from ..tsv import read_tsv
from .scores import read_scores
from .table import MISSING, Column, Table

CONFIDENCE = 0.95
# The fewest documents a split must have for the bootstrap to call a difference real. With n
# documents, even when every one of them favours the same model, an exact two-sided sign test
# gives p = 2 * 2**-n, which is below 1 - CONFIDENCE only from n = 6; a bootstrap of fewer
# documents can still give an interval that excludes 1 (one document, a point), which would
# claim what so few documents cannot show.
MIN_DOCUMENTS = 6
# Resamples drawn at once: a block of indices is CHUNK times the documents.
CHUNK = 64
# interpolate_unigrams+vocab_pad: SRILM's model against its KenLM twin under lmplz.vocab_pad, which
# pads the twin alone (lmplz pads no other).
SETTINGS = (
    "order",
    "train_fraction",
    "prune",
    "interpolate_unigrams",
    "interpolate_unigrams+vocab_pad",
    "format",
    "family",
)


@dataclass(frozen=True)
class Pair:
    model: str
    baseline: str
    setting: str


def model_pairs(models):
    """Pairs of models (as MODELS holds them) that differ in one setting, all else equal: an order against the next
    lower, a training fraction the next smaller, pruned against unpruned, SRILM's unigrams against KenLM's, a
    binary format against KenLM's default, probing; each within one format."""

    def key(options):
        interpolated = options.get("interpolate_unigrams", True)
        binary = options.get("format", PROBING)
        return options["order"], tuple(options["prune"]), options["train_fraction"], interpolated, binary

    named = {key(options): name for name, options in models.items()}
    orders = sorted({options["order"] for options in models.values()})
    fractions = sorted({options["train_fraction"] for options in models.values()})
    pairs = []
    for name, options in sorted(models.items()):
        order, prune, fraction, interpolated, binary = key(options)
        candidates = []
        if orders.index(order):
            candidates.append(("order", (orders[orders.index(order) - 1], prune, fraction, interpolated, binary)))
        if fractions.index(fraction):
            smaller = fractions[fractions.index(fraction) - 1]
            candidates.append(("train_fraction", (order, prune, smaller, interpolated, binary)))
        if prune:
            candidates.append(("prune", (order, (), fraction, interpolated, binary)))
        if not interpolated:
            twin = (order, prune, fraction, True, binary)
            padded = twin in named and models[named[twin]].get("vocab_pad")
            candidates.append(("interpolate_unigrams+vocab_pad" if padded else "interpolate_unigrams", twin))
        if binary != PROBING:
            candidates.append(("format", (order, prune, fraction, interpolated, PROBING)))
        pairs += [Pair(name, named[other], setting) for setting, other in candidates if other in named]
    return sorted(pairs, key=lambda pair: (SETTINGS.index(pair.setting), pair.model))


def neural_pairs(models, neural):
    """Each neural model ({name: train_fraction or None}) against the highest-order unpruned n-gram of KenLM's
    unigrams trained on its share of the training split (the whole if it has none, or no n-gram has it)."""
    # Probing before another format of the same model.
    unpruned = [
        (options["order"], options["train_fraction"], "format" not in options, name)
        for name, options in models.items()
        if not options["prune"] and options.get("interpolate_unigrams", True)
    ]
    pairs = []
    for name, fraction in sorted(neural.items()):
        same = [entry for entry in unpruned if entry[1] == (fraction or 1.0)] or [e for e in unpruned if e[1] == 1.0]
        if same:
            pairs.append(Pair(name, max(same)[3], "family"))
    return pairs


# Paired: a resample draws documents once and sums both models over that draw, so what makes a document hard
# for one makes it hard for the other, and only their difference varies.
def bootstrap_log10_ratios(difference, tokens, resamples, seed):
    """log10 of the perplexity ratio in each resample: sum of difference (log10 P of the baseline
    minus log10 P of the model, per document) over the drawn documents, divided by their tokens."""
    count = len(difference)
    rng = np.random.Generator(np.random.PCG64(seed))
    ratios = np.empty(resamples)
    for start in range(0, resamples, CHUNK):
        draws = rng.integers(0, count, size=(min(CHUNK, resamples - start), count))
        ratios[start : start + len(draws)] = difference[draws].sum(axis=1) / tokens[draws].sum(axis=1)
    return ratios


def interval(log10_ratios, confidence=CONFIDENCE):
    """The percentile interval of the ratios."""
    tail = (1 - confidence) / 2
    low, high = np.quantile(np.power(10.0, log10_ratios), [tail, 1 - tail])
    return float(low), float(high)


# Read once, though a model is in up to three pairs; the frames are shared, never changed.
scores_of = functools.cache(read_scores)


# Every pair compares on the perplexity that prices each OOV as one word of the run's vocabulary:
# KenLM's `<unk>` is the class of all the words a model does not know, so a model of a smaller
# vocabulary (a training fraction) would price more words as one cheap class, and a neural model,
# which spells every word, would pay what an n-gram does not.
PERPLEXITY = "perplexity_oovs_as_words"


def priced_log10(scores, figures):
    """Each document's log10 P with its OOVs priced as words (see lmgap.record.oovs_as_words_perplexity):
    scores, the model's per-document sums; figures, its perplexity.tsv row."""
    unknown = float(figures["unknown_words"]) if figures["unknown_words"] else None
    oovs, padded = scores["oovs"].to_numpy(), float(figures.get("vocab_pad") or 0) > 0
    return scores["log10_prob"].to_numpy() + oovs * oov_price(unknown, int(oovs.sum()), padded)


def compare(pair, split, documents, figures, resamples, seed):
    """One row of the comparison table. documents: {(model, split): path}; figures:
    {(model, split): perplexity.tsv row}."""
    scores, base = (
        # As many rows as the split has lines: a documents.tsv cut at a line end reads, and is short.
        scores_of(documents[(name, split)], int(figures[(name, split)]["sentences"]), "its record in perplexity.tsv")
        for name in (pair.model, pair.baseline)
    )
    lines, tokens = scores["line"].to_numpy(), scores["tokens"].to_numpy()
    if not (np.array_equal(lines, base["line"]) and np.array_equal(tokens, base["tokens"])):
        raise LmgapError(
            f"{pair.model} and {pair.baseline} scored different documents of {split}; rerun the "
            "pipeline so that both score the current text"
        )
    model, baseline = figures[(pair.model, split)], figures[(pair.baseline, split)]
    ratio = float(model[PERPLEXITY]) / float(baseline[PERPLEXITY])
    if len(lines) < MIN_DOCUMENTS:
        low = high = real = None
    else:
        difference = priced_log10(base, baseline) - priced_log10(scores, model)
        low, high = interval(bootstrap_log10_ratios(difference, tokens, resamples, seed))
        real = "yes" if high < 1 or low > 1 else "no"
    return {
        "split": split,
        "model": pair.model,
        "baseline": pair.baseline,
        "differs_in": pair.setting,
        "perplexity_model": float(model[PERPLEXITY]),
        "perplexity_baseline": float(baseline[PERPLEXITY]),
        "oov_rate_model": float(model["oov_rate"]),
        "oov_rate_baseline": float(baseline["oov_rate"]),
        "ratio": ratio,
        "ratio_ci_low": low,
        "ratio_ci_high": high,
        "real": real or "too few documents",
        "binary_bytes_model": int(model["binary_bytes"]),
        "binary_bytes_baseline": int(baseline["binary_bytes"]),
        "documents": len(lines),
        "resamples": resamples,
        "seed": seed,
    }


def _rates(row):
    return f"{row['oov_rate_model']:.2%} / {row['oov_rate_baseline']:.2%}"


def _interval(row):
    if pd.isna(row["ratio_ci_low"]):
        return MISSING
    return f"[{row['ratio_ci_low']:.4f}, {row['ratio_ci_high']:.4f}]"


TABLE = Table(
    "comparison.tsv",
    (
        Column("split", "the split scored", "Split"),
        Column("model", "the model compared, which differs from its baseline in one setting, all else equal", "Model"),
        Column(
            "baseline",
            "the baseline the model is compared with: the next lower order, the next smaller training "
            "fraction, the same model unpruned, with KenLM's unigrams or in KenLM's probing format, or for a "
            "neural model the highest-order unpruned n-gram trained on the same text",
            "Baseline",
        ),
        Column(
            "differs_in",
            "the one setting the model differs in from its baseline: `order`, `train_fraction`, `prune`, "
            "`interpolate_unigrams` (`interpolate_unigrams+vocab_pad` where `lmplz.vocab_pad` padded the "
            "KenLM twin: lmplz pads no SRILM model), `format` (build_binary's) or `family`",
            "Differs in",
        ),
        Column(
            "perplexity_model",
            "the model's perplexity with each OOV priced as one word of the run's vocabulary, "
            "`perplexity_oovs_as_words` in perplexity.tsv, on which models of any vocabulary and "
            "family compare",
            "PPL:",
            "{:.2f}",
        ),
        Column(
            "perplexity_baseline",
            "the baseline's perplexity with each OOV priced as one word, as in perplexity.tsv",
            "Baseline PPL:",
            "{:.2f}",
        ),
        Column("oov_rate_model", "the model's OOV rate on the split, as in perplexity.tsv", "OOV rates:", cell=_rates),
        Column("oov_rate_baseline", "the baseline's OOV rate on the split, as in perplexity.tsv"),
        Column(
            "ratio",
            "the perplexity ratio, the model's perplexity divided by the baseline's: below 1, the model "
            "predicts the split better",
            "Ratio:",
            "{:.4f}",
        ),
        Column(
            "ratio_ci_low",
            f"the low end of the {CONFIDENCE:.0%} percentile interval of the ratio over a paired "
            "bootstrap of the split's documents (both models summed over the same drawn documents, "
            "each OOV priced as one word); empty "
            f"for a split of fewer than {MIN_DOCUMENTS} documents",
            f"{CONFIDENCE:.0%} CI:",
            cell=_interval,
        ),
        Column("ratio_ci_high", f"the high end of that {CONFIDENCE:.0%} interval of the ratio"),
        Column(
            "real",
            "whether the difference is real: `yes` when the interval excludes 1; `too few documents` "
            f"below {MIN_DOCUMENTS}, where even documents that all favour one model could not show it "
            f"(an exact sign test's p = 2 * 2^-n is below {1 - CONFIDENCE:g} only from n = {MIN_DOCUMENTS})",
            "Real",
        ),
        Column("binary_bytes_model", "the model's binary size in bytes, for what pruning saves"),
        Column("binary_bytes_baseline", "the baseline's binary size in bytes"),
        Column("documents", "the documents (lines) of the split, the units the bootstrap draws"),
        Column("resamples", "the bootstrap's resamples (`comparison.resamples` in config.yaml)"),
        Column("seed", "the bootstrap's seed (`comparison.seed` in config.yaml)"),
    ),
    every_definition=True,
)


def write_comparison(inputs, params, outputs):
    """comparison.tsv and .md for every pair on every scored split. inputs: table (perplexity.tsv), documents
    (each model's per-document scores on each split); params: models (n-grams), neural, input_keys (the model and
    split of each documents file: lmgap.keyed), settings (splits, resamples, seed); outputs: tsv, md."""
    models, neural, settings = params["models"], params["neural"], params["settings"]
    splits, resamples, seed = settings["splits"], settings["resamples"], settings["seed"]
    documents = join_keyed(inputs, params["input_keys"])["documents"]
    # Its shape checked (the columns read below), then its rows as text, the figures as written.
    read_tsv(inputs["table"], ("model", "split", "sentences", PERPLEXITY), exact=False, text=("model", "split"))
    with open(inputs["table"], newline="") as handle:
        figures = {(row["model"], row["split"]): row for row in csv.DictReader(handle, delimiter="\t")}
    rows = [
        compare(pair, split, documents, figures, resamples, seed)
        for pair in model_pairs(models) + neural_pairs(models, neural)
        for split in splits
    ]
    frame = TABLE.frame(rows)
    TABLE.write(frame, outputs, comparison_markdown(frame, resamples, seed))


def comparison_markdown(frame, resamples, seed):
    opening = f"Definitions ({resamples:,} resamples, seed {seed}; every figure is in `comparison.tsv`):"
    if frame.empty:
        opening = (
            "No two models of the config differ in one setting (order, train_fraction, prune, "
            "interpolate_unigrams, format or family).\n\n" + opening
        )
    return TABLE.markdown(frame, "Which differences are real", opening)
