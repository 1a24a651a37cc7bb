"""Validate the config against its JSON schema and say where a bad value came from; Snakemake's
validate fills in the schema's defaults."""

import copy
import os
import re

import jsonschema
import yaml

from .corpus.place import is_url
from .errors import LmgapError
from .models import prune_settings

# Keys that hold paths on this machine: `~` in them means the home folder, as in a shell.
PATH_KEYS = (("corpus", "source"), ("kenlm", "bin_dir"), ("lmplz", "temp_dir"))
INTEGER = re.compile(r"[+-]?[0-9]+")


def check_yaml_syntax(path):
    """A YAML syntax error in a config file, named with its file, line and column."""
    try:
        with open(path) as handle:
            yaml.safe_load(handle)
    except FileNotFoundError:
        return
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f"{path} line {mark.line + 1}, column {mark.column + 1}" if mark else str(path)
        raise LmgapError(f"{where}: {err.problem or err.context}; fix the YAML syntax there") from None


def _types(schema):
    kinds = schema.get("type", [])
    return [kinds] if isinstance(kinds, str) else kinds


def _scalar(value, schema):
    """A string from Snakemake's --config (which reads `orders=[3,4]` as ['3', '4']) as the type
    the schema wants, when it reads as one."""
    if not isinstance(value, str):
        return value
    kinds = _types(schema)
    if "integer" in kinds and INTEGER.fullmatch(value):
        return int(value)
    if "number" in kinds:
        try:
            return float(value)
        except ValueError:
            return value
    if "boolean" in kinds and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if "null" in kinds and value in ("null", "~", "None"):
        return None
    return value


def coerce_overrides(value, schema, override):
    """value with the parts that --config set (override: their tree) read as the schema's types."""
    if override is None:
        return value
    # One of several forms (lmplz.prune: a list of thresholds or a list of such lists): the first
    # that the value, so read, takes.
    for alternative in schema.get("anyOf", []):
        read = coerce_overrides(value, {**schema, **alternative, "anyOf": []}, override)
        if jsonschema.Draft202012Validator(alternative).is_valid(read):
            return read
    if isinstance(value, dict) and isinstance(override, dict):
        properties = schema.get("properties", {})
        # A mapping of names to entries of one schema (neural:) reads each entry by it.
        entries = schema.get("additionalProperties")
        entries = entries if isinstance(entries, dict) else {}
        return {
            key: coerce_overrides(sub, properties.get(key, entries), override.get(key)) if key in override else sub
            for key, sub in value.items()
        }
    if isinstance(value, list):
        return [coerce_overrides(item, schema.get("items", {}), True) for item in value]
    return _scalar(value, schema)


def key_path(error):
    """`lmplz.prune[1]` for the place an error is about (an unknown key's own name)."""
    text = ""
    for part in place(error):
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def place(error):
    """The key path a value came in at: for a key the schema does not know, that key."""
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        known = error.schema.get("properties", {})
        path += tuple(key for key in error.instance if key not in known)[:1]
    return path


def _sets(tree, path):
    """Whether a source's tree gives the value at path: Snakemake merges mappings key by key, and
    a value of any other kind (a list, say) replaces the whole value below it."""
    if not path:
        return False
    for part in path:
        if not isinstance(tree, dict):
            return True
        if part not in tree:
            return False
        tree = tree[part]
    return True


class Origins:
    """Where each setting came from: --config, a --configfile, or the workflow's config.yaml."""

    def __init__(self, overrides=None, configfiles=(), default="config.yaml"):
        self.overrides = overrides or {}
        self.files = []
        for path in configfiles:
            try:
                with open(path) as handle:
                    self.files.append((str(path), yaml.safe_load(handle) or {}))
            except (OSError, yaml.YAMLError):
                continue
        self.default = default

    def of(self, path):
        """The source of the value at a key path (a tuple of keys and list indices)."""
        if _sets(self.overrides, path):
            return "--config"
        for name, tree in reversed(self.files):
            if _sets(tree, path):
                return name
        return self.default


def validate_config(config, schema_path, origins=None):
    """The config with the schema's defaults (by snakemake.utils.validate) and ~ expanded; an
    LmgapError naming each bad key and the file or option it came from."""
    from snakemake.utils import validate

    origins = origins or Origins()
    with open(schema_path) as handle:
        schema = yaml.safe_load(handle)
    # The values given, checked before the defaults fill in, so that a message is about one of
    # them; every default is valid.
    config = coerce_overrides(copy.deepcopy(config), schema, origins.overrides)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        raise invalid([(origins.of(place(error)), key_path(error), explain(error)) for error in errors])
    validate(config, str(schema_path), set_default=True)
    for keys in PATH_KEYS:
        section, key = keys
        value = config[section][key]
        if value and not (keys == ("corpus", "source") and is_url(value)):
            config[section][key] = os.path.expanduser(value)
    for setting in prune_settings(config["lmplz"]["prune"]):
        check_prune(setting, config["orders"], origins)
    return config


