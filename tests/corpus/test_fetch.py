"""Fetching the corpus from git repositories the tests create, and from local folders."""

import gzip
import hashlib
import lzma
import subprocess
from types import SimpleNamespace

import pytest

from lmgap.atomic import temporary_sibling
from lmgap.corpus.fetch import fetch_corpus, read_gap_words, required_files, write_fingerprint, write_manifest
from lmgap.errors import LmgapError
from generate_corpus import MarkovSource, write_corpus

REQUIRED = required_files("train", ["dev-0"], test_a=False)


def git(*args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def corpus_repo(tmp_path):
    """A git repository in the challenge's layout with two commits; returns (path, first, second)."""
    repo = tmp_path / "challenge"
    write_corpus(repo, MarkovSource(seed=1), train_sentences=50, dev_sentences=10, seed=1)
    git("init", "-q", cwd=repo)
    git("-c", "user.name=t", "-c", "user.email=t@t", "add", ".", cwd=repo)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first", cwd=repo)
    first = git("rev-parse", "HEAD", cwd=repo)
    write_corpus(repo, MarkovSource(seed=2), train_sentences=70, dev_sentences=12, seed=2)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "second", cwd=repo)
    return repo, first, git("rev-parse", "HEAD", cwd=repo)


def independent_description(path):
    data = path.read_bytes()
    text = lzma.decompress(data) if path.suffix == ".xz" else data
    return {"sha256": hashlib.sha256(data).hexdigest(), "lines": text.count(b"\n")}


