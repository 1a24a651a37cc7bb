"""Candidate gap words (sources.py), counted in one streaming pass over the training text. Only the
contexts some gap asks about are counted: memory follows their continuations, not the n-gram table."""

import itertools
import multiprocessing
import os
import time

import numpy as np

from ..atomic import write_json
from .candidate_sets import CandidateSets
from .coverage import measure
from .heldout import read_heldout
from .lines import decoded, read_gaps
from .sources import CONTEXT_SOURCES, DOCUMENT_SOURCES, FLAG

BOS, EOS = b"<s>", b"</s>"
SHIFT = np.int64(32)
LOW = np.int64((1 << 32) - 1)
# Pairs counted, over all sources, since their last merge into the counts: once past this (checked
# after each block), they are merged, so a pass holds its counts and about this many more.
MERGE_EVERY = 8_000_000
# The training text (MB, about 17M words) from which a pass is split between processes.
SPLIT_MB = 100


def index_memory_mb(text_mb, workers=1):
    """Peak MB of a candidate pass by `workers` processes over text_mb of text, with dev-0's and the
    held-out gaps: at least 20% above every peak BENCHMARKS.md measured ("Memory of the candidate
    pass"); each further process is a forked copy holding its span's vocabulary and counts."""
    return int(1150 + 2 * text_mb + (workers - 1) * (900 + text_mb))


def workers_within(threads, mem_mb, text_mb):
    """The most processes, up to threads, whose pass fits in mem_mb; one below SPLIT_MB of text,
    where a second would save a second or two for twice the memory."""
    if text_mb < SPLIT_MB:
        return 1
    return max([n for n in range(1, threads + 1) if index_memory_mb(text_mb, n) <= mem_mb], default=1)


def context_words(left, right):
    """(a2, a1, c1, c2): the two left words nearest the gap and the two right words, padded."""
    a = [BOS, BOS, *left[-2:]][-2:]
    c = [*right[:2], EOS, EOS][:2]
    return a[0], a[1], c[0], c[1]


def source_keys(a2, a1, c1, c2):
    """{source: the key of its context} from the ids of the two words left of a word and the two
    right of it (arrays)."""
    return {
        "after2": (a2 << SHIFT) | a1,
        "after1": a1,
        "before2": (c1 << SHIFT) | c2,
        "before1": c1,
        "between": (a1 << SHIFT) | c1,
    }


def _reduce_equal(keys, values, combine):
    """Combine (a ufunc) the values of equal keys; keys come back sorted and unique. They come sorted
    or nearly, and a stable sort (timsort) merges their runs where np.unique would sort afresh."""
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    if not len(keys):
        return keys, values
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1])))
    return keys[starts], combine.reduceat(values, starts)


