"""Validate config.yaml against its JSON schema, filling in defaults."""

import copy

import jsonschema
import yaml

from .errors import LmgapError


def fill_defaults(config, schema):
    """A copy of config with every missing key that has a default set to it."""
    config = copy.deepcopy(config)
    if schema.get("type") == "object" and isinstance(config, dict):
        for key, sub in schema.get("properties", {}).items():
            if key not in config and "default" in sub:
                config[key] = copy.deepcopy(sub["default"])
            if key in config:
                config[key] = fill_defaults(config[key], sub)
    return config


def key_path(error):
    """`lmplz.prune[1]` for the place an error is about."""
    text = ""
    for part in error.absolute_path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def validate_config(config, schema_path):
    """The config with defaults; LmgapError naming the key for the first problems found."""
    with open(schema_path) as handle:
        schema = yaml.safe_load(handle)
    config = fill_defaults(config, schema)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    if errors:
        lines = []
        for error in errors:
            message = error.message
            if error.validator == "anyOf":
                message = f"{error.instance!r} is not a git URL (git://, https://, ssh://, file://) or a local path"
            lines.append((key_path(error), message))
        raise invalid(lines)
    check_prune(config["lmplz"]["prune"], config["orders"])
    return config


def invalid(problems):
    """The error for (key, message) pairs, one line each."""
    return LmgapError("config.yaml is invalid:\n" + "\n".join(f"  {key}: {message}" for key, message in problems))


def check_prune(prune, orders):
    """lmplz's own rules for --prune, checked before anything runs."""
    if any(later < earlier for earlier, later in zip(prune, prune[1:])):
        raise invalid([(
            "lmplz.prune",
            f"{prune} must not decrease (lmplz refuses thresholds that would remove an n-gram while "
            "keeping a longer one)",
        )])
    if len(prune) > min(orders):
        raise invalid([(
            "lmplz.prune",
            f"{len(prune)} thresholds, but the order-{min(orders)} model has only {min(orders)} orders; "
            f"give at most {min(orders)} (lmplz repeats the last one for higher orders)",
        )])
