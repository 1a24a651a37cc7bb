"""The run's vocabulary V, every word type of the training and scored splits: each model shares its
`<unk>` probability among V's unknown words (kpu/kenlm#67), so every row prices one alike."""

import math

from ..atomic import write_json
from ..errors import LmgapError

# lmplz adds these to every model's unigrams; they are no words of the text.
MARKERS = ("<s>", "</s>", "<unk>")


def word_types(path):
    """The distinct words of a rebuilt text as KenLM splits them: at ASCII whitespace, which
    the rebuilt text holds only as space, tab and line end (lmgap.corpus.rebuild.clean)."""
    with open(path, "rb") as handle:
        return {word for line in handle for word in line.split()}


def write_vocabulary(train_text, scored_texts, out):
    """vocabulary.json: V of the training text and the scored texts ({split: path}), and how many new
    words each scored split adds to those before it (the training split's, then by split name)."""
    words = word_types(train_text)
    training_words = len(words)
    added = {}
    for split, path in sorted(scored_texts.items()):
        before = len(words)
        words |= word_types(path)
        added[split] = len(words) - before
    write_json({"words": len(words), "training_words": training_words, "added_by": added}, out)
    return len(words)


# What a vocabulary.json older than the models it prices needs (it is rewritten with the texts).
STALE = "results/text/vocabulary.json is older than the models; delete it and run the pipeline again"


def unknown_words(vocabulary, unigrams):
    """The words of the run's vocabulary (V) a KenLM model does not know: V less its unigrams
    but `<s>`, `</s>` and `<unk>`."""
    known = unigrams - len(MARKERS)
    if known > vocabulary:
        raise LmgapError(f"a model knows {known:,} words, more than the run's vocabulary of {vocabulary:,}: {STALE}")
    return vocabulary - known


def oov_price(unknown, oovs, padded=False):
    """log10_share(unknown), for a model that met oovs OOV tokens: a model that knows every word
    of V can meet none; 0 for a model padded to V (lmgap.ngram.run.padded_size), whose `<unk>` is one word's."""
    if padded:
        return 0.0
    if oovs and unknown == 0:
        raise LmgapError(f"a model that knows every word of the run's vocabulary met {oovs:,} OOVs: {STALE}")
    return log10_share(unknown)


def check_padding(padded, vocabulary, model):
    """A model padded (to lmgap.ngram.run.padded_size) to another vocabulary than the run's prices
    its OOVs as words of that one."""
    if padded and padded != vocabulary + 1:
        raise LmgapError(
            f"{model} was padded to {padded:,} entries, not the run's vocabulary of {vocabulary:,} and `</s>`: "
            f"delete results/models/{model}/ and run the pipeline again, which trains it anew"
        )


def log10_share(unknown):
    """log10 of 1 / unknown, the share of `<unk>`'s probability one of V's unknown words gets; 0 for
    none (no OOV to price) or a missing count (NaN: a neural model spells every word)."""
    return -math.log10(unknown) if unknown and unknown == unknown else 0.0
