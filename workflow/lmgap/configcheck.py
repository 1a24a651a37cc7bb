"""The config checked by Snakemake's validator against the JSON schema, and here what a schema cannot
say: `--config` text read as the schema's types, `~`, prune vs orders, and the config file's line of a
refused value (config.yaml's own mistakes: lmgap.configfile)."""

import copy
import json
import os
import re
import unicodedata
from pathlib import Path

import jsonschema
import yaml

from .commands import config_option
from .configfile import value_at
from .corpus.place import is_url
from .errors import LmgapError
from .models import prune_settings
from .ngram.formats import format_settings
from .schema import read_defaults

# Keys that hold paths on this machine: `~` in them means the home folder, as in a shell.
PATH_KEYS = (("corpus", "source"), ("kenlm", "bin_dir"), ("lmplz", "temp_dir"))
INTEGER = re.compile(r"[+-]?[0-9]+")
# What the schema's patterns refuse in every path and name: they would cut a line of a record or a log.
CONTROL = re.compile(r"[\x00-\x1f]")
CONTROL_NAMES = {"\n": "a line break", "\r": "a carriage return", "\t": "a tab"}
NUMBERS = ("integer", "number")


def _scalar(value, schema):
    """A string from Snakemake's --config (which reads `orders=[3,4]` as ['3', '4']), or a whole float, as
    the type the schema wants, when it reads as one."""
    kinds = schema.get("type", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if isinstance(value, float) and value.is_integer() and "integer" in kinds and "number" not in kinds:
        # `3.0` where a whole number goes: the schema's validator takes it as one, and the run would carry
        # it as written (an order 3.0) into names and records.
        return int(value)
    if not isinstance(value, str):
        return value
    if "integer" in kinds and INTEGER.fullmatch(value):
        return int(value)
    if "number" in kinds:
        try:
            return float(value)
        except ValueError:
            return value
    if "boolean" in kinds and value.lower() in ("true", "false"):
        return value.lower() == "true"
    # (Not `~`, which in a path means the home folder.)
    if "null" in kinds and value in ("null", "None"):
        return None
    return value


def read_as_schema_types(value, schema):
    """value with its text read as the types the schema wants, where it reads as one: Snakemake's
    --config reads a nested value as text (`orders=[3,4]` as ['3', '4']); a section left with no
    setting under it (`memory:` alone, YAML's null) is the section of its defaults."""
    if value is None and schema.get("type") == "object" and schema.get("default") == {}:
        return {}
    # One of several forms (lmplz.prune: a list of thresholds or a list of such lists): the first
    # that the value, so read, takes.
    for alternative in schema.get("anyOf", []):
        read = read_as_schema_types(value, {**schema, **alternative, "anyOf": []})
        if jsonschema.Draft202012Validator(alternative).is_valid(read):
            return read
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        # A setting whose schema depends on another (a neural model's train: on its kind).
        if "if" in schema:
            branch = "then" if jsonschema.Draft202012Validator(schema["if"]).is_valid(value) else "else"
            properties = {**properties, **schema.get(branch, {}).get("properties", {})}
        # A mapping of names to entries of one schema (neural:) reads each entry by it.
        entries = schema.get("additionalProperties")
        entries = entries if isinstance(entries, dict) else {}
        return {key: read_as_schema_types(sub, properties.get(key, entries)) for key, sub in value.items()}
    if isinstance(value, list):
        return [read_as_schema_types(item, schema.get("items", {})) for item in value]
    return _scalar(value, schema)


def validate_config(config, schema_path, file_settings=None, file_name="config.yaml"):
    """The config with the schema's defaults filled in and `~` expanded; a value the schema refuses
    stops the run naming the key, the value, the rule it breaks and the setting's description, and
    its line where it came from the config file (file_settings: lmgap.configfile.check_config_file's)."""
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    with open(schema_path) as handle:
        schema = yaml.safe_load(handle)
    config = read_as_schema_types(copy.deepcopy(config), schema)
    check_texts(config, file_settings, file_name)
    try:
        validate(config, str(schema_path), set_default=True)
    except WorkflowError as err:
        # Raised while handling jsonschema's error for the first value refused.
        if not isinstance(err.__context__, jsonschema.ValidationError):
            raise
        error = err.__context__
        # The config file's line of the refused setting, or of the one holding it (not where --config or
        # --configfile gave it instead).
        keys = [part for part in refused_path(error) if not isinstance(part, int)]
        place = setting_place(keys, config, file_settings) or (None, None)
        hint = decimal_comma(error, place[1], place[0] or file_name)
        raise LmgapError(refusal(error, schema, setting_line(keys, config, file_settings, file_name), hint)) from None
    for section, key in PATH_KEYS:
        value = config[section][key]
        # corpus.source may be a URL, which is no path. A path is taken as pathlib spells it (`bin/` is `bin`,
        # `./corpus` is `corpus`; `..` kept, which a symlink may give another meaning): another spelling of the same
        # folder changes no job's params.
        if value and not ((section, key) == ("corpus", "source") and is_url(value)):
            config[section][key] = str(Path(os.path.expanduser(value)))
    where = setting_line(["lmplz", "prune"], config, file_settings, file_name)
    for setting in prune_settings(config["lmplz"]["prune"]):
        check_prune(setting, config["orders"], where)
    check_prune_twins(config["lmplz"]["prune"], config["orders"], where)
    # A format name is checked by its own grammar, which the schema's pattern only sketches.
    where = setting_line(["build_binary", "format"], config, file_settings, file_name)
    try:
        format_settings(config["build_binary"]["format"])
    except LmgapError as err:
        raise LmgapError(f"config: build_binary.format{where}: {err}") from None
    return config


# Quotes a word processor or web page types, which YAML keeps as part of a value.
TYPOGRAPHIC = "\u201c\u201d\u2018\u2019\u201e\u00ab\u00bb"


def strings(value, keys=()):
    """(keys, text) of every text of a config, nested in its sections and lists."""
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from strings(sub, (*keys, key))
    elif isinstance(value, list):
        for sub in value:
            yield from strings(sub, keys)
    elif isinstance(value, str):
        yield keys, value


def check_texts(config, file_settings, file_name):
    """Refuse a text value in typographic quotes (“../kenlm/bin”), or with spaces around it (`"corpus  "`),
    which YAML keeps as part of it: as a path it names no file, and the run would fail in its first job, far
    from the line, with a message whose path looks right."""
    for keys, text in strings(config):
        where = setting_line(keys, config, file_settings, file_name)
        if len(text) > 1 and text[0] in TYPOGRAPHIC and text[-1] in TYPOGRAPHIC:
            raise LmgapError(
                f"config: {'.'.join(keys)}{where}: {text} is in typographic quotes, which YAML keeps as part of "
                f'the value: write it in plain quotes, "{text[1:-1]}", or none'
            )
        # (Control characters, a tab among them, are the schema's patterns' to refuse.)
        if text != text.strip(" "):
            raise LmgapError(
                f"config: {'.'.join(keys)}{where}: {text!r} has spaces around it, which YAML keeps as part of a "
                f"quoted value (no path or name here holds them): write {text.strip(' ')!r}"
            )


def located(message, config, file_settings, file_name="config.yaml"):
    """A refusal of a check the schema cannot make (gap.format against the formats built, a neural model's
    folder), which starts with the dotted key it concerns, said as the schema's are: `config: KEY (FILE line
    N): ...`, the line where config (as given, before defaults) has the file's value."""
    key = re.match(r"([A-Za-z_]\w*(?:\.[\w-]+)*)[: ]", message)
    if not key or key.group(1).split(".")[0] not in config:
        return message
    line = setting_line(key.group(1).split("."), config, file_settings, file_name)
    return f"config: {key.group(1)}{line}: {message[key.end() :].lstrip(': ')}"


def refused_path(error):
    """The keys (and list indices) of the refused value: an unknown key's own."""
    parts = list(error.absolute_path)
    if error.validator == "additionalProperties":
        parts += [key for key in error.instance if key not in error.schema.get("properties", {})][:1]
    return parts


def setting_line(parts, config, file_settings, file_name):
    """` (FILE line N)` where the setting of these keys, or the one holding it, is the config file's value
    there; else nothing."""
    place = setting_place(parts, config, file_settings)
    return f" ({place[0] or file_name} line {place[1]})" if place else ""


def setting_place(parts, config, file_settings):
    """(file, line) of the setting of these keys, or of the one holding it, where config has the file's value
    there; else None. file_settings: {keys: (line, value)} of config.yaml (file None), an entry of a file given
    by --configfile (with_files) (line, value, file)."""
    parts = list(parts)
    while parts and tuple(parts) not in (file_settings or {}):
        parts.pop()
    if not parts:
        return None
    line, value, *named = file_settings[tuple(parts)]
    given = config
    for part in parts:
        given = given.get(part) if isinstance(given, dict) else None
    return (named[0] if named else None, line) if given == value else None


def with_files(file_settings, files):
    """file_settings (config.yaml's) with the settings of each file --configfile gives ({path: its
    check_config_file settings}), later ones over earlier, as Snakemake takes their values."""
    merged = dict(file_settings)
    for path, settings in files.items():
        merged.update({keys: (line, value, str(path)) for keys, (line, value) in settings.items()})
    return merged


def decimal_comma(error, line, file_name):
    """The hint for a number of a list refused where the config file's line (from 1, or None) writes digits
    around a comma (`train_fraction: [0,5]`): YAML reads two numbers, 0 and 5, where a decimal comma meant one."""
    parts, kinds = list(error.absolute_path), error.schema.get("type", [])
    # (Of numbers with a fraction: whole numbers, as orders, take no decimal comma.)
    if error.validator not in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum") or not (
        parts and isinstance(parts[-1], int) and "number" in ([kinds] if isinstance(kinds, str) else kinds)
    ):
        return ""
    try:
        text = Path(file_name).read_text(encoding="utf-8").split("\n")[line - 1] if line else ""
    except (OSError, UnicodeDecodeError, IndexError):
        return ""
    found = re.search(r"([0-9]+),([0-9]+)", text.split(" #")[0])
    if not found:
        return ""
    point = f"{found.group(1)}.{found.group(2)}"
    return f" (a decimal comma? YAML reads {found.group()} in a list as two numbers: write {point})"


