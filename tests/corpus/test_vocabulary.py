"""The run's vocabulary V, counted by hand on small texts."""

import json
import math

import pytest

from lmgap.corpus.vocabulary import log10_share, oov_price, unknown_words, write_vocabulary
from lmgap.errors import LmgapError


def test_the_vocabulary_is_every_word_type_of_the_training_and_scored_texts(tmp_path):
    # KenLM splits at spaces, tabs and line ends only: a no-break space is part of a word.
    (tmp_path / "train.txt").write_bytes(b"the cat\tsat\nthe dog\n")
    (tmp_path / "dev-0.txt").write_bytes("the cow sat\nthe\u00a0cow\n".encode())
    (tmp_path / "dev-1.txt").write_bytes(b"cat cow bird\n")
    texts = {"dev-1": tmp_path / "dev-1.txt", "dev-0": tmp_path / "dev-0.txt"}
    assert write_vocabulary(tmp_path / "train.txt", texts, tmp_path / "v.json") == 7
    # the cat sat dog; then dev-0's cow and `the\u00a0cow`; then dev-1's bird (its cat and cow
    # counted already).
    assert json.loads((tmp_path / "v.json").read_text()) == {
        "words": 7,
        "training_words": 4,
        "added_by": {"dev-0": 2, "dev-1": 1},
    }


def test_an_unknown_word_gets_its_share_of_unk_among_the_words_a_model_does_not_know():
    # 10 unigrams: 7 words and <s>, </s>, <unk>; a vocabulary of 1,007 leaves 1,000 unknown.
    assert unknown_words(1007, 10) == 1000
    assert log10_share(1000) == -3.0
    assert log10_share(0) == log10_share(None) == log10_share(math.nan) == 0.0
    with pytest.raises(LmgapError, match="knows 8 words, more than the run's vocabulary of 7: .* delete it"):
        unknown_words(7, 11)
    assert oov_price(1000, 5) == -3.0 and oov_price(0, 0) == 0.0
    # A model padded to the run's vocabulary: its `<unk>` is one word's already, whatever it met.
    assert oov_price(1000, 5, padded=1008) == oov_price(0, 5, padded=1008) == 0.0
    with pytest.raises(LmgapError, match="knows every word of the run's vocabulary met 5 OOVs"):
        oov_price(0, 5)
