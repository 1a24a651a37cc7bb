"""From subword tokens to KenLM's words: a word's log-probability is the sum of its tokens'."""

import numpy as np

from ..errors import LmgapError


def token_words(text, offsets):
    """The word (from 0) each token of text (single-spaced) belongs to, by its character offsets; a space
    belongs to the word it starts, as GPT-2's `Ġword` tokens carry the space before their word."""
    word_of_char = np.cumsum([char == " " for char in text], dtype=np.int64)
    # A byte-level token inside one character may have an empty span: its character.
    return [int(word_of_char[min(max(end - 1, start), len(text) - 1)]) if text else 0 for start, end in offsets]


def word_logprobs(token_logprobs, owners, words):
    """Each word's log-probability, the sum over its tokens (owners: each token's word)."""
    if words and (len(owners) != len(token_logprobs) or sorted(set(owners)) != list(range(words))):
        raise LmgapError(
            f"the tokenizer's tokens cover words {sorted(set(owners))[:10]}... of a line of {words} "
            "words: every word must get at least one token, in order"
        )
    if any(later < earlier for earlier, later in zip(owners, owners[1:])):
        raise LmgapError("the tokenizer's tokens are out of the order of their words")
    return np.bincount(np.asarray(owners, dtype=np.int64), weights=token_logprobs, minlength=words)
