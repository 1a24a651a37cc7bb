"""Model names from the config's settings."""

import pytest

from lmgap.corpus.vocabulary import check_padding
from lmgap.errors import LmgapError
from lmgap.models import fraction_label, interpolate_settings, model_name, models_from_config, trainings_of
from lmgap.ngram.formats import split_format
from lmgap.ngram.run import lmplz_command


def test_model_names_keep_every_digit_of_a_fraction_and_no_exponent():
    assert [model_name(3, train_fraction=f) for f in (1.0, 0.5, 0.01, 1e-05, 0.12345678901)] == [
        "o3",
        "o3-frac0.5",
        "o3-frac0.01",
        "o3-frac0.00001",
        "o3-frac0.12345678901",
    ]
    assert model_name(5, [0, 0, 1], 0.1) == "o5-prune0.0.1-frac0.1"
    # The sample rule reads the fraction back from the folder name.
    assert all(float(fraction_label(f)) == f for f in (0.3, 0.1 + 0.2, 2e-06, 0.999999))


def test_srilm_s_unigrams_are_a_sweep_axis_that_retrains_no_model_of_kenlm_s():
    assert interpolate_settings(True) == [True] and interpolate_settings([False, True]) == [True, False]
    models = models_from_config([3], [[], [0, 1]], False, [1.0, 0.5], interpolate_settings([True, False]))
    assert sorted(models) == [
        "o3",
        "o3-frac0.5",
        "o3-frac0.5-interp0",
        "o3-interp0",
        "o3-prune0.1",
        "o3-prune0.1-frac0.5",
        "o3-prune0.1-frac0.5-interp0",
        "o3-prune0.1-interp0",
    ]
    # A model of KenLM's unigrams keeps the options it had before the axis existed: its train and
    # query jobs' params are the same, and nothing trains again.
    assert models["o3"] == {"order": 3, "prune": [], "discount_fallback": False, "train_fraction": 1.0}
    assert models["o3-interp0"] == {**models["o3"], "interpolate_unigrams": False}
    flags = {
        name: lmplz_command("lmplz", {**options, "mem_mb": 100}, "tmp", "text") for name, options in models.items()
    }
    assert flags["o3-interp0"][-4:] == ["--interpolate_unigrams", "0", "--text", "text"]
    assert "--interpolate_unigrams" not in flags["o3"] and "--interpolate_unigrams" not in flags["o3-prune0.1"]


def test_vocab_pad_names_the_padded_models_and_pads_only_kenlm_s_unigrams():
    models = models_from_config([3], [[]], False, [1.0], interpolate_settings([True, False]), vocab_pad=True)
    assert sorted(models) == ["o3-interp0", "o3-pad"]
    assert models["o3-pad"] == {
        "order": 3,
        "prune": [],
        "discount_fallback": False,
        "train_fraction": 1.0,
        "vocab_pad": True,
    }
    # lmplz pads interpolated unigrams only; SRILM's model is trained as without the setting.
    assert models["o3-interp0"] == models_from_config([3], [[]], False, [1.0], [False])["o3-interp0"]
    # The train job resolves the setting into the size (lmgap.ngram.run.padded_size).
    flags = lmplz_command("lmplz", {**models["o3-pad"], "mem_mb": 100, "vocab_pad": 5001}, "tmp", "text")
    assert flags[-4:] == ["--vocab_pad", "5001", "--text", "text"]
    assert "--vocab_pad" not in lmplz_command("lmplz", {**models["o3-interp0"], "mem_mb": 100}, "tmp", "text")


def test_a_model_padded_to_another_vocabulary_is_named_with_its_fix():
    # Unpadded, or padded to the run's vocabulary and `</s>`: nothing to say.
    assert check_padding(0, 30_000, "o3") is None and check_padding(30_001, 30_000, "o3-pad") is None
    with pytest.raises(LmgapError, match=r"^o3-pad was padded to 30,001 entries, not the run's vocabulary of 30,005"):
        check_padding(30_001, 30_005, "o3-pad")


def test_a_binary_format_is_a_sweep_axis_named_last_and_built_from_its_training():
    formats = ["probing", "trie", "trie-q8b8-a22", "probing-p1.2"]
    models = models_from_config([3, 5], [[], [0, 1]], False, [0.1, 1.0], [True, False], True, formats)
    assert len(models) == 2 * 2 * 2 * 2 * 4
    assert models["o5-prune0.1-frac0.1-interp0-trie-q8b8-a22"]["format"] == "trie-q8b8-a22"
    # KenLM's default is left out of the options, so a probing model keeps the options (and the folder) it had.
    assert models["o5-pad"] == models_from_config([5], [[]], False, vocab_pad=True)["o5-pad"]
    trainings = trainings_of(models)
    assert len(trainings) == len(models) // 4
    for name, options in models.items():
        training, binary = split_format(name)
        assert binary == options.get("format", "probing")
        assert trainings[training] == {key: value for key, value in options.items() if key != "format"}
        assert name == model_name(
            options["order"],
            options["prune"],
            options["train_fraction"],
            options.get("interpolate_unigrams", True),
            options.get("vocab_pad", False),
            binary,
        )
