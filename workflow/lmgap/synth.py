"""Corpora in the challenge's format drawn from a second-order Markov source of known probabilities.

Used by the tests, which compare a trained model's perplexity with
the source's own.
"""

import lzma
import math
import random
from bisect import bisect
from itertools import accumulate
from pathlib import Path

START, END = "<s>", "</s>"
HEADER_8 = ["FileId", "Paper", "Idx", "Year", "Month", "Day", "LeftContext", "RightContext"]
HEADER_4 = ["FileId", "Year", "LeftContext", "RightContext"]


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


def to_line(words, rng, layout, index):
    """One in.tsv line and its gap word; contexts hold escaped line breaks like the real corpus."""
    gap_at = rng.randrange(len(words))
    glue = lambda part: "".join(w + ("\\n" if rng.random() < 0.05 else " ") for w in part).strip()
    left, gap, right = glue(words[:gap_at]), words[gap_at], glue(words[gap_at + 1 :])
    year = f"{rng.uniform(1800, 1960):.4f}"
    meta = [f"doc{index:07d}", f"paper{rng.randrange(40)}", str(index), year, "1", "1"]
    cols = meta if layout == 8 else [meta[0], year]
    return "\t".join([*cols, left, right]) + "\n", gap + "\n"


def write_headers(root, layout=8):
    """in-header.tsv and out-header.tsv at the corpus's top level, shared by every split, as the
    challenge's repositories keep them."""
    (Path(root) / "in-header.tsv").write_text("\t".join(HEADER_8 if layout == 8 else HEADER_4) + "\n")
    (Path(root) / "out-header.tsv").write_text("GapWord\n")


def write_split(split_dir, sentences, words, rng, layout=8, header=False):
    """Write in.tsv.xz and expected.tsv (and a split's own in-header.tsv) for sentences of word indices."""
    split_dir = Path(split_dir)
    split_dir.mkdir(parents=True, exist_ok=True)
    with lzma.open(split_dir / "in.tsv.xz", "wt", encoding="utf-8") as ins, open(
        split_dir / "expected.tsv", "w", encoding="utf-8"
    ) as gaps:
        for index, sentence in enumerate(sentences):
            line, gap = to_line([words[w] for w in sentence], rng, layout, index)
            ins.write(line)
            gaps.write(gap)
    if header:
        (split_dir / "in-header.tsv").write_text("\t".join(HEADER_8 if layout == 8 else HEADER_4) + "\n")


def write_corpus(root, source, train_sentences, dev_sentences, seed=0, layout=8):
    """A corpus directory with train/ and dev-0/; returns the dev sentences."""
    rng = random.Random(seed)
    train = [source.sentence(rng) for _ in range(train_sentences)]
    dev = [source.sentence(rng) for _ in range(dev_sentences)]
    write_split(Path(root) / "train", train, source.words, rng, layout)
    write_split(Path(root) / "dev-0", dev, source.words, rng, layout)
    write_headers(root, layout)
    return dev
