"""The one exception type whose message is meant for the user, not a traceback, and where the
setting a message tells the user to change was set."""

import json
import os


class LmgapError(Exception):
    """A problem the user can fix; the message names the file, the line and the fix."""


# The main process records where each setting came from (config.yaml, a --configfile or
# --config) in this variable, which its jobs inherit, so that a job's message names the right one.
ORIGINS_VARIABLE = "LMGAP_CONFIG_ORIGINS"
# The settings messages tell the user to change.
NAMED_SETTINGS = (
    "corpus.source",
    "corpus.commit",
    "corpus.test_a",
    "train_split",
    "eval_splits",
    "kenlm.bin_dir",
    "lmplz.temp_dir",
    "lmplz.discount_fallback",
    "memory.budget_mb",
    "gap.enabled",
    "neural",
)


def record_origins(origin_of):
    """Keep, for the jobs, where each named setting came from (origin_of: key path -> origin)."""
    os.environ[ORIGINS_VARIABLE] = json.dumps({key: origin_of(tuple(key.split("."))) for key in NAMED_SETTINGS})


def in_origin(key):
    """`in config.yaml`, `in FILE` (a --configfile) or `in --config`: where the setting was set."""
    origins = json.loads(os.environ.get(ORIGINS_VARIABLE) or "{}")
    return f"in {origins.get(key, 'config.yaml')}"
