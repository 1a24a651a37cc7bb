"""How often a gap's word is among its candidates, on held-out training gaps: the mass a prediction
gives them (p0 is the rest), per evidence level, as specific evidence finds the word more often."""

import numpy as np

from .sources import FLAG, VARIANTS, variant_mask

# Pseudo-gaps that shrink a level's share towards the overall one, (hits + 1) / (gaps + 2), never 0
# or 1: a level of few held-out gaps does not swing.
PRIOR = 20


def evidence(flags, variant):
    """A gap's evidence level: how many of the variant's strong sources (the two-word and between
    contexts) proposed anything, by its candidates' flags."""
    present = np.bitwise_or.reduce(flags) if len(flags) else np.uint8(0)
    return sum(bool(present & FLAG[name]) for name in VARIANTS[variant]["strong"])


def found(candidates, words, variant):
    """Whether each gap's word (bytes) is among the candidates the variant uses."""
    position, mask = {word: index for index, word in enumerate(candidates.words)}, variant_mask(variant)
    gaps = (candidates.of(gap) for gap in range(len(words)))
    return [bool((ids[(flags & mask) != 0] == position.get(word, -1)).any()) for (ids, flags), word in zip(gaps, words)]


def measure(candidates, expected_words):
    """{variant: {"gaps", "hits", "levels": {level: [hits, gaps]}}} on gaps whose words are known."""
    table = {}
    for variant in VARIANTS:
        hits, levels = found(candidates, expected_words, variant), {}
        for gap, hit in enumerate(hits):
            counts = levels.setdefault(str(evidence(candidates.of(gap)[1], variant)), [0, 0])
            counts[0] += hit
            counts[1] += 1
        table[variant] = {"gaps": len(expected_words), "hits": sum(hits), "levels": dict(sorted(levels.items()))}
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
