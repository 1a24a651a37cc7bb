"""Every file a job writes under results/ is sealed, and every job holds its inputs to their seals before it
reads them: a record changed by hand since its job wrote it, its shape kept, would pass every reader's
check of shape and be carried into the tables as if computed. A seal holds the file's size, its times of
modification and of change, and its sha256; a file of the size and times sealed is taken unread, one of
another is read and held to its sha256, so a file copied or merely touched passes. A file under results/
without a seal is refused too (its seal deleted, the file written by hand): every job writes through
lmgap.scriptio, and a first run of this code runs every job again (each one's code digest changed).
Snakemake's benchmark files, which it writes itself once a job has ended, are sealed by the first job that
reads one (none reads one before its job has ended): the job they time leaves a pending seal as it starts,
so that one whose seal was removed by hand is refused as any record is.

Seals lie in one hidden tree, results/.seals/, mirroring results/: a folder the user copies (a gap system's
predictions, a model) holds its own files alone."""

import hashlib
import json
import os
from pathlib import Path

from .atomic import write_json
from .errors import LmgapError
from .files import DamagedRecord, read_json, sha256


SEALS = Path("results/.seals")
# What Snakemake writes under results/ itself, once a job has ended: no job can seal it as it writes it.
BENCHMARKS = Path("results/benchmarks")
# The seal of a benchmark file its job is writing: its first reader seals it (await_benchmark).
PENDING = {"pending": "sealed by the first job that reads it"}


def seal_path(path):
    """Where the seal of a file under results/ lies (a path relative to the job's folder), else None."""
    parts = Path(path).parts
    if Path(path).is_absolute() or len(parts) < 2 or parts[0] != "results" or ".." in parts:
        return None
    return SEALS.joinpath(*parts[1:-1], f"{parts[-1]}.seal")


def _sealed_tree():
    """(folder under results/, the names of its seals' folder) for each folder of the seals tree."""
    return [(Path("results", os.path.relpath(where, SEALS)), names) for where, _, names in os.walk(SEALS)]


def sealed_folders():
    """The folders under results/ that held files of a run, by the seals tree that mirrors them: a file made in
    one's place fails the next run's planning with a raw NotADirectoryError."""
    return [folder for folder, _ in _sealed_tree()]


def sealed_files():
    """The files under results/ a job wrote and sealed (Snakemake's benchmark files aside: it writes them itself,
    and keeps no record of them)."""
    found = [
        folder / name.removesuffix(".seal")
        for folder, names in _sealed_tree()
        for name in names
        if name.endswith(".seal")
    ]
    return [path for path in found if not path.is_relative_to(BENCHMARKS) and path.is_file()]


def benchmark_of(log):
    """The benchmark file of the job whose log is log: results/benchmarks/X.tsv beside logs/X.log, as every
    rule names them (a test holds them to it)."""
    parts = Path(log).with_suffix(".tsv").parts
    return BENCHMARKS.joinpath(*parts[1:]) if parts[0] == "logs" else None


def unseal(paths):
    """Remove the seals of paths (a job's outputs, before it writes them anew): no earlier run's seal stands
    beside what a job killed before sealing its work wrote (Snakemake runs such a job again)."""
    for path in paths:
        sealed = seal_path(path)
        if sealed:
            sealed.unlink(missing_ok=True)


