"""config.yaml as hands edit it: a mistake named at the line where it was made, which is not always
where YAML's parser gives up (a bracket left open is found lines later, a line indented one space
too far at the next line's), and the line of every setting, for the schema's refusals."""

import json
import re
import shlex
import shutil
import subprocess
import unicodedata
from collections import Counter
from pathlib import Path

import yaml

from .atomic import atomic_path
from .errors import LmgapError
from .schema import read_defaults, without_defaults


# The repository's own config.yaml, whose comments describe each setting.
SHIPPED = Path(__file__).resolve().parents[2] / "config.yaml"
# The copy of the config file each run keeps (keep_copy), relative to the run's folder.
LAST_READ = Path("results/.config.yaml")


def tracked(path):
    """Whether git tracks the file (deleted or not)."""
    path = Path(path).resolve()
    command = ["git", "-C", str(path.parent), "ls-files", "--error-unmatch", "--", path.name]
    return subprocess.run(command, capture_output=True).returncode == 0


def restore(path):
    """The fix for a config file with no setting left, by a command that works wherever it is pasted (a
    --directory run reads the config of another folder than the one Snakemake was started in): its committed
    copy where git tracks it, else a copy of the repository's."""
    path = Path(path).resolve()
    folder, name = shlex.quote(str(path.parent)), shlex.quote(path.name)
    if tracked(path):
        return f"restore it with git -C {folder} checkout -- {name} (whose comments describe each setting)"
    if SHIPPED.is_file() and SHIPPED != path:
        shipped = shlex.quote(str(SHIPPED))
        return f"restore it from the repository's, whose comments describe each setting: cp {shipped} {folder}/{name}"
    return "restore it from a copy of lmgap's repository, whose config.yaml's comments describe each setting"


def missing(path):
    """The refusal of a run folder without its config file: deleted, or the run pointed (--directory) at
    another folder than the user's run folder, which Snakemake made for it when it did not exist."""
    folder = Path(path).resolve().parent
    if not tracked(path) and {entry.name for entry in folder.iterdir()} <= {".snakemake"}:
        return (
            f"{folder} holds no {Path(path).name}, nor anything but what Snakemake made for this run: a "
            "--directory (or the folder the run started in) that names no run folder? Run it in the folder "
            "that holds your config"
        )
    return f"{folder} holds no {Path(path).name} (deleted?): {restore_own(path)}, or run in the folder that holds yours"


def restore_own(path):
    """The fix for a config file lost or emptied: the copy its folder's last run read, the user's own (the
    repository's is another experiment, and git's may be), else restore's."""
    path = Path(path).resolve()
    kept = path.parent / LAST_READ
    copy = f"cp {shlex.quote(str(kept))} {shlex.quote(str(path))}"
    if holds_settings(kept):
        return f"restore the one its last run read: {copy}"
    if kept.is_file() and kept.stat().st_size:
        # The user's own settings may be in it still: said, before the repository's (another experiment).
        return (
            f"the copy kept by the last run, {kept}, is damaged too ({unreadable(kept)}): mend it and copy it "
            f"back with {copy}, or {restore(path)}"
        )
    recorded = from_provenance(path)
    return f"{recorded}, or {restore(path)}" if recorded else restore(path)


# The record of the settings a run's results were made with (rule provenance), relative to the run's folder.
PROVENANCE = Path("results/provenance.json")


def from_provenance(path):
    """The fix that writes a lost config file from the settings its folder's results were made with, where their
    provenance record holds them: its experiment (every setting but the machine's own; those at their defaults
    left out), and kenlm.bin_dir where the tools were the user's (not built in the folder's resources/), as one
    line of JSON, which YAML reads."""
    record = path.parent / PROVENANCE
    try:
        provenance = json.loads(record.read_text())
        settings, bin_dir = dict(provenance["experiment"]), provenance.get("kenlm", {}).get("bin_dir")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    # (A default spelt out would read as set: warnings of settings the data caps name only those a config sets.)
    settings = without_defaults(settings, read_defaults())
    if bin_dir and not Path(bin_dir).resolve().is_relative_to(path.parent / "resources"):
        settings["kenlm"] = {"bin_dir": bin_dir}
    text = json.dumps(settings)
    return (
        f"write the settings its results were made with, which {record} records, as one line YAML reads (without "
        f"the comments, and the paths of this machine but kenlm.bin_dir): printf '%s\\n' {shlex.quote(text)} > "
        f"{shlex.quote(str(path))}"
    )


