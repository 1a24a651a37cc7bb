"""Fetch the corpus (a git URL or a local directory), check it and write its manifest."""

import hashlib
import lzma
import os
import shutil
import socket
import subprocess
from pathlib import Path
from urllib.parse import urlparse

from ..atomic import atomic_path, write_json
from ..commands import compress, decompress_once, latin1_to_utf8, recompress
from ..errors import LmgapError
from ..files import count_text_lines, head_commit, read_json, sha256
from .place import is_url
from .rebuild import clean, header_names, header_path, line_count_mismatch, read_contexts, year_column

GIT_PORTS = {"git": 9418, "https": 443, "http": 80, "ssh": 22}
CONNECT_TIMEOUT_S = 15


def check_commit_source(source, commit):
    """A commit needs history to check out: a local folder must be a git repository, at its top."""
    if not commit or is_url(source) or not Path(source).is_dir():
        return
    done = subprocess.run(["git", "-C", str(source), "rev-parse", "--git-dir"], capture_output=True, text=True)
    if done.returncode:
        raise LmgapError(
            f"corpus.commit: {commit} names a commit, but corpus.source {source} is a folder without git history, so "
            "there is no commit to check out: remove corpus.commit to use the folder "
            "as it is, or point corpus.source at a git repository of the corpus"
        )
    git = ["git", "-C", str(source), "rev-parse"]
    if subprocess.run([*git, "--is-bare-repository"], capture_output=True, text=True).stdout.strip() == "true":
        return
    top = subprocess.run([*git, "--show-toplevel"], capture_output=True, text=True).stdout.strip()
    if Path(top).resolve() != Path(source).resolve():
        # A folder within a repository (a corpus copied into this checkout, say): its history is the repository's.
        raise LmgapError(
            f"corpus.commit: {commit} names a commit, but corpus.source {source} is a folder inside the git "
            f"repository {top}, "
            "not a repository of its own, so there is no commit of the corpus to check out: remove corpus.commit "
            "to use the folder as it is, or point corpus.source at a git repository of the corpus"
        )


def _git(args, log, cwd=None):
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0")
    log.flush()
    return subprocess.run(["git", *args], cwd=cwd, env=env, stdout=log, stderr=subprocess.PIPE, text=True)


