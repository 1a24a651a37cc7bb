"""Write outputs under a temporary name and rename them into place."""

import contextlib
import glob
import json
import os
import shutil
from pathlib import Path

import psutil


def temporary_sibling(path, tag=""):
    """A name in the same folder as path, so that the final rename is atomic; tag (a host's
    name, say) goes before the process id."""
    path = Path(path)
    return path.with_name(f".{path.name}.tmp-{tag}{os.getpid()}")


def _alive(pid):
    """True for a running process; a killed one whose parent died may linger as a zombie."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:
        return True


def remove_stale_siblings(path, tag=""):
    """Remove temporary files that killed writers of path left behind (an ARPA file can be GBs):
    those of the same tag whose process is gone."""
    path = Path(path)
    prefix = f".{path.name}.tmp-{tag}"
    for stale in path.parent.glob(f"{glob.escape(prefix)}*"):
        pid = stale.name[len(prefix) :]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            _remove(stale)


@contextlib.contextmanager
def atomic_path(path):
    """Yield a temporary path; rename it to path on success, remove it on failure."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_siblings(path)
    tmp = temporary_sibling(path)
    # A dead process of this one's id (ids are reused) may have left it, a folder `git clone` refuses.
    _remove(tmp)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise


def _remove(path):
    shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)


@contextlib.contextmanager
def atomic_open(path, mode="w", **kwargs):
    """Open a temporary file for writing; it replaces path only if the block succeeds."""
    with atomic_path(path) as tmp, open(tmp, mode, **kwargs) as handle:
        yield handle


def write_json(record, path):
    """A JSON file with sorted keys, so that the same record gives the same bytes."""
    with atomic_open(path) as out:
        json.dump(record, out, indent=2, sort_keys=True)
        out.write("\n")
