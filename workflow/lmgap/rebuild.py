"""Rebuild plain text (`left gap right`, one line per in.tsv line) from a challenge split."""

import lzma
from pathlib import Path

from .atomic import atomic_open
from .errors import LmgapError

ESCAPED_NEWLINE = b"\\n"
SENTENCE_START = b"<s>"


def split_columns(split_dir):
    """Number of in.tsv columns declared by in-header.tsv, or None when there is none."""
    header = Path(split_dir) / "in-header.tsv"
    if not header.exists():
        return None
    first = header.read_bytes().split(b"\n", 1)[0].rstrip(b"\r")
    return len(first.split(b"\t"))


def clean(field):
    """Turn escaped line breaks and `<s>` into spaces, as the seed recipe does."""
    return field.replace(ESCAPED_NEWLINE, b" ").replace(SENTENCE_START, b" ")


def rebuild_line(in_line, gap, columns=None):
    """The text of one line: left context, gap word, right context, then a newline.

    `in_line` and `gap` are bytes without their line ends; `columns` is the expected
    column count (None accepts any count of at least two).
    """
    fields = in_line.split(b"\t")
    if len(fields) < 2 or (columns is not None and len(fields) != columns):
        want = "at least 2" if columns is None else str(columns)
        raise ValueError(f"has {len(fields)} tab-separated columns, expected {want}")
    if b"\t" in gap:
        raise ValueError("expected.tsv holds a tab inside the gap word")
    return b" ".join((clean(fields[-2]), clean(gap), clean(fields[-1]))) + b"\n"


def _count_rest(lines):
    return sum(1 for _ in lines)


def rebuild_split(split_dir, out_path):
    """Write the text of a split to out_path; return the number of lines written.

    Streams in.tsv.xz and expected.tsv side by side; the output only appears if
    every line was rebuilt.
    """
    split_dir = Path(split_dir)
    in_path, gap_path = split_dir / "in.tsv.xz", split_dir / "expected.tsv"
    for path in (in_path, gap_path):
        if not path.exists():
            raise LmgapError(f"{path} is missing: every evaluated split needs in.tsv.xz and expected.tsv")
    columns = split_columns(split_dir)
    name = f"{split_dir.name}/"
    count = 0
    with lzma.open(in_path, "rb") as ins, open(gap_path, "rb") as gaps, atomic_open(out_path, "wb") as out:
        in_iter, gap_iter = iter(ins), iter(gaps)
        try:
            for count, in_line in enumerate(in_iter, start=1):
                gap = next(gap_iter, None)
                if gap is None:
                    total = count + _count_rest(in_iter)
                    raise LmgapError(
                        f"{name}expected.tsv has {count - 1} lines but {name}in.tsv.xz has {total}: "
                        "each in.tsv line needs its gap word on the same line of expected.tsv"
                    )
                if columns is None:
                    columns = len(in_line.split(b"\t"))
                try:
                    out.write(rebuild_line(_chomp(in_line), _chomp(gap), columns))
                except ValueError as err:
                    raise LmgapError(
                        f"{name}in.tsv.xz line {count} {err}; fix that line "
                        "(in-header.tsv, when present, sets the column count)"
                    ) from None
        except (lzma.LZMAError, EOFError) as err:
            raise LmgapError(
                f"{in_path} is corrupt or truncated after line {count} ({err}); fetch the corpus again"
            ) from None
        extra = _count_rest(gap_iter)
        if extra:
            raise LmgapError(
                f"{name}expected.tsv has {count + extra} lines but {name}in.tsv.xz has {count}: "
                "each in.tsv line needs its gap word on the same line of expected.tsv"
            )
    return count


def _chomp(line):
    return line[:-1] if line.endswith(b"\n") else line
