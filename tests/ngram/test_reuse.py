"""A model under the other lmplz.discount_fallback setting stands in for this one only when it
provably has the same bytes."""

import json

import pytest

from conftest import demo_corpus, run_pipeline
from lmgap.ngram.reuse import rebuild_advice, reusable, training_identity, twin_folder
from lmgap.ngram.run import train


def train_both_ways(tmp_path, kenlm_bin, text, order=3):
    """The binaries and fallback orders of lmplz with and without --discount_fallback."""
    made = []
    for fallback in (False, True):
        binary = tmp_path / f"model-{fallback}.binary"
        with open(tmp_path / "train.log", "w") as log:
            *_, orders = train(kenlm_bin / "lmplz", kenlm_bin / "build_binary", order, 256, tmp_path / "tmp", text,
                               binary, log, discount_fallback=fallback)
        made.append((binary.read_bytes(), orders))
    return made


def test_a_model_whose_discounts_lmplz_estimates_is_the_same_with_the_fallback(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=1500, dev_sentences=10)
    run_pipeline(tmp_path / "work", {"corpus": {"source": str(corpus)}, "kenlm": {"bin_dir": str(kenlm_bin)}},
                 "results/text/train.txt")
    (plain, none), (with_fallback, used) = train_both_ways(tmp_path, kenlm_bin, tmp_path / "work/results/text/train.txt")
    assert none == used == [] and plain == with_fallback


def test_lmplz_says_which_orders_took_fallback_discounts(tmp_path, kenlm_bin):
    # Two lines: no order has the counts of counts that modified Kneser-Ney estimates from.
    text = tmp_path / "tiny.txt"
    text.write_text("a b c\na b d\n")
    with open(tmp_path / "train.log", "w") as log:
        *_, fallback = train(kenlm_bin / "lmplz", kenlm_bin / "build_binary", 3, 256, tmp_path / "tmp", text,
                             tmp_path / "model.binary", log, discount_fallback=True)
    assert fallback == [1, 2, 3]


@pytest.fixture
def twin(tmp_path):
    """A twin on disk trained by the same code from the same text and tools."""
    text, tool, code = tmp_path / "train.txt", tmp_path / "lmplz", tmp_path / "train.py"
    for path in (text, tool, code):
        path.write_text("x")
    options = {"order": 3, "prune": [], "discount_fallback": True, "train_fraction": 1.0}
    identity = training_identity(text, [tool], [code], options)
    folder = twin_folder(options, tmp_path / "models/o3-fallback")
    assert folder == tmp_path / "models/o3"
    folder.mkdir(parents=True)
    (folder / "model.binary").write_bytes(b"\0" * 100)
    (folder / "usage.json").write_text("{}")
    return folder, identity, (text, tool, code, options)


def write_counts(folder, **record):
    (folder / "ngram_counts.json").write_text(json.dumps({"ngrams": [5, 6, 7], "binary_bytes": 100, **record}))


def test_a_twin_that_needed_no_fallback_discounts_is_reused(twin):
    folder, identity, _ = twin
    write_counts(folder, trained_from=identity, fallback_discounts=[])
    assert reusable(folder, identity, False)["ngrams"] == [5, 6, 7]
    # Without its ARPA file it cannot give one.
    assert reusable(folder, identity, True) is None


@pytest.mark.parametrize("known_origin, fallback", [
    (True, [1, 2]),  # lmplz could not estimate some discounts
    (False, []),  # a record from before the identity was kept
])
def test_a_twin_with_fallback_discounts_or_of_unknown_origin_is_not(twin, known_origin, fallback):
    folder, identity, _ = twin
    write_counts(folder, fallback_discounts=fallback, **({"trained_from": identity} if known_origin else {}))
    assert reusable(folder, identity, False) is None


def test_a_twin_of_another_text_other_code_or_a_damaged_binary_is_not(twin):
    folder, identity, (text, tool, code, options) = twin
    write_counts(folder, trained_from=identity, fallback_discounts=[])
    code.write_text("changed")
    assert reusable(folder, training_identity(text, [tool], [code], options), False) is None
    text.write_text("another text")
    assert reusable(folder, training_identity(text, [tool], [code], options), False) is None
    (folder / "model.binary").write_bytes(b"\0" * 99)
    assert reusable(folder, identity, False) is None


def test_the_fix_for_a_damaged_model_names_the_folder_its_link_points_to(twin):
    folder, _, _ = twin
    linked = folder.parent / "o3-fallback/model.binary"
    linked.parent.mkdir()
    linked.symlink_to("../o3/model.binary")
    assert rebuild_advice(linked) == f"if the file is damaged, delete {linked.parent}/ and {folder}/ and run the pipeline again"
    assert rebuild_advice(folder / "model.binary") == f"if the file is damaged, delete {folder}/ and run the pipeline again"
