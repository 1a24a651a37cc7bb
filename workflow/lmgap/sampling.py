"""Shares of the training split's documents (its lines) for learning curves: deterministic and
nested, so the 1% sample lies inside the 10% sample, which lies inside the whole split."""

import numpy as np

from .atomic import atomic_open, write_json

# Every run draws the same keys: a model of a fraction is the same model on every machine.
SEED = 20261121
BLOCK = 1 << 20


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
        return sum(block.count(b"\n") for block in iter(lambda: handle.read(BLOCK), b""))


def stats(lines, words, fraction, source_lines):
    """What a training text holds; tokens count one `</s>` per line, as the scored tokens do."""
    return {
        "train_fraction": fraction, "seed": SEED, "lines": lines, "words": words,
        "tokens": words + lines, "source_lines": source_lines,
    }


def write_text_stats(text_path, stats_path):
    """The stats of a whole training text (its fraction is 1)."""
    lines = words = 0
    with open(text_path, "rb") as handle:
        for line in handle:
            lines += 1
            words += len(line.split())
    write_json(stats(lines, words, 1.0, lines), stats_path)


def write_sample(text_path, fraction, out_path, stats_path):
    """The chosen lines of a training text, in their order, and their stats."""
    total = count_lines(text_path)
    chosen = sample_mask(total, fraction)
    lines = words = 0
    with open(text_path, "rb") as source, atomic_open(out_path, "wb") as out:
        for keep, line in zip(chosen.tolist(), source):
            if keep:
                out.write(line)
                lines += 1
                words += len(line.split())
    write_json(stats(lines, words, fraction, total), stats_path)
