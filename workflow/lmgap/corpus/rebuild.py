"""Rebuild plain text (`left gap right`, one line per in.tsv line) from a challenge split."""

import contextlib
import fcntl
import itertools
import lzma
import shutil
import subprocess
from pathlib import Path

from ..atomic import atomic_open
from ..errors import LmgapError

ESCAPED_NEWLINE = b"\\n"
# lmplz --skip_symbols reads these as spaces but query scores them as words, so that both
# tools see the same tokens they become spaces here (the seed recipe removes only <s>).
MARKUP = (b"<s>", b"</s>", b"<unk>")
# Vertical tab, form feed, NUL and carriage return split words in one tool but not the other.
SPACES = bytes.maketrans(b"\x00\x0b\x0c\r", b"    ")


def header_path(split_dir):
    """The in-header.tsv that describes a split's in.tsv: the split's own, else the one the
    challenge's repositories keep at their top level for every split; None when neither exists."""
    split_dir = Path(split_dir)
    candidates = (split_dir / "in-header.tsv", split_dir.parent / "in-header.tsv")
    return next((path for path in candidates if path.is_file()), None)


def header_names(split_dir):
    """The in.tsv column names in-header.tsv declares, or None when there is none."""
    header = header_path(split_dir)
    if header is None:
        return None
    return header.read_bytes().removeprefix(b"\xef\xbb\xbf").split(b"\n", 1)[0].rstrip(b"\r").split(b"\t")


def clean(field):
    """Turn escaped line breaks, `<s>`, `</s>`, `<unk>` and odd control characters into spaces."""
    field = field.replace(ESCAPED_NEWLINE, b" ")
    for symbol in MARKUP:
        field = field.replace(symbol, b" ")
    return field.translate(SPACES)


BLOCK = 1 << 20


class CorruptInput(Exception):
    """The decompressor rejected the file."""