def unreadable(path):
    """Why a kept copy of a config file does not read as settings: the line of its mistake, as a config
    file's own is named, where it has one."""
    if read_yaml(path) is not UNREADABLE:
        return "it reads as YAML, but holds no settings"
    try:
        check_config_file(path)
    except LmgapError as err:
        said = str(err)
        if said.startswith(f"{path} line "):
            return said[len(f"{path} ") :]
    return "YAML cannot read it"


# What read_yaml gives for a file that does not read as YAML (None is YAML's own empty document).
UNREADABLE = object()


def read_yaml(path):
    """A file's content as YAML, or UNREADABLE where it cannot be read as YAML."""
    try:
        return yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return UNREADABLE


def holds_settings(path):
    """Whether a file reads as a config of settings (a copy to restore one from: not itself emptied or broken)."""
    return isinstance(read_yaml(path), dict)


def keep_copy(path):
    """Keep a copy of the config file a run reads (path) beside its results, for its fix when it is lost."""
    if Path(path).is_file():
        with atomic_path(LAST_READ) as tmp:
            shutil.copyfile(path, tmp)


def content_lines(text):
    """(line number from 1, its text) of the lines that hold more than a comment or blanks."""
    return [(number, line) for number, line in enumerate(text.split("\n"), start=1) if line.split("#")[0].strip()]


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def indentation_mistake(path, lines):
    """The first line whose indentation no block explains: a tab, an odd step, deeper than a line that
    opens no block, or back to no level above it (its message), or None."""
    for number, line in lines:
        if line[: len(line) - len(line.lstrip(" \t"))].count("\t"):
            return f"{path} line {number} is indented with a tab, which YAML refuses: indent it with spaces"
    indents = [_indent(line) for _, line in lines if _indent(line)]
    counted = Counter(indents)
    # The file's step: the smallest indentation more than one line has (a line off by one has its own).
    step = min((indent for indent, count in counted.items() if count > 1), default=min(indents, default=2))
    for number, line in lines:
        if _indent(line) % step:
            return (
                f"{path} line {number} is indented {_indent(line)} space{'s' * (_indent(line) > 1)}, where this "
                f"file indents by {step}: "
                "indent it as the other lines of its block"
            )
    # Each open block's indentation, with the line that opened it.
    levels, opens = [(0, None)], False
    for number, line in lines:
        indent = _indent(line)
        if indent > levels[-1][0]:
            if not opens:
                return (
                    f"{path} line {number} is indented deeper than the line above it, which opens no block "
                    "(a line `name:` is missing above it, or it is indented too far): indent it as its block"
                )
            levels.append((indent, number))
        left = None
        while indent < levels[-1][0]:
            left = levels.pop()
        if indent != levels[-1][0]:
            if left and left[0] - levels[-1][0] > step:
                # The block's first line, more than a step in, set a level its next line does not keep.
                return (
                    f"{path} line {left[1]} is indented {left[0]} spaces, more than this file's step of {step} "
                    f"beyond its block's name, and line {number} {indent}: indent the lines of that block alike, "
                    f"by {step}"
                )
            return f"{path} line {number} is indented to no level of the lines above it: indent it as its block"
        body = line.split(" #")[0].rstrip()
        opens = body.endswith(":") and not body.lstrip().startswith("-")
    return None


def _odd_space(character):
    """Whether a character is a space YAML does not read as one (a no-break space, as pasted from a web page)."""
    return (
        bool(character)
        and character != " "
        and (unicodedata.category(character) == "Zs" or character in "\u200b\ufeff")
    )


def unicode_space(path, lines):
    """The first line with a space YAML does not read as one where its syntax needs a space: in its
    indentation (the setting becomes a name of its own at the top level) or after a name's colon (the setting
    becomes text), or None."""
    for number, line in lines:
        if number == 1:
            # (A byte-order mark opening the file is YAML's to skip.)
            line = line.removeprefix("\ufeff")
        first = line.lstrip(" \t")[:1]
        after_colon = re.search(r":(.)", _unquoted(line))
        for found, where in (
            (first, "in its indentation"),
            (after_colon and after_colon.group(1), "after a name's colon"),
        ):
            if _odd_space(found):
                name = unicodedata.name(found, "a space").lower()
                return (
                    f"{path} line {number} holds U+{ord(found):04X} ({name}) {where}, which YAML does "
                    "not read as a space: retype it as a plain space"
                )
    return None


def _unquoted(line):
    """A line without its closed quotes (a # inside one starts no comment) and then without its comment."""
    return re.sub(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"", "", line).split(" #")[0]


