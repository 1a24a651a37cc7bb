"""Corpora in the challenge's format, generated: the one writer of that format, and the two
sources of text it writes.

    .venv/bin/python benchmarks/generate_corpus.py OUT --words 10000000 [--seed 1]

- NewspaperSource: text with statistics like newspaper text, of any size, for the benchmarks
  and `make demo`. Words follow a Zipf law over millions of types, so the vocabulary keeps
  growing with size; half the words continue the previous word through a hashed successor
  table, which gives bigrams and trigrams the diversity of real English; and fixed
  expressions of four to nine common words recur, as newspapers repeat theirs ("at the
  office of the", "on the first day of"), so that four and five words of context predict
  better than two, by about the real corpus's margin.
- MarkovSource: a second-order Markov chain whose probabilities are known, so that tests can
  compare a model with the source's own perplexity and gap distribution.

Both give lines of words; write_split picks each line's gap and writes in.tsv.xz and
expected.tsv, and write_headers the in-header.tsv the challenge keeps at the top of its
repository for every split. Everything is deterministic from the seed; the dev split is drawn
from the same source with another random stream, so it shares the language but not the text.
"""

import argparse
import lzma
import math
import random
from bisect import bisect
from itertools import accumulate
from pathlib import Path

import numpy as np

# in.tsv's columns in the challenge's two layouts: the contexts are always the last two.
HEADERS = {
    8: ["FileId", "Paper", "Idx", "Year", "Month", "Day", "LeftContext", "RightContext"],
    4: ["FileId", "Year", "LeftContext", "RightContext"],
}
ESCAPED_BREAK = 0.03  # share of word boundaries that are line breaks in the scan (\n)
YEARS = (1800.0, 1960.0)
START, END = "<s>", "</s>"


def write_headers(root, layout=8):
    """in-header.tsv and out-header.tsv at the corpus's top level, shared by every split."""
    (Path(root) / "in-header.tsv").write_text("\t".join(HEADERS[layout]) + "\n")
    (Path(root) / "out-header.tsv").write_text("GapWord\n")


def write_split(split_dir, lines, rng, layout=8, breaks=ESCAPED_BREAK):
    """Write in.tsv.xz and expected.tsv from lines of words (str): each line's gap is chosen at
    random, its contexts joined by spaces and, at a share `breaks` of the word boundaries, by the
    two characters backslash-n, as in the real corpus's scans. Returns the number of lines."""
    split_dir = Path(split_dir)
    split_dir.mkdir(parents=True, exist_ok=True)
    count = 0
    with (
        lzma.open(split_dir / "in.tsv.xz", "wt", encoding="utf-8", preset=1) as ins,
        open(split_dir / "expected.tsv", "w", encoding="utf-8") as gaps,
    ):
        for count, words in enumerate(lines, start=1):
            gap = int(rng.integers(len(words)))
            joints = ["\\n" if r < breaks else " " for r in rng.random(len(words)).tolist()]
            year = f"{rng.uniform(*YEARS):.4f}"
            index = count - 1
            meta = [f"{index:08x}", f"newspaper{index % 97}", str(index), year, "", ""]
            columns = meta if layout == 8 else [meta[0], year]
            left, right = _join(words[:gap], joints[:gap]), _join(words[gap + 1 :], joints[gap + 1 :])
            ins.write("\t".join([*columns, left, right]) + "\n")
            gaps.write(words[gap] + "\n")
    return count


def _join(words, joints):
    """The words with the joint after each, but for the last."""
    return "".join(word + joint for word, joint in zip(words[:-1], joints)) + (words[-1] if words else "")


