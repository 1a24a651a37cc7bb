"""Real English in the challenge's format, from text on this machine: Vim's reference manual
(/usr/share/vim/vim*/doc/*.txt, about 1.5M words in its files) or the Rust toolchain's books
(their print.html pages, about 700,000 words of prose), cut into documents of DOCUMENT_WORDS
words, each with one gap, the way the challenge's pages are; and what its documents repeat of
themselves, which the generated corpus's documents are made to match.

    .venv/bin/python benchmarks/real_english.py build OUT [--dev-documents 640] [--source rust]
    .venv/bin/python benchmarks/real_english.py repeats CORPUS [CORPUS ...]

`repeats` prints, for the gap words of a corpus's dev-0: the share found in their own document's
contexts, the share of those that are not among the training split's COMMON most frequent words
(a document's own names and topic words), the mean count of such a word in its document, and the
share of gaps whose word and the word left (or right) of the gap occur together elsewhere in it.
"""

import argparse
import glob
import html
import lzma
import re
from collections import Counter
from pathlib import Path

import numpy as np

from generate_corpus import write_headers, write_split

DOCUMENT_WORDS = 290  # as the real corpus's lines: 123.7M words over 432,022 lines
COMMON = 1000
# A cut of which more than REPEATED of its SHINGLE-word sequences were seen before is a repeat.
SHINGLE = 8
REPEATED = 0.05
# Vim's help markup around words: |tag|, *tag*, `cmd`, and lines of ===, ---, ~ headings.
MARKUP = re.compile(r"[|*`]")
RULES = re.compile(r"^[=\-~ ]+$")
# An HTML book's code and scripts, and its tags.
HTML_CODE = re.compile(r"(?s)<(script|style|pre|code)[^>]*>.*?</\1>")
HTML_TAG = re.compile(r"<[^>]+>")
SOURCES = {
    "vim": "/usr/share/vim/vim*/doc/*.txt",
    # The Rust toolchain's books (rustup's docs component), each a single print.html.
    "rust": "/root/.rustup/toolchains/*/share/doc/rust/html/*/print.html",
}


def text_words(path):
    """A file's words: an HTML page's prose without its code, or a Vim help file's without its
    markup."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    if path.endswith(".html"):
        return html.unescape(HTML_TAG.sub(" ", HTML_CODE.sub(" ", text))).split()
    lines = [MARKUP.sub("", line) for line in text.splitlines() if not RULES.match(line)]
    return " ".join(lines).split()


def manual_words(pattern):
    """Every file's words, file by file, in a fixed order."""
    files = sorted(glob.glob(pattern))
    if not files:
        raise SystemExit(f"no files match {pattern}: install the documentation, or give another --source")
    for path in files:
        yield text_words(path)


def documents(pattern):
    """Cuts of DOCUMENT_WORDS words of one file each (a file's rest, shorter, left out), without
    the cuts that repeat text seen before: a book's print page may hold a passage twice, and a
    scored document the training split holds says nothing of a model."""
    seen = set()
    for words in manual_words(pattern):
        for start in range(0, len(words) - DOCUMENT_WORDS + 1, DOCUMENT_WORDS):
            cut = words[start : start + DOCUMENT_WORDS]
            shingles = {hash(tuple(cut[i : i + SHINGLE])) for i in range(len(cut) - SHINGLE + 1)}
            if len(shingles & seen) <= REPEATED * len(shingles):
                yield cut
            seen |= shingles


def build(out, dev_documents, seed, pattern):
    """train/ and dev-0/ of the manual's documents, dev-0 a random draw of dev_documents."""
    docs = list(documents(pattern))
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(docs))
    dev = sorted(order[:dev_documents].tolist())
    train = sorted(order[dev_documents:].tolist())
    for split, chosen in (("train", train), ("dev-0", dev)):
        write_split(Path(out) / split, (docs[i] for i in chosen), rng, layout=4, breaks=0.0)
    write_headers(out, layout=4)
    return len(train), len(dev)


def repeats(corpus):
    """(share of dev-0's gap words in their own contexts, share of those not among the training
    split's COMMON most frequent words, mean count of those in their document, share of gaps
    whose pair with the word left or right of the gap occurs elsewhere in the document)."""
    corpus = Path(corpus)
    counts = Counter()
    for left, right in _contexts(corpus / "train/in.tsv.xz"):
        counts.update(left + right)
    common = {word for word, _ in counts.most_common(COMMON)}
    found = own = paired = 0
    own_counts = []
    gaps = (corpus / "dev-0/expected.tsv").read_text(encoding="utf-8", errors="replace").splitlines()
    for (left, right), word in zip(_contexts(corpus / "dev-0/in.tsv.xz"), gaps):
        context = Counter(left + right)
        if context[word]:
            found += 1
            if word not in common:
                own += 1
                own_counts.append(context[word])
        tokens = left + right
        pairs = set(zip(tokens, tokens[1:])) - ({(left[-1], right[0])} if left and right else set())
        paired += bool((left and (left[-1], word) in pairs) or (right and (word, right[0]) in pairs))
    mean = float(np.mean(own_counts)) if own_counts else 0.0
    return found / len(gaps), own / max(found, 1), mean, paired / len(gaps)


def _contexts(path):
    """Each line's left and right context, as words."""
    with lzma.open(path, "rt", encoding="utf-8", errors="replace") as lines:
        for line in lines:
            left, right = line.rstrip("\n").split("\t")[-2:]
            yield left.replace("\\n", " ").split(), right.replace("\\n", " ").split()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("build")
    make.add_argument("out")
    make.add_argument("--dev-documents", type=int, default=640)
    make.add_argument("--seed", type=int, default=1)
    make.add_argument("--source", choices=SOURCES, default="vim")
    measure = commands.add_parser("repeats")
    measure.add_argument("corpora", nargs="+")
    args = parser.parse_args()
    if args.command == "build":
        train, dev = build(args.out, args.dev_documents, args.seed, SOURCES[args.source])
        print(f"{args.out}: {train:,} training documents, {dev:,} in dev-0, {DOCUMENT_WORDS} words each")
        return
    print(
        "corpus\tgap word in its contexts\tof those, not among the common words\ttheir mean count there"
        "\tgap's pair with a neighbour recurs"
    )
    for corpus in args.corpora:
        found, own, mean, paired = repeats(corpus)
        print(f"{corpus}\t{found:.3f}\t{own:.3f}\t{mean:.2f}\t{paired:.3f}")


if __name__ == "__main__":
    main()
