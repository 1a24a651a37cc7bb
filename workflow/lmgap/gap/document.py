"""The document family: each gap's word predicted from the words of its own page, a cache model
(Kuhn and De Mori, 1990) with a cache of word pairs beside it.

A page repeats its names, places and topic words, which the training text may never show, and
the phrases they stand in ("Mr. Smith", "the Erie canal"). Two caches read the gap's contexts:

- the word cache: every occurrence of a word counts exp(-distance / decay), distance 1 for the
  words next to the gap, times (1 + its count among the training gap words) ^ -rarity, which lets
  a page's own words outweigh the words every page has;
- the pair cache: every occurrence of a word right after the word left of the gap, or right
  before the word right of the gap, counts one (pairs that span the gap excluded).

A gap's distribution is the word cache's, mixed with the pair cache's at weight `pairs` where
the page holds such a pair. Its `top_k` words share the mass the held-out training gaps say a
gap's word has of being among them, measured by the length of the context (a longer page holds
its word more often) and by whether a pair was found; p0 takes the rest.

What is fit, and where. The decay (of `decays`) and the pair weight (of PAIR_WEIGHTS) are those
under which the held-out gaps' words, where their page holds them, get the highest mean log
probability; the mass is measured with them. The held-out gaps are training lines the candidate
index never counts (heldout.py); this family reads nothing of the training text but their own
contexts and the other lines' gap-word counts, so no scored split's word sets anything. The
rarity exponent is a setting: its worth shows in the blend, whose weights the scored split sets
(blend.py), so it was chosen on corpora in BENCHMARKS.md.
"""

import itertools
import math
import time

import numpy as np

from ..atomic import write_json
from .coverage import share
from .heldout import read_gap_words, read_heldout
from .lines import decoded, format_line, read_gaps, write_out

# The context lengths (words the variant reads) that separate the levels p0 is measured on.
LENGTH_LEVELS = (50, 150, 400)
# Below 1: a page word outside the pairs keeps some probability.
PAIR_WEIGHTS = (0.0, 0.25, 0.5, 0.75, 0.9)
# Stands for a word that is not UTF-8: it keeps its neighbours' places, and is never listed
# (GEval reads out.tsv as UTF-8; no whitespace token is empty).
NOT_TEXT = ""


def utf8_words(text):
    """The words of a context (bytes) as str, NOT_TEXT for a word that is not UTF-8. Split on ASCII whitespace, as
    GEval, expected.tsv and the candidates split: a no-break space is part of its word."""
    if text.isascii():
        return text.decode("ascii").split()
    return [decoded(word) or NOT_TEXT for word in text.split()]


class Page:
    """What the caches need of one gap's contexts: its distinct words, each occurrence's word and
    distance from the gap, and the pair cache's counts."""

    def __init__(self, left, right, variant):
        before = utf8_words(left)
        after = utf8_words(right) if variant == "both" else []
        tokens = before + after
        self.words, self.inverse = _distinct(tokens)
        self.distances = np.concatenate([np.arange(len(before), 0, -1), np.arange(1, len(after) + 1)]).astype(float)
        self.tokens = len(tokens)
        self.pairs = self._pairs(len(before), len(after))
        self.listable = np.array([word != NOT_TEXT for word in self.words], dtype=bool)
        self._gap_counts = None

    def gap_counts(self, counts):
        """Each distinct word's count among the training gap words (counts: {word: count}, the same
        at every call), looked up once per page: the fit asks for it under every setting it tries."""
        if self._gap_counts is None:
            self._gap_counts = np.array([counts.get(word, 0) for word in self.words], dtype=np.float64)
        return self._gap_counts

    def _pairs(self, gap, after):
        """Per distinct word, its occurrences after the word left of the gap and before the word
        right of it, neither pair spanning the gap (gap: the left context's length)."""
        ids, found = self.inverse, []
        if gap:
            follows = np.flatnonzero(ids[:-1] == ids[gap - 1]) + 1
            found.append(follows[follows != gap])
        if after:
            precedes = np.flatnonzero(ids[1:] == ids[gap])
            found.append(precedes[precedes != gap - 1])
        positions = np.concatenate(found) if found else np.zeros(0, dtype=int)
        return np.bincount(ids[positions], minlength=len(self.words)).astype(float)

    def level(self):
        """The level p0 is measured on: the context's length, and whether a pair was found."""
        length = int(np.searchsorted(LENGTH_LEVELS, self.tokens, side="right"))
        return f"{length}{'+pair' if (self.pairs * self.listable).any() else ''}"


def _distinct(tokens):
    """(distinct words in sorted order, each token's index among them)."""
    words = sorted(set(tokens))
    index = {word: number for number, word in enumerate(words)}
    return words, np.array([index[token] for token in tokens], dtype=np.int64)


