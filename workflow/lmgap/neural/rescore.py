"""A causal model's gap predictions: log P(w + the first right tokens | left) of the n-gram's and the
document family's most probable words w, sharing the mass the n-gram gave them (docs/gap-task.md)."""

import copy
import math
import time

import numpy as np

from ..errors import LmgapError
from ..gap.geval import parse_line, read_predictions
from ..gap.lines import format_line, read_gaps, write_out
from .model import right_padded
from .settings import BATCH_LOGITS_BYTES


def base_candidates(line, count):
    """The `count` most probable words of an out.tsv line and the mass they carry there."""
    specs = parse_line(line)
    listed = sorted(
        ((value, position, word) for position, (word, value) in enumerate(specs) if word is not None),
        key=lambda item: (-item[0], item[1]),
    )[:count]
    return [word for _, _, word in listed], math.fsum(value for value, _, _ in listed)


class Rescorer:
    """log P(candidate + right tokens | left) under one causal model, a gap at a time."""

    def __init__(self, model, tokenizer, max_length, right_tokens):
        self.model, self.tokenizer = model, tokenizer
        self.max_length, self.right_tokens = max_length, right_tokens
        start = tokenizer.bos_token_id
        self.start = tokenizer.eos_token_id if start is None else start
        vocab = model.config.vocab_size
        # A batch's logits (8 bytes per entry once in double) and its copies of the left context's
        # key/value cache are its largest tensors: each stays under BATCH_LOGITS_BYTES.
        self.batch_positions = max(1, BATCH_LOGITS_BYTES // (8 * vocab))

    def encode(self, text):
        return self.tokenizer(text, add_special_tokens=False)["input_ids"] if text else []

    def pieces(self, left, words, right):
        """(left ids from the line's start token, each word's ids, the right tokens), each tokenized
        alone, a word after a space as `" word"`: as byte-level BPE tokenizes the whole line."""
        space = " " if left else ""
        following = self.encode(" " + right if right else "")[: self.right_tokens]
        if len(following) < self.right_tokens:
            following.append(self.tokenizer.eos_token_id)
        return [self.start, *self.encode(left)], [self.encode(space + word) for word in words], following

    def score(self, left, words, right):
        """Natural-log P(word + right tokens | left) of each word (strings; contexts as text)."""
        import torch

        left_ids, word_ids, following = self.pieces(left, words, right)
        # A word of many tokens (OCR debris) is read as far as the window allows.
        continuations = [(ids + following)[: self.max_length - 1] for ids in word_ids]
        longest = max(len(ids) for ids in continuations)
        # The left context keeps its nearest tokens: the model reads at most max_length at once.
        left_ids = left_ids[-max(1, self.max_length - longest) :]
        device = self.model.device
        with torch.inference_mode():
            out = self.model(input_ids=torch.tensor([left_ids], device=device), use_cache=True)
            first = torch.log_softmax(out.logits[0, -1].double(), dim=-1)
            scores = np.empty(len(continuations))
            rows = max(1, min(self.batch_positions // longest, BATCH_LOGITS_BYTES // cache_bytes(out.past_key_values)))
            for at in range(0, len(continuations), rows):
                batch = continuations[at : at + rows]
                scores[at : at + len(batch)] = self._batch(out.past_key_values, first, batch)
        return scores

    def _batch(self, cache, first, batch):
        """Scores of continuations read after a left context's cache, right-padded."""
        import torch

        ids, real = (tensor.to(first.device) for tensor in right_padded(batch))
        total = first[ids[:, 0]]
        if ids.shape[1] > 1:
            copied = copy.deepcopy(cache)
            copied.batch_repeat_interleave(len(batch))
            logits = self.model(input_ids=ids, past_key_values=copied, use_cache=True).logits.double()
            logprobs = torch.log_softmax(logits[:, :-1], dim=-1).gather(-1, ids[:, 1:].unsqueeze(-1)).squeeze(-1)
            total = total + (logprobs * real[:, 1:]).sum(dim=1)
        return total.cpu().numpy()


def cache_bytes(cache):
    """Bytes of a key/value cache of one sequence (its layers' keys and values)."""
    return max(1, sum(layer.keys.nbytes + layer.values.nbytes for layer in cache.layers))


def rescored_words(base_line, count, document_line=None, document_count=0):
    """The base prediction's `count` most probable words, then the document family's `document_count`
    most probable that those lack (its page's words), and the mass the base line gives them."""
    words, mass = base_candidates(base_line, count)
    if document_line is None or not document_count:
        return words, mass
    chosen = set(words)
    extra = [word for word in base_candidates(document_line, count + document_count)[0] if word not in chosen]
    listed = {word: value for word, value in parse_line(base_line) if word is not None}
    extra = extra[:document_count]
    return words + extra, mass + math.fsum(listed.get(word, 0.0) for word in extra)


def write_rescored(rescorer, split_dir, inputs, settings, outputs, log):
    """out.tsv and stats of a causal model on a split: rescored_words of the base prediction's line and
    the document family's (inputs: base, document or None); settings: candidates, document_words, top_k."""
    started = time.monotonic()
    gaps, base = read_gaps(split_dir), read_predictions(inputs["base"])
    documents = read_predictions(inputs["document"]) if inputs.get("document") else [None] * len(base)
    for path, lines in ((inputs["base"], base), (inputs.get("document"), documents)):
        if len(gaps) != len(lines):
            raise LmgapError(
                f"{path} has {len(lines):,} lines but {split_dir}/in.tsv.xz has {len(gaps):,}; delete "
                f"{path} and rerun, so that it predicts the split as it is now"
            )

    def rows():
        for (left, right), line, document in zip(gaps, base, documents):
            words, mass = rescored_words(line, settings["candidates"], document, settings["document_words"])
            if words:
                scores = rescorer.score(left.decode("utf-8", "replace"), words, right.decode("utf-8", "replace"))
                weights = np.exp(scores - scores.max())
                text, listed, p0 = format_line(words, weights / weights.sum(), settings["top_k"], mass)
                yield text, len(words), listed, p0
            else:
                yield ":1", 0, 0, 1.0

    counts = write_out(rows(), outputs.out, outputs.stats)
    log.write(f"rescored {sum(counts):,} candidates of {len(counts):,} gaps in {time.monotonic() - started:.1f} s\n")