def refusal(error, schema, line="", hint=""):
    """The key a value came in at (and line: where the config file sets it), what is wrong with it, and
    the refused setting's own description in the schema, which says what it takes; an unknown key, the
    keys known there. hint: what to add to what is wrong (decimal_comma's)."""
    parts = refused_path(error)
    known = error.schema.get("properties", {})
    path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in parts)
    where = f"config: {path.lstrip('.') or '(top level)'}{line}"
    if error.validator == "additionalProperties":
        dotted = str(parts[-1]).split(".") if parts else []
        if len(dotted) > 1 and _known(schema, [*parts[:-1], *dotted]):
            # `gap.top_k: 50`: a dotted key is the docs' name of a setting, not one YAML nests.
            nested = "".join(f"\n{'  ' * depth}{name}:" for depth, name in enumerate(dotted))
            return (
                f"{where}: {error.message}; YAML nests no dotted key: write {parts[-1]} as sections, one name a "
                f"line, each two spaces further in:{nested} {error.instance[parts[-1]]!r}"
            )
        places = setting_places(schema, parts[-1]) if parts else []
        if places:
            # A known setting at another depth: an indent added or lost, a line pasted in the wrong section.
            return (
                f"{where}: {error.message}; {parts[-1]} belongs at {' or '.join(places)}: move it there (two "
                "spaces of indent put a setting in the section above it, none at the top level), or remove it"
            )
        return f"{where}: {error.message}; remove it, or use one of the keys known there: {', '.join(known)}"
    message = without_pattern(error.message)
    if error.validator == "type" and error.instance is None:
        # `orders:` with nothing after it: YAML's null, not a value the user meant.
        message = "it has no value (nothing after its colon)"
    elif error.validator == "type" and (plain := look_alikes_replaced(error.instance)) is not None:
        # `top_k: ５0`, `top_k: −5`: a character that looks like a digit or a sign, typed or pasted, makes text.
        chars = [char for char in dict.fromkeys(error.instance) if not char.isascii()]
        odd = ", ".join(f"{char} (U+{ord(char):04X})" for char in chars)
        looks = "looks" if len(chars) == 1 else "look"
        # (The value as ASCII, checked as the setting's own: a hint to write what is refused next is no fix.)
        also = next(jsonschema.Draft202012Validator(error.schema).iter_errors(yaml.safe_load(plain)), None)
        fix = f"as ASCII, {plain}, which is refused too: {also.message}" if also else f"write {plain}"
        message += f" ({odd} only {looks} like ASCII; {fix})"
    elif (
        error.validator == "type"
        and isinstance(error.instance, str)
        and re.search(r"\S#", error.instance)
        and _yaml_or_none(error.instance.split("#")[0].strip()) is not None
    ):
        # `top_k: 50# fifty`: a # starts a comment only after a space; glued to the value, it is part of it.
        value, comment = (part.strip() for part in error.instance.split("#", 1))
        message += f" (a # starts a comment only after a space: write {value}  # {comment})"
    elif error.validator == "type" and "array" in str(error.validator_value) and not isinstance(error.instance, list):
        if isinstance(error.instance, str) and isinstance(_yaml_or_none(error.instance), list):
            # `orders: "[2, 3]"`: a list in quotes is text.
            message += " (a list in quotes is text: remove the quotes)"
        elif isinstance(error.instance, str) and error.instance.count("[") > error.instance.count("]"):
            # `--config 'orders=[2,3'`: Snakemake passes what YAML cannot read on as text.
            message += " (a `[` left open: close it with `]`)"
        elif (
            isinstance(error.instance, str)
            and re.fullmatch(r"[0-9]+,[0-9]+", error.instance)
            and _items_are(error, "number")
        ):
            # `train_fraction: 0,5`: a decimal comma, which a list's brackets would make two numbers.
            message += f" (a decimal comma? numbers take a point: write [{error.instance.replace(',', '.')}])"
        else:
            message += f" (write a list: [{error.instance}])"
    elif error.validator == "type" and error.validator_value == "boolean":
        # `keep_arpa: "yes"`, `enabled: 1`: a yes or no written as text or a number.
        message += " (write true or false, unquoted)"
    elif error.validator == "type" and error.validator_value in NUMBERS and len(str(error.instance).split()) > 1:
        # `orders: [2 3]`: numbers of a list whose comma is missing are one text.
        message += f" (a comma missing? write {', '.join(error.instance.split())})"
    elif error.validator == "type" and error.validator_value == "object" and error.schema.get("properties"):
        # `gap: 50`, `--config gap=50`: a section given a value, not settings.
        name, first = refused_path(error)[-1] if refused_path(error) else "", next(iter(error.schema["properties"]))
        message += (
            f" ({name} is a section: give its settings on lines under `{name}:`, as `  {first}: ...`, or "
            f"--config '{name}={{\"{first}\": ...}}')"
        )
    elif error.validator == "anyOf" and len(fitting := _fitting_forms(error)) == 1:
        # One form of the setting fits the value's type (a list of formats, one listed twice): what that
        # form refuses, rather than that no form takes it.
        message = without_pattern(fitting[0].message)
        if isinstance(error.instance, str) and re.search(r"[,\s]", error.instance.strip()) and _takes_a_list(error):
            # `format: probing, trie-q8b8`, `format: probing trie`: a list written without its brackets is one text.
            items = re.split(r"[,\s]+", error.instance.strip())
            message += f" (write a list: [{', '.join(items)}])"
    elif error.instance == "" and "default" in error.schema:
        # `bin_dir: ""`: what the user means is mostly the default (a pattern shown says nothing).
        default = json.dumps(error.schema["default"])
        message = f'it is empty (""): remove the line for its default ({default}), or'
    elif isinstance(error.instance, str) and CONTROL.search(error.instance):
        # (Which pattern refused it says nothing to the user: the character does.)
        found = CONTROL.search(error.instance).group()
        return (
            f"{where}: {error.instance!r} holds {CONTROL_NAMES.get(found, 'a control character')}, which no "
            "setting here may hold: remove it (in a path, rename the folder or file so that it holds none)"
        )
    # The description of the setting refused and of no other: each step into a setting (a key, a
    # name of a mapping of names, its entry) starts afresh; its items and alternative forms do not.
    described, node, key, previous = None, schema, None, None
    for part in error.absolute_schema_path:
        node = node[part] if isinstance(node, (dict, list)) else None
        if previous == "properties":
            key, described = part, None
        elif part == "propertyNames":
            key, described = f"a name under {key}", None
        elif part == "additionalProperties":
            key, described = f"an entry of {key}", None
        if isinstance(node, dict) and "description" in node:
            described = node["description"]
        previous = part
    message += hint
    joined = " " if message.endswith(", or") else "; "
    if described is None:
        return f"{where}: {message}{joined}give what its comment in config.yaml describes"
    return f"{where}: {message}{joined}give what {key} takes: {described}"


