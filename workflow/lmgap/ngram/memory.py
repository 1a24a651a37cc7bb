"""The memory a train job reserves before lmplz has counted anything: build_binary's whole model from
estimated n-gram counts, lmplz's -S and vocabulary (docs/running.md; measured in BENCHMARKS.md)."""

import functools
import os

from ..errors import LmgapError
from .formats import PROBING, parse_format

# lmplz holds its vocabulary hash table (24 MiB before the first word) within -S, whatever
# the corpus; below this it stops at once.
LMPLZ_MIN_MB = 32

# Below its in-memory sort lmplz merges through -T instead, at little cost (BENCHMARKS.md: a 5-gram
# of 64M words took 128 s with -S 1G, 136-164 s with 2 to 9 GB).
LMPLZ_WORKING_MB = 1024

# build_binary's sort buffer for a trie (-S; its default is 80% of the machine's memory).
TRIE_SORT_MB = 512

# The share of a text's tokens that are distinct k-grams (lmplz's count for order k), at most: the
# top of real English's ranges at 1M words (350-550k bigrams, 650-850k trigrams), which only fall
# as a text grows (generated text, k = 2..5: 0.37, 0.72, 0.90, 0.95 at 1M words; 0.24, 0.57, 0.82,
# 0.92 at 10M; 0.14, 0.42, 0.70, 0.86 at 124M). Order 5 and above: all of them.
DISTINCT_SHARE = {2: 0.55, 3: 0.85, 4: 0.97}
# Word types, at most (Heaps' law keeps them far below: 65k at 1M generated words, 290k at 10M).
TYPES_BASE, TYPES_PER_TOKEN = 50_000, 1 / 20

# What each tool holds beyond the above, as wait4 measures it (with the job's own Python, about 35 MB,
# which the fork carries over): build_binary's buffers and vocabulary strings (38 MB for a model of a
# few hundred kB; 7 MB over the model for 281k types, run from a shell), lmplz's vocabulary table and
# strings beside -S (6 MB for a 5-gram of 124M words with -S 1G).
BINARY_BASE_MB, BINARY_BYTES_PER_TYPE = 64, 16
LMPLZ_BASE_MB, LMPLZ_BYTES_PER_TYPE = 64, 48


def estimated_types(tokens):
    return min(tokens, TYPES_BASE + int(tokens * TYPES_PER_TOKEN))


def estimated_counts(order, tokens):
    """At most how many distinct k-grams, k = 1..order, lmplz counts in a text of tokens."""
    return [estimated_types(tokens)] + [int(DISTINCT_SHARE.get(k, 1.0) * tokens) for k in range(2, order + 1)]


def binary_mb(order, tokens, binary=PROBING):
    """What build_binary holds at its peak building one format: the estimated model and its buffers; a trie's
    sort buffer (-S, trie_sort_mb) too, and a quantised one's values of an order as it fits their bins."""
    fmt = parse_format(binary)
    counts = estimated_counts(order, tokens)
    model = fmt.model_bytes(counts) / 2**20
    if fmt.structure != PROBING:
        model += trie_sort_mb(order, tokens) + (8 * max(counts) / 2**20 if fmt.quantised else 0)
    return int(model + BINARY_BASE_MB + BINARY_BYTES_PER_TYPE * estimated_types(tokens) / 2**20) + 1


def binaries_mb(order, tokens, formats=(PROBING,), together=True):
    """What build_binary holds for the formats: every one's model at once when they read lmplz's ARPA text as
    it is written (together), or the largest when they are built one after another."""
    built = [binary_mb(order, tokens, binary) for binary in formats]
    return sum(built) if together else max(built)


def builds_together(order, tokens, text_mb, job_mb, formats=(PROBING,)):
    """Whether a train job of job_mb builds every format at once from lmplz's stream, with lmplz its whole
    -S beside them; if not, it streams into the first and builds the others from a copy of the ARPA text on
    disk (in lmplz.temp_dir), one after another. The rule that reserves the job's memory and the job decide
    alike (train_job_mb reserves this much only when it fits the budget)."""
    together = binaries_mb(order, tokens, formats) + lmplz_overhead_mb(tokens) + lmplz_working_mb(order, text_mb)
    return len(formats) == 1 or together <= job_mb


