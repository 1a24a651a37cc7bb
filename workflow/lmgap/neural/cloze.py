"""A cloze model's words and folder: the vocabulary it names (raw whitespace tokens of the training
text, case and punctuation kept, as GEval compares them), the lines it learns from, and the files
a trained model is saved in. The network itself is cloze_net.py; no torch here."""

import itertools
import json
from collections import Counter
from pathlib import Path

import numpy as np

from ..corpus.sampling import count_lines, sample_mask
from ..errors import LmgapError
from ..gap.heldout import read_heldout
from ..gap.lines import decoded

MODEL_TYPE = "lmgap-cloze"
CONFIG, VOCABULARY, WEIGHTS = "config.json", "vocab.txt", "model.safetensors"
# Ids of words and of the marks around a line: 0 stands for every word outside the vocabulary (a
# class the model learns like a word, so its probability is the mass of words it cannot name),
# 1..V the vocabulary, most frequent first, and a line's start and end (inputs only) after them.
UNKNOWN = 0


def marks(words):
    """(start, end) ids of a model of `words` vocabulary words."""
    return words + 1, words + 2


def training_lines(text_path, heldout_path, fraction):
    """Whether to learn from each line of the training split's text: those of the fraction's nested
    sample (lmgap.corpus.sampling, as the n-grams'), less the held-out lines, on which p0 is set."""
    total = count_lines(text_path)
    kept = sample_mask(total, fraction)
    for number, *_ in read_heldout(heldout_path):
        kept[number - 1] = False
    return kept


def kept_lines(text_path, kept):
    """The kept lines' words (bytes, split at ASCII whitespace as GEval and expected.tsv are)."""
    with open(text_path, "rb") as handle:
        for keep, line in zip(kept.tolist(), handle):
            if keep:
                yield line.split()


def vocabulary(text_path, kept, size, min_count):
    """(the `size` most frequent words seen at least min_count times, most frequent first, ties by
    bytes; the kept lines' word count). Words that are not UTF-8 are left out: GEval reads UTF-8."""
    counts, words = Counter(), 0
    for line in kept_lines(text_path, kept):
        counts.update(line)
        words += len(line)
    ranked = sorted((item for item in counts.items() if item[1] >= min_count), key=lambda item: (-item[1], item[0]))
    return [word for word, _ in ranked if decoded(word) is not None][:size], words


def encode_lines(text_path, kept, index):
    """One array of the kept lines' ids, each line between its start and end marks; index: {word: id}."""
    start, end = marks(len(index))
    pieces = []
    for line in kept_lines(text_path, kept):
        ids = np.empty(len(line) + 2, dtype=np.int32)
        ids[0], ids[-1] = start, end
        # map() looks the words up in C: a quarter faster than a generator at the real corpus's size.
        ids[1:-1] = list(map(index.get, line, itertools.repeat(UNKNOWN)))
        pieces.append(ids)
    if not pieces:
        raise LmgapError(f"{text_path}: no training line is left once the held-out lines are; train on more text")
    return np.concatenate(pieces)


def word_index(words):
    """{word (bytes): id} of a vocabulary."""
    return {word: number for number, word in enumerate(words, start=1)}


def write_vocabulary(words, path):
    with open(path, "wb") as out:
        out.writelines(word + b"\n" for word in words)


def read_folder(folder):
    """(config, vocabulary words as bytes) of a saved cloze model; an LmgapError naming what is wrong."""
    folder = Path(folder)
    try:
        config = json.loads((folder / CONFIG).read_text())
        words = (folder / VOCABULARY).read_bytes().split(b"\n")[:-1]
    except (OSError, ValueError) as err:
        raise LmgapError(f"{folder} is not a cloze model's folder ({err}); give one the pipeline trained") from None
    if config.get("model_type") != MODEL_TYPE:
        raise LmgapError(
            f"{folder}/{CONFIG} says model_type {config.get('model_type')!r}, not {MODEL_TYPE!r}: it is no cloze "
            "model; give a folder the pipeline trained with kind: cloze, or set the entry's kind to what it holds"
        )
    if len(words) != config.get("words"):
        raise LmgapError(
            f"{folder}/{VOCABULARY} has {len(words):,} words but {CONFIG} says {config.get('words')}: the folder "
            "is damaged; copy it again from where it was trained"
        )
    return config, words