# Signs typed or pasted for an ASCII minus: the minus sign, dashes, a hyphen (NFKC keeps them).
MINUSES = dict.fromkeys(map(ord, "\u2212\u2010\u2011\u2012\u2013\u2014\ufe63\uff0d"), "-")


def look_alikes_replaced(value):
    """A text with characters that look like ASCII (full-width digits, a minus sign) replaced by their ASCII,
    where it then reads as a number or a yes or no; else None."""
    if not isinstance(value, str) or value.isascii():
        return None
    plain = unicodedata.normalize("NFKC", value).translate(MINUSES)
    read = _yaml_or_none(plain) if plain.isascii() else None
    return plain if isinstance(read, (int, float, bool)) else None


def _yaml_or_none(text):
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def _fitting_forms(error):
    """The errors of the forms of an anyOf that take the value's type (their refusal is not of its type)."""
    forms = {}
    for sub in error.context:
        forms.setdefault(sub.relative_schema_path[0], []).append(sub)
    fitting = [subs for subs in forms.values() if not any(sub.validator == "type" for sub in subs)]
    return [subs[0] for subs in fitting]


def _items_are(error, kind):
    """Whether the refused setting is a list of items of this type."""
    return error.schema.get("items", {}).get("type") == kind


def without_pattern(message):
    """A validator's message with the regular expression that refused a value left out: the setting's description,
    which follows, says what it takes."""
    return re.sub(r" does not match '[^']*'$", " is not of a form it takes", message)