def trie_sort_mb(order, tokens):
    """build_binary's -S for a trie: the highest order's n-grams (a word index each and a pointer), at most
    TRIE_SORT_MB, past which it sorts them in blocks through -T."""
    entries = estimated_counts(order, tokens)[-1]
    return max(LMPLZ_MIN_MB, min(TRIE_SORT_MB, int(entries * (4 * order + 8) / 2**20) + 1))


def lmplz_overhead_mb(tokens):
    """What lmplz holds beside -S: its vocabulary."""
    return int(LMPLZ_BASE_MB + LMPLZ_BYTES_PER_TYPE * estimated_types(tokens) / 2**20) + 1


def lmplz_working_mb(order, text_mb):
    """lmplz's -S when the budget allows: sixteen bytes per byte of text and order sorts in
    memory, but never more than LMPLZ_WORKING_MB."""
    return max(LMPLZ_MIN_MB, min(LMPLZ_WORKING_MB, int(16 * order * text_mb)))


def train_job_mb(order, tokens, text_mb, budget_mb, formats=(PROBING,)):
    """The memory a train job reserves: build_binary's part (each format's, or the largest format's where the
    formats are built one after another: builds_together), lmplz's -S and vocabulary; past the budget -S
    shrinks to what is left (lmplz merges through -T), an LmgapError below LMPLZ_MIN_MB."""
    builds = binaries_mb(order, tokens, formats, builds_together(order, tokens, text_mb, budget_mb, formats))
    fixed = builds + lmplz_overhead_mb(tokens)
    job = fixed + lmplz_working_mb(order, text_mb)
    if job <= budget_mb:
        return job
    if fixed + LMPLZ_MIN_MB <= budget_mb:
        return budget_mb
    raise LmgapError(
        f"The order-{order} model needs about {fixed + LMPLZ_MIN_MB:,} MB of memory (build_binary "
        f"holds the whole model, up to about {builds:,} MB for this training text of {tokens:,} tokens in "
        f"{', '.join(formats)}), more than the {budget_mb:,} MB a job may reserve. Raise memory.budget_mb if "
        "the machine has the memory, or train on less text (train_split, train_fraction) or lower orders, or "
        "build a smaller format (build_binary.format)."
    )


def lmplz_memory_mb(job_mb, order, tokens, text_mb, formats=(PROBING,)):
    """lmplz's -S inside a train job of job_mb."""
    together = builds_together(order, tokens, text_mb, job_mb, formats)
    left = job_mb - binaries_mb(order, tokens, formats, together) - lmplz_overhead_mb(tokens)
    return max(LMPLZ_MIN_MB, min(lmplz_working_mb(order, text_mb), left))


def text_mb(path):
    """A training text's size in MB, at least 1: the job and the rule that reserves its memory
    must read the same figure, or the job's split between lmplz and build_binary would differ."""
    return max(os.path.getsize(path) / 2**20, 1)


def text_tokens(path, block=1 << 24):
    """Tokens as lmplz counts them in a text of single-spaced words, at most: a word before each
    space, tab or line break, and a `</s>` per line."""
    stat = os.stat(path)
    return _text_tokens(os.fspath(path), stat.st_size, stat.st_mtime_ns, block)


@functools.lru_cache(maxsize=64)
def _text_tokens(path, size, mtime_ns, block):
    # Keyed by size and time too: Snakemake asks for each train job's memory more than once.
    separators = breaks = 0
    last = b"\n"
    with open(path, "rb") as text:
        while chunk := text.read(block):
            separators += chunk.count(b" ") + chunk.count(b"\t")
            breaks += chunk.count(b"\n")
            last = chunk[-1:]
    # A last line without its line break still has a word and a `</s>`.
    return separators + 2 * breaks + (2 if last != b"\n" else 0)
