"""The benchmark corpus generator: statistics of real text at 1M words, and KenLM-trainable."""

import hashlib
import subprocess

import pytest

from generate_corpus import generate
from lmgap.rebuild import rebuild_split


@pytest.fixture(scope="module")
def million(tmp_path_factory):
    root = tmp_path_factory.mktemp("gen")
    generate(root / "corpus", 1_000_000, seed=1)
    for split in ("train", "dev-0"):
        rebuild_split(root / "corpus" / split, root / f"{split}.txt")
    return root


def ngram_types(path):
    """Distinct words, bigrams and trigrams, counted within lines."""
    words, bigrams, trigrams = set(), set(), set()
    with open(path) as text:
        for line in text:
            w = line.split()
            words.update(w)
            bigrams.update(zip(w, w[1:]))
            trigrams.update(zip(w, w[1:], w[2:]))
    return len(words), len(bigrams), len(trigrams)


def test_statistics_resemble_newspaper_text(million):
    tokens = sum(len(line.split()) for line in open(million / "train.txt"))
    assert tokens == 1_000_000
    types, bigrams, trigrams = ngram_types(million / "train.txt")
    assert 40_000 <= types <= 80_000
    assert 350_000 <= bigrams <= 550_000
    assert 650_000 <= trigrams <= 850_000


def test_vocabulary_keeps_growing(tmp_path, million):
    generate(tmp_path / "small", 250_000, seed=1)
    rebuild_split(tmp_path / "small/train", tmp_path / "small.txt")
    small, _, _ = ngram_types(tmp_path / "small.txt")
    large, _, _ = ngram_types(million / "train.txt")
    assert large > 2 * small  # Heaps' law with an exponent above one half


def test_deterministic_and_dev_shares_no_text(tmp_path, million):
    generate(tmp_path / "again", 1_000_000, seed=1)
    for name in ("train/in.tsv.xz", "train/expected.tsv", "dev-0/in.tsv.xz"):
        digest = lambda root: hashlib.sha256((root / name).read_bytes()).hexdigest()
        assert digest(tmp_path / "again") == digest(million / "corpus")
    train_lines = set(open(million / "train.txt"))
    dev_lines = list(open(million / "dev-0.txt"))
    assert dev_lines and not train_lines.intersection(dev_lines)


@pytest.mark.parametrize("order", [3, 4, 5])
def test_lmplz_trains_without_discount_fallback(million, kenlm_bin, order, tmp_path):
    done = subprocess.run(
        [str(kenlm_bin / "lmplz"), "-o", str(order), "--skip_symbols", "-S", "1G", "-T", f"{tmp_path}/",
         "--text", str(million / "train.txt"), "--arpa", str(tmp_path / "model.arpa")],
        capture_output=True, text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"ngram {order}=" in (tmp_path / "model.arpa").read_text()[:300]
