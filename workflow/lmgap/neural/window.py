"""The strided sliding window of Hugging Face's "Perplexity of fixed-length models": every token but
the start token scored exactly once, with up to max_length - 1 tokens of context (docs/neural.md)."""

import numpy as np

from ..errors import LmgapError


def check_window(max_length, stride):
    if max_length < 2:
        raise LmgapError(f"max_length {max_length}: a window needs two tokens, one of context and one scored")
    if not 1 <= stride <= max_length - 1:
        raise LmgapError(
            f"stride {stride} with max_length {max_length}: a window scores at most max_length - 1 "
            f"tokens, so stride must be between 1 and {max_length - 1} (with stride = max_length "
            "the first token of every window would go unscored)"
        )


def windows(length, max_length, stride):
    """(start, end, first) of each window over a document of `length` tokens: the model reads
    tokens [start, end) and scores tokens [first, end)."""
    check_window(max_length, stride)
    spans, scored_to = [], 1
    for start in range(0, max(length - 1, 1), stride):
        end = min(start + max_length, length)
        if end > scored_to:
            spans.append((start, end, scored_to))
            scored_to = end
        if end == length:
            break
    return spans


def score_windows(model_logprobs, documents, max_length, stride, batch_size):
    """Natural-log probabilities of every token but the first of each document (id arrays), windows of
    all documents batched together (which changes nothing but the order of floating-point sums);
    model_logprobs(windows) gives each [len - 1] next-token log P."""
    jobs = [(number, *span) for number, ids in enumerate(documents) for span in windows(len(ids), max_length, stride)]
    results = [np.empty(max(len(ids) - 1, 0)) for ids in documents]
    for at in range(0, len(jobs), batch_size):
        batch = jobs[at : at + batch_size]
        outputs = model_logprobs([documents[number][start:end] for number, start, end, _ in batch])
        for (number, start, end, first), logprobs in zip(batch, outputs):
            # logprobs[i] scores token start + i + 1.
            results[number][first - 1 : end - 1] = logprobs[first - start - 1 :]
    return results
