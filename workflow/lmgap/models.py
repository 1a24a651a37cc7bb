"""Names and options of the models a config asks for."""

from decimal import Decimal
from pathlib import Path

from .ngram.formats import PROBING, parse_format, split_format


def fraction_label(fraction):
    """A training fraction as a folder name shows it: its shortest form's every digit, never an exponent
    (1e-05 -> `0.00001`), so no two share a folder and the sample rule reads back the very number."""
    return format(Decimal(repr(float(fraction))), "f")


def model_name(order, prune=(), train_fraction=1.0, interpolate_unigrams=True, vocab_pad=False, binary=PROBING):
    """A folder name per options: `o3`, `o4-prune0.0.1`, `o5-frac0.1`, `o3-interp0` (--interpolate_unigrams
    0), `o3-pad` (--vocab_pad), `o3-trie-q8b8` (build_binary's format, last: lmgap.ngram.formats.split_format);
    not --discount_fallback, which changes no model whose discounts lmplz can estimate."""
    name = f"o{order}"
    if prune:
        name += "-prune" + ".".join(str(p) for p in prune)
    if train_fraction != 1:
        name += f"-frac{fraction_label(train_fraction)}"
    if not interpolate_unigrams:
        name += "-interp0"
    if vocab_pad:
        name += "-pad"
    return name + parse_format(binary).suffix


def models_from_config(
    orders,
    prune_settings,
    discount_fallback,
    train_fractions=(1.0,),
    interpolations=(True,),
    vocab_pad=False,
    formats=(PROBING,),
):
    """{name: options} for every order, pruning, training fraction, unigram interpolation (padded with
    vocab_pad where interpolated: lmplz pads no other) and binary format; KenLM's defaults are left out, so
    models trained before a setting existed keep theirs."""
    return {
        model_name(order, prune, fraction, interpolate, vocab_pad and interpolate, binary): {
            "order": order,
            "prune": list(prune),
            "discount_fallback": bool(discount_fallback),
            "train_fraction": float(fraction),
            **({} if interpolate else {"interpolate_unigrams": False}),
            **({"vocab_pad": True} if vocab_pad and interpolate else {}),
            **({} if binary == PROBING else {"format": binary}),
        }
        for order in sorted(set(orders))
        for prune in prune_settings
        for fraction in sorted(set(train_fractions))
        for interpolate in interpolations
        for binary in formats
    }


def trainings_of(models):
    """{training: options} for the models' lmplz runs: a model of each format is built from its training's
    one run, named as its probing model is (lmgap.ngram.formats.split_format)."""
    trainings = {}
    for name, options in models.items():
        training = split_format(name)[0]
        trainings[training] = {key: value for key, value in options.items() if key != "format"}
    return trainings


def interpolate_settings(interpolate_unigrams):
    """lmplz.interpolate_unigrams as a list of settings, KenLM's default first: one boolean, or a
    list of them."""
    values = interpolate_unigrams if isinstance(interpolate_unigrams, list) else [interpolate_unigrams]
    return sorted(set(values), reverse=True)


def prune_settings(prune):
    """lmplz.prune (one list of thresholds, or a list of such lists) as a list of settings; all-0
    thresholds prune nothing, so they are the unpruned model [], not a twin folder `o3-prune0`."""
    settings = prune if prune and all(isinstance(setting, list) for setting in prune) else [prune]
    unpruned = [[] if not any(setting) else list(setting) for setting in settings]
    return [list(setting) for setting in dict.fromkeys(tuple(setting) for setting in unpruned)]


# The rebuilt text of a split, and the nested sample of its lines a training fraction takes (rule
# sample_training_text writes the second; its wildcards are the split and the fraction's label).
SPLIT_TEXT = "results/text/{split}.txt"
FRACTION_TEXT = "results/text/{split}-frac{fraction}.txt"


def training_text(split, fraction):
    """The text a model of this training fraction learns from: the split's own, or its sample."""
    if fraction == 1:
        return SPLIT_TEXT.format(split=split)
    return FRACTION_TEXT.format(split=split, fraction=fraction_label(fraction))


def damaged_model_advice(binary):
    """How to train a damaged model again."""
    return f"if the file is damaged, delete {Path(binary).parent}/ and run the pipeline again"
