"""Reading what lies on disk: a file's sha256 and line ends, read in blocks, a JSON file's content,
and the commit a git work tree is at."""

import hashlib
import json
import subprocess
from pathlib import Path

from .errors import LmgapError


def sha256(path):
    """Hex sha256 of a file's bytes, read in blocks."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


class DamagedRecord(LmgapError, ValueError):
    """A record of the pipeline's own that does not read as it was written (a job killed while
    writing elsewhere, a disk that filled up, a hand edit); a ValueError, as json's own error is."""

    def __init__(self, path, why, also=None):
        # also: a file written with it by the same job, which deleting it alone would leave as it is.
        fix = (
            f"delete it and {also}, and run the pipeline again to write them anew"
            if also
            else "delete it, and run the pipeline again to write it anew"
        )
        super().__init__(f"{path} is damaged ({why}): {fix}")
        self.why = why


def read_json(path):
    """A JSON file's content; a damaged one is named, with the fix."""
    with open(path) as handle:
        try:
            return json.load(handle)
        except ValueError as err:
            raise DamagedRecord(path, err) from None


def read_table_record(path, read):
    """read(path) of a TSV record of ours, whose every line ends where it was written; one cut
    short, or that read refuses, is named as damaged, with the fix."""
    with open(path, "rb") as handle:
        handle.seek(max(0, handle.seek(0, 2) - 1))
        if handle.read(1) != b"\n":
            raise DamagedRecord(path, "empty, or its last line cut short")
    try:
        return read(path)
    except DamagedRecord:
        # read named the damage itself (a ValueError too).
        raise
    except StopIteration:
        raise DamagedRecord(path, "it has no rows") from None
    except (ValueError, KeyError, TypeError) as err:
        raise DamagedRecord(path, f"{type(err).__name__}: {err}") from None


def count_text_lines(handle):
    """The lines of a binary stream as a reader takes them: a last line without its end counts."""
    lines, last = 0, b"\n"
    for block in iter(lambda: handle.read(1 << 20), b""):
        lines, last = lines + block.count(b"\n"), block[-1:]
    return lines + (last != b"\n")


def head_commit(root):
    """The commit a git work tree is at, or None for a plain directory (or without git)."""
    done = _git(root, "rev-parse", "HEAD")
    return done.stdout.strip() if done and done.returncode == 0 else None


def uncommitted_changes(root):
    """Whether a git work tree's tracked files differ from its commit (None for a plain directory)."""
    done = _git(root, "status", "--porcelain", "--untracked-files=no")
    return bool(done.stdout.strip()) if done and done.returncode == 0 else None


def committed_unchanged(root, relative):
    """Whether a file of a git work tree is tracked and as its commit has it (False outside git)."""
    tracked = _git(root, "ls-files", "--error-unmatch", "--", str(relative))
    changed = _git(root, "status", "--porcelain", "--", str(relative))
    return bool(tracked and tracked.returncode == 0 and changed and changed.returncode == 0 and not changed.stdout)


def _git(root, *args):
    # Only the work tree's own repository: a plain folder inside another one is no checkout.
    if not (Path(root) / ".git").exists():
        return None
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    except OSError:
        return None
