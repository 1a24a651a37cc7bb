"""Rebuild plain text (`left gap right`, one line per in.tsv line) from a challenge split."""

import lzma
import contextlib
import fcntl
import shutil
import subprocess
from pathlib import Path

from .atomic import atomic_open
from .errors import LmgapError

ESCAPED_NEWLINE = b"\\n"
# lmplz --skip_symbols reads these as spaces but query scores them as words, so that both
# tools see the same tokens they become spaces here (the seed recipe removes only <s>).
MARKUP = (b"<s>", b"</s>", b"<unk>")
# Vertical tab, form feed, NUL and carriage return split words in one tool but not the other.
SPACES = bytes.maketrans(b"\x00\x0b\x0c\r", b"    ")


def header_names(split_dir):
    """The in.tsv column names in-header.tsv declares, or None when there is none."""
    header = Path(split_dir) / "in-header.tsv"
    if not header.exists():
        return None
    return header.read_bytes().split(b"\n", 1)[0].rstrip(b"\r").split(b"\t")


def split_columns(split_dir):
    """Number of in.tsv columns declared by in-header.tsv, or None when there is none."""
    names = header_names(split_dir)
    return None if names is None else len(names)


def clean(field):
    """Turn escaped line breaks, `<s>`, `</s>`, `<unk>` and odd control characters into spaces."""
    field = field.replace(ESCAPED_NEWLINE, b" ")
    for symbol in MARKUP:
        field = field.replace(symbol, b" ")
    return field.translate(SPACES)


def check_line(line, gap, columns):
    """Raise ValueError saying what is wrong with a line whose column count or gap is off."""
    found = line.count(b"\t") + 1
    if found != columns:
        raise ValueError(f"has {found} tab-separated columns, expected {columns}")
    if b"\t" in gap:
        raise ValueError("has a gap word with a tab in it in expected.tsv")


BLOCK = 1 << 20
F_SETPIPE_SZ = 1031  # fcntl.F_SETPIPE_SZ, which Python names only from 3.10 on Linux


class CorruptInput(Exception):
    """The decompressor rejected the file."""


def _blocks(path, compressed):
    """Raw blocks of a file. xz files are decompressed by an `xz` process, so that decompression
    runs on another core while this one rebuilds lines (the lzma module is the fallback)."""
    if not compressed:
        with open(path, "rb") as handle:
            yield from iter(lambda: handle.read(BLOCK), b"")
        return
    xz = shutil.which("xz")
    if xz is None:
        try:
            with lzma.open(path, "rb") as handle:
                yield from iter(lambda: handle.read(BLOCK), b"")
        except (lzma.LZMAError, EOFError) as err:
            raise CorruptInput(str(err)) from None
        return
    with subprocess.Popen([xz, "-dc", "--", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        try:
            yield from _drained(proc.stdout)
        finally:
            proc.stdout.close()
            error = proc.stderr.read().decode(errors="replace").strip()
            proc.wait()
        if proc.returncode:
            raise CorruptInput(error.replace(f"{xz}: ", "").replace(f"{path}: ", ""))


def _drained(pipe):
    """Blocks of a pipe widened to a megabyte, so that xz runs ahead while a block is rebuilt."""
    with contextlib.suppress(OSError):
        fcntl.fcntl(pipe.fileno(), F_SETPIPE_SZ, 1 << 20)
    yield from iter(lambda: pipe.read1(BLOCK), b"")


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


def _mismatch(name, gaps, lines):
    return LmgapError(
        f"{name}expected.tsv has {gaps} lines but {name}in.tsv.xz has {lines}: "
        "each in.tsv line needs its gap word on the same line of expected.tsv"
    )


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
    in_blocks, gap_blocks = _lines(in_path, compressed=True), _lines(gap_path)
    gaps = iter(())
    with atomic_open(out_path, "wb") as out:
        try:
            for lines in in_blocks:
                columns = columns or lines[0].count(b"\t") + 1
                rebuilt = []
                for index, line in enumerate(lines):
                    gap = next(gaps, None)
                    if gap is None:
                        gaps = iter(next(gap_blocks, ()))
                        gap = next(gaps, None)
                    if gap is None:
                        rest = len(lines) - index + sum(len(block) for block in in_blocks)
                        raise _mismatch(name, count, count + rest)
                    count += 1
                    if columns < 2 or line.count(b"\t") != columns - 1 or b"\t" in gap:
                        try:
                            check_line(line, gap, max(columns, 2))
                        except ValueError as err:
                            raise LmgapError(
                                f"{name}in.tsv.xz line {count} {err}; fix that line "
                                "(in-header.tsv, when present, sets the column count)"
                            ) from None
                    left, right = line.rsplit(b"\t", 2)[-2:]
                    rebuilt.append(b"%s %s %s\n" % (left, gap, right))
                out.write(b"".join(rebuilt))
        except CorruptInput as err:
            raise LmgapError(
                f"{in_path} is corrupt or truncated after line {count} ({err}); fetch the corpus again"
            ) from None
        if count == 0:
            raise LmgapError(f"{in_path} has no lines; a split needs at least one line of text")
        extra = sum(1 for _ in gaps) + sum(len(block) for block in gap_blocks)
        if extra:
            raise _mismatch(name, count + extra, count)
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
                rows = []
                for line in lines:
                    fields = line.split(b"\t", column + 1)
                    year = parse_year(fields[column]) if len(fields) > column else None
                    known += year is not None
                    rows.append("" if year is None else repr(year))
                out.write("\n".join(rows) + "\n")
        except CorruptInput as err:
            raise LmgapError(f"{split_dir / 'in.tsv.xz'} is corrupt or truncated ({err}); fetch the corpus again") from None
    return known