def _takes_a_list(error):
    """Whether a form of the anyOf that refused the value is a list."""
    return any(form.get("type") == "array" for form in error.validator_value)


def _known(schema, keys):
    """Whether keys (a path of names) is a setting of the schema."""
    node = schema
    for key in keys:
        node = node.get("properties", {}).get(key) if isinstance(node, dict) else None
        if node is None:
            return False
    return True


def setting_places(schema, key, path=()):
    """Where in the schema's sections key is a setting, as dotted paths (entries of a mapping of names
    are not walked: their keys are the user's)."""
    places = []
    for name, node in schema.get("properties", {}).items():
        if name == key:
            places.append(".".join((*path, name)) if path else f"{name} (the top level)")
        if isinstance(node, dict):
            places += setting_places(node, key, (*path, name))
    return places


def check_prune(prune, orders, where=""):
    """lmplz's own rules for --prune, checked before anything runs; where: the config file's line of it."""
    if any(later < earlier for earlier, later in zip(prune, prune[1:])):
        raise LmgapError(
            f"config: lmplz.prune{where}: {prune} must not decrease (lmplz refuses thresholds that would remove an "
            "n-gram while keeping a longer one); give each order's threshold at least the one before"
        )
    if len(prune) > min(orders):
        raise LmgapError(
            f"config: lmplz.prune{where}: {len(prune)} thresholds, but the order-{min(orders)} model has only "
            f"{min(orders)} orders; give at most {min(orders)} (lmplz repeats the last one for higher orders)"
        )


