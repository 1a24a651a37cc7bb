"""Every gap's candidates scored by a KenLM binary, in processes forked after loading it (sharing
its memory). Candidate w between left words L and right words R scores w after all of L from <s>
(`left`), then the first n-1 words of R and `</s>` when R is shorter (`right`): past them the model
no longer sees w, so the sum differs from query's log10 P(L w R) by the same amount for every w."""

import mmap
import multiprocessing
import os
import time

import numpy as np

from ..atomic import atomic_open
from ..errors import LmgapError
from ..models import damaged_model_advice
from .candidate_sets import CandidateSets
from .lines import decoded, read_gaps

UNKNOWN = "<unk>"
END = "</s>"


def load_model(path):
    import kenlm  # the .venv's kenlm 0.3.0, or a build for a larger maximum order on sys.path

    try:
        return kenlm.Model(str(path))
    # Bytes that are no binary model are read as an ARPA file: text that may not decode.
    except (OSError, ValueError, RuntimeError) as err:
        raise LmgapError(f"the kenlm Python module cannot load {path}: {err}; {damaged_model_advice(path)}") from None


def as_text(token):
    """KenLM's Python module takes words as str: a token that is not UTF-8 is scored as <unk>."""
    text = decoded(token)
    return UNKNOWN if text is None else text


def score_gaps(model, contexts, candidates, gaps, left_out, right_out):
    """Fill left_out and right_out (indexed like candidates.ids) for the given gap indices."""
    import kenlm

    score = model.BaseScore
    span = model.order - 1
    words = [as_text(word) for word in candidates.words]
    start_state, state, after_word, a, b = (kenlm.State() for _ in range(5))
    for gap in gaps:
        left, right = (part.split() for part in contexts[gap])
        model.BeginSentenceWrite(start_state)
        for token in left:
            score(start_state, as_text(token), state)
            start_state, state = state, start_state
        following = [as_text(token) for token in right[:span]]
        if len(right) < span:
            following.append(END)
        begin, end = candidates.offsets[gap], candidates.offsets[gap + 1]
        for slot, word_id in enumerate(candidates.ids[begin:end].tolist(), start=begin):
            left_out[slot] = score(start_state, words[word_id], after_word)
            total, current, nxt = 0.0, after_word, a
            for token in following:
                total += score(current, token, nxt)
                current, nxt = nxt, (a if nxt is b else b)
            right_out[slot] = total


def score_candidates(model_path, contexts, candidates, workers):
    """(left, right) float32 log10 scores of every candidate, computed by `workers` processes."""
    model = load_model(model_path)
    count, gaps = len(candidates.ids), len(candidates)
    # In memory shared with forked children, which fill their gaps' slots.
    left, right = (np.frombuffer(mmap.mmap(-1, max(4 * count, 1)), dtype=np.float32, count=count) for _ in range(2))
    if workers == 1:
        score_gaps(model, contexts, candidates, range(gaps), left, right)
        return left.copy(), right.copy()
    bounds = np.linspace(0, gaps, workers + 1).astype(int)
    fork = multiprocessing.get_context("fork")
    children = [
        fork.Process(target=score_gaps, args=(model, contexts, candidates, range(lo, hi), left, right))
        for lo, hi in zip(bounds[:-1], bounds[1:])
    ]
    for child in children:
        child.start()
    for child in children:
        child.join()
    failed = [child.exitcode for child in children if child.exitcode]
    if failed:
        raise LmgapError(f"{len(failed)} of {workers} gap-scoring processes failed (exit codes {failed}); see the log")
    return left.copy(), right.copy()


def write_scores(inputs, split_dir, threads, outputs, log):
    """Score a split's candidate sets (inputs: binary, candidates) with one model and save the two
    score arrays (outputs: logprobs)."""
    started = time.monotonic()
    candidates = CandidateSets.load(inputs.candidates)
    # The job's threads, at most the cores this process may use.
    workers = max(1, min(int(threads), len(os.sched_getaffinity(0))))
    left, right = score_candidates(inputs.binary, read_gaps(split_dir), candidates, workers)
    with atomic_open(outputs.logprobs, "wb") as handle:
        np.savez(handle, left=left, right=right)
    log.write(
        f"scored {len(left):,} candidates of {len(candidates):,} gaps with {inputs.binary} in "
        f"{workers} processes, {time.monotonic() - started:.1f} s\n"
    )