class ContextIndex:
    """Counts of the words that follow, precede or sit between the contexts of given gaps."""

    def __init__(self, contexts):
        """contexts: the context_words of each gap whose candidates are wanted."""
        # Imported here: only the candidate pass counts, and pandas would add a third of a second to
        # the start of every gap job that reads candidate sets.
        import pandas as pd

        self.vocab = {BOS: 0, EOS: 1}
        ids = np.array([[self._id(w) for w in words] for words in contexts], dtype=np.int64).reshape(-1, 4)
        gap_keys = source_keys(*ids.T)
        self.keys = {name: np.unique(keys) for name, keys in gap_keys.items()}
        # For every gap and source, the index of its context among that source's keys.
        self.gap_key = {name: np.searchsorted(self.keys[name], keys) for name, keys in gap_keys.items()}
        # Only words of the gaps' contexts can be part of a context: ids from here on are not.
        # A table over those ids (and one slot for any other word) finds one-word contexts;
        # a hash index finds two-word ones.
        self.context_vocab = len(self.vocab)
        self.slot = {}
        for name in ("after1", "before1"):
            self.slot[name] = np.full(self.context_vocab + 1, -1, dtype=np.int64)
            self.slot[name][self.keys[name]] = np.arange(len(self.keys[name]))
        self.pair_index = {name: pd.Index(self.keys[name]) for name in ("after2", "before2", "between")}
        # Per source, parts of unique (slot << SHIFT | word) keys and their counts; _merge_pending
        # leaves one part, sorted.
        empty = np.zeros(0, dtype=np.int64)
        self.pending = {name: ([empty], [empty]) for name in CONTEXT_SOURCES}
        self.pending_size = 0
        self.unigram = np.zeros(2, dtype=np.int64)

    def _id(self, word):
        return self.vocab.setdefault(word, len(self.vocab))

    def _ids(self, tokens):
        ids = np.fromiter(map(self.vocab.get, tokens, itertools.repeat(-1)), dtype=np.int64, count=len(tokens))
        for position in np.flatnonzero(ids < 0).tolist():
            ids[position] = self._id(tokens[position])
        return ids

    def add_text(self, text):
        """Count one block of whole lines of rebuilt text (bytes, each line ending in a newline)."""
        if not text:
            return
        # Padded as KenLM sees a line, so that a gap at either end has contexts too.
        tokens = (b"<s> <s> " + text.replace(b"\n", b" </s> </s> <s> <s> ")).split()[:-2]
        ids = self._ids(tokens)
        at = np.flatnonzero(ids > 1)
        word = ids[at]
        context = np.minimum(ids, self.context_vocab)
        for name, key in source_keys(context[at - 2], context[at - 1], context[at + 1], context[at + 2]).items():
            slot = self.slot[name][key] if name in self.slot else self.pair_index[name].get_indexer(key)
            hit = slot >= 0
            self._add_pairs(name, slot[hit], word[hit])
        counts = np.bincount(word, minlength=len(self.vocab))
        counts[: len(self.unigram)] += self.unigram
        self.unigram = counts
        if self.pending_size > MERGE_EVERY:
            self._merge_pending()

    def _add_pairs(self, name, slots, words):
        pairs, counts = self.pending[name]
        unique, count = np.unique((slots.astype(np.int64) << SHIFT) | words, return_counts=True)
        pairs.append(unique)
        counts.append(count)
        self.pending_size += len(unique)

    def _merge_pending(self):
        for name, (pairs, counts) in self.pending.items():
            merged = _reduce_equal(np.concatenate(pairs), np.concatenate(counts), np.add)
            self.pending[name] = ([merged[0]], [merged[1]])
        self.pending_size = 0

    def absorb(self, counted):
        """Add what a copy counted in a later span (_count_in_copy): its new words take ids after this
        index's in the order the copy met them, so ids and counts are those of one pass over both."""
        base, words, pending, unigram = counted
        remap = np.arange(base + len(words), dtype=np.int64)
        remap[base:] = [self._id(word) for word in words]
        for name, (pairs, counts) in pending.items():
            slots, word = pairs[0] >> SHIFT, pairs[0] & LOW
            self.pending[name][0].append((slots << SHIFT) | remap[word])
            self.pending[name][1].append(counts[0])
        total = np.zeros(len(self.vocab), dtype=np.int64)
        total[: len(self.unigram)] = self.unigram
        total[remap[: len(unigram)]] += unigram
        self.unigram = total
        self._merge_pending()

    def top(self, per_context):
        """{source: (offsets, word ids)}: each context's per_context most frequent continuations,
        ties broken by first appearance in the text; offsets index them by context."""
        self._merge_pending()
        tops = {}
        for name, ([pairs], [counts]) in self.pending.items():
            context, word = pairs >> SHIFT, pairs & LOW
            # The pairs come sorted by context and word: a stable sort keeps the words in order.
            order = np.lexsort((-counts, context))
            context, word = context[order], word[order]
            first = np.searchsorted(context, context)
            keep = np.arange(len(context)) - first < per_context
            context, word = context[keep], word[keep]
            offsets = np.searchsorted(context, np.arange(len(self.keys[name]) + 1))
            tops[name] = (offsets, word)
        return tops

    def document_words(self, left, right):
        """(left ids, right ids): the distinct words of a gap's contexts (lists of bytes)."""
        return tuple(np.unique(self._ids(words)) for words in (left, right))

    def candidates(self, per_context, frequent, documents):
        """(offsets, word ids, source flags) of every gap's candidates, given their document_words;
        padding and words that are not UTF-8 (GEval reads UTF-8) are left out."""
        tops = self.top(per_context)
        # The `frequent` most frequent words seen (not padding), ties by first appearance.
        order = np.lexsort((np.arange(len(self.unigram)), -self.unigram))
        common = np.array([w for w in order[: frequent + 2] if w > 1 and self.unigram[w]][:frequent], dtype=np.int64)
        words = list(self.vocab)
        in_documents = [ids for pair in documents for ids in pair]
        proposed = np.unique(np.concatenate([common, *(found for _, found in tops.values()), *in_documents]))
        valid = np.zeros(len(words), dtype=bool)
        valid[proposed] = [decoded(words[w]) is not None for w in proposed.tolist()]
        valid[[0, 1]] = False
        offsets, ids, flags = [0], [], []
        for gap, document in enumerate(documents):
            parts = {"frequent": common}
            for name in CONTEXT_SOURCES:
                starts, found = tops[name]
                key = self.gap_key[name][gap]
                parts[name] = found[starts[key] : starts[key + 1]]
            parts.update(zip(DOCUMENT_SOURCES, document))
            every = np.concatenate(list(parts.values()))
            every_bit = np.concatenate([np.full(len(found), FLAG[name]) for name, found in parts.items()])
            every, every_bit = _reduce_equal(every[valid[every]], every_bit[valid[every]], np.bitwise_or)
            ids.append(every)
            flags.append(every_bit)
            offsets.append(offsets[-1] + len(every))
        ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
        flags = np.concatenate(flags) if flags else np.zeros(0, dtype=np.uint8)
        return np.array(offsets, dtype=np.int64), ids, flags


