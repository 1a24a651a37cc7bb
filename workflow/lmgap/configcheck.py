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
            lines.append(f"  {key_path(error)}: {message}")
        raise LmgapError("config.yaml is invalid:\n" + "\n".join(lines))
    return config
