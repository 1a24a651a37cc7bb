"""Settings that change nothing are warned of: every gap setting while the task is off, every document
setting while the family is off (both walked from the schema), and each other idle combination."""

import json

import numpy as np
import pytest
import yaml

from conftest import REPO
from lmgap.configcheck import validate_config
from lmgap.schema import read_defaults
from lmgap.unused import capped_by_data, fallback_unneeded, fractions_whole, unused_settings

SCHEMA = REPO / "workflow/schemas/config.schema.yaml"
DEFAULTS = read_defaults(SCHEMA)


def nested(dotted, setting):
    tree = setting
    for key in reversed(dotted.split(".")):
        tree = {key: tree}
    return tree


def merged(*parts):
    out = {}
    for part in parts:
        for key, sub in part.items():
            out[key] = merged(out[key], sub) if isinstance(sub, dict) and isinstance(out.get(key), dict) else sub
    return out


def warnings(*parts, neural=None, gap_models=("o5",), compared=True):
    config = validate_config(merged({"orders": [3, 5]}, *parts), SCHEMA)
    return list(unused_settings(config, DEFAULTS, neural or {}, list(gap_models), compared))


def other_value(default):
    """A value of a setting's type that is not its default."""
    if isinstance(default, bool):
        return not default
    if isinstance(default, list):
        return default[:1]
    return default + 1 if isinstance(default, (int, float)) else f"{default}x"


# A value the schema admits where other_value's would not be (a name, null by default).
OTHER_VALUES = {"gap.format": "probing"}


def test_a_gap_format_with_one_format_built_is_named_and_with_two_is_not():
    (said,) = warnings({"gap": {"format": "probing"}})
    assert said.startswith("gap.format is set, but build_binary.format builds one format")
    assert warnings({"gap": {"format": "trie"}, "build_binary": {"format": ["probing", "trie"]}}) == []


def test_the_default_config_and_the_repository_s_warn_of_nothing():
    assert warnings() == []
    assert warnings(yaml.safe_load((REPO / "config.yaml").read_text())) == []


@pytest.mark.parametrize("key", sorted(key for key in DEFAULTS if key.startswith("gap.") and key != "gap.enabled"))
def test_every_gap_setting_changed_while_the_task_is_off_is_named(key):
    said = warnings({"gap": {"enabled": False}}, nested(key, OTHER_VALUES.get(key, other_value(DEFAULTS[key]))))
    assert said == [
        f"{key} is set, but gap.enabled is false and the gap task does not run; set gap.enabled: true, or drop {key}"
    ]


@pytest.mark.parametrize("key", ["gap.document.decays", "gap.document.rarity"])
def test_every_document_setting_changed_while_the_family_is_off_is_named(key):
    document_keys = [k for k in DEFAULTS if k.startswith("gap.document.") and k != "gap.document.enabled"]
    # The walk's two: the family's own settings (neural_words belongs to the rescoring, below).
    assert sorted(set(document_keys) - {"gap.document.neural_words"}) == ["gap.document.decays", "gap.document.rarity"]
    said = warnings(nested("gap.document.enabled", False), nested(key, other_value(DEFAULTS[key])))
    assert said == [
        f"{key} is set, but gap.document.enabled is false and the document family does not run; set it true, "
        f"or drop {key}"
    ]


@pytest.mark.parametrize("key", ["gap.neural_candidates", "gap.right_tokens", "gap.document.neural_words"])
def test_a_rescoring_setting_without_a_causal_model_is_named(key):
    said = warnings(nested(key, 5))
    assert len(said) == 1 and said[0].startswith(f"{key} is set, but only a causal neural model")
    assert warnings(nested(key, 5), neural={"small": {"kind": "causal"}}) == []


