"""An out.tsv line as every system writes one, and the gaps it is written for: the pieces every
family's predictions share, light enough for any job's environment (no pandas)."""

import numpy as np

from ..atomic import atomic_open, write_json
from ..corpus.rebuild import read_contexts

# Listed probabilities keep six significant digits; p0 is the exact remainder of those.
DIGITS = ".6g"
# The most that rounding to six significant digits adds to a value, relative to it.
ROUNDING = 5e-6


def decoded(word):
    """A word (bytes) as str, or None for one that is not UTF-8, which GEval cannot read."""
    try:
        return word.decode("utf-8")
    except UnicodeDecodeError:
        return None


def read_gaps(split_dir):
    """[(left, right)] of every line of a split's in.tsv.xz, cleaned like the rebuilt text."""
    return [pair for block in read_contexts(split_dir) for pair in block]


def format_line(words, probabilities, top_k, mass):
    """(One out.tsv line, words listed, p0): the top_k words (str; ties by candidate order) with mass
    times their probability (normalised over the candidates), and the rest as p0, never below 0."""
    line = _line(words, probabilities, top_k, mass)
    if line[2] < 0:
        # Rounding to six digits raised the listed words past the whole mass (p0 near 0): each value
        # gains at most ROUNDING of itself, so listing a share that much smaller leaves p0 at 0 or more.
        line = _line(words, probabilities, top_k, mass * (1 - ROUNDING))
    return line


def _line(words, probabilities, top_k, mass):
    chosen = np.argsort(-probabilities, kind="stable")[:top_k]
    tokens, listed = [], 0.0
    for index in chosen.tolist():
        value = format(mass * float(probabilities[index]), DIGITS)
        if float(value) > 0:
            tokens.append(f"{words[index]}:{value}")
            listed += float(value)
    p0 = 1.0 - listed
    tokens.append(f":{p0:.10g}")
    return " ".join(tokens), len(tokens) - 1, p0


def write_out(rows, out_path, stats_path, p0_method=None):
    """Write an out.tsv, a line per row (line, words weighed, words listed, p0), and each number's mean
    per gap for gap.tsv (with how p0 was set, if the family says); return the words weighed per gap."""
    numbers = []
    with atomic_open(out_path, "w", encoding="utf-8", newline="") as out:
        for line, *counted in rows:
            out.write(line + "\n")
            numbers.append(counted)
    means = [float(np.mean(column)) for column in zip(*numbers)] or [0.0, 0.0, 0.0]
    summary = dict(zip(("candidates_per_gap", "listed_per_gap", "p0_mean"), means))
    described = {"p0_method": p0_method} if p0_method else {}
    write_json({"gaps": len(numbers), **summary, **described}, stats_path)
    return [count for count, _, _ in numbers]