TYPES = 1 << 23  # ranks the Zipf law ranges over: more than any corpus here can exhaust
FRESH_EXPONENT = 1.2  # Zipf exponent of words drawn afresh
CONTINUE = 0.5  # share of words that continue the previous word
SUCCESSORS = 256  # successors each word can have ...
SUCCESSOR_EXPONENT = 1.0  # ... with Zipf-distributed preference
SUCCESSOR_TYPES = 50_000  # successors come from the most frequent types
SUCCESSOR_TYPE_EXPONENT = 0.9
MEAN_LINE_WORDS = 290  # the real corpus: 123.7M words over 432k lines
# Fixed expressions: PHRASES of them, with Zipf popularity, each four to nine words long
# (PHRASE_WORDS), its words drawn with Zipf preference from the PHRASE_TYPES most frequent
# types. Built from common words, an expression's last two words are seen in many places, so a
# trigram model is unsure where a 4- or 5-gram model knows; a share PHRASE_RATE of the word
# positions starts one. Tuned so that on 10M words perplexity falls 6.5% from order 3 to 4 and
# 8.4% to 5 (the real corpus: 9% from 3 to 4 at its full size).
PHRASES = 1 << 20
PHRASE_EXPONENT = 1.0
PHRASE_WORDS = (4, 9)
PHRASE_TYPES = 300
PHRASE_TYPE_EXPONENT = 1.0
PHRASE_RATE = 0.03
# A document's own words: each line (a page) has TOPIC_WORDS[0] + Poisson(TOPIC_WORDS[1]) words of
# its own, names and topic words drawn from the Zipf tail (ranks TOPIC_RANKS, log-uniform), and a
# share TOPIC_RATE of its positions is one of them (any alike), as a page repeats its names and
# subject; a share TOPIC_PAIRED of them is always followed by a mate of its own. Set so that the
# share of dev-0's gap words found in their own contexts, of those not among the 1,000 commonest
# words, their count there, and the share of gaps whose pair with a neighbour recurs on the page
# come near those of Vim's manual and the Rust books (benchmarks/real_english.py repeats;
# BENCHMARKS.md).
TOPIC_WORDS = (2, 5.0)
TOPIC_RANKS = (1_000, 100_000)
TOPIC_RATE = 0.07
TOPIC_PAIRED = 0.8


def zipf_cdf(n, exponent):
    weights = 1.0 / np.arange(1, n + 1, dtype=np.float64) ** exponent
    cdf = np.cumsum(weights)
    return cdf / cdf[-1]


def mix64(x):
    """splitmix64 finaliser: a fixed pseudo-random function of the successor's key."""
    x = x ^ (x >> np.uint64(31))
    x = x * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(29))


class Language:
    """The source: Zipf draws and a successor table shared by every split."""

    def __init__(self, seed):
        self.seed = np.uint64(seed)
        self.fresh_cdf = zipf_cdf(TYPES, FRESH_EXPONENT)
        self.successor_rank_cdf = zipf_cdf(SUCCESSORS, SUCCESSOR_EXPONENT)
        self.successor_type_cdf = zipf_cdf(SUCCESSOR_TYPES, SUCCESSOR_TYPE_EXPONENT)
        self.phrase_cdf = zipf_cdf(PHRASES, PHRASE_EXPONENT)
        self.phrase_type_cdf = zipf_cdf(PHRASE_TYPES, PHRASE_TYPE_EXPONENT)

    def hashed_uniform(self, a, b, salt=0):
        """A fixed number in [0, 1) for each pair (a, b) of the arrays: the same in every split."""
        key = a.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + (
            b.astype(np.uint64) * np.uint64(0xBF58476D1CE4E5B9) + self.seed + np.uint64(salt)
        )
        return (mix64(key) >> np.uint64(11)).astype(np.float64) / float(1 << 53)

    def successor(self, previous, slot):
        return np.searchsorted(self.successor_type_cdf, self.hashed_uniform(previous, slot))

    def phrases(self, ids):
        """The words of the expressions ids (a row each, PHRASE_WORDS[1] wide) and their lengths."""
        low, high = PHRASE_WORDS
        lengths = low + (mix64(ids.astype(np.uint64) ^ self.seed) % np.uint64(high - low + 1)).astype(np.int64)
        positions = np.arange(high)
        uniform = self.hashed_uniform(ids[:, None], positions[None, :], salt=0x5EED)
        return np.searchsorted(self.phrase_type_cdf, uniform), lengths

    def place_phrases(self, words, rng):
        """Write expressions over words, starting at a share PHRASE_RATE of the positions (a
        later one overwrites an earlier one it overlaps, as the end of the chunk cuts one)."""
        starts = np.nonzero(rng.random(len(words)) < PHRASE_RATE)[0]
        phrases, lengths = self.phrases(np.searchsorted(self.phrase_cdf, rng.random(len(starts))))
        for position in range(PHRASE_WORDS[1]):
            at = starts + position
            keep = (position < lengths) & (at < len(words))
            words[at[keep]] = phrases[keep, position]

    def words(self, count, rng, pages):
        """count word ranks; runs of continued words are filled one step at a time for all runs.
        pages: the bounds of the lines, whose own words stand in for some fresh draws, so that
        the words continuing them and the expressions stay as they are elsewhere."""
        fresh = rng.random(count) >= CONTINUE
        fresh[0] = True
        words = np.empty(count, dtype=np.int64)
        words[fresh] = np.searchsorted(self.fresh_cdf, rng.random(int(fresh.sum())))
        for begin, end in zip(pages[:-1].tolist(), pages[1:].tolist()):
            place_topic_words(words[begin:end], fresh[begin:end], rng)
        index = np.arange(count)
        offset = index - np.maximum.accumulate(np.where(fresh, index, 0))
        slots = np.searchsorted(self.successor_rank_cdf, rng.random(count))
        for step in range(1, int(offset.max()) + 1):
            at = np.nonzero(offset == step)[0]
            words[at] = self.successor(words[at - 1], slots[at])
        self.place_phrases(words, rng)
        return words