def test_each_other_idle_combination_is_named_with_what_gives_it_an_effect():
    masked = {"neural": {"bert": {"path": "/models/bert", "kind": "masked", "stride": 16}}}
    assert warnings(masked, neural={"bert": {"kind": "masked"}}) == [
        "neural.bert.stride is set, but a masked model reads one window per gap, around its mask; drop it "
        "(max_length sets the window)"
    ]
    listed = {"neural": {"bert": {"path": "/models/bert", "kind": "masked"}, "gapper": {"kind": "cloze", "train": {}}}}
    off = warnings(
        {"gap": {"enabled": False}}, listed, neural={"bert": {"kind": "masked"}, "gapper": {"kind": "cloze"}}
    )
    assert off == [
        "the masked and cloze models bert, gapper only predict gaps, and gap.enabled is false: they do nothing; "
        "set it true, or remove them"
    ]
    # No n-gram of the whole training split: none predicts the gaps, nor a causal model, which rescores one's.
    assert warnings({"train_fraction": [0.1]}, gap_models=()) == [
        "the gap task takes the n-grams trained on the whole training split, and train_fraction has no 1.0: no "
        "n-gram predicts the gaps (the blend mixes the rest alone); add 1.0 to train_fraction"
    ]
    assert (
        "no n-gram predicts the gaps, nor the causal neural models small, which rescore an n-gram's candidates ("
        in warnings({"train_fraction": [0.1]}, neural={"small": {"kind": "causal"}}, gap_models=())[0]
    )
    assert warnings({"train_fraction": [0.1], "gap": {"enabled": False}}, gap_models=()) == []
    padded = warnings({"lmplz": {"vocab_pad": True, "interpolate_unigrams": False}})
    assert len(padded) == 1 and padded[0].startswith("lmplz.vocab_pad is true, but lmplz pads only interpolated")
    assert warnings({"lmplz": {"vocab_pad": True, "interpolate_unigrams": [True, False]}}) == []
    # Thresholds of 0 keep every n-gram: the model is the unpruned one.
    zeros = warnings({"lmplz": {"prune": [[0, 0], [0, 0, 1]]}})
    assert zeros == [
        "lmplz.prune [0, 0] prunes nothing (lmplz keeps every n-gram at a threshold of 0): its model is the "
        "unpruned one; give a threshold above 0 to prune, or drop it"
    ]
    assert len(warnings({"lmplz": {"prune": [0, 0]}})) == 1 and warnings({"lmplz": {"prune": [0, 1]}}) == []
    # A causal model rescores at most the top_k words the n-gram lists.
    causal = {"small": {"kind": "causal"}}
    above = warnings({"gap": {"top_k": 20, "neural_candidates": 60}}, neural=causal)
    assert above == [
        "gap.neural_candidates, 60, is above gap.top_k, 20: a causal model rescores at most the top_k words the "
        "n-gram lists, so any value from top_k up changes nothing; give at most 20, or drop it"
    ]
    # Its default above a lowered top_k is as documented, and one at most top_k does its work.
    assert warnings({"gap": {"top_k": 20}}, neural=causal) == []
    assert warnings({"gap": {"top_k": 20, "neural_candidates": 20}}, neural=causal) == []
    # Written out at its default, as the config as given tells: set, and named.
    config = validate_config({"orders": [3, 5], "gap": {"top_k": 20, "neural_candidates": 50}}, SCHEMA)
    given = {"gap": {"top_k": 20, "neural_candidates": 50}}
    said = list(unused_settings(config, DEFAULTS, causal, ["o5"], True, given))
    assert said and said[0].startswith("gap.neural_candidates, 50, is above gap.top_k, 20")
    assert list(unused_settings(config, DEFAULTS, causal, ["o5"], True, {"gap": {"top_k": 20}})) == []
    # The task off does not hide the settings beyond it.
    assert len(warnings({"gap": {"enabled": False}, "lmplz": {"vocab_pad": True, "interpolate_unigrams": False}})) == 1


@pytest.mark.parametrize("key", sorted(key for key in DEFAULTS if key.startswith("comparison.")))
def test_a_comparison_setting_without_two_models_to_compare_is_named(key):
    said = warnings(nested(key, other_value(DEFAULTS[key])), compared=False)
    assert said == [
        f"{key} is set, but no two models of the config differ in one setting, so comparison.tsv compares none; "
        f"add an order, a fraction, a pruning or a causal neural model, or drop {key}"
    ]
    assert warnings(nested(key, other_value(DEFAULTS[key]))) == []