def settings_digest(params):
    """A digest of a job's params ((name, value) pairs): what it was made with, compared as JSON writes it."""
    text = json.dumps(dict(params), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def seal(paths, params=None):
    """Seal each regular file among paths (folders are left to their own checks); params: the job's, whose
    digest the seal keeps (made_with)."""
    made = {} if params is None else {"params": settings_digest(params)}
    for path in paths:
        sealed = seal_path(path)
        if sealed and os.path.isfile(path):
            info = os.stat(path)
            record = {
                "bytes": info.st_size,
                "mtime_ns": info.st_mtime_ns,
                "ctime_ns": info.st_ctime_ns,
                "sha256": sha256(path),
            }
            write_json({**record, **made}, sealed)


def made_with(path):
    """The digest of the params of the job that wrote path, as its seal keeps it; None where none is kept."""
    sealed = seal_path(path)
    try:
        return read_json(sealed).get("params") if sealed and sealed.is_file() else None
    except (DamagedRecord, AttributeError):
        return None


def fault(path, unsealed=False):
    """The DamagedRecord of a file that is not what its job wrote, else None; unsealed: take one without a seal
    as it is."""
    sealed = seal_path(path)
    if not (sealed and os.path.isfile(path)):
        return None
    if not sealed.is_file():
        if unsealed:
            return None
        return DamagedRecord(path, f"it has no seal at {sealed}: written or its seal removed by hand?")
    try:
        written = read_json(sealed)
        if not _shaped(written):
            raise TypeError(f"{sealed} holds no seal's fields")
        info = os.stat(path)
        # The size and times sealed: taken unread (no edit keeps the inode's change time, which no hand can set
        # back). Else its bytes decide (a copy, a touch pass).
        if (info.st_size, info.st_mtime_ns, info.st_ctime_ns) == (
            written["bytes"],
            written["mtime_ns"],
            written.get("ctime_ns"),
        ):
            return None
        if sha256(path) == written["sha256"]:
            return None
    except (DamagedRecord, TypeError, KeyError):
        # A seal that does not read: the file is not known to be its job's.
        return DamagedRecord(path, f"its seal {sealed} is damaged")
    if info.st_size != written["bytes"]:
        return DamagedRecord(path, resized(info.st_size, written["bytes"]))
    return DamagedRecord(path, "other bytes than its job wrote, as many: changed since, by hand?")


def _shaped(seal, fields=("bytes", "mtime_ns", "sha256")):
    """Whether a seal read holds its fields with their types: sizes and times whole numbers, the digest text."""
    if not isinstance(seal, dict):
        return False
    kinds = {"bytes": int, "mtime_ns": int, "sha256": str}
    return all(isinstance(seal.get(field), kinds[field]) and not isinstance(seal.get(field), bool) for field in fields)


def await_benchmark(path):
    """Leave a pending seal for the benchmark file path (None: the job has none), which Snakemake writes anew as
    the job ends: its first reader seals it."""
    if path:
        write_json(PENDING, seal_path(path))


def _pending(path):
    if not (Path(path).parent.is_relative_to(BENCHMARKS) and seal_path(path).is_file()):
        return False
    try:
        return read_json(seal_path(path)) == PENDING
    except DamagedRecord:
        return False


def resized(size, written):
    """Why a file of size bytes, whose job wrote written, is damaged."""
    return f"{f'{size:,} bytes' if size else 'empty'} where its job wrote {written:,}: changed since, by hand?"


def sizes_changed(leave_out=()):
    """(path, size, size sealed) of each sealed file under results/ whose size is not the one its job wrote: a
    record cut, emptied or added to, told with no read of the file; size None where a folder took its place. Only
    a file newer than its seal is held to it (a stat of each and a read of the seal): one its job wrote since is
    sealed anew. leave_out: folders whose files have checks of their own."""
    found = []
    for sealed in sorted(SEALS.rglob("*.seal")) if SEALS.is_dir() else []:
        relative = sealed.relative_to(SEALS)
        path = Path("results", relative.parent, relative.name.removesuffix(".seal"))
        if any(path.is_relative_to(folder) for folder in leave_out):
            continue
        try:
            info = path.stat()
            if info.st_mtime_ns <= sealed.stat().st_mtime_ns:
                continue
            written = read_json(sealed)["bytes"]
        except (OSError, DamagedRecord, KeyError, TypeError):
            # Gone, or a pending or damaged seal: what reads the file says so.
            continue
        if not _shaped({"bytes": written}, ("bytes",)):
            # A seal of the wrong shape is damaged, as fault says when a job reads the file.
            continue
        if path.is_dir():
            found.append((str(path), None, written))
        elif info.st_size != written:
            found.append((str(path), info.st_size, written))
    return found


def check(paths, unsealed=False):
    """Refuse the files among paths that are not what their jobs wrote, each named with the fix (all at once, so
    that one run names them all); unsealed: take one without a seal as it is. A benchmark file whose seal is
    pending is sealed as it is: its first reader's, Snakemake wrote it as its job ended."""
    seal(path for path in paths if os.path.isfile(path) and _pending(path))
    faults = [found for found in (fault(path, unsealed) for path in paths) if found]
    if len(faults) == 1:
        raise faults[0]
    if faults:
        raise LmgapError("\n".join(map(str, faults)))


def gone_warning(made):
    """The warning for results without their seals' folder (made: a result every run writes, the fetch's record):
    deleted or moved as a whole, each job would refuse its inputs one round of the graph at a time."""
    if SEALS.is_dir() or not Path(made).is_file():
        return None
    return (
        f"{SEALS}/ is gone while results/ holds results ({made} among them): no job can hold them to what their "
        f"jobs wrote, and each job that reads one refuses it. Put {SEALS}/ back if it was moved, else run with "
        "--forceall to write them all anew"
    )