def _blocks(path, compressed):
    """Raw blocks of a file. xz files are decompressed by an `xz` process, so that decompression
    runs on another core while this one rebuilds lines (the lzma module is the fallback)."""
    xz = shutil.which("xz") if compressed else None
    if xz is None:
        try:
            with (lzma.open if compressed else open)(path, "rb") as handle:
                yield from iter(lambda: handle.read(BLOCK), b"")
        except (lzma.LZMAError, EOFError) as err:
            raise CorruptInput(str(err)) from None
        return
    with subprocess.Popen([xz, "-dc", "--", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        # A pipe widened to a megabyte lets xz run ahead while a block is rebuilt.
        with contextlib.suppress(OSError):
            fcntl.fcntl(proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, 1 << 20)
        try:
            yield from iter(lambda: proc.stdout.read1(BLOCK), b"")
        finally:
            proc.stdout.close()
            error = proc.stderr.read().decode(errors="replace").strip()
            proc.wait()
        if proc.returncode:
            raise CorruptInput(error.replace(f"{xz}: ", "").replace(f"{path}: ", ""))


def _lines(path, compressed=False):
    """Lists of whole lines, cleaned and without their ends, block by block."""
    carry = b""
    for block in _blocks(path, compressed):
        block = carry + block
        cut = block.rfind(b"\n") + 1
        carry = block[cut:]
        if cut:
            yield clean(block[:cut].replace(b"\r\n", b"\n")).split(b"\n")[:-1]
    if carry:
        yield [clean(carry[:-1] if carry.endswith(b"\r") else carry)]


def line_count_mismatch(name, gaps, lines, blank=None):
    """blank: the first empty line of expected.tsv, the likeliest cause, if it has one."""
    where = f" ({name}expected.tsv line {blank} is blank)" if blank else ""
    return LmgapError(
        f"{name}expected.tsv has {gaps} lines but {name}in.tsv.xz has {lines}{where}: give each in.tsv "
        "line its gap word on the same line of expected.tsv (a blank line or a line end missing shifts them)"
    )


def read_contexts(split_dir):
    """Lists of (left, right) contexts of in.tsv.xz lines, cleaned like the rebuilt text, block by
    block; an LmgapError naming the line whose column count is off."""
    split_dir = Path(split_dir)
    in_path = split_dir / "in.tsv.xz"
    if not in_path.exists():
        raise LmgapError(f"{in_path} is missing: every split needs its in.tsv.xz")
    header = header_path(split_dir)
    columns = len(header_names(split_dir) or [])
    count = 0
    try:
        for lines in _lines(in_path, compressed=True):
            columns = columns or lines[0].count(b"\t") + 1
            # A line holds its left and right contexts at least.
            expected = max(columns, 2)
            for line in lines:
                count += 1
                found = line.count(b"\t") + 1
                if found == 1 and not line.strip():
                    raise LmgapError(
                        f"{split_dir.name}/in.tsv.xz line {count} is blank: each line is a document with its "
                        "contexts; remove that line, and its line of expected.tsv if it has one"
                    )
                if found != expected:
                    source = f"the columns {header} names" if header else "line 1's"
                    raise LmgapError(
                        f"{split_dir.name}/in.tsv.xz line {count} has {found} tab-separated "
                        f"columns, expected {expected}, {source}; fix that line, "
                        f"or {'in-header.tsv' if header else 'line 1'} if it is the one that is wrong"
                    )
            yield [line.rsplit(b"\t", 2)[-2:] for line in lines]
    except CorruptInput as err:
        raise LmgapError(
            f"{in_path} is corrupt or truncated after line {count} ({err}); fetch the corpus again"
        ) from None
    if count == 0:
        raise LmgapError(f"{in_path} has no lines; a split needs at least one line of text")


def with_gap_words(split_dir, gap_words):
    """Lists of (left, gap, right), block by block of in.tsv.xz, gap words from gap_words (an iterator
    over expected.tsv's lines); an LmgapError when the line counts differ or a gap word holds a tab."""
    split_dir = Path(split_dir)
    name, count, blank = f"{split_dir.name}/", 0, None
    blocks = read_contexts(split_dir)
    for contexts in blocks:
        lines = []
        for index, (left, right) in enumerate(contexts):
            gap = next(gap_words, None)
            if gap is None:
                rest = len(contexts) - index + sum(len(block) for block in blocks)
                raise line_count_mismatch(name, count, count + rest, blank)
            count += 1
            if b"\t" in gap:
                raise LmgapError(
                    f"{name}expected.tsv line {count} has a tab in its gap word; "
                    "a gap word is one whitespace token: fix that line"
                )
            blank = blank or (count if not gap.strip() else None)
            lines.append((left, gap, right))
        yield lines
    extra = 0
    for extra, gap in enumerate(gap_words, start=1):
        blank = blank or (count + extra if not gap.strip() else None)
    if extra:
        raise line_count_mismatch(name, count + extra, count, blank)


def rebuild_split(split_dir, out_path):
    """Write the text of a split to out_path (only once every line is rebuilt), streaming in.tsv.xz
    and expected.tsv side by side; return the number of lines written."""
    split_dir = Path(split_dir)
    gap_path = split_dir / "expected.tsv"
    if not gap_path.exists():
        raise LmgapError(f"{gap_path} is missing: every evaluated split needs in.tsv.xz and expected.tsv")
    count = 0
    with atomic_open(out_path, "wb") as out:
        for lines in with_gap_words(split_dir, itertools.chain.from_iterable(_lines(gap_path))):
            out.write(b"".join(b"%s %s %s\n" % line for line in lines))
            count += len(lines)
    return count


def year_column(split_dir):
    """Index of the column in-header.tsv names `Year` (any case), or None."""
    folded = [name.strip().lower() for name in header_names(split_dir) or []]
    return folded.index(b"year") if b"year" in folded else None


def parse_year(field):
    """A publication year as a number (the corpus gives fractional years), or None."""
    try:
        year = float(field)
    except ValueError:
        return None
    return year if 0 < year < 10000 else None


def write_years(split_dir, out_path):
    """One row per in.tsv line with its year (empty when unknown); just the header when the
    layout has no year column. Returns the number of lines with a year."""
    split_dir = Path(split_dir)
    column = year_column(split_dir)
    known = 0
    with atomic_open(out_path, "w") as out:
        out.write("year\n")
        if column is None:
            return 0
        try:
            for lines in _lines(split_dir / "in.tsv.xz", compressed=True):
                fields = [line.split(b"\t", column + 1) for line in lines]
                years = [parse_year(row[column]) if len(row) > column else None for row in fields]
                known += sum(year is not None for year in years)
                out.write("".join("\n" if year is None else f"{year!r}\n" for year in years))
        except CorruptInput as err:
            raise LmgapError(
                f"{split_dir / 'in.tsv.xz'} is corrupt or truncated ({err}); fetch the corpus again"
            ) from None
    return known
