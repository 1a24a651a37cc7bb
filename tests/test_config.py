"""The config is checked against its schema, by Snakemake's validator, before anything runs; a bad
value is named by its key, with what the setting takes (its description in the schema)."""

import copy
import os
from pathlib import Path

import pytest
import yaml

from conftest import REPO, demo_corpus, jobs_planned, run_pipeline
from lmgap.configcheck import (
    check_corpus_given,
    defaults_taken,
    located,
    refuse_setting_as_target,
    validate_config,
    with_files,
)
from lmgap.configfile import check_config_file
from lmgap.errors import LmgapError
from lmgap.models import models_from_config, prune_settings
from lmgap.preflight import given_config_files

SCHEMA = REPO / "workflow/schemas/config.schema.yaml"
# The corpus the shipped config names, the schema's default too.
SHIPPED_SOURCE = yaml.safe_load((REPO / "config.yaml").read_text())["corpus"]["source"]


def test_shipped_config_is_valid_and_defaults_fill_in():
    shipped = validate_config(yaml.safe_load((REPO / "config.yaml").read_text()), SCHEMA)
    assert shipped["orders"] == [3, 4, 5]
    assert shipped["corpus"]["source"] == "git://gonito.net/challenging-america-word-gap-prediction"
    minimal = validate_config({"orders": [2]}, SCHEMA)
    assert minimal["lmplz"] == {
        "prune": [],
        "interpolate_unigrams": True,
        "vocab_pad": False,
        "discount_fallback": False,
        "temp_dir": None,
    }
    assert minimal["eval_splits"] == ["dev-0"] and minimal["keep_arpa"] is False


