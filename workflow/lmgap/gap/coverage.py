"""How often a gap's word is among its candidates, measured on held-out training gaps.

That share is the mass a prediction gives its candidates; the rest, p0, is what GEval spreads
over every bucket for words outside the list. It depends on how specific a gap's evidence is, so
it is measured per evidence level: the number of a variant's strong sources (the two-word and
between contexts) that proposed anything. Each level's share is shrunk towards the overall share
by PRIOR pseudo-gaps, so that a level with few held-out gaps does not swing; the overall share is
(hits + 1) / (gaps + 2), never 0 or 1.
"""

import numpy as np

from .sources import FLAG, VARIANTS, variant_mask


PRIOR = 20


def evidence(flags, variant):
    """The number of the variant's strong sources among a gap's candidate flags."""
    present = np.bitwise_or.reduce(flags) if len(flags) else np.uint8(0)
    return sum(bool(present & FLAG[name]) for name in VARIANTS[variant]["strong"])


def variant_words(candidates, gap, variant):
    """The candidate word ids of one gap that a variant uses."""
    ids, flags = candidates.of(gap)
    return ids[(flags & variant_mask(variant)) != 0]


def measure(candidates, expected_words):
    """{variant: {"gaps", "hits", "levels": {level: [hits, gaps]}}} on gaps whose words are known."""
    position = {word: index for index, word in enumerate(candidates.words)}
    table = {}
    for variant in VARIANTS:
        levels, hits = {}, 0
        for gap, word in enumerate(expected_words):
            found = bool((variant_words(candidates, gap, variant) == position.get(word, -1)).any())
            level = str(evidence(candidates.of(gap)[1], variant))
            counts = levels.setdefault(level, [0, 0])
            counts[0] += found
            counts[1] += 1
            hits += found
        table[variant] = {"gaps": len(expected_words), "hits": hits, "levels": dict(sorted(levels.items()))}
    return table


def share(table, variant, level):
    """The share of gaps at this evidence level whose word is among the candidates."""
    measured = table[variant]
    overall = (measured["hits"] + 1) / (measured["gaps"] + 2)
    hits, gaps = measured["levels"].get(str(level), (0, 0))
    return (hits + PRIOR * overall) / (gaps + PRIOR)


def describe(table):
    """How p0 was set, in one line for the tables."""
    gaps = table["both"]["gaps"]
    return (
        f"1 - candidate coverage on {gaps:,} held-out training gaps, by evidence level, "
        "plus the mass of unlisted candidates"
    )