def unclosed(path, lines):
    """The first line that leaves a bracket or a quote open (config.yaml writes each list on one line)."""
    for number, line in lines:
        body = _unquoted(line)
        # A quote opens a value only where the value starts: an apostrophe inside a word is text.
        opened = re.search(r"(?:^\s*-\s*|[:\[{,]\s*)(['\"])", body)
        if opened:
            return f"{path} line {number} leaves a {opened.group(1)} open: close it on that line"
        for opening, closing in ("[]", "{}"):
            if body.count(opening) > body.count(closing):
                return f"{path} line {number} leaves a `{opening}` open: close it with `{closing}` on that line"
            if body.count(closing) > body.count(opening):
                return f"{path} line {number} has a `{closing}` that closes no `{opening}`: remove it"
    return None


def two_settings_on_a_line(path, lines):
    """The first line that puts a setting and one under it on one line (`gap: enabled: false`): before the
    indentation is judged, which the next line's, read under it, would be blamed for."""
    for number, line in lines:
        body = _unquoted(line).rstrip()
        nested = re.match(r"(\s*)([\w.-]+):\s+([\w.-]+):(?:\s+(.*))?$", body)
        if nested:
            indent, outer, inner, value = nested.groups()
            return (
                f"{path} line {number} puts two settings on one line: write `{outer}:` on a line of its own and "
                f"`{inner}: {value or '...'}` on the next, indented by {len(indent) + 2} spaces"
            )
    return None


def stray_tab(path, lines, number):
    """Line `number`, where YAML gave up, holding a tab after its indentation (YAML's words: a character that
    cannot start any token)."""
    line = dict(lines).get(number, "")
    body = _unquoted(line)
    if "\t" in body.lstrip(" "):
        return f"{path} line {number} holds a tab, which YAML takes only inside quotes: replace it with a space"
    return None


def setting_lines(node, path=()):
    """{key path: line from 1} of every setting of a composed YAML mapping; an LmgapError for a key
    given twice in one mapping."""
    found = {}
    if not isinstance(node, yaml.MappingNode):
        return found
    seen = {}
    for key, child in node.value:
        name, line = key.value, key.start_mark.line + 1
        if not isinstance(key, yaml.ScalarNode):
            raise NotAName(line)
        if key.tag == "tag:yaml.org,2002:merge":
            # `<<: *defaults`: the settings merged in are the anchor's, at its lines.
            continue
        if name in seen:
            raise DuplicateKey(path + (name,), seen[name], line)
        seen[name] = line
        found[path + (name,)] = line
        found.update(setting_lines(child, path + (name,)))
    return found


def second_document(path, text, number):
    """Line `number`, a `---` that starts a second YAML document (settings pasted from another config): the
    message, naming the settings both documents set (which deleting the line alone would give twice)."""
    rest = text.split("\n")
    del rest[number - 1]
    twice = ""
    try:
        setting_lines(yaml.compose("\n".join(rest), Loader=yaml.SafeLoader))
    except DuplicateKey as err:
        # (Lines of the text without line `number`, as the file numbers them.)
        first, second = (line + (line >= number) for line in (err.first, err.second))
        twice = f", and keep one of the two lines that set {'.'.join(err.path)} (lines {first} and {second})"
    except yaml.YAMLError:
        pass
    return f"{path} line {number} starts a second YAML document (`---`), where a config is one: delete that line{twice}"


def leading_zero(path, node):
    """The message for the first number written with a leading 0 that YAML reads as octal (`seed: 010` is 8),
    or None."""
    if isinstance(node, yaml.MappingNode):
        children = [child for pair in node.value for child in pair]
    elif isinstance(node, yaml.SequenceNode):
        children = node.value
    else:
        children = []
    octal = node.tag == "tag:yaml.org,2002:int" and re.fullmatch(r"[-+]?0[0-7_]+", node.value)
    if isinstance(node, yaml.ScalarNode) and node.style is None and octal:
        read, decimal = yaml.safe_load(node.value), int(node.value.replace("_", ""), 10)
        # (`03` is 3 either way.)
        if read != decimal:
            return (
                f"{path} line {node.start_mark.line + 1}: {node.value} is read by YAML as an octal number ({read}): "
                f"write {decimal}, without the leading 0"
            )
    for child in children:
        found = leading_zero(path, child)
        if found:
            return found
    return None


class NotAName(Exception):
    """A key that is a list or a mapping, at its line."""

    def __init__(self, line):
        super().__init__(line)
        self.line = line


class DuplicateKey(Exception):
    def __init__(self, path, first, second):
        super().__init__(path)
        self.path, self.first, self.second = path, first, second