@pytest.mark.parametrize(
    "config, key, says",
    [
        ({"orderz": [3]}, "orderz", "'orderz' was unexpected); remove it, or use one of the keys known there: corpus,"),
        ({"lmplz": {"prun": [1]}}, "lmplz.prun", "'prun' was unexpected); remove it, or use one of the keys known"),
        # A known setting at another depth: its indent lost or added.
        ({"source": "corpus"}, "source", "source belongs at corpus.source: move it there (two spaces of indent"),
        ({"corpus": {"orders": [3]}}, "corpus.orders", "orders belongs at orders (the top level): move it there"),
        # A setting's dotted name as one key: YAML nests none.
        ({"gap.top_k": 50}, "gap.top_k", "YAML nests no dotted key: write gap.top_k as sections, one name a line"),
        ({"gap": {"document.rarity": 0.5}}, "gap.document.rarity", "sections, one name a line, each two spaces fur"),
        ({"orders": [1, 3]}, "orders[0]", "1 is less than the minimum of 2; give what orders takes: n-gram orders"),
        ({"orders": [3.5]}, "orders[0]", "is not of type 'integer'; give what orders takes"),
        # Two items without their comma: one text.
        ({"orders": ["2 3"]}, "orders[0]", "'2 3' is not of type 'integer' (a comma missing? write 2, 3); give what"),
        ({"corpus": "my corpus"}, "corpus", "is not of type 'object' (corpus is a section: give its settings"),
        # A comment glued to its value is part of it: the space before # is the fix, not a comma.
        ({"gap": {"top_k": "50# fifty"}}, "gap.top_k", "(a # starts a comment only after a space: write 50  # fifty)"),
        (
            {"train_fraction": "1.0# all"},
            "train_fraction",
            "(a # starts a comment only after a space: write 1.0  # all)",
        ),
        # A yes or no written as text.
        ({"keep_arpa": "yes"}, "keep_arpa", "'yes' is not of type 'boolean' (write true or false, unquoted); give"),
        # A list in quotes: text, and no fix that nests it in another list.
        ({"orders": "[2, 3]"}, "orders", "is not of type 'array' (a list in quotes is text: remove the quotes)"),
        # From --config, a list left open is text too: closing it is the fix, not nesting it.
        ({"orders": "[2,3"}, "orders", "is not of type 'array' (a `[` left open: close it with `]`)"),
        # One form of the setting takes a list: what it refuses in this one, not that no form takes it.
        ({"build_binary": {"format": ["probing", "probing"]}}, "build_binary.format", "has non-unique elements"),
        ({"gap": {"document": {"decays": [10, 10]}}}, "gap.document.decays", "has non-unique elements"),
        # A list written without its brackets, where one form is a list: one text, the list shown.
        (
            {"build_binary": {"format": "probing, trie-q8b8"}},
            "build_binary.format",
            "'probing, trie-q8b8' is not of a form it takes (write a list: [probing, trie-q8b8]); give what format",
        ),
        (
            {"build_binary": {"format": "probing trie"}},
            "build_binary.format",
            "'probing trie' is not of a form it takes (write a list: [probing, trie]); give what format takes",
        ),
        ({"orders": None}, "orders", "it has no value (nothing after its colon); give what orders takes: n-gram"),
        ({"corpus": {"source": "htp://example.org/corpus"}}, "corpus.source", "give what source takes: git URL"),
        ({"corpus": {"source": "git://"}}, "corpus.source", "is not valid under any of the given schemas"),
        ({"corpus": {"commit": "--upload-pack=touch pwned"}}, "corpus.commit", "is not of a form it takes"),
        # A control character in a path: the character named, not the pattern that refused it.
        (
            {"corpus": {"source": "/data/corp\n$(touch x)"}},
            "corpus.source",
            "holds a line break, which no setting here",
        ),
        ({"kenlm": {"bin_dir": "/opt/ken\tlm"}}, "kenlm.bin_dir", "holds a tab, which no setting"),
        ({"corpus": {"commit": "v1\r"}}, "corpus.commit", "holds a carriage return, which no setting"),
        # Quotes a word processor types: YAML keeps them, and the path names no file.
        (
            {"kenlm": {"bin_dir": "\u201c../kenlm/bin\u201d"}},
            "kenlm.bin_dir",
            'is in typographic quotes, which YAML keeps as part of the value: write it in plain quotes, "../kenlm/bin"',
        ),
        ({"build_binary": {"format": ["\u2018trie\u2019"]}}, "build_binary.format", "is in typographic quotes"),
        # Spaces around a quoted path: invisible in the message that the path names no file.
        ({"corpus": {"source": "corpus  "}}, "corpus.source", "'corpus  ' has spaces around it, which YAML keeps"),
        ({"lmplz": {"prune": [0, 2, 1]}}, "lmplz.prune", "must not decrease"),
        ({"orders": [2, 5], "lmplz": {"prune": [0, 0, 1]}}, "lmplz.prune", "model has only 2 orders"),
        ({"memory": {"budget_mb": 300}}, "memory.budget_mb", "300 is less than the minimum of 512; give what"),
        # An empty path: the default is mostly what is meant, not the pattern that refused it.
        (
            {"kenlm": {"bin_dir": ""}},
            "kenlm.bin_dir",
            'it is empty (""): remove the line for its default (null), or give',
        ),
        ({"train_fraction": [0]}, "train_fraction[0]", "0 is less than the minimum of 1e-06"),
        ({"train_fraction": [1.5]}, "train_fraction[0]", "1.5 is greater than the maximum of 1"),
        ({"train_fraction": [0.5, 0.5]}, "train_fraction", "has non-unique elements"),
        ({"lmplz": {"prune": [[0, 1], [0, 2, 1]]}}, "lmplz.prune", "[0, 2, 1] must not decrease"),
        ({"lmplz": {"prune": [[0], 1]}}, "lmplz.prune", "give what prune takes: lmplz --prune thresholds, whole"),
        ({"lmplz": {"prune": [[0, 0, 1], [0, 0, 1]]}}, "lmplz.prune", "each listed once"),
        # Twins once lmplz pads them: it repeats the last threshold, and 0 prunes nothing.
        (
            {"orders": [3, 4], "lmplz": {"prune": [[0, 1], [0, 1, 1]]}},
            "lmplz.prune",
            "[0, 1, 1] prunes as [0, 1] does, at every order here (lmplz repeats the last threshold",
        ),
        ({"lmplz": {"prune": [[], [0, 0]]}}, "lmplz.prune", "[0, 0] prunes as [] does"),
        # Characters that look like ASCII, pasted or typed on another keyboard layout.
        ({"orders": [3, "\uff14"]}, "orders[1]", "(\uff14 (U+FF14) only looks like ASCII; write 4)"),
        (
            {"gap": {"top_k": "\u22125"}},
            "gap.top_k",
            "(\u2212 (U+2212) only looks like ASCII; as ASCII, -5, which is refused too: -5 is less than the minimum",
        ),
        # A decimal comma: a list's brackets would make it two numbers.
        ({"train_fraction": "0,5"}, "train_fraction", "(a decimal comma? numbers take a point: write [0.5])"),
        (
            {"build_binary": {"format": ["probing", "probing-p1.5"]}},
            "build_binary.format",
            "probing-p1.5 is probing spelt another way",
        ),
        ({"comparison": {"resamples": 10}}, "comparison.resamples", "10 is less than the minimum of 100"),
        ({"build_binary": {"format": ["probing", "trie-q99"]}}, "build_binary.format", "quantisation takes 1 to"),
        ({"neural": {"O5": {"train": {}}}}, "neural", "give what a name under neural takes: lower-case letters"),
        # A section's own description, and a setting's own, never the section's above it.
        (
            {"corpus": "x"},
            "corpus",
            "is not of type 'object' (corpus is a section: give its settings on lines under `corpus:`, as "
            "`  source: ...`, or --config 'corpus={\"source\": ...}'); give what corpus takes: where the challenge's",
        ),
        (
            {"neural": {"small": {"train": {"layers": 0}}}},
            "neural.small.train.layers",
            "takes: the transformer's layers",
        ),
    ],
)
def test_a_bad_value_is_named_by_its_key_with_what_the_setting_takes(config, key, says):
    with pytest.raises(LmgapError) as err:
        validate_config(config, SCHEMA)
    said = str(err.value)
    assert said.startswith(f"config: {key}: ") and says in said, said


