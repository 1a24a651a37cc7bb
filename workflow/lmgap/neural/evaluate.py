"""A neural model's record of a split, the same as query's: per-document sums of log10 P over
KenLM's tokens (every word and one `</s>` per line), so every table treats it like an n-gram's."""

import itertools
import math

import numpy as np

from .tokenizer import normalised, read_lines
from .window import score_windows
from .words import token_words, word_logprobs

LN_10 = math.log(10)
# Lines scored at once: their windows are batched together.
CHUNK_LINES = 256


def encode_line(tokenizer, line):
    """(token ids from the start token to the end-of-text token, which is the line's last word as KenLM's
    </s> is; each token's word; the word count; the words holding an unknown token)."""
    text = normalised(line)
    words = len(text.split(" ")) if text else 0
    encoded = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    body = list(encoded["input_ids"])
    start = tokenizer.bos_token_id if tokenizer.bos_token_id is not None else tokenizer.eos_token_id
    owners = token_words(text, encoded["offset_mapping"]) + [words]
    oov_words = {owner for token, owner in zip(body, owners) if token == tokenizer.unk_token_id}
    return np.array([start, *body, tokenizer.eos_token_id], dtype=np.int64), owners, words, oov_words


def document_sums(token_logprobs, owners, words, oov_words):
    """(tokens, oovs, log10 P, log10 P of the OOV words) of one line, from its tokens' natural-log
    probabilities: a word's is the sum of its tokens'."""
    per_word = word_logprobs(token_logprobs, owners, words + 1) / LN_10
    oov_sum = math.fsum(per_word[sorted(oov_words)]) if oov_words else 0.0
    return words + 1, len(oov_words), math.fsum(per_word), oov_sum


class NeuralScores:
    """Sums over one split, in the form ngram.scoring.SplitScores keeps them."""

    def __init__(self):
        self.documents = []

    def add(self, tokens, oovs, log10_prob, log10_prob_oov):
        self.documents.append((len(self.documents) + 1, tokens, oovs, log10_prob, log10_prob_oov))

    def sums(self):
        docs = self.documents
        return {
            "sentences": len(docs),
            "tokens": sum(doc[1] for doc in docs),
            "oovs": sum(doc[2] for doc in docs),
            "log10_prob": math.fsum(doc[3] for doc in docs),
            "log10_prob_oov": math.fsum(doc[4] for doc in docs),
            # No n-grams: no hit ratios.
            "matched_length": [],
        }


def score_text(text_path, tokenizer, model_logprobs, max_length, stride, batch_size):
    """NeuralScores of every line of a text, and the subword tokens the model scored."""
    scores, subwords, lines = NeuralScores(), 0, read_lines(text_path)
    while chunk := list(itertools.islice(lines, CHUNK_LINES)):
        encoded = [encode_line(tokenizer, line) for line in chunk]
        logprobs = score_windows(model_logprobs, [ids for ids, *_ in encoded], max_length, stride, batch_size)
        for (ids, owners, words, oov_words), token_logprobs in zip(encoded, logprobs):
            subwords += len(ids) - 1
            scores.add(*document_sums(token_logprobs, owners, words, oov_words))
    return scores, subwords
