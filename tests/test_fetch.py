"""Fetching the corpus from git repositories the tests create, and from local folders."""

import hashlib
import lzma
import subprocess

import pytest

from lmgap.errors import LmgapError
from lmgap.fetch import fetch_corpus, write_manifest
from lmgap.synth import MarkovSource, write_corpus

REQUIRED = ["train/in.tsv.xz", "train/expected.tsv", "dev-0/in.tsv.xz", "dev-0/expected.tsv"]


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


def fetch(tmp_path, source, commit=None, required=REQUIRED):
    """Both corpus steps: fetch and check, then describe every file in the manifest."""
    with open(tmp_path / "fetch.log", "w") as log:
        fetch_corpus(source, commit, tmp_path / "clone", required, tmp_path / "fetched.json", log)
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


def test_missing_file_is_named(tmp_path, corpus_repo):
    repo, _, _ = corpus_repo
    (repo / "dev-0/expected.tsv").unlink()
    with pytest.raises(LmgapError, match="lacks dev-0/expected.tsv"):
        fetch(tmp_path, str(repo))
    assert not (tmp_path / "manifest.json").exists()


def test_scoring_test_a_without_its_answers_says_to_drop_it(tmp_path, corpus_repo):
    repo, _, _ = corpus_repo
    test_a = repo / "test-A"
    test_a.mkdir()
    (test_a / "in.tsv.xz").write_bytes((repo / "dev-0/in.tsv.xz").read_bytes())
    with pytest.raises(LmgapError, match="lacks test-A/expected.tsv.*remove test-A from eval_splits"):
        fetch(tmp_path, str(repo), required=[*REQUIRED, "test-A/in.tsv.xz", "test-A/expected.tsv"])
    assert not (tmp_path / "manifest.json").exists()


def test_test_a_is_checked_when_asked_for(tmp_path, corpus_repo):
    repo, _, _ = corpus_repo
    with pytest.raises(LmgapError, match="lacks test-A/in.tsv.xz"):
        fetch(tmp_path, str(repo), required=[*REQUIRED, "test-A/in.tsv.xz"])


@pytest.mark.parametrize("source", ["git://host.invalid/corpus", "https://host.invalid/git/corpus"])
def test_unreachable_host_says_how_to_use_a_local_copy(tmp_path, source):
    with pytest.raises(LmgapError) as err:
        fetch(tmp_path, source)
    assert "host.invalid" in str(err.value)
    assert "set corpus.source in config.yaml to that local directory" in str(err.value)
    assert not (tmp_path / "clone").exists() and not (tmp_path / "manifest.json").exists()


def test_corrupt_xz_is_reported(tmp_path, corpus_repo):
    repo, _, _ = corpus_repo
    data = (repo / "train/in.tsv.xz").read_bytes()
    (repo / "train/in.tsv.xz").write_bytes(data[: len(data) // 2])
    with pytest.raises(LmgapError, match="train/in.tsv.xz is corrupt or truncated"):
        fetch(tmp_path, str(repo))