def test_a_pruning_lmplz_refuses_is_named_at_its_line_in_config_yaml(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("orders: [3]\nlmplz:\n  prune: [0, 1, 0]\n")
    with pytest.raises(LmgapError, match=r"^config: lmplz.prune \(config.yaml line 3\): \[0, 1, 0\] must not"):
        validate_config(yaml.safe_load(path.read_text()), SCHEMA, check_config_file(path))
    # The same value from --config or a --configfile has no line of config.yaml's.
    with pytest.raises(LmgapError, match=r"^config: lmplz.prune: \[0, 2, 1\] must not"):
        validate_config({"orders": [3], "lmplz": {"prune": [0, 2, 1]}}, SCHEMA, check_config_file(path))


def test_a_home_folder_in_a_path_is_expanded():
    config = validate_config(
        {"corpus": {"source": "~/corpus"}, "kenlm": {"bin_dir": "~/kenlm/bin"}, "lmplz": {"temp_dir": "~/tmp"}},
        SCHEMA,
    )
    home = os.path.expanduser("~")
    assert config["corpus"]["source"] == f"{home}/corpus" and config["kenlm"]["bin_dir"] == f"{home}/kenlm/bin"
    assert config["lmplz"]["temp_dir"] == f"{home}/tmp"
    assert validate_config({"corpus": {"source": "file:///~x"}}, SCHEMA)["corpus"]["source"] == "file:///~x"
    # `~` alone, quoted in config.yaml or given with --config, is the home folder, not null.
    assert validate_config({"kenlm": {"bin_dir": "~"}}, SCHEMA)["kenlm"]["bin_dir"] == home


def test_another_spelling_of_a_folder_is_the_same_setting():
    # A trailing slash, `./`, a doubled slash: one folder, which no job should be run again for; `..` is kept.
    spelt = {"corpus": {"source": "./corpus/"}, "kenlm": {"bin_dir": "../kenlm//bin/"}, "lmplz": {"temp_dir": "tmp/."}}
    config = validate_config(spelt, SCHEMA)
    assert (config["corpus"]["source"], config["kenlm"]["bin_dir"], config["lmplz"]["temp_dir"]) == (
        "corpus",
        "../kenlm/bin",
        "tmp",
    )


@pytest.mark.pipeline
def test_config_option_values_are_read_as_the_schema_types(tmp_path):
    # Snakemake's --config reads `orders=[3,4]` as the strings '3' and '4'.
    overrides = {"orders": ["3", "4"], "memory": {"budget_mb": "8000"}, "keep_arpa": "true"}
    config = validate_config(overrides, SCHEMA)
    assert config["orders"] == [3, 4] and config["memory"]["budget_mb"] == 8000 and config["keep_arpa"] is True
    # A neural model's settings, as `make demo` passes them: an entry of a mapping of names.
    overrides = {"neural": {"small": {"train": {"steps": "300", "learning_rate": "0.01"}, "stride": "8"}}}
    config = validate_config(overrides, SCHEMA)
    assert config["neural"]["small"]["train"]["steps"] == 300 and config["neural"]["small"]["stride"] == 8
    assert config["neural"]["small"]["train"]["learning_rate"] == 0.01
    assert config["neural"]["small"]["train"]["layers"] == 2
    # A whole number written as a float (YAML's `3.0`) is the number, not carried as written into names.
    config = validate_config({"orders": [2, 3.0], "lmplz": {"prune": [0, 1.0]}}, SCHEMA)
    assert [type(order) for order in config["orders"]] == [int, int] and config["lmplz"]["prune"] == [0, 1]
    assert type(config["lmplz"]["prune"][1]) is int and type(config["train_fraction"][0]) is float
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=200, dev_sentences=20)
    (tmp_path / "work").mkdir()
    planned = jobs_planned(tmp_path / "work", {"corpus": {"source": str(corpus)}}, "--config", "orders=[3,4]")
    assert planned["train"] == 2


