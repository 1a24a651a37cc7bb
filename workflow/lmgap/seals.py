"""Every file a job writes is sealed, and every job holds its inputs to their seals before it reads them:
a record changed by hand since its job wrote it, its shape kept, would pass every reader's check of
shape and be carried into the tables as if computed. The seal is a hidden file beside the output
(`.NAME.seal`): its size, modification time and sha256. A file of the size and time sealed is taken
unread; one of another is read and held to its sha256, so a file copied or merely touched passes.
A file without a seal (written by a shell command, or before seals) is taken as it is."""

import os
from pathlib import Path

from .atomic import write_json
from .files import DamagedRecord, read_json, sha256


def seal_path(path):
    path = Path(path)
    return path.with_name(f".{path.name}.seal")


def unseal(paths):
    """Remove the seals of paths (a job's outputs, before it writes them anew): an output left by a job
    killed before it sealed its work is then taken as it is, not refused by the seal of an earlier run's."""
    for path in paths:
        seal_path(path).unlink(missing_ok=True)


def seal(paths):
    """Seal each regular file among paths (folders are left to their own checks)."""
    for path in paths:
        if os.path.isfile(path):
            info = os.stat(path)
            write_json({"bytes": info.st_size, "mtime_ns": info.st_mtime_ns, "sha256": sha256(path)}, seal_path(path))


def check(paths):
    """Refuse a file among paths that is not what its job wrote, named with the fix."""
    for path in paths:
        sealed = seal_path(path)
        if not (os.path.isfile(path) and sealed.is_file()):
            continue
        try:
            written = read_json(sealed)
            info = os.stat(path)
            if (info.st_size, info.st_mtime_ns) == (written["bytes"], written["mtime_ns"]):
                continue
            if sha256(path) == written["sha256"]:
                continue
        except (DamagedRecord, TypeError, KeyError):
            # A seal that does not read: the file is not known to be its job's.
            raise DamagedRecord(path, f"its seal {sealed.name} beside it is damaged") from None
        if info.st_size != written["bytes"]:
            size = f"{info.st_size:,} bytes" if info.st_size else "empty"
            how = f"{size} where its job wrote {written['bytes']:,}"
        else:
            how = "other bytes than its job wrote, as many"
        raise DamagedRecord(path, f"{how}: changed since, by hand?")
