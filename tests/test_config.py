"""config.yaml is checked against its schema before anything runs."""

import pytest
import yaml

from conftest import REPO, run_pipeline
from lmgap.configcheck import validate_config
from lmgap.errors import LmgapError

SCHEMA = REPO / "workflow/schemas/config.schema.yaml"


def test_shipped_config_is_valid_and_defaults_fill_in():
    shipped = validate_config(yaml.safe_load((REPO / "config.yaml").read_text()), SCHEMA)
    assert shipped["orders"] == [3, 4, 5]
    assert shipped["corpus"]["source"] == "git://gonito.net/challenging-america-word-gap-prediction"
    minimal = validate_config({"orders": [2]}, SCHEMA)
    assert minimal["lmplz"] == {"prune": [], "discount_fallback": False, "temp_dir": None}
    assert minimal["eval_splits"] == ["dev-0"] and minimal["keep_arpa"] is False


@pytest.mark.parametrize(
    "config, key, says",
    [
        ({"orderz": [3]}, "(top level)", "'orderz' was unexpected"),
        ({"lmplz": {"prun": [1]}}, "lmplz", "'prun' was unexpected"),
        ({"orders": [0, 3]}, "orders[0]", "less than the minimum of 1"),
        ({"orders": [3.5]}, "orders[0]", "is not of type 'integer'"),
        ({"orders": ["3"]}, "orders[0]", "is not of type 'integer'"),
        ({"corpus": {"source": "htp://example.org/corpus"}}, "corpus.source", "is not a git URL"),
        ({"corpus": {"source": "git://"}}, "corpus.source", "is not a git URL"),
        ({"corpus": {"commit": "--upload-pack=touch pwned"}}, "corpus.commit", "does not match"),
        ({"lmplz": {"prune": [0, 2, 1]}}, "lmplz.prune", "must not decrease"),
        ({"orders": [2, 5], "lmplz": {"prune": [0, 0, 1]}}, "lmplz.prune", "model has only 2 orders"),
    ],
)
def test_bad_values_name_their_key(config, key, says):
    with pytest.raises(LmgapError) as err:
        validate_config(config, SCHEMA)
    assert f"  {key}: " in str(err.value) and says in str(err.value)


def test_snakemake_stops_before_any_job(tmp_path):
    done = run_pipeline(tmp_path, {"orders": [3, 0]}, "--dry-run", check=False)
    assert done.returncode != 0
    assert "orders[1]: 0 is less than the minimum of 1" in done.stdout + done.stderr
    assert not (tmp_path / "results").exists()


def test_prune_thresholds_lmplz_accepts_pass(tmp_path):
    config = validate_config({"orders": [3, 5], "lmplz": {"prune": [0, 1, 1]}}, SCHEMA)
    assert config["lmplz"]["prune"] == [0, 1, 1]