@pytest.mark.pipeline
def test_snakemake_stops_before_any_job_naming_the_option(tmp_path):
    done = run_pipeline(tmp_path, {"orders": [3]}, "--dry-run", "--config", "orders=[3,x]", check=False)
    assert done.returncode != 0
    assert "config: orders[1]: 'x' is not of type 'integer'; give what orders takes" in done.stdout + done.stderr
    assert not (tmp_path / "results").exists()


@pytest.mark.pipeline
def test_a_yaml_syntax_error_names_the_file_and_line(tmp_path):
    run_pipeline(tmp_path, {"orders": [3]}, "--dry-run", check=False)
    (tmp_path / "config.yaml").write_text("orders: [3, 4]\ncorpus:\n  source: [unclosed\n")
    done = run_pipeline(tmp_path, None, "--dry-run", check=False)
    assert done.returncode != 0
    said = done.stdout + done.stderr
    # Where the bracket was left open, not where YAML's parser gave up (line 4).
    assert "config.yaml line 3 leaves a `[` open: close it with `]` on that line" in said


def test_prune_from_config_is_read_as_numbers():
    # Snakemake's --config reads `lmplz={"prune": [0, 0, 1]}` as the strings '0', '0' and '1'.
    for given, read in ((["0", "0", "1"], [0, 0, 1]), ([["0", "1"], []], [[0, 1], []])):
        assert validate_config({"lmplz": {"prune": given}}, SCHEMA)["lmplz"]["prune"] == read
    with pytest.raises(LmgapError) as err:
        validate_config({"lmplz": {"prune": ["0", "x"]}}, SCHEMA)
    assert "config: lmplz.prune: ['0', 'x'] is not valid under any of the given schemas" in str(err.value)


def test_thresholds_that_are_all_zero_are_the_unpruned_model():
    # lmplz drops the n-grams seen at most as often as the threshold: 0 drops none.
    assert prune_settings([0]) == prune_settings([0, 0, 0]) == prune_settings([]) == [[]]
    assert prune_settings([[], [0], [0, 0, 1]]) == [[], [0, 0, 1]]
    assert sorted(models_from_config([3], prune_settings([[0], [0, 1]]), False)) == ["o3", "o3-prune0.1"]


@pytest.mark.parametrize(
    "setting, value, command",
    [
        ("orders", "[4]", "--config 'orders=[4]'"),
        # Snakemake's --config takes no dot in a key: the setting nested.
        ("lmplz.prune", "[0,1]", """--config 'lmplz={"prune": [0,1]}'"""),
    ],
)
def test_a_setting_given_as_a_target_is_refused_with_the_command_that_gives_it(setting, value, command):
    with pytest.raises(LmgapError) as err:
        refuse_setting_as_target(setting, value)
    assert str(err.value).startswith(f"{setting}={value} is a setting, given where Snakemake takes a file to make")
    assert str(err.value).endswith(f"on the same command, put {command} at its end in its stead")


def test_a_refusal_the_schema_cannot_make_is_named_at_its_line_as_the_schema_s_are(tmp_path):
    path = tmp_path / "config.yaml"
    path.write_text("orders: [3]\ngap:\n  format: trie\nneural:\n  small:\n    kind: masked\n    train: {}\n")
    given, lines = yaml.safe_load(path.read_text()), check_config_file(path)
    said = located("gap.format `trie` is not among the formats built (...); add it there", given, lines, str(path))
    assert said == f"config: gap.format ({path} line 3): `trie` is not among the formats built (...); add it there"
    said = located("neural.small: kind: masked needs path: (...)", given, lines, str(path))
    assert said == f"config: neural.small ({path} line 5): kind: masked needs path: (...)"
    said = located("corpus.commit: abc names a commit, but ...", {**given, "corpus": {"commit": "abc"}}, lines)
    assert said == "config: corpus.commit: abc names a commit, but ..."
    # A value --config gave instead of the file's: no line; a message of no setting: as it was.
    assert (
        located("gap.format `x` is not", {**given, "gap": {"format": "x"}}, lines) == "config: gap.format: `x` is not"
    )
    assert located("the corpus lacks dev-0", given, lines) == "the corpus lacks dev-0"


