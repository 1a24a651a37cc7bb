"""Fetch the corpus (a git URL or a local directory), check it and write its manifest."""

import hashlib
import json
import lzma
import os
import shutil
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlparse

from .atomic import temporary_sibling, write_json
from .errors import LmgapError

GIT_PORTS = {"git": 9418, "https": 443, "http": 80, "ssh": 22}
CONNECT_TIMEOUT_S = 15


def is_url(source):
    """True for git URLs (scheme://...), false for local directories."""
    return "://" in source


def split_files(split, with_gaps=True):
    """The files a split must hold."""
    names = ["in.tsv.xz", "expected.tsv"] if with_gaps else ["in.tsv.xz"]
    return [f"{split}/{name}" for name in names]


def _git(args, log, cwd=None):
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0")
    log.flush()
    return subprocess.run(["git", *args], cwd=cwd, env=env, stdout=log, stderr=subprocess.PIPE, text=True)


def _offline_help(source, detail):
    return (
        f"cannot fetch the corpus from {source}: {detail}. Without network access, copy the "
        "challenge's repository (or a directory with train/ and dev-0/) to this machine and set "
        "corpus.source in config.yaml to that local directory."
    )


def check_reachable(source):
    """Fail fast, with a way out, when the host of a git URL cannot be reached."""
    url = urlparse(source)
    if url.scheme == "file" or not url.hostname:
        return
    port = url.port or GIT_PORTS.get(url.scheme, 443)
    try:
        socket.create_connection((url.hostname, port), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as err:
        raise LmgapError(_offline_help(source, f"{url.hostname}:{port} is unreachable ({err})")) from None


def clone(source, commit, dest, log):
    """Clone source shallowly into dest (replacing it), at commit if one is given."""
    check_reachable(source)
    dest = Path(dest)
    tmp = temporary_sibling(dest)
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        url = source if is_url(source) else Path(source).resolve().as_uri()
        done = _git(["clone", "--depth", "1", "--no-checkout", "--", url, str(tmp)], log)
        if done.returncode:
            raise LmgapError(_offline_help(source, f"git clone failed: {done.stderr.strip()}"))
        ref = commit or "HEAD"
        if commit and _git(["fetch", "--depth", "1", "origin", commit], log, cwd=tmp).returncode:
            # Servers may refuse to serve a commit by its hash; the full history has it.
            _git(["fetch", "--unshallow", "origin"], log, cwd=tmp)
        done = _git(["checkout", "--quiet", ref], log, cwd=tmp)
        if done.returncode:
            raise LmgapError(
                f"commit {commit} is not in {source} ({done.stderr.strip()}); "
                "fix corpus.commit in config.yaml or leave it empty for the newest commit"
            )
        shutil.rmtree(dest, ignore_errors=True)
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def head_commit(root):
    """The commit a git work tree is at, or None for a plain directory."""
    if not (Path(root) / ".git").exists():
        return None
    done = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return done.stdout.strip() if done.returncode == 0 else None


def sha256(path):
    """Hex sha256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def describe_file(path):
    """sha256 of the file's bytes and the number of lines of its (decompressed) text."""
    opener = lzma.open if path.suffix == ".xz" else open
    try:
        with opener(path, "rb") as text:
            lines = sum(block.count(b"\n") for block in iter(lambda: text.read(1 << 20), b""))
    except (lzma.LZMAError, EOFError) as err:
        raise LmgapError(f"{path} is corrupt or truncated ({err}); fetch the corpus again") from None
    return {"sha256": sha256(path), "lines": lines}


def uncompressed_mb(path):
    """The size of an xz file's content, from its index (no decompression), or None if unknown."""
    xz = shutil.which("xz")
    if xz is None or not Path(path).is_file():
        return None
    done = subprocess.run([xz, "--robot", "--list", "--", str(path)], capture_output=True, text=True)
    for line in done.stdout.splitlines():
        fields = line.split("\t")
        if done.returncode == 0 and fields[0] == "totals" and fields[4].isdigit():
            return int(fields[4]) / 2**20
    return None


def check_files(root, required):
    """Every required file is there, or an error naming the missing ones."""
    missing = [name for name in required if not (Path(root) / name).is_file()]
    if "test-A/expected.tsv" in missing:
        # The challenge keeps test-A's gap words hidden, so no layout fix will bring the file.
        raise LmgapError(
            f"the corpus at {root} lacks test-A/expected.tsv: the challenge keeps test-A's gap words "
            "hidden, so test-A cannot be scored; remove test-A from eval_splits in config.yaml "
            "(corpus.test_a: true still records its in.tsv.xz)"
        )
    if missing:
        raise LmgapError(
            f"the corpus at {root} lacks {', '.join(missing)}; point corpus.source in config.yaml "
            "at a directory in the challenge's layout (train/ and dev-0/ with in.tsv.xz and expected.tsv)"
        )


def fetch_corpus(source, commit, clone_dir, required, record_path, log):
    """Make the corpus available (cloning URLs, or local directories pinned to a commit),
    check it and record where it is; cheap, so that the rebuild starts at once."""
    if is_url(source) or commit:
        if not is_url(source) and not Path(source).is_dir():
            raise LmgapError(f"corpus.source {source} is neither a git URL nor a directory")
        clone(source, commit, clone_dir, log)
        root = Path(clone_dir)
    else:
        root = Path(source)
        if not root.is_dir():
            raise LmgapError(
                f"corpus.source {source} is not a directory; give a git URL or a local copy of the corpus"
            )
    check_files(root, required)
    record = {"source": source, "commit": head_commit(root), "root": str(root), "files": sorted(required)}
    write_json(record, record_path)
    return record


def write_manifest(record_path, manifest_path):
    """The fetch record with the sha256 and line count of every file used."""
    with open(record_path) as handle:
        record = json.load(handle)
    root = Path(record["root"])
    manifest = {**record, "files": {name: describe_file(root / name) for name in record["files"]}}
    write_json(manifest, manifest_path)
    return manifest
