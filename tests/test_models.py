"""Model names from the config's settings."""

from lmgap.models import fraction_label, interpolate_settings, model_name, models_from_config
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