@pytest.mark.parametrize(
    "given, said",
    [
        ({"orders": [2], "corpus": {"source": "corpus"}}, []),
        ({"corpus": {"source": "corpus"}}, ["orders (its line deleted?): the default, [3, 4, 5], is trained"]),
        (
            {"orders": [2], "corpus": {"commit": None}},
            [f"corpus.source (its line deleted?): the default, {SHIPPED_SOURCE}, is fetched"],
        ),
        (
            {},
            [
                "orders (its line deleted?): the default, [3, 4, 5], is trained",
                f"corpus.source (its line deleted?): the default, {SHIPPED_SOURCE}, is fetched",
            ],
        ),
    ],
    ids=["both given", "no orders", "no corpus.source", "neither"],
)
def test_an_expected_setting_the_config_lacks_is_said_with_the_default_taken(given, said):
    checked = validate_config(copy.deepcopy(given), SCHEMA)
    assert list(defaults_taken(given, checked)) == [f"the config sets no {text}" for text in said]


@pytest.mark.parametrize("corpus", [None, {}])
def test_a_corpus_block_left_empty_is_refused_at_its_line_not_fetched(corpus):
    # Its source: line deleted: the default would fetch the whole challenge and train every model again on it.
    given = {"corpus": corpus, "orders": [2]}
    with pytest.raises(LmgapError) as refused:
        check_corpus_given(given)
    said = located(str(refused.value), given, {("corpus",): (5, corpus)})
    assert said == (
        "config: corpus (config.yaml line 5): holds no setting (its source: line deleted?): put source: under it, "
        "two spaces in (the corpus's folder, or the challenge's git URL), or delete the corpus: line to fetch the "
        "challenge's repository"
    )
    # No corpus: at all, or one with another setting, takes the default source, and says so as it starts.
    check_corpus_given({"orders": [2]})
    check_corpus_given({"corpus": {"commit": None}})


def test_a_corpus_setting_that_lost_its_indent_is_named_at_its_own_line():
    # `corpus:` then `source: corpus` unindented: YAML reads an empty corpus and a top-level source.
    given = {"orders": [2], "corpus": None, "source": "corpus"}
    with pytest.raises(LmgapError) as refused:
        check_corpus_given(given)
    said = located(str(refused.value), given, {("corpus",): (2, None), ("source",): (3, "corpus")})
    assert said == (
        "config: source (config.yaml line 3): is at the top level, where corpus: above it holds no setting: indent "
        "it two spaces, under corpus:, as corpus.source"
    )


def test_a_setting_from_a_configfile_is_refused_at_its_own_file_and_line(tmp_path, monkeypatch):
    # `--configfile other.yaml` with a key mistyped: named in other.yaml, not without a place.
    monkeypatch.chdir(tmp_path)
    Path("config.yaml").write_text("orders: [3]\ngap:\n  top_k: 20\n")
    Path("other.yaml").write_text("# my sweep\ngap:\n  topk: 50\n")
    argv = ["snakemake", "--cores", "2", "--configfile", "other.yaml"]
    files = {path: check_config_file(path) for path in given_config_files(argv)}
    settings = with_files(check_config_file("config.yaml"), files)
    given = {"orders": [3], "gap": {"top_k": 20, "topk": 50}}
    with pytest.raises(LmgapError, match=r"^config: gap.topk \(other.yaml line 3\): Additional properties"):
        validate_config(copy.deepcopy(given), SCHEMA, settings)
    # config.yaml's own settings keep their lines.
    with pytest.raises(LmgapError, match=r"^config: orders\[0\] \(config.yaml line 1\): 1 is less than"):
        validate_config({**copy.deepcopy(given), "orders": [1]}, SCHEMA, with_files({("orders",): (1, [1])}, files))
    # A relative path given with --directory is relative to where snakemake started, not to the run folder.
    assert given_config_files([*argv, "--directory", "run"]) == []
    assert given_config_files([*argv[:-1], str(tmp_path / "other.yaml"), "-d", "run"]) == [str(tmp_path / "other.yaml")]