def explain(error):
    """jsonschema's message, or ours where a bare one would not say what to do."""
    path = tuple(error.absolute_path)
    if error.validator == "anyOf" and path == ("corpus", "source"):
        return (
            f"{error.instance!r} is not a git URL (git://, https://, ssh://, file://) or a local path; "
            "give one of those"
        )
    if error.validator == "anyOf" and path == ("lmplz", "prune"):
        settings = [tuple(item) for item in error.instance if isinstance(item, list)]
        twice = [list(setting) for setting in dict.fromkeys(settings) if settings.count(setting) > 1]
        if twice and len(settings) == len(error.instance):
            return f"{twice[0]} is listed twice: each setting trains its own models, so list it once"
        # (A number --config gave as text is no fault.)
        values = [value for item in error.instance for value in (item if isinstance(item, list) else [item])]
        odd = [value for value in values if not isinstance(value, int) and not INTEGER.fullmatch(str(value))]
        why = f"{odd[0]!r} is no whole number; " if odd else ""
        return (
            f"{error.instance!r} is neither a list of thresholds (say [0, 0, 1]) nor a list of such "
            f"lists (say [[], [0, 0, 1]], one model of every order for each): {why}thresholds are "
            "whole numbers from 0"
        )
    if error.validator == "minimum" and path[:1] == ("orders",):
        return (
            f"{error.instance} is below 2: KenLM's binary models (build_binary, and the gap "
            "predictor) need order 2 or more; drop it from orders"
        )
    if error.validator == "minimum" and path == ("memory", "budget_mb"):
        return (
            f"{error.instance} MB is below {error.validator_value} MB, less than lmplz and build_binary "
            "need together for the smallest model; give more, or null for 80% of the machine's memory"
        )
    return f"{error.message}; {fix(error)}"


# How each kind of value is asked for, in a fix.
KINDS = {
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "string": "a text",
    "array": "a list",
    "object": "a mapping of keys",
    "null": "null",
}
# What a value a pattern refuses must look like, by the key it is under (neural: its names).
PATTERNS = {
    "commit": "give a commit, tag or branch name (letters, digits and . _ / -), or null for the newest",
    "bin_dir": "give a folder's path without control characters",
    "temp_dir": "give a folder's path without control characters",
    "neural": "name the model with lower-case letters, digits, - and _, starting with a letter (not o "
    "and a digit, blend, document or unigram, the names of other rows)",
}


def fix(error):
    """What to write instead of a value the schema refuses, by the rule it breaks."""
    rule, wanted = error.validator, error.validator_value
    if rule == "type":
        kinds = [wanted] if isinstance(wanted, str) else wanted
        return "give " + " or ".join(KINDS[kind] for kind in kinds)
    if rule == "enum":
        return "give one of " + ", ".join(map(str, wanted))
    if rule == "minimum":
        return f"give {wanted} or more"
    if rule == "exclusiveMinimum":
        return f"give more than {wanted}"
    if rule == "maximum":
        return f"give at most {wanted}"
    if rule == "uniqueItems":
        return "list each value once"
    if rule == "minItems":
        return f"list at least {wanted}"
    if rule == "minLength":
        return "give a non-empty text"
    if rule == "additionalProperties":
        return "remove it, or use one of the keys known here: " + ", ".join(error.schema.get("properties", {}))
    if rule in ("pattern", "propertyNames"):
        key = next((part for part in reversed(error.absolute_path) if isinstance(part, str)), "neural")
        return PATTERNS.get(key, "see its description in config.yaml")
    return "see its description in config.yaml"


def invalid(problems):
    """The error for (origin, key, message) triples: one block per origin, one line per key."""
    lines = []
    for origin in dict.fromkeys(origin for origin, _, _ in problems):
        lines.append(f"{origin} is invalid:")
        lines += [f"  {key}: {message}" for where, key, message in problems if where == origin]
    return LmgapError("\n".join(lines))


def check_prune(prune, orders, origins):
    """lmplz's own rules for --prune, checked before anything runs."""

    def refuse(message):
        return invalid([(origins.of(("lmplz", "prune")), "lmplz.prune", message)])

    if any(later < earlier for earlier, later in zip(prune, prune[1:])):
        raise refuse(
            f"{prune} must not decrease (lmplz refuses thresholds that would remove an n-gram while "
            "keeping a longer one); give each order's threshold at least the one before"
        )
    if len(prune) > min(orders):
        raise refuse(
            f"{len(prune)} thresholds, but the order-{min(orders)} model has only {min(orders)} orders; "
            f"give at most {min(orders)} (lmplz repeats the last one for higher orders)"
        )
