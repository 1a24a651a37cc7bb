"""A model under the other lmplz.discount_fallback setting stands in for this one only when it
provably has the same bytes."""

import json
import os

import pytest

from lmgap.ngram.reuse import reusable, training_identity, twin_folder
from lmgap.ngram.run import train


def test_lmplz_says_which_orders_took_fallback_discounts(tmp_path, kenlm_bin):
    # Two lines: no order has the counts of counts that modified Kneser-Ney estimates from.
    text = tmp_path / "tiny.txt"
    text.write_text("a b c\na b d\n")
    with open(tmp_path / "train.log", "w") as log:
        *_, fallback = train(kenlm_bin / "lmplz", kenlm_bin / "build_binary", 3, 256, tmp_path / "tmp", text,
                             tmp_path / "model.binary", log, discount_fallback=True)
    assert fallback == [1, 2, 3]
    assert (tmp_path / "model.binary").stat().st_size > 0


@pytest.fixture
def twin(tmp_path):
    """A twin on disk trained from the same text and tools, its inputs older than its binary."""
    text, tool = tmp_path / "train.txt", tmp_path / "lmplz"
    for path in (text, tool):
        path.write_text("x")
        os.utime(path, ns=(10**18, 10**18))
    options = {"order": 3, "prune": [], "discount_fallback": True, "train_fraction": 1.0}
    identity = training_identity(text, [tool], options)
    folder = twin_folder(options, tmp_path / "models")
    assert folder.name == "o3"
    folder.mkdir(parents=True)
    for name in ("model.binary", "usage.json"):
        (folder / name).write_text("{}")
    return folder, identity, [text, tool]


def write_counts(folder, **record):
    (folder / "ngram_counts.json").write_text(json.dumps({"ngrams": [5, 6, 7], **record}))


def test_a_twin_that_needed_no_fallback_discounts_is_reused(twin):
    folder, identity, inputs = twin
    write_counts(folder, trained_from=identity, fallback_discounts=[])
    assert reusable(folder, identity, False, inputs)["ngrams"] == [5, 6, 7]
    # Without its ARPA file it cannot give one.
    assert reusable(folder, identity, True, inputs) is None


@pytest.mark.parametrize("known_origin, fallback", [
    (True, [1, 2]),  # lmplz could not estimate some discounts
    (False, []),  # a record from before the identity was kept
])
def test_a_twin_with_fallback_discounts_or_of_unknown_origin_is_not(twin, known_origin, fallback):
    folder, identity, inputs = twin
    write_counts(folder, fallback_discounts=fallback, **({"trained_from": identity} if known_origin else {}))
    assert reusable(folder, identity, False, inputs) is None


def test_a_twin_of_another_text_or_older_than_an_input_is_not(twin):
    folder, identity, inputs = twin
    write_counts(folder, trained_from=identity, fallback_discounts=[])
    other = {**identity, "text": [identity["text"][0], identity["text"][1] + 1, identity["text"][2]]}
    assert reusable(folder, other, False, inputs) is None
    os.utime(folder / "model.binary", ns=(1, 1))
    assert reusable(folder, identity, False, inputs) is None