def _offline_help(source, detail):
    return (
        f"cannot fetch the corpus from {source}: {detail}. Without network access, copy the "
        "challenge's repository (or a directory with train/ and dev-0/) to this machine and set "
        "corpus.source to that local directory; or try the pipeline on a small "
        "generated corpus in the challenge's format with `make demo`."
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
    with atomic_path(dest) as tmp:
        url = source if is_url(source) else Path(source).resolve().as_uri()
        done = _git(["clone", "--depth", "1", "--no-checkout", "--", url, str(tmp)], log)
        if done.returncode:
            raise LmgapError(_offline_help(source, f"git clone failed: {done.stderr.strip()}"))
        if commit and _git(["fetch", "--depth", "1", "origin", commit], log, cwd=tmp).returncode:
            # Servers may refuse to serve a commit by its hash; the full history has it.
            _git(["fetch", "--unshallow", "origin"], log, cwd=tmp)
        done = _git(["checkout", "--quiet", commit or "HEAD"], log, cwd=tmp)
        if done.returncode:
            raise LmgapError(
                f"commit {commit} is not in {source} ({done.stderr.strip()}); "
                "fix corpus.commit or leave it empty for the newest commit"
            )
        # os.replace puts a folder only where none is, or an empty one.
        shutil.rmtree(dest, ignore_errors=True)


def check_line_counts(root, described):
    """Each split's expected.tsv has a line per line of its in.tsv.xz: checked at the fetch, so
    that one error names both files, and a blank line that shifts them, before any job reads them
    (in.tsv.xz has none: describe_file refused it)."""
    for name in described:
        if not name.endswith("/expected.tsv"):
            continue
        split = name.removesuffix("expected.tsv")
        gaps, lines = described[name]["lines"], described[f"{split}in.tsv.xz"]["lines"]
        if gaps != lines:
            blank = first_blank_line(Path(root) / name) if gaps > lines else None
            raise line_count_mismatch(f"{root}/{split}", gaps, lines, blank)


def first_blank_line(path):
    """The number of an expected.tsv's first empty line, or None."""
    with open(path, "rb") as handle:
        return next((number for number, line in enumerate(handle, start=1) if not line.rstrip(b"\r\n")), None)


def describe_file(path):
    """sha256 of a corpus file's bytes and the number of lines of its text: an expected.tsv's as a reader
    takes them, an in.tsv.xz's as every job reads them, so that a line of the wrong columns, or blank, is
    refused now."""
    if path.name == "in.tsv.xz":
        try:
            lines = sum(len(block) for block in read_contexts(path.parent))
        except LmgapError as err:
            # The jobs name the split's file alone; the fetch says which copy of the corpus it is.
            raise LmgapError(f"{err} (the corpus at {path.parent.parent})") from None
        return {"sha256": sha256(path), "lines": lines}
    with open(path, "rb") as text:
        return {"sha256": sha256(path), "lines": count_text_lines(text)}


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


# What asks for a split's files, and how to stop asking.
ASKED_BY = {
    "train_split": "set train_split to a split the corpus has",
    "eval_splits": "remove {split} from eval_splits",
    "corpus.test_a": "set corpus.test_a: false",
}


def required_files(train_split, eval_splits, test_a):
    """{file: the config key that asks for it} of every file the config needs."""
    wanted = {}
    for split, key in [(train_split, "train_split"), *((split, "eval_splits") for split in eval_splits)]:
        for name in (f"{split}/in.tsv.xz", f"{split}/expected.tsv"):
            wanted.setdefault(name, key)
    if test_a:
        wanted.setdefault("test-A/in.tsv.xz", "corpus.test_a")
    return dict(sorted(wanted.items()))


def check_files(root, required):
    """Every required file ({name: asking key}) is there, or an error naming the missing ones,
    the key that asked for each and how to drop it; xz files must be xz."""
    if not Path(root).is_dir():
        raise LmgapError(
            f"corpus.source: {root} is no folder{' (it is a file)' if Path(root).exists() else ''} "
            f"({Path(root).resolve()}): point corpus.source at the corpus's folder, in the challenge's layout "
            "(train/ and dev-0/ with in.tsv.xz and expected.tsv), or at the challenge's git URL"
        )
    missing = {name: key for name, key in required.items() if not (Path(root) / name).is_file()}
    if "test-A/expected.tsv" in missing:
        # The challenge keeps test-A's gap words hidden, so no layout fix will bring the file.
        raise LmgapError(
            f"the corpus at {root} lacks test-A/expected.tsv, which eval_splits asks for: the challenge "
            "keeps test-A's gap words hidden, so test-A cannot be scored; remove test-A from eval_splits "
            "(corpus.test_a: true still predicts its gaps)"
        )
    if missing and len(missing) == len(required):
        raise LmgapError(
            f"the corpus at {root} has none of the files the config needs ({', '.join(missing)}); point "
            "corpus.source at a directory in the challenge's layout (train/ and dev-0/ "
            "with in.tsv.xz and expected.tsv)"
        )
    # A split's files dropped from the config only where a split is left to score.
    scored = {name.split("/")[0] for name, key in required.items() if key == "eval_splits"}
    # A split's folder absent altogether: its name mistyped in the config, most likely.
    for name, key in missing.items():
        split = name.split("/")[0]
        if not (Path(root) / split).is_dir() and key != "corpus.test_a":
            has = sorted(folder.name for folder in Path(root).iterdir() if (folder / "in.tsv.xz").is_file())
            drop = f", or {ASKED_BY[key].format(split=split)}" if key != "eval_splits" or len(scored) > 1 else ""
            raise LmgapError(
                f"{key}: the corpus at {root} has no split {split} (no folder {split}/); its splits are "
                f"{', '.join(has) or 'none'}: correct its name{drop}, or point corpus.source at a corpus that has "
                f"{split}"
            )
    if missing:
        dropped = {name.split("/")[0] for name, key in missing.items() if key == "eval_splits"}
        fixes = {
            ASKED_BY[key].format(split=name.split("/")[0])
            for name, key in missing.items()
            if key != "eval_splits" or scored - dropped
        }
        asked = "; ".join(f"{name} ({key} asks for it)" for name, key in missing.items())
        them = "them" if len(missing) > 1 else "it"
        raise LmgapError(
            f"the corpus at {root} lacks {asked}: put {them} back; {'; '.join([*sorted(fixes), ''])}or point "
            f"corpus.source at a corpus that has {them}"
        )
    for name in required:
        if name.endswith(".xz"):
            check_xz(Path(root) / name)


XZ_MAGIC = b"\xfd7zXZ\x00"
OTHER_FORMATS = {
    b"\x1f\x8b": ("gzip-compressed", "zcat"),
    b"BZh": ("bzip2-compressed", "bzcat"),
    b"\x28\xb5\x2f\xfd": ("zstd-compressed", "zstdcat"),
    # The .lzma format xz wrote before its own (lzma_alone), with its default settings' first bytes.
    b"\x5d\x00\x00": ("in the old .lzma format", "xz --format=lzma -dc"),
}


def _inner_head(path):
    """The first bytes an xz file holds, read without the rest; None where it does not read (its readers name
    that)."""
    try:
        with lzma.open(path) as handle:
            return handle.read(len(XZ_MAGIC))
    except (lzma.LZMAError, EOFError):
        return None


def check_xz(path):
    """An .xz file that is really another format gets a message saying which, and how to convert it."""
    with open(path, "rb") as handle:
        head = handle.read(len(XZ_MAGIC))
    if head == XZ_MAGIC and _inner_head(path) == XZ_MAGIC:
        raise LmgapError(f"{path} is xz-compressed twice: decompress it once with `{decompress_once(path)}`")
    if head == XZ_MAGIC or not head:
        return
    for magic, (kind, reader) in OTHER_FORMATS.items():
        if head.startswith(magic):
            raise LmgapError(f"{path} is {kind}, not xz: recompress it with `{recompress(path, reader)}`")
    raise LmgapError(f"{path} is not xz-compressed (it looks like plain text): compress it with `{compress(path)}`")


def fingerprint(root, split, described):
    """What a split's text and years depend on: its files' sha256 (expected.tsv's of its lines) and
    what in-header.tsv decides (column count, year column), not where they lie or other columns' names."""
    names = sorted(name for name in described if name.startswith(f"{split}/"))
    split_dir = Path(root) / split
    header = None
    if header_path(split_dir):
        header = {"columns": len(header_names(split_dir)), "year_column": year_column(split_dir)}
    digests = {
        name: lines_sha256(Path(root) / name) if name.endswith("expected.tsv") else described[name]["sha256"]
        for name in names
    }
    return {"split": split, "files": digests, "in-header.tsv": header}


def lines_sha256(path):
    """The sha256 of a file's lines as every reader of expected.tsv takes them (the text, the gap
    words, GEval's scoring): CRLF or LF line ends, and the last line's end or none, alike."""
    data = Path(path).read_bytes().replace(b"\r\n", b"\n")
    return hashlib.sha256(data if data.endswith(b"\n") or not data else data + b"\n").hexdigest()


def read_gap_words(path, name):
    """One pass over an expected.tsv: warnings of what is accepted but likely a mistake (their messages
    say why), and the lines GEval cannot read as UTF-8: [(line, byte offset, reason)]."""
    warnings, empty, changed, not_utf8 = [], [], [], []
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                warnings.append(
                    f"{name} begins with a byte-order mark, which becomes part of its first gap word: "
                    "save the file as UTF-8 without one"
                )
            word = line.rstrip(b"\r\n")
            if b"\t" in word:
                raise LmgapError(
                    f"{name} line {number} has a tab in its gap word; a gap word is one whitespace token: fix that line"
                )
            if not word:
                empty.append(number)
            # The rebuild's own cleaning, which KenLM's text gets: a word it changes is not the word
            # the models see.
            elif clean(word).split() != [word]:
                changed.append(number)
            try:
                word.decode("utf-8")
            except UnicodeDecodeError as err:
                not_utf8.append((number, err.start, err.reason))
    if empty:
        warnings.append(f"{name} has empty lines, gaps without a word: line {_first_lines(empty)}")
    if changed:
        warnings.append(
            f"{name} has gap words the rebuilt text does not hold as one word, line {_first_lines(changed)} "
            "(a space, an escaped \\n, <s>, </s>, <unk> or a control character in it): the text takes each "
            "as other words or none, and the gap task scores it as one word no prediction can match; a "
            "gap word is one whitespace token of plain text: fix those lines"
        )
    return warnings, not_utf8


def check_scorable(record, split):
    """For the gap task, before any model trains: the split's gap words are UTF-8, as GEval reads
    them (the perplexity path takes bytes and needs no decoding)."""
    name = f"{split}/expected.tsv"
    bad = record.get("not_utf8", {}).get(name)
    if bad:
        number, offset, reason = bad[0]
        more = f" (and {len(bad) - 1} more lines)" if len(bad) > 1 else ""
        path = f"{record['root']}/{name}"
        where = (
            f" (a clone of {record['source']}, made again at each fetch: convert a local copy and point "
            "corpus.source at it)"
            if is_url(record["source"])
            else ""
        )
        raise LmgapError(
            f"{name} line {number} is not valid UTF-8 ({reason} at byte {offset}){more}: GEval reads gap "
            f"words as UTF-8, so the gap task cannot score this split. Save the file as UTF-8{where} (for a "
            f"Latin-1 file: {latin1_to_utf8(path)}), or "
            "set gap.enabled: false for the perplexity tables alone"
        )


def _first_lines(numbers, shown=5):
    """Line numbers for a message: the first few, and how many more."""
    more = f" and {len(numbers) - shown} more" if len(numbers) > shown else ""
    return ", ".join(map(str, numbers[:shown])) + more


def fetch_corpus(params, record_path, log):
    """Make the corpus available (params: source, source_given, commit, clone_dir, required; URLs and pinned
    commits cloned), check it and record where it is and each split's fingerprint; cheap, so that the rebuild
    starts at once."""
    source, commit, required = params.source, params.commit, params.required
    if is_url(source) or commit:
        if not is_url(source) and not Path(source).is_dir():
            raise LmgapError(f"corpus.source {source} is neither a git URL nor a directory")
        check_commit_source(source, commit)
        try:
            clone(source, commit, params.clone_dir, log)
        except LmgapError as err:
            if params.source_given:
                raise
            raise LmgapError(f"the config gives no corpus.source, so its default was fetched: {err}") from None
        root = Path(params.clone_dir)
    else:
        root = Path(source)
    check_files(root, required)
    described = {name: describe_file(root / name) for name in sorted(required)}
    check_line_counts(root, described)
    splits = sorted({name.split("/")[0] for name in required})
    prints = {split: fingerprint(root, split, described) for split in splits}
    warnings, not_utf8 = [], {}
    for name in required:
        if name.endswith("expected.tsv"):
            found, bad = read_gap_words(root / name, name)
            # Named by where they lie: a warning may be read after the corpus has moved.
            warnings += [f"{root}/{warning}" for warning in found]
            if bad:
                not_utf8[name] = bad
    # The fingerprints make the record change whenever a file does, so the manifest follows.
    record = {
        "source": source,
        "commit": head_commit(root),
        "root": str(root),
        "files": sorted(required),
        "described": described,
        "splits": prints,
        "warnings": warnings,
        "not_utf8": not_utf8,
    }
    write_json(record, record_path)


def write_fingerprint(record_path, split, out_path, scored_for_gaps=False):
    """One split's fingerprint, from the fetch record; a split the gap task scores must have UTF-8
    gap words (checked here, the first step after the fetch, before the text or any model)."""
    record = read_json(record_path)
    if scored_for_gaps:
        check_scorable(record, split)
    write_json(record["splits"][split], out_path)


def write_manifest(record_path, manifest_path):
    """The fetch record with the sha256 and line count of every file used."""
    record = read_json(record_path)
    manifest = {**record, "files": record["described"]}
    for key in ("described", "splits", "not_utf8"):
        manifest.pop(key, None)
    write_json(manifest, manifest_path)
    return manifest
