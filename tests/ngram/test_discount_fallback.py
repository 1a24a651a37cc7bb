"""What lmplz.discount_fallback stands on: --discount_fallback changes no model whose discounts
lmplz can estimate, and lmplz says which orders it filled in."""

import pytest

from conftest import demo_corpus, run_pipeline
from lmgap.ngram.run import train


def train_both_ways(tmp_path, kenlm_bin, text, order=3):
    """The binaries and fallback orders of lmplz with and without --discount_fallback."""
    made = []
    for fallback in (False, True):
        binary = tmp_path / f"model-{fallback}.binary"
        with open(tmp_path / "train.log", "w") as log:
            *_, orders = train(
                {"lmplz": kenlm_bin / "lmplz", "build_binary": kenlm_bin / "build_binary", "text": text},
                {"order": order, "mem_mb": 256, "discount_fallback": fallback},
                {"probing": binary},
                tmp_path / "tmp",
                log,
            )
        made.append((binary.read_bytes(), orders))
    return made


@pytest.mark.pipeline
def test_a_model_whose_discounts_lmplz_estimates_is_the_same_with_the_fallback(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=1500, dev_sentences=10)
    run_pipeline(
        tmp_path / "work",
        {"corpus": {"source": str(corpus)}, "kenlm": {"bin_dir": str(kenlm_bin)}},
        "results/text/train.txt",
    )
    (plain, none), (with_fallback, used) = train_both_ways(
        tmp_path, kenlm_bin, tmp_path / "work/results/text/train.txt"
    )
    assert none == used == [] and plain == with_fallback


def test_lmplz_says_which_orders_took_fallback_discounts(tmp_path, kenlm_bin):
    # Two lines: no order has the counts of counts that modified Kneser-Ney estimates from.
    text = tmp_path / "tiny.txt"
    text.write_text("a b c\na b d\n")
    with open(tmp_path / "train.log", "w") as log:
        *_, fallback = train(
            {"lmplz": kenlm_bin / "lmplz", "build_binary": kenlm_bin / "build_binary", "text": text},
            {"order": 3, "mem_mb": 256, "discount_fallback": True},
            {"probing": tmp_path / "model.binary"},
            tmp_path / "tmp",
            log,
        )
    assert fallback == [1, 2, 3]
