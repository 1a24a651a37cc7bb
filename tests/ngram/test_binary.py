"""A KenLM binary's header is read as KenLM's own build_binary writes it, and a model other than the one asked for
(tools that lie: another order, another format, a file cut short, each with exit status 0) is refused, naming
the tools."""

import random

import pytest

from lmgap.errors import LmgapError
from lmgap.ngram.binary import MODEL_TYPES, check_binary, read_header
from lmgap.ngram.run import train

FORMATS = ("probing", "probing-p2", "trie", "trie-q8b8", "trie-a22", "trie-q4b3-a10")


def trained(tmp_path, lmplz, build_binary, formats, order=3):
    """Each format's binary, and lmplz's counts, from one training on a small random text."""
    rng = random.Random(3)
    words = [f"w{number}" for number in range(300)]
    text = tmp_path / "train.txt"
    text.write_text("".join(" ".join(rng.choices(words, k=rng.randint(3, 20))) + "\n" for _ in range(1500)))
    binaries = {binary: tmp_path / f"{binary}.binary" for binary in formats}
    with open(tmp_path / "train.log", "w") as log:
        counts, *_ = train(
            {"lmplz": lmplz, "build_binary": build_binary, "text": text},
            {"order": order, "mem_mb": 64, "sort_mb": 32, "discount_fallback": True},
            binaries,
            tmp_path / "tmp",
            log,
        )
    return binaries, [counts[k] for k in sorted(counts)]


def wrapper(tmp_path, name, script):
    path = tmp_path / "bin" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!/bin/bash\n{script}\n")
    path.chmod(0o755)
    return path


def test_every_format_kenlm_builds_passes_with_its_order_type_and_counts(tmp_path, kenlm_bin):
    binaries, ngrams = trained(tmp_path, kenlm_bin / "lmplz", kenlm_bin / "build_binary", FORMATS)
    types = {}
    for binary, path in binaries.items():
        header = check_binary(path, binary, 3, ngrams, "tools", "fix")
        assert header["order"] == 3 and header["counts"] == ngrams and header["vocabulary"]
        types[binary] = MODEL_TYPES[header["model_type"]]
    # KenLM's names (lm/binary_format.cc, kModelNames), each format's own.
    assert types == {
        "probing": "probing hash tables",
        "probing-p2": "probing hash tables",
        "trie": "trie",
        "trie-q8b8": "trie with quantisation",
        "trie-a22": "trie with array-compressed pointers",
        "trie-q4b3-a10": "trie with quantisation and array-compressed pointers",
    }
    assert read_header(binaries["probing-p2"])["multiplier"] == 2.0


def test_a_build_binary_that_ignores_its_format_is_refused(tmp_path, kenlm_bin):
    # Every option dropped: the source and target alone, so a probing model whatever was asked (probe K121).
    ignoring = wrapper(tmp_path, "build_binary", f'exec {kenlm_bin / "build_binary"} "${{@: -2}}"')
    binaries, ngrams = trained(tmp_path, kenlm_bin / "lmplz", ignoring, ("trie-q8b8",))
    with pytest.raises(LmgapError) as refused:
        check_binary(binaries["trie-q8b8"], "trie-q8b8", 3, ngrams, f"build_binary {ignoring}", "set kenlm.bin_dir")
    assert str(refused.value) == (
        f"{binaries['trie-q8b8']}: build_binary exited 0 but wrote a model as probing hash tables, where "
        f"`trie-q8b8` is trie with quantisation. The tools that trained it (build_binary {ignoring}) are not "
        "KenLM's, or are broken: set kenlm.bin_dir, then run the same command again"
    )


def test_an_lmplz_that_trains_another_order_is_refused(tmp_path, kenlm_bin):
    # Asked for order 3, it trains order 2 (probe K120).
    lying = wrapper(
        tmp_path,
        "lmplz",
        'args=(); before=; for word in "$@"; do [ "$before" = -o ] && word=2; args+=("$word"); before=$word; done; '
        f'exec {kenlm_bin / "lmplz"} "${{args[@]}}"',
    )
    binaries, ngrams = trained(tmp_path, lying, kenlm_bin / "build_binary", ("probing",))
    assert len(ngrams) == 2
    with pytest.raises(LmgapError, match=r"wrote a model of order 2, where order 3 was asked\. The tools"):
        check_binary(binaries["probing"], "probing", 3, ngrams, "tools", "fix")


@pytest.mark.parametrize("binary", ["probing", "trie-q8b8"])
def test_a_model_cut_short_is_refused_and_one_whole_is_not(tmp_path, kenlm_bin, binary):
    # A build_binary that exits 0 after writing half its model (probe K124): query would fail on every run.
    cutting = wrapper(
        tmp_path,
        "build_binary",
        f'{kenlm_bin / "build_binary"} "$@" || exit; size=$(stat -c %s "${{@: -1}}"); '
        'truncate -s $((size / 2)) "${@: -1}"',
    )
    binaries, ngrams = trained(tmp_path, kenlm_bin / "lmplz", cutting, (binary,))
    size = binaries[binary].stat().st_size
    with pytest.raises(LmgapError, match=rf"wrote a model cut short: {size:,} bytes, where its header's counts take"):
        check_binary(binaries[binary], binary, 3, ngrams, "tools", "fix")


@pytest.mark.parametrize(
    "content, says",
    [
        (b"mmap lm http://kheafield.com/code incomplete\n" + bytes(200), "whose build never finished"),
        (b"\\data\\\nngram 1=3\n", "does not start as a KenLM binary of format version 5 does"),
        (b"", "does not start as a KenLM binary"),
    ],
)
def test_a_file_that_is_no_finished_binary_is_named(tmp_path, content, says):
    path = tmp_path / "model.binary"
    path.write_bytes(content)
    with pytest.raises(LmgapError, match=says):
        check_binary(path, "probing", 3, [3, 2, 1], "tools", "fix")
