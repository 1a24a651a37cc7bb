"""Model names from the config's settings."""

from lmgap.models import fraction_label, model_name


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
