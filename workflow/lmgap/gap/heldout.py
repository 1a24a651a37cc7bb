"""Training gaps the candidate index never counts (the model still trains on them): p0 is measured
on them, so no scored split's own words set it. The unigram baseline's counts leave them out too."""

import itertools
from collections import Counter
from pathlib import Path

from ..atomic import atomic_open
from ..corpus.rebuild import with_gap_words
from ..files import DamagedRecord, read_table_record

# At most a tenth of the training lines, so that tiny corpora keep most of their text.
MAX_SHARE = 10


def heldout_line_numbers(train_lines, wanted):
    """Line numbers (from 1) spread evenly over the split: the same lines on every run."""
    count = min(wanted, train_lines // MAX_SHARE)
    return [int((k + 0.5) * train_lines / count) + 1 for k in range(count)]


def raw_lines(path):
    """Lines of a file as bytes, without their line ends (LF or CRLF)."""
    with open(path, "rb") as handle:
        for line in handle:
            yield line.rstrip(b"\n").removesuffix(b"\r")


def write_heldout(train_dir, wanted, heldout_path, gap_words_path):
    """Write the held-out gaps (line, gap word as GEval compares expected.tsv's raw line, left and right
    cleaned like the rebuilt text) and the other lines' gap-word counts; return the gaps' number."""
    train_dir = Path(train_dir)
    train_lines = sum(1 for _ in raw_lines(train_dir / "expected.tsv"))
    chosen = set(heldout_line_numbers(train_lines, wanted))
    gap_words = Counter()
    lines = itertools.chain.from_iterable(with_gap_words(train_dir, raw_lines(train_dir / "expected.tsv")))
    with atomic_open(heldout_path, "wb") as out:
        for number, (left, word, right) in enumerate(lines, start=1):
            if number in chosen:
                out.write(b"%d\t%s\t%s\t%s\n" % (number, word, left, right))
            else:
                gap_words[word] += 1
    with atomic_open(gap_words_path, "wb") as out:
        for word, count in sorted(gap_words.items(), key=lambda item: (-item[1], item[0])):
            out.write(b"%s\t%d\n" % (word, count))
    return len(chosen)


def _rows(path, parse):
    """parse(line) of each line of a record of ours that ends where it was written; a line cut short, or
    one parse refuses, is named, with the fix (lmgap.files.DamagedRecord)."""

    def read(path):
        rows = []
        for number, line in enumerate(raw_lines(path), start=1):
            try:
                rows.append(parse(line))
            except ValueError as err:
                raise DamagedRecord(path, f"line {number}: {err}") from None
        return rows

    return read_table_record(path, read) if Path(path).stat().st_size else []


def read_heldout(path):
    """[(line, gap word, left context, right context)] of a held-out file (bytes)."""

    def parse(line):
        number, word, left, right = line.split(b"\t")
        return int(number), word, left, right

    return _rows(path, parse)


def read_gap_words(path):
    """[(word, count)], most frequent first, of the training gap words the held-out lines lack."""

    def parse(line):
        word, count = line.rsplit(b"\t", 1)
        return word, int(count)

    return _rows(path, parse)
