"""The gap task's systems as records: which a config asks for, in gap.tsv's order, their files, the
blend's members and the n-gram binaries each prediction comes from, spelled out by hand."""

import pytest

from lmgap.errors import LmgapError
from lmgap.gap.systems import BASELINE, GapSystems, System

NGRAMS = {
    "o3": {"order": 3, "prune": []},
    "o4-prune0.1": {"order": 4, "prune": [0, 1]},
    "o5": {"order": 5, "prune": []},
}


def test_every_system_of_a_config_in_the_table_s_order_with_its_files():
    systems = GapSystems(NGRAMS, {"small": "causal", "bert": "masked"}, document=True)
    assert [system.name for system in systems.all()] == [
        "both/o3",
        "left/o3",
        "both/o4-prune0.1",
        "left/o4-prune0.1",
        "both/o5",
        "left/o5",
        "both/bert",
        "both/small",
        "both/document",
        "left/document",
        "both/blend",
        "unigram",
    ]
    assert systems.named("left/o4-prune0.1") == System("ngram", "o4-prune0.1", "left", order=4)
    assert systems.named("both/bert") == System("neural", "bert", "both", kind="masked")
    assert systems.named("left/o5").out("dev-0") == "results/gap/left/o5/dev-0/out.tsv"
    assert BASELINE.out("test-A") == "results/gap/unigram/test-A/out.tsv"
    assert BASELINE.stats("dev-0") == "results/gap/stats/unigram/dev-0.json"
    assert systems.named("both/small").described() == {
        "model": "small",
        "family": "neural",
        "order": None,
        "context": "both",
        "kind": "causal",
    }
    assert BASELINE.described() == {"model": "unigram", "family": "baseline", "order": None, "context": "none"}
    with pytest.raises(LmgapError, match="left/small is no gap system"):
        systems.named("left/small")


def test_the_blend_mixes_both_context_systems_and_the_baseline():
    systems = GapSystems(NGRAMS, {"small": "causal"}, document=True)
    assert [member.name for member in systems.members()] == [
        "both/o3",
        "both/o4-prune0.1",
        "both/o5",
        "both/small",
        "both/document",
        "unigram",
    ]
    # The baseline alone is nothing to blend.
    alone = GapSystems({}, {}, document=False)
    assert alone.blend() is None and [system.name for system in alone.all()] == ["unigram"]


def test_every_format_predicts_and_the_blend_mixes_and_rescores_the_gap_format_s():
    ngrams = {**NGRAMS, "o5-trie-q8b8": {"order": 5, "prune": [], "format": "trie-q8b8"}}
    systems = GapSystems(ngrams, {"small": "causal"}, document=False)
    assert "both/o5-trie-q8b8" in [system.name for system in systems.all()]
    assert "left/o5-trie-q8b8" in [system.name for system in systems.all()]
    assert "both/o5-trie-q8b8" not in [member.name for member in systems.members()]
    assert systems.rescoring_base() == "o5"
    quantised = GapSystems(ngrams, {"small": "causal"}, document=False, binary="trie-q8b8")
    assert [member.name for member in quantised.members()] == ["both/o5-trie-q8b8", "both/small", "unigram"]
    assert quantised.rescoring_base() == "o5-trie-q8b8"
    assert quantised.models_of(quantised.named("both/small")) == ["o5-trie-q8b8"]


def test_causal_models_rescore_the_highest_unpruned_order_and_need_an_n_gram():
    systems = GapSystems(NGRAMS, {"small": "causal"}, document=False)
    assert systems.rescoring_base() == "o5"
    assert systems.models_of(systems.named("both/small")) == ["o5"]
    assert systems.models_of(systems.named("left/o3")) == ["o3"]
    assert systems.models_of(BASELINE) == []
    assert systems.models_of(systems.named("both/blend")) == ["o3", "o4-prune0.1", "o5", "o5"]
    # Every model pruned: the highest order.
    pruned = GapSystems(
        {"o3-prune0.1": {"order": 3, "prune": [0, 1]}, "o4-prune0.1": {"order": 4, "prune": [0, 1]}}, {}, False
    )
    assert pruned.rescoring_base() == "o4-prune0.1"
    # SRILM's unigrams beside KenLM's: KenLM's, of the same order.
    both = GapSystems(
        {"o4": {"order": 4, "prune": []}, "o4-interp0": {"order": 4, "prune": [], "interpolate_unigrams": False}},
        {},
        False,
    )
    assert both.rescoring_base() == "o4"
    # Without an n-gram a causal model has no candidates and predicts nothing; a masked one does.
    bare = GapSystems({}, {"small": "causal", "bert": "masked"}, document=False)
    assert bare.rescoring_base() is None and [system.name for system in bare.all()] == [
        "both/bert",
        "both/blend",
        "unigram",
    ]