def check_prune_twins(prune, orders, where=""):
    """Refuse two listed prune settings that train the same models: lmplz repeats the last threshold for the
    orders after it, and thresholds of 0 prune nothing ([0, 1] and [0, 1, 1] with orders [3]; [] and [0])."""
    listed = prune if prune and all(isinstance(setting, list) for setting in prune) else [prune]
    seen = {}
    for setting in listed:
        padded = [*setting, *[setting[-1] if setting else 0] * (max(orders) - len(setting))]
        key = tuple(padded) if any(padded) else ()
        if key in seen:
            raise LmgapError(
                f"config: lmplz.prune{where}: {setting} prunes as {seen[key]} does, at every order here (lmplz "
                "repeats the last threshold for the orders after it, and 0 prunes nothing): drop one of them"
            )
        seen[key] = setting


def refuse_setting_as_target(setting, value):
    """Refuse `snakemake orders=[4]` (a setting where a target goes, as make takes it), naming the command
    that gives it."""
    raise LmgapError(
        f"{setting}={value} is a setting, given where Snakemake takes a file to make: on the same command, put "
        f"{config_option(setting, value)} at its end in its stead"
    )


# The settings an experiment is expected to give: where the config as given lacks one (its line deleted?),
# the schema's default is taken, and the run says so (the corpus's a fetch over the network).
EXPECTED = {"orders": "is trained", "corpus.source": "is fetched"}


def check_corpus_given(given):
    """Refuse a corpus: block left empty (its source: line deleted, say), where the default it would take is a
    fetch of the whole challenge's repository and every model trained again on it. A config without corpus: at
    all takes that default, said as it starts (defaults_taken)."""
    if "corpus" in given and not given["corpus"]:
        # (Its setting's indent lost: at the top level, below it.)
        strayed = [key for key in given if f"corpus.{key}" in read_defaults()]
        if strayed:
            raise LmgapError(
                f"{strayed[0]}: is at the top level, where corpus: above it holds no setting: indent it two spaces, "
                f"under corpus:, as corpus.{strayed[0]}"
            )
        raise LmgapError(
            "corpus: holds no setting (its source: line deleted?): put source: under it, two spaces in (the "
            "corpus's folder, or the challenge's git URL), or delete the corpus: line to fetch the challenge's "
            "repository"
        )


def defaults_taken(given, checked):
    """A warning per expected setting the config as given lacks, with the default the checked config took."""
    for dotted, done in EXPECTED.items():
        key = tuple(dotted.split("."))
        try:
            value_at(given, key)
        except (KeyError, TypeError):
            # (Its section gone too, or left empty: YAML's null.)
            yield f"the config sets no {dotted} (its line deleted?): the default, {value_at(checked, key)}, {done}"