def fetch(tmp_path, source, commit=None, required=REQUIRED, source_given=True):
    """The corpus steps: fetch and check, each split's fingerprint, and the manifest."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    with open(tmp_path / "fetch.log", "w") as log:
        params = SimpleNamespace(
            source=source, source_given=source_given, commit=commit, clone_dir=tmp_path / "clone", required=required
        )
        fetch_corpus(params, tmp_path / "fetched.json", log)
    for split in sorted({name.split("/")[0] for name in required}):
        write_fingerprint(tmp_path / "fetched.json", split, tmp_path / f"{split}.json")
    return write_manifest(tmp_path / "fetched.json", tmp_path / "manifest.json")


def test_clone_records_commit_checksums_and_lines(tmp_path, corpus_repo):
    repo, _, second = corpus_repo
    manifest = fetch(tmp_path, repo.as_uri())
    assert manifest["commit"] == second
    assert git("rev-parse", "--is-shallow-repository", cwd=tmp_path / "clone") == "true"
    assert set(manifest["files"]) == set(REQUIRED)
    for name in REQUIRED:
        assert manifest["files"][name] == independent_description(repo / name)
    assert manifest["files"]["train/expected.tsv"]["lines"] == 70


def test_a_clone_left_half_made_under_this_process_s_id_is_replaced(tmp_path, corpus_repo):
    # A killed fetch's temporary clone, named by a process id the system has since given to us.
    repo, _, second = corpus_repo
    leftover = temporary_sibling(tmp_path / "clone")
    (leftover / ".git").mkdir(parents=True)
    (leftover / "half-cloned").write_text("")
    assert fetch(tmp_path, repo.as_uri())["commit"] == second
    assert not leftover.exists() and not (tmp_path / "clone/half-cloned").exists()


def test_pinned_commit_is_checked_out(tmp_path, corpus_repo):
    repo, first, _ = corpus_repo
    manifest = fetch(tmp_path, repo.as_uri(), commit=first)
    assert manifest["commit"] == first
    assert manifest["files"]["train/expected.tsv"]["lines"] == 50


def test_unknown_commit_names_the_key(tmp_path, corpus_repo):
    repo, _, _ = corpus_repo
    with pytest.raises(LmgapError, match="fix corpus.commit"):
        fetch(tmp_path, repo.as_uri(), commit="0123456789abcdef0123456789abcdef01234567")
    assert not (tmp_path / "manifest.json").exists()


def test_local_directory_is_used_in_place(tmp_path, corpus_repo):
    repo, _, second = corpus_repo
    manifest = fetch(tmp_path, str(repo))
    assert manifest["root"] == str(repo) and manifest["commit"] == second
    assert not (tmp_path / "clone").exists()


@pytest.mark.parametrize(
    "required, says",
    [
        (
            required_files("train", ["dev-0", "dev-1"], False),
            "lacks dev-1/expected.tsv (eval_splits asks for it); dev-1/in.tsv.xz (eval_splits asks for it): "
            "put them back; remove dev-1 from eval_splits; or point corpus.source at a corpus that has them",
        ),
        (
            # The only split scored: none is left to drop it for.
            required_files("train", ["dev-1"], False),
            "(eval_splits asks for it): put them back; or point corpus.source at a corpus that has them",
        ),
        (
            required_files("dev-1", ["dev-0"], False),
            "(train_split asks for it): put them back; set train_split to a split the corpus has; or point",
        ),
        (
            required_files("train", ["dev-0"], True),
            "lacks test-A/in.tsv.xz (corpus.test_a asks for it): put it back; set corpus.test_a: false; or point",
        ),
        (
            required_files("train", ["dev-0", "test-A"], False),
            "lacks test-A/expected.tsv, which eval_splits asks for: the challenge keeps test-A's gap words hidden",
        ),
    ],
)
def test_a_missing_file_is_named_with_the_key_that_asks_for_it(tmp_path, corpus_repo, required, says):
    repo, _, _ = corpus_repo
    (repo / "test-A").mkdir()
    (repo / "test-A/in.tsv.xz").write_bytes((repo / "dev-0/in.tsv.xz").read_bytes())
    if "corpus.test_a" in required.values():
        (repo / "test-A/in.tsv.xz").unlink()
    # Each split's folder there, its files not.
    for name in required:
        (repo / name).parent.mkdir(exist_ok=True)
    with pytest.raises(LmgapError) as err:
        fetch(tmp_path, str(repo), required=required)
    assert says in str(err.value)
    assert not (tmp_path / "manifest.json").exists()


@pytest.mark.parametrize(
    "required, says",
    [
        (
            required_files("train", ["dev-0", "dev-1"], False),
            "eval_splits: the corpus at {repo} has no split dev-1 (no folder dev-1/); its splits are dev-0, train: "
            "correct its name, or remove dev-1 from eval_splits, or point corpus.source at a corpus that has dev-1",
        ),
        # The only split scored: none is left to drop it for.
        (required_files("train", ["dev-1"], False), "dev-0, train: correct its name, or point corpus.source at"),
    ],
)
def test_a_split_the_corpus_has_no_folder_for_is_named_with_the_splits_it_has(tmp_path, corpus_repo, required, says):
    # `eval_splits: [dev-1]`, a name mistyped: no files to put back, the key and the splits there to pick from.
    repo, _, _ = corpus_repo
    with pytest.raises(LmgapError) as err:
        fetch(tmp_path, str(repo), required=required)
    assert says.format(repo=repo) in str(err.value)


@pytest.mark.parametrize("made", ["nothing", "a file"])
def test_a_corpus_source_that_is_no_folder_says_so_with_its_full_path(tmp_path, made):
    source = tmp_path / "corpsu"
    if made == "a file":
        source.write_text("")
    with pytest.raises(LmgapError) as err:
        fetch(tmp_path / "run", str(source))
    assert str(err.value).startswith(
        f"corpus.source: {source} is no folder{' (it is a file)' if made == 'a file' else ''} ({source}): point "
        "corpus.source at the corpus's folder"
    )


def test_a_folder_in_another_layout_says_so(tmp_path):
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(LmgapError, match="has none of the files the config needs .*challenge's layout"):
        fetch(tmp_path, str(tmp_path / "elsewhere"))


@pytest.mark.parametrize(
    "data, kind",
    # mtime=0: the same bytes, so the same test name, in every worker of a parallel run.
    [
        (gzip.compress(b"a\tb\n", mtime=0), "is gzip-compressed, not xz: recompress it with `{ zcat "),
        (b"plain\ttext\n", "is not xz-compressed (it looks like plain text): compress it with `xz -c "),
        (lzma.compress(lzma.compress(b"a\tb\n")), "is xz-compressed twice: decompress it once with `xz -dc "),
        (
            lzma.compress(b"a\tb\n", format=lzma.FORMAT_ALONE),
            "is in the old .lzma format, not xz: recompress it with `{ xz --format=lzma -dc ",
        ),
    ],
    ids=["gzip", "plain", "xz twice", "lzma"],
)
def test_an_xz_file_in_another_format_is_named_with_its_format(tmp_path, corpus_repo, data, kind):
    repo, _, _ = corpus_repo
    (repo / "dev-0/in.tsv.xz").write_bytes(data)
    with pytest.raises(LmgapError) as err:
        fetch(tmp_path, str(repo))
    assert str(err.value).startswith(f"{repo / 'dev-0/in.tsv.xz'} {kind}")


def test_a_commit_without_git_history_says_a_commit_needs_git(tmp_path):
    write_corpus(tmp_path / "plain", MarkovSource(seed=1), train_sentences=20, dev_sentences=5, seed=1)
    with pytest.raises(LmgapError, match="is a folder without git history.*remove corpus.commit"):
        fetch(tmp_path, str(tmp_path / "plain"), commit="0123456")
    # A folder inside a repository (a corpus copied into a checkout) has its history, not one of its own.
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with pytest.raises(LmgapError, match=f"is a folder inside the git repository {tmp_path}, not a repository of"):
        fetch(tmp_path / "f", str(tmp_path / "plain"), commit="0123456")


def test_fingerprints_follow_the_bytes_not_the_place(tmp_path, corpus_repo):
    repo, _, _ = corpus_repo
    for name in ("a", "b", "c", "d"):
        (tmp_path / name).mkdir()
    fetch(tmp_path / "a", str(repo))
    moved = tmp_path / "moved"
    repo.rename(moved)
    fetch(tmp_path / "b", str(moved))
    for split in ("train", "dev-0"):
        assert (tmp_path / "a" / f"{split}.json").read_bytes() == (tmp_path / "b" / f"{split}.json").read_bytes()
    # The top-level in-header.tsv describes every split: what it decides (the column count, the
    # year's column) is part of each fingerprint; the names of the other columns are not.
    header = (moved / "in-header.tsv").read_text().splitlines()[0].split("\t")
    assert len(header) == 8 and header[3] == "Year"
    renamed = ["Document", *header[1:3], "year", *header[4:]]
    (moved / "in-header.tsv").write_text("\t".join(renamed) + "\n\n")
    fetch(tmp_path / "c", str(moved))
    assert (tmp_path / "c/train.json").read_bytes() == (tmp_path / "b/train.json").read_bytes()
    (moved / "in-header.tsv").write_text("\t".join([*header[:3], "Published", *header[4:]]) + "\n")
    fetch(tmp_path / "d", str(moved))
    assert (tmp_path / "d/train.json").read_bytes() != (tmp_path / "b/train.json").read_bytes()
    # A header of other columns than the lines have is refused at the fetch, as the jobs would.
    (moved / "in-header.tsv").write_text("FileId\tYear\tLeftContext\tRightContext\n")
    with pytest.raises(LmgapError, match="in.tsv.xz line 1 has 8 tab-separated columns, expected 4"):
        fetch(tmp_path / "e", str(moved))


@pytest.mark.parametrize("source", ["git://host.invalid/corpus", "https://host.invalid/git/corpus"])
def test_unreachable_host_says_how_to_use_a_local_copy(tmp_path, source):
    with pytest.raises(LmgapError) as err:
        fetch(tmp_path, source)
    assert "host.invalid" in str(err.value)
    assert "set corpus.source to that local directory" in str(err.value)
    assert "with `make demo`" in str(err.value)
    assert not (tmp_path / "clone").exists() and not (tmp_path / "manifest.json").exists()
    # The config's corpus.source line deleted: the default was fetched, which the message says first.
    with pytest.raises(LmgapError, match=r"^the config gives no corpus.source, so its default was fetched: cannot"):
        fetch(tmp_path, source, source_given=False)


def test_corrupt_xz_is_reported(tmp_path, corpus_repo):
    repo, _, _ = corpus_repo
    data = (repo / "train/in.tsv.xz").read_bytes()
    (repo / "train/in.tsv.xz").write_bytes(data[: len(data) // 2])
    with pytest.raises(LmgapError, match="train/in.tsv.xz is corrupt or truncated"):
        fetch(tmp_path, str(repo))


@pytest.mark.parametrize(
    "word",
    [b"new york", b"</s>", b"<unk>", b"<s>", b"a\x00b", b"line\\nbreak", b"car\rriage", b"tab\x0bbed"],
    ids=["space", "end", "unk", "start", "nul", "escaped-newline", "carriage-return", "vertical-tab"],
)
def test_a_gap_word_the_rebuilt_text_does_not_hold_as_one_word_is_warned_about(tmp_path, word):
    expected = tmp_path / "expected.tsv"
    expected.write_bytes(b"the\n" + word + b"\nof\n")
    warnings, not_utf8 = read_gap_words(expected, "dev-0/expected.tsv")
    assert not_utf8 == [] and len(warnings) == 1
    assert warnings[0].startswith("dev-0/expected.tsv has gap words the rebuilt text does not hold as one word, line 2")
    # Words the text keeps as they are, punctuation and capitals among them, are no warning.
    expected.write_bytes(b"The\nU.S.,\n<b>\n")
    assert read_gap_words(expected, "dev-0/expected.tsv") == ([], [])


def test_an_expected_tsv_a_line_short_is_one_error_at_the_fetch_naming_both_files(tmp_path, corpus_repo):
    repo, _, _ = corpus_repo
    expected = repo / "dev-0/expected.tsv"
    lines = expected.read_bytes().splitlines(keepends=True)[:-1]
    # A gap without a word (accepted, and warned of) is no cause in the shorter file.
    lines[2] = b"\n"
    expected.write_bytes(b"".join(lines))
    with pytest.raises(LmgapError) as err:
        fetch(tmp_path / "work", str(repo))
    assert str(err.value).startswith(
        f"{repo}/dev-0/expected.tsv has 11 lines but {repo}/dev-0/in.tsv.xz has 12: give each in.tsv line"
    )
    assert "blank" not in str(err.value).split(":")[0]
    # Nothing recorded: no job after the fetch starts.
    assert not (tmp_path / "work/fetched.json").exists()


def test_a_last_gap_word_without_its_line_end_is_a_line_all_the_same(tmp_path, corpus_repo):
    repo, _, _ = corpus_repo
    expected = repo / "dev-0/expected.tsv"
    expected.write_bytes(expected.read_bytes().removesuffix(b"\n"))
    manifest = fetch(tmp_path / "work", str(repo))
    assert manifest["files"]["dev-0/expected.tsv"]["lines"] == manifest["files"]["dev-0/in.tsv.xz"]["lines"] == 12