def count_text(index, text_path, skip_lines, workers=1):
    """Feed a rebuilt text but skip_lines to the index; forked copies count all spans but the first,
    which this process counts meanwhile, then absorbs theirs in order."""
    spans = line_spans(text_path, workers)
    if not spans:
        return
    context = multiprocessing.get_context("fork")
    copies = []
    # Every copy is forked before this process counts: each starts from the index as it is now.
    for span in spans[1:]:
        receive, send = context.Pipe(duplex=False)
        # Daemons: if this process fails, they end with it rather than wait to be read.
        process = context.Process(target=_count_in_copy, args=(index, text_path, span, skip_lines, send), daemon=True)
        process.start()
        send.close()
        copies.append((process, receive, span))
    try:
        count_span(index, text_path, spans[0], skip_lines)
        for process, receive, span in copies:
            try:
                counted = receive.recv()
            except EOFError:
                process.join()
                raise RuntimeError(
                    f"the process counting bytes {span[0]} to {span[1]} of {text_path} ended with "
                    f"exit code {process.exitcode} and no counts"
                ) from None
            index.absorb(counted)
    finally:
        for process, _, _ in copies:
            process.kill()
            process.join()


def _count_in_copy(index, text_path, span, skip_lines, send):
    """In a forked copy of the index: count one span and send what absorb needs."""
    base = len(index.vocab)
    count_span(index, text_path, span, skip_lines)
    index._merge_pending()
    send.send((base, list(index.vocab)[base:], index.pending, index.unigram))
    send.close()


def count_span(index, text_path, span, skip_lines, block_bytes=1 << 24):
    """Feed one span of whole lines (start byte, end byte, number of its first line) to the index."""
    start, end, number = span
    with open(text_path, "rb") as handle:
        handle.seek(start)
        left = end - start
        while left > 0 and (lines := handle.readlines(min(block_bytes, left))):
            for taken, line in enumerate(lines, start=1):
                left -= len(line)
                if left <= 0:
                    lines = lines[:taken]
                    break
            first, number = number, number + len(lines)
            if any(first <= n < number for n in skip_lines):
                lines = [line for n, line in enumerate(lines, start=first) if n not in skip_lines]
            index.add_text(b"".join(lines))


def line_spans(path, parts):
    """Up to `parts` spans of whole lines, of about equal bytes, that cut the file: (start byte, end
    byte, number of the span's first line)."""
    size = os.path.getsize(path)
    spans, start, number = [], 0, 1
    with open(path, "rb") as handle:
        for part in range(1, parts + 1):
            if start >= size:
                break
            handle.seek(max(start, size * part // parts))
            if part < parts and handle.tell() > 0:
                handle.readline()
            end = handle.tell() if part < parts else size
            if end > start:
                spans.append((start, end, number))
                handle.seek(start)
                number += sum(handle.read(min(end - at, 1 << 20)).count(b"\n") for at in range(start, end, 1 << 20))
            start = end
    return spans


def build_candidates(text_path, gaps, skip_lines, per_context, frequent, workers=1):
    """CandidateSets of gaps ((left, right) bytes) from a rebuilt text but skip_lines. Contexts are
    split one gap at a time: a list of every gap's words would cost ten times their text."""
    index = ContextIndex([context_words(left.split(), right.split()) for left, right in gaps])
    documents = [index.document_words(left.split(), right.split()) for left, right in gaps]
    count_text(index, text_path, skip_lines, workers)
    offsets, ids, flags = index.candidates(per_context, frequent, documents)
    return CandidateSets(list(index.vocab), offsets, ids, flags)


def write_candidates(inputs, settings, outputs, log):
    """The split's candidate sets, and how often held-out training gaps' words are among theirs
    (coverage.py, which sets p0), from one pass over the rebuilt training text."""
    started = time.monotonic()
    per_context, frequent = settings["per_context"], settings["frequent"]
    gaps = read_gaps(inputs["split_dir"])
    heldout = read_heldout(inputs["heldout"])
    every = gaps + [(left, right) for _, _, left, right in heldout]
    skip = {number for number, _, _, _ in heldout}
    found = build_candidates(inputs["text"], every, skip, per_context, frequent, settings["workers"])
    split = found.subset(0, len(gaps))
    split.save(outputs.candidates)
    table = measure(found.subset(len(gaps), len(every)), [word for _, word, _, _ in heldout])
    write_json({"per_context": per_context, "frequent": frequent, "coverage": table}, outputs.coverage)
    log.write(
        f"{len(gaps)} gaps, {len(split.ids) / max(len(gaps), 1):.1f} candidates per gap; "
        f"{len(heldout)} held-out gaps; counting processes: {settings['workers']}; "
        f"{time.monotonic() - started:.1f} s\n"
    )
