"""Write a corpus in the challenge's format of any size, with statistics like newspaper text.

    .venv/bin/python benchmarks/generate_corpus.py OUT --words 10000000 [--seed 1]

Deterministic from the seed. Words follow a Zipf law over millions of types, so the
vocabulary keeps growing with size; half the words continue the previous word through a
hashed successor table, which gives bigrams and trigrams the diversity of real English
(at 1M words: about 72k types, 413k distinct bigrams, 767k distinct trigrams). The dev
split is drawn from the same source with another stream of the generator, so it shares
the language but not the text.
"""

import argparse
import lzma
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "workflow"))

from lmgap.synth import write_headers  # noqa: E402

TYPES = 1 << 23  # ranks the Zipf law ranges over: more than any corpus here can exhaust
FRESH_EXPONENT = 1.2  # Zipf exponent of words drawn afresh
CONTINUE = 0.5  # share of words that continue the previous word
SUCCESSORS = 256  # successors each word can have ...
SUCCESSOR_EXPONENT = 1.0  # ... with Zipf-distributed preference
SUCCESSOR_TYPES = 50_000  # successors come from the most frequent types
SUCCESSOR_TYPE_EXPONENT = 0.9
MEAN_LINE_WORDS = 290  # the real corpus: 123.7M words over 432k lines
ESCAPED_BREAK = 0.03  # share of word boundaries that are line breaks in the scan (\n)
YEARS = (1800.0, 1960.0)


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

    def successor(self, previous, slot):
        key = previous.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
        key += slot.astype(np.uint64) * np.uint64(0xBF58476D1CE4E5B9) + self.seed
        uniform = (mix64(key) >> np.uint64(11)).astype(np.float64) / float(1 << 53)
        return np.searchsorted(self.successor_type_cdf, uniform)

    def words(self, count, rng):
        """count word ranks; runs of continued words are filled one step at a time for all runs."""
        fresh = rng.random(count) >= CONTINUE
        fresh[0] = True
        words = np.empty(count, dtype=np.int64)
        words[fresh] = np.searchsorted(self.fresh_cdf, rng.random(int(fresh.sum())))
        index = np.arange(count)
        offset = index - np.maximum.accumulate(np.where(fresh, index, 0))
        slots = np.searchsorted(self.successor_rank_cdf, rng.random(count))
        for step in range(1, int(offset.max()) + 1):
            at = np.nonzero(offset == step)[0]
            words[at] = self.successor(words[at - 1], slots[at])
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


def write_split(split_dir, language, words, rng):
    """Cut words into lines, choose a gap in each, and write in.tsv.xz and expected.tsv."""
    split_dir.mkdir(parents=True, exist_ok=True)
    lengths = np.maximum(3, rng.lognormal(np.log(MEAN_LINE_WORDS) - 0.125, 0.5, len(words) // 50 + 10)).astype(int)
    bounds = np.cumsum(lengths)
    bounds = np.concatenate([[0], bounds[bounds < len(words)], [len(words)]])
    vocab = spelling(np.unique(words))
    text = [vocab[w] for w in words.tolist()]
    breaks = rng.random(len(words)) < ESCAPED_BREAK
    with lzma.open(split_dir / "in.tsv.xz", "wt", encoding="utf-8", preset=1) as ins, open(
        split_dir / "expected.tsv", "w", encoding="utf-8"
    ) as gaps:
        for line, (start, end) in enumerate(zip(bounds[:-1].tolist(), bounds[1:].tolist())):
            gap = int(rng.integers(start, end))
            left = _join(text, breaks, start, gap)
            right = _join(text, breaks, gap + 1, end)
            year = rng.uniform(*YEARS)
            ins.write(f"{line:08x}\tnewspaper{line % 97}\t{line}\t{year:.4f}\t\t\t{left}\t{right}\n")
            gaps.write(text[gap] + "\n")


def _join(text, breaks, start, end):
    pieces = []
    for i in range(start, end):
        pieces.append(text[i])
        pieces.append("\\n" if breaks[i] else " ")
    return "".join(pieces[:-1])


def generate(root, words, seed=1, dev_words=None):
    """Write train/ and dev-0/ under root; dev-0 has 2.5% of the train size unless given."""
    root = Path(root)
    language = Language(seed)
    dev_words = dev_words or max(10_000, words // 40)
    for split, count, stream in (("train", words, 0), ("dev-0", dev_words, 1)):
        rng = np.random.default_rng([seed, stream])
        for part, (start, stop) in enumerate(_chunks(count)):
            # Chunks bound the memory at any size; each continues the same stream.
            part_dir = root / split if part == 0 else root / f".{split}-part{part}"
            write_split(part_dir, language, language.words(stop - start, rng), rng)
        _merge_parts(root, split)
    # One in-header.tsv and out-header.tsv at the top, shared by every split, as the challenge keeps them.
    write_headers(root, layout=8)


CHUNK_WORDS = 20_000_000


def _chunks(count):
    return [(s, min(s + CHUNK_WORDS, count)) for s in range(0, count, CHUNK_WORDS)]


def _merge_parts(root, split):
    """Append the later chunks' files to the first chunk's (xz streams concatenate)."""
    parts = sorted(root.glob(f".{split}-part*"), key=lambda p: int(p.name.rsplit("part", 1)[1]))
    for part in parts:
        for name in ("in.tsv.xz", "expected.tsv"):
            with open(root / split / name, "ab") as out:
                out.write((part / name).read_bytes())
            (part / name).unlink()
        part.rmdir()


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