class DocumentModel:
    """A gap's distribution over its page's words, for one variant and setting of the caches."""

    def __init__(self, settings, gap_counts):
        """settings: variant, decay (None: no decay), rarity, pairs (the pair cache's weight)."""
        self.settings, self.gap_counts = settings, gap_counts

    def probabilities(self, page):
        """The page's words' probabilities (summing to one over its listable words)."""
        decay, rarity, pairs = self.settings["decay"], self.settings["rarity"], self.settings["pairs"]
        nearness = np.ones_like(page.distances) if decay is None else np.exp(-page.distances / decay)
        weights = np.bincount(page.inverse, weights=nearness, minlength=len(page.words)).astype(float)
        if rarity:
            weights *= (1.0 + page.gap_counts(self.gap_counts)) ** -rarity
        weights *= page.listable
        paired = page.pairs * page.listable
        if not weights.sum():
            return weights
        weights /= weights.sum()
        if pairs and paired.sum():
            weights = (1 - pairs) * weights + pairs * paired / paired.sum()
        return weights


def top(words, probabilities, top_k):
    """The top_k words with any probability (ties by word order), renormalised over them: they
    carry the whole mass that held-out gaps give the listed words."""
    chosen = [index for index in np.argsort(-probabilities, kind="stable")[:top_k].tolist() if probabilities[index] > 0]
    kept = probabilities[chosen]
    return [words[index] for index in chosen], kept / kept.sum() if len(kept) else kept


def mean_log_in_context(model, pages, words):
    """Mean natural log of the probability of each held-out gap word its page holds."""
    logs = []
    for page, word in zip(pages, words):
        if word in page.words:
            value = model.probabilities(page)[page.words.index(word)]
            logs.append(math.log(value) if value > 0 else -math.inf)
    return float(np.mean(logs)) if logs else -math.inf


def fit(heldout, settings, gap_counts):
    """(model, coverage.share's table, mean log by setting) of held-out gaps (line, word, left, right): the decay and
    pair weight fitting them best, how often their word is listed by level; settings: variant, decays, rarity, top_k."""
    variant = settings["variant"]
    pages = [Page(left, right, variant) for _, _, left, right in heldout]
    words = [decoded(word) for _, word, _, _ in heldout]
    tried = {}
    for decay, pairs in itertools.product(settings["decays"], PAIR_WEIGHTS):
        model = DocumentModel(
            {"variant": variant, "decay": decay, "rarity": settings["rarity"], "pairs": pairs}, gap_counts
        )
        tried[(decay, pairs)] = (mean_log_in_context(model, pages, words), model)
    best = max(tried, key=lambda key: tried[key][0])
    model = tried[best][1]
    levels, hits = {}, 0
    for page, word in zip(pages, words):
        found = word in top(page.words, model.probabilities(page), settings["top_k"])[0]
        counts = levels.setdefault(page.level(), [0, 0])
        counts[0] += found
        counts[1] += 1
        hits += found
    table = {variant: {"gaps": len(heldout), "hits": hits, "levels": dict(sorted(levels.items()))}}
    scores = {f"decay {decay}, pairs {pairs}": value for (decay, pairs), (value, _) in tried.items()}
    return model, table, scores


def describe_fit(model, table):
    """How the family's p0, decay and pair weight were set, in one line for the tables."""
    measured, settings = table[model.settings["variant"]], model.settings
    decay = "no decay" if settings["decay"] is None else f"decay {settings['decay']:g} words"
    return (
        f"1 - share of {measured['gaps']:,} held-out training gaps whose word is listed from their own "
        f"context ({measured['hits']:,} are), by context length and pair found; {decay} and pair weight "
        f"{settings['pairs']:g} fit on them, rarity {settings['rarity']:g}"
    )


def write_document_predictions(split_dir, heldout_path, gap_words_path, settings, outputs, log):
    """The family's out.tsv on a split, its summary and its fit (outputs: out, stats, fit).
    settings: variant, decays, rarity, top_k."""
    started = time.monotonic()
    variant, top_k = settings["variant"], settings["top_k"]
    gap_counts = {decoded(word): count for word, count in read_gap_words(gap_words_path)}
    model, table, scores = fit(read_heldout(heldout_path), settings, gap_counts)
    method = describe_fit(model, table)

    def rows():
        for left, right in read_gaps(split_dir):
            page = Page(left, right, variant)
            chosen, shares = top(page.words, model.probabilities(page), top_k)
            line, count, p0 = format_line(chosen, shares, top_k, share(table, variant, page.level()))
            yield line, len(page.words), count, p0

    counts = write_out(rows(), outputs.out, outputs.stats, p0_method=method)
    write_json({**model.settings, "mean_log_in_context": scores, "p0": table}, outputs.fit)
    log.write(f"{len(counts):,} gaps; {method}; {time.monotonic() - started:.1f} s\n")
