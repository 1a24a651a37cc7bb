"""gonito.yaml says of the code what the run's record says: the commit, and uncommitted changes."""

from lmgap.gap.gonito import describe

EXPERIMENT = {"eval_splits": ["dev-0"], "neural": {}}
WEIGHTS = {"weights": {"both/o3": 0.6, "unigram": 0.4}}


def test_the_description_names_the_commit_and_says_when_the_checkout_had_changes():
    commit = "e4b787da9743c20f68f7d06c9dc5159bafc6a0db"
    lmgap = {"version": "0.1.0", "code": "c0de", "commit": commit}
    clean, _ = describe({"experiment": EXPERIMENT, "lmgap": {**lmgap, "uncommitted_changes": False}}, WEIGHTS)
    edited, _ = describe({"experiment": EXPERIMENT, "lmgap": {**lmgap, "uncommitted_changes": True}}, WEIGHTS)
    assert clean.endswith("(lmgap 0.1.0 at git commit e4b787da9743)")
    assert edited.endswith("(lmgap 0.1.0 at git commit e4b787da9743 with uncommitted changes)")
