"""Predictions as `word:p ... word:p :p0` lines: a gap's candidates share the mass the held-out gaps
give them (coverage.py) by the model's probabilities; the top_k are listed, p0 takes the rest."""

import itertools

import numpy as np

from ..corpus.rebuild import read_contexts
from ..files import DamagedRecord
from ..arrays import read_arrays
from ..shapes import COVERAGE, read_record
from .candidate_sets import CandidateSets
from .coverage import evidence, share
from .heldout import read_gap_words, read_heldout
from .lines import decoded, format_line, write_out
from .sources import variant_mask


def normalised(log10_scores):
    """Probabilities proportional to 10^score, summing to one."""
    if len(log10_scores) == 0:
        return np.zeros(0)
    weights = np.power(10.0, log10_scores.astype(np.float64) - float(log10_scores.max()))
    return weights / weights.sum()


def write_predictions(candidates, scores, settings, outputs):
    """out.tsv and stats of one model and context variant on a split. scores: the candidates' (left,
    right) log10 probabilities; settings: coverage (the held-out table), variant, top_k."""
    left, right = scores
    table, variant, top_k = settings["coverage"], settings["variant"], settings["top_k"]
    words = [word.decode("utf-8") for word in candidates.words]
    mask = variant_mask(variant)

    def rows():
        for gap in range(len(candidates)):
            begin, end = candidates.offsets[gap], candidates.offsets[gap + 1]
            flags = candidates.flags[begin:end]
            used = np.flatnonzero((flags & mask) != 0)
            scores = left[begin:end][used] + (right[begin:end][used] if variant == "both" else 0)
            mass = share(table, variant, evidence(flags, variant))
            gap_words = [words[w] for w in candidates.ids[begin:end][used].tolist()]
            line, listed, p0 = format_line(gap_words, normalised(scores), top_k, mass)
            yield line, len(used), listed, p0

    write_out(rows(), outputs.out, outputs.stats)


def write_model_predictions(inputs, settings, outputs):
    """write_predictions from the files of rules gap_candidates and gap_logprobs (inputs:
    candidates, logprobs, coverage; settings: variant, top_k)."""
    table = read_record(inputs.coverage, COVERAGE)["coverage"]
    saved = read_arrays(inputs.logprobs, ("left", "right"))
    candidates = CandidateSets.load(inputs.candidates)
    if len(saved["left"]) != len(candidates.ids):
        raise DamagedRecord(inputs.logprobs, f"it scores {len(saved['left']):,} candidates of {len(candidates.ids):,}")
    scores = saved["left"], saved["right"]
    write_predictions(candidates, scores, {**settings, "coverage": table}, outputs)


def write_unigram_predictions(inputs, split_dir, top_k, outputs):
    """The baseline's out.tsv and stats (inputs: gap_words, heldout): on each line of a split's in.tsv.xz,
    the top_k training gap words by count, their share measured on the held-out gaps."""
    heldout = read_heldout(inputs.heldout)
    # Words GEval cannot read as one token (not UTF-8, or with a space) are skipped.
    gap_words = read_gap_words(inputs.gap_words)
    readable = ((word, text, count) for word, count in gap_words if (text := decoded(word)) and " " not in text)
    listed = list(itertools.islice(readable, top_k))
    chosen = {word for word, _, _ in listed}
    mass = (sum(word in chosen for _, word, _, _ in heldout) + 1) / (len(heldout) + 2)
    total = sum(count for _, _, count in listed)
    probabilities = np.array([count / total for _, _, count in listed]) if listed else np.zeros(0)
    line, shown, p0 = format_line([text for _, text, _ in listed], probabilities, top_k, mass)
    lines = sum(len(block) for block in read_contexts(split_dir))
    write_out(((line, shown, shown, p0) for _ in range(lines)), outputs.out, outputs.stats)