def test_gap_settings_above_what_the_data_gives_are_named_once_a_run_has_made_what_tells(tmp_path):
    vocabulary, candidates = tmp_path / "vocabulary.json", [tmp_path / "dev-0.npz", tmp_path / "test-A.npz"]
    vocabulary.write_text(json.dumps({"training_words": 500, "words": 600, "added_by": {}}))
    # Gaps of 3, 0 and 7 candidates; of 2 and 5.
    for path, offsets in zip(candidates, ([0, 3, 3, 10], [0, 2, 7]), strict=True):
        np.savez(path, offsets=np.array(offsets), ids=np.zeros(offsets[-1], dtype=np.int64))
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"files": {"train/expected.tsv": {"lines": 219, "sha256": ""}}}))
    data = (vocabulary, candidates, manifest, "train")
    gap = {"frequent_words": 500, "candidates_per_context": 500, "top_k": 7, "heldout_lines": 21}
    assert list(capped_by_data(gap, *data)) == []
    above = {"frequent_words": 501, "candidates_per_context": 600, "top_k": 8, "heldout_lines": 22}
    assert list(capped_by_data(above, *data)) == [
        f"gap.frequent_words, 501, is above the 500 distinct words of the training text ({vocabulary}): 500 or "
        "more changes nothing",
        f"gap.candidates_per_context, 600, is above the 500 distinct words of the training text ({vocabulary}): "
        "500 or more changes nothing",
        f"gap.top_k, 8, is above the most candidates any gap has (7, in {candidates[0]}, {candidates[1]}): every "
        "line of out.tsv lists all of its candidates already; 7 or more changes nothing (gap.candidates_per_context "
        "and gap.frequent_words make more)",
        f"gap.heldout_lines, 22, is above a tenth of the 219 lines of train ({manifest}), which is the most held "
        "out: 21 or more changes nothing",
    ]
    # Said of the settings the config sets only: a default sized for the real corpus is no one's choice.
    assert list(capped_by_data(above, *data, given={"top_k": 8})) == [
        f"gap.top_k, 8, is above the most candidates any gap has (7, in {candidates[0]}, {candidates[1]}): every "
        "line of out.tsv lists all of its candidates already; 7 or more changes nothing (gap.candidates_per_context "
        "and gap.frequent_words make more)",
    ]
    assert list(capped_by_data(above, *data, given={})) == []
    # Before a run has made them: nothing to tell by.
    none = (tmp_path / "none", [tmp_path / "none"], tmp_path / "none", "train")
    assert list(capped_by_data({key: 10**6 for key in above}, *none)) == []


def test_discount_fallback_where_lmplz_estimated_every_discount_is_named(tmp_path):
    counts = {model: tmp_path / f"{model}.json" for model in ("o2", "o3")}
    # No model took the fallback (fallback_discounts of their records: none).
    said = fallback_unneeded({"discount_fallback": True}, {}, counts, ["o2", "o3"])
    assert said.startswith("lmplz.discount_fallback is true, but lmplz estimated every discount of every model")
    assert said.endswith("it changes no model; drop it (it is for a text too small or too odd for lmplz's estimates)")
    # Set and needed by one model; not set; or not every model trained yet: nothing to say.
    assert fallback_unneeded({"discount_fallback": True}, {"o3": [1]}, counts, ["o2", "o3"]) is None
    assert fallback_unneeded({"discount_fallback": False}, {}, counts, ["o2", "o3"]) is None
    assert fallback_unneeded({"discount_fallback": True}, {}, counts, ["o2", "o3", "o4"]) is None


def test_a_training_fraction_whose_sample_keeps_every_line_is_named(tmp_path):
    whole, most, half = tmp_path / "train.json", tmp_path / "train-frac0.9999.json", tmp_path / "train-frac0.5.json"
    whole.write_text(json.dumps({"bytes": 900, "lines": 219, "sha256": "a" * 64}))
    most.write_text(json.dumps({"bytes": 900, "lines": 219, "sha256": "a" * 64}))
    half.write_text(json.dumps({"bytes": 450, "lines": 110, "sha256": "b" * 64}))
    assert fractions_whole({0.9999: most, 0.5: half}, whole) == (
        f"train_fraction 0.9999 keeps all 219 lines of the training split ({whole}): its models are trained on the "
        "whole split, as 1.0's are; give a smaller share, or drop it"
    )
    # A sample of fewer lines, or none written yet: nothing to say.
    assert fractions_whole({0.5: half, 0.25: tmp_path / "none.json"}, whole) is None
    assert fractions_whole({0.9999: most}, tmp_path / "none.json") is None
