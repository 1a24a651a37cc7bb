"""The config's JSON schema (workflow/schemas/config.schema.yaml) and the defaults it gives."""

from pathlib import Path

import yaml

SCHEMA = Path(__file__).resolve().parents[1] / "schemas/config.schema.yaml"


def schema_defaults(schema, prefix=""):
    """{dotted key: default} of every setting of a schema that has one (a neural model's entries aside)."""
    defaults = {}
    for key, sub in schema.get("properties", {}).items():
        name = f"{prefix}{key}"
        if "properties" in sub:
            defaults.update(schema_defaults(sub, name + "."))
        elif "default" in sub and key != "neural":
            defaults[name] = sub["default"]
    return defaults


def read_defaults(schema_path=SCHEMA):
    with open(schema_path) as handle:
        return schema_defaults(yaml.safe_load(handle))


def without_defaults(settings, defaults, prefix=""):
    """settings (nested) without those at their defaults (read_defaults), and without the sections that leaves
    empty: what a config file need say to mean them."""
    kept = {}
    for key, given in settings.items():
        name = f"{prefix}{key}"
        if isinstance(given, dict) and any(dotted.startswith(name + ".") for dotted in defaults):
            given = without_defaults(given, defaults, name + ".")
            if given:
                kept[key] = given
        elif name not in defaults or given != defaults[name]:
            kept[key] = given
    return kept
