"""Shares of the training split's documents (its lines) for learning curves: deterministic and
nested, so the 1% sample lies inside the 10% sample, which lies inside the whole split."""

import numpy as np

from ..atomic import atomic_open
from ..files import count_text_lines

# Every run draws the same keys: a model of a fraction is the same model on every machine.
SEED = 20261121


def line_keys(count, seed=SEED):
    """One uniform key per line; line i's key depends on i and the seed alone, not on count."""
    return np.random.Generator(np.random.PCG64(seed)).random(count)


def sample_mask(count, fraction, seed=SEED):
    """The round(fraction * count) lines (at least one) with the smallest keys. A larger fraction
    takes a longer prefix of the same order, so samples are nested."""
    chosen = np.zeros(count, dtype=bool)
    if count:
        keep = max(1, round(fraction * count))
        chosen[np.argsort(line_keys(count, seed), kind="stable")[:keep]] = True
    return chosen


def count_lines(path):
    with open(path, "rb") as handle:
        return count_text_lines(handle)


def write_sample(text_path, fraction, out_path, log):
    """The chosen lines of a training text, in their order; how many of all, in the log."""
    total = count_lines(text_path)
    chosen = sample_mask(total, fraction)
    with open(text_path, "rb") as source, atomic_open(out_path, "wb") as out:
        out.writelines(line for keep, line in zip(chosen.tolist(), source) if keep)
    log.write(f"kept {int(chosen.sum())} of {total} lines (train_fraction {fraction})\n")