def missing_colon(path, lines, last):
    """The setting line, up to line `last` (where YAML gave up, or the one before when it gave up at a line's
    start), whose name lacks its `:` or the space after it (`orders [3]`, `orders:[3]`): YAML reads it as a
    word running on into the next lines, and gives up there. None when the nearest setting line is
    well-formed."""
    for number, line in reversed([entry for entry in lines if entry[0] <= last]):
        text = line.split("#")[0].strip()
        name = re.match(r"([A-Za-z_][\w.-]*)(:?)(\S?)", text)
        if text.startswith("-") or not name:
            continue
        if not name.group(2):
            return f"{path} line {number}: `{text}` has no `:` after its name; write `{name.group(1)}: ...`"
        if name.group(3):
            return f"{path} line {number}: `{text}` has no space after `{name.group(1)}:`; write `{name.group(1)}: ...`"
        return None
    return None


def after_closed(path, text, mark):
    """Text after a value's closing `]` or `}` on its line (`orders: [2, 3],`), where YAML gave up (mark);
    None where the line's text before it is no closed list or mapping."""
    line = text.splitlines()[mark.line] if mark.line < len(text.splitlines()) else ""
    before, rest = line[: mark.column].rstrip(), line[mark.column :].split("#")[0].strip()
    if not before.endswith(("]", "}")) or not rest:
        return None
    return (
        f"{path} line {mark.line + 1} has `{rest}` after its value's closing `{before[-1]}`: remove it (settings "
        "go one per line, with nothing between them)"
    )


def check_config_file(path):
    """{key path: (line, value)} of a config file's settings; an LmgapError naming the line of a syntax mistake,
    a key given twice, a file of no setting at all, or none at all."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise LmgapError(missing(path)) from None
    except UnicodeDecodeError as err:
        if err.object.startswith((b"\xff\xfe", b"\xfe\xff")):
            # As Windows editors save "Unicode" text: its first bytes, a byte-order mark, say so.
            raise LmgapError(f"{path} is UTF-16 text (its byte-order mark says so): save it as UTF-8") from None
        line = err.object[: err.start].count(b"\n") + 1
        raise LmgapError(
            f"{path} line {line} holds the byte {err.object[err.start]:#x}, which is not UTF-8: retype that "
            "character, or save the file as UTF-8"
        ) from None
    lines = content_lines(text)
    if not lines:
        if text.strip():
            # Commented out, every setting is there still: uncommenting keeps the user's own.
            raise LmgapError(
                f"{path} holds no setting (every line is a comment): uncomment the settings you mean, or "
                f"{restore_own(path)}"
            )
        raise LmgapError(f"{path} holds no setting (it is empty): {restore_own(path)}")
    found = unicode_space(path, lines)
    if found:
        raise LmgapError(found)
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        found = two_settings_on_a_line(path, lines) or indentation_mistake(path, lines) or unclosed(path, lines)
        if not found and mark and "could not find expected ':'" in str(err.problem):
            found = missing_colon(path, lines, mark.line + 1 if mark.column else mark.line)
        if not found and mark and "another document" in str(err.problem):
            found = second_document(path, text, mark.line + 1)
        if not found and mark:
            found = stray_tab(path, lines, mark.line + 1) or after_closed(path, text, mark)
        if found:
            raise LmgapError(found) from None
        where = f"{path} line {mark.line + 1}, column {mark.column + 1}" if mark else str(path)
        raise LmgapError(f"{where}: {err.problem or err.context}; fix the YAML syntax there") from None
    except yaml.reader.ReaderError as err:
        # A character YAML does not read (a control character), at its position in the text.
        line = text[: err.position].count("\n") + 1
        code = err.character if isinstance(err.character, int) else ord(err.character)
        raise LmgapError(
            f"{path} line {line} holds the character U+{code:04X}, which YAML does not allow: delete it"
        ) from None
    if not isinstance(node, yaml.MappingNode):
        raise LmgapError(f"{path} line {lines[0][0]} is not a setting `name: value`: {restore(path)}")
    found = leading_zero(path, node)
    if found:
        raise LmgapError(found)
    try:
        found = setting_lines(node)
    except NotAName as err:
        raise LmgapError(
            f"{path} line {err.line}: a setting's name is a list or a mapping, not a word: write `name: value`"
        ) from None
    except DuplicateKey as err:
        name = ".".join(err.path)
        raise LmgapError(
            f"{path} line {err.second} sets {name} again (line {err.first} sets it too; YAML would keep the "
            "last): keep one of them"
        ) from None
    try:
        settings = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, TypeError) as err:
        # Well-formed, yet no value: an explicit tag on a value it cannot hold (`!!int abc`). The first
        # line with a tag is named (else the first setting's).
        line = next((number for number, body in lines if "!!" in body), lines[0][0])
        raise LmgapError(f"{path} line {line}: {err}; write the value plainly, without a `!!` tag") from None
    return {key: (line, value_at(settings, key)) for key, line in found.items()}


def value_at(settings, key):
    for part in key:
        settings = settings[part]
    return settings