def spelling(ranks):
    """A distinct lower-case spelling per rank, about as long as English words.

    The rank in base 25 (letters without z), then one to five z's chosen by the rank: the
    trailing z's can be stripped off again, so no two ranks share a spelling.
    """
    letters = "etaoinshrdlcumwfgypbvkjxq"
    out = {}
    for rank in ranks.tolist():
        n, chars = rank, []
        while True:
            chars.append(letters[n % 25])
            n = n // 25 - 1
            if n < 0:
                break
        out[rank] = "".join(chars) + "z" * (1 + (rank * 2654435761 >> 7) % 5)
    return out


class NewspaperSource:
    """Newspaper-like lines: Zipf draws and a successor table shared by every split."""

    def __init__(self, seed):
        self.language = Language(seed)

    def lines(self, count, rng, mean_words=MEAN_LINE_WORDS):
        """Lines of about mean_words words (log-normal lengths), count words in all; made a chunk
        at a time, so that memory stays bounded at any size."""
        for start in range(0, count, CHUNK_WORDS):
            size = min(CHUNK_WORDS, count - start)
            lengths = np.maximum(3, rng.lognormal(np.log(mean_words) - 0.125, 0.5, size // 50 + 10))
            bounds = np.cumsum(lengths.astype(int))
            bounds = np.concatenate([[0], bounds[bounds < size], [size]])
            words = self.language.words(size, rng, bounds)
            spelled = spelling(np.unique(words))
            text = [spelled[w] for w in words.tolist()]
            for begin, end in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
                yield text[begin:end]


CHUNK_WORDS = 20_000_000


def place_topic_words(page, fresh, rng):
    """Write a page's own words (see TOPIC_WORDS) over a share TOPIC_RATE of its positions, all
    among its fresh draws, in place (page: a view of the word ranks; fresh: which were drawn,
    made true where a word is written, so that no successor overwrites it)."""
    kinds = TOPIC_WORDS[0] + int(rng.poisson(TOPIC_WORDS[1]))
    low, high = np.log(TOPIC_RANKS)
    own = np.exp(rng.uniform(low, high, kinds)).astype(np.int64)
    at = np.flatnonzero(fresh & (rng.random(len(page)) < TOPIC_RATE / (1 - CONTINUE)))
    chosen = rng.integers(kinds, size=len(at))
    page[at] = own[chosen]
    # Some own words come with a word of the page's own after them, every time, as a name has its
    # first name or a subject its usual word: the page repeats pairs, not words alone.
    mates = np.exp(rng.uniform(low, high, kinds)).astype(np.int64)
    paired = rng.random(kinds) < TOPIC_PAIRED
    after = at + 1
    keep = paired[chosen] & (after < len(page))
    page[after[keep]] = mates[chosen[keep]]
    fresh[after[keep]] = True


def generate(root, words, seed=1, dev_words=None):
    """Write train/ and dev-0/ under root; dev-0 has 2.5% of the train size unless given."""
    root = Path(root)
    source = NewspaperSource(seed)
    dev_words = dev_words or max(10_000, words // 40)
    for split, count, stream in (("train", words, 0), ("dev-0", dev_words, 1)):
        rng = np.random.default_rng([seed, stream])
        write_split(root / split, source.lines(count, rng), rng)
    write_headers(root, layout=8)


class MarkovSource:
    """P(w | a, b) = (1 - end) * (mix * Zipf(w) + (1 - mix) * T_ab(w)), with T_ab on `successors` words."""

    def __init__(self, vocab_size=50, successors=5, mix=0.1, end=0.08, zipf=1.1, seed=0):
        self.words = [f"w{i}" for i in range(vocab_size)]
        weights = [1 / (rank + 1) ** zipf for rank in range(vocab_size)]
        total = sum(weights)
        self.unigram = [w / total for w in weights]
        self.unigram_cum = list(accumulate(self.unigram))
        self.successors, self.mix, self.end, self.seed = successors, mix, end, seed
        self._tables = {}

    def _table(self, context):
        """The context's own successors and their probabilities, fixed by the seed."""
        if context not in self._tables:
            rng = random.Random(f"{self.seed}:{context[0]}:{context[1]}")
            chosen = rng.sample(range(len(self.words)), self.successors)
            raw = [rng.gammavariate(1.0, 1.0) for _ in chosen]
            total = sum(raw)
            probs = {word: r / total for word, r in zip(chosen, raw)}
            self._tables[context] = (chosen, list(accumulate(probs[w] for w in chosen)), probs)
        return self._tables[context]

    def end_probability(self, context):
        return 0.0 if context[1] == START else self.end

    def probability(self, word, context):
        """P(word | context), word an index into self.words or END."""
        end = self.end_probability(context)
        if word == END:
            return end
        _, _, probs = self._table(context)
        return (1 - end) * (self.mix * self.unigram[word] + (1 - self.mix) * probs.get(word, 0.0))

    def sentence(self, rng, max_length=60):
        """Word indices of one sentence (at least one word)."""
        context, out = (START, START), []
        while len(out) < max_length:
            if rng.random() < self.end_probability(context):
                break
            if rng.random() < self.mix:
                word = min(bisect(self.unigram_cum, rng.random() * self.unigram_cum[-1]), len(self.words) - 1)
            else:
                chosen, cum, _ = self._table(context)
                word = chosen[min(bisect(cum, rng.random() * cum[-1]), len(chosen) - 1)]
            out.append(word)
            context = (context[1], word)
        return out

    def log10_probability(self, sentence):
        """log10 P of a sentence and its </s>, as an n-gram model scores it."""
        context, total = (START, START), 0.0
        for word in sentence:
            total += math.log10(self.probability(word, context))
            context = (context[1], word)
        return total + math.log10(self.probability(END, context))

    def perplexity(self, sentences):
        """The source's own perplexity on sentences, counting one </s> per sentence."""
        logprob = sum(self.log10_probability(s) for s in sentences)
        tokens = sum(len(s) + 1 for s in sentences)
        return 10 ** (-logprob / tokens)


def write_corpus(root, source, train_sentences, dev_sentences, seed=0, layout=8):
    """A corpus of a MarkovSource's sentences, one per line, with train/ and dev-0/; returns the
    dev sentences (word indices)."""
    rng = random.Random(seed)
    train = [source.sentence(rng) for _ in range(train_sentences)]
    dev = [source.sentence(rng) for _ in range(dev_sentences)]
    writer = np.random.default_rng(seed)
    for split, sentences in (("train", train), ("dev-0", dev)):
        write_split(Path(root) / split, ([source.words[w] for w in s] for s in sentences), writer, layout)
    write_headers(root, layout)
    return dev


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root")
    parser.add_argument("--words", type=int, required=True, help="training words, e.g. 10000000")
    parser.add_argument("--dev-words", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    generate(args.root, args.words, args.seed, args.dev_words)


if __name__ == "__main__":
    main()
