"""A table job's inputs by key (lmgap.keyed): the rule's lists and the params' keys part and join again."""

import pickle

import pytest

from lmgap.errors import LmgapError
from lmgap.keyed import join_keyed, split_keyed


def test_a_rule_s_keyed_files_join_again_in_its_script():
    files = {
        "counts": {"o3": "a/o3.json", "o2": "b/o2.json"},
        "query": {("o3", "dev-0"): "q/1.tsv", ("o3", "test-B"): "q/2.tsv"},
        "weights": {},
    }
    inputs, keys = split_keyed(files)
    assert inputs == {"counts": ["a/o3.json", "b/o2.json"], "query": ["q/1.tsv", "q/2.tsv"], "weights": []}
    # As the script's params arrive (pickled), a key of several parts a list.
    keys = pickle.loads(pickle.dumps(keys))
    assert keys["query"] == [["o3", "dev-0"], ["o3", "test-B"]]
    assert join_keyed(inputs, keys) == files


def test_inputs_and_keys_that_disagree_are_a_fault_named_by_kind():
    with pytest.raises(LmgapError, match="handed 1 counts files for 2 keys"):
        join_keyed({"counts": ["a.json"]}, {"counts": ["o2", "o3"]})
