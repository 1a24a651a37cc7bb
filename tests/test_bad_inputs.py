"""Bad inputs by class, not by case: every config key with a wrong type, a value out of range and a
duplicate, each class tried on every key it applies to; every corpus file missing, empty,
truncated, not UTF-8, with CRLF line ends, a byte-order mark, a column too many or too few or a
blank line; every malformation of an out.tsv token and line for `lmgap score`. Each case is
generated from the schema or the file's layout, run through the code a job runs, and must end in
a message that names the key or the file and line, and a fix, with no output half-written; or,
where the input is accepted, in a result equal to the well-formed input's."""

import lzma
import re
import shutil
from types import SimpleNamespace

import pytest
import yaml

from conftest import REPO, demo_corpus, run_pipeline
from lmgap import cli
from lmgap.configcheck import validate_config
from lmgap.corpus.fetch import fetch_corpus, required_files, write_fingerprint
from lmgap.corpus.rebuild import rebuild_split, write_years
from lmgap.errors import LmgapError
from lmgap.gap.geval import score_lines
from lmgap.gap.heldout import write_heldout

SCHEMA_PATH = REPO / "workflow/schemas/config.schema.yaml"
SCHEMA = yaml.safe_load(SCHEMA_PATH.read_text())
# A message's fix: what to do, in the imperative, after the reason.
FIX = re.compile(r"[;:] .*\b(give|list|remove|name|drop|use|set|write|save|fix|delete|free|run|install|fetch|point)\b")
# The names a neural model's settings are generated under: a causal model's, and a cloze model's
# train: settings (the schema gives train: the settings of the entry's kind).
NEURAL, CLOZE = "small", "gapper"
ENTRIES = {CLOZE: {"kind": "cloze"}}


def settings(schema=SCHEMA, path=()):
    """(key path, schema) of every setting: each key whose value is not a mapping of keys, a
    neural model's entries under the name NEURAL and a cloze model's training under CLOZE."""
    for key, sub in schema.get("properties", {}).items():
        if "properties" in sub:
            yield from settings(sub, (*path, key))
        elif key == "neural":
            entry = sub["additionalProperties"]
            yield from settings(
                {"properties": {**entry["properties"], **entry["else"]["properties"]}}, (*path, key, NEURAL)
            )
            yield from settings(entry["then"], (*path, key, CLOZE))
        else:
            yield (*path, key), sub


def kinds(schema):
    kind = schema.get("type", [])
    return [kind] if isinstance(kind, str) else kind


def wrong_type(schema):
    """A value of a type the setting does not take."""
    if "boolean" in kinds(schema) or "integer" in kinds(schema) or "number" in kinds(schema):
        return "many"
    if "array" in kinds(schema):
        return "many"
    return 12


def bad_values(schema):
    """(what, value) the setting must refuse: a wrong type, each bound crossed, a duplicate."""
    cases = [("wrong type", wrong_type(schema))]
    items = schema.get("items", {})
    for bounds in (schema, items):
        wrap = (lambda value: [value]) if bounds is items else (lambda value: value)
        if "minimum" in bounds:
            cases.append(("below its minimum", wrap(bounds["minimum"] - (1 if "integer" in kinds(bounds) else 0.5))))
        if "exclusiveMinimum" in bounds:
            cases.append(("at its exclusive minimum", wrap(bounds["exclusiveMinimum"])))
        if "maximum" in bounds:
            cases.append(("above its maximum", wrap(bounds["maximum"] + 1)))
        if "enum" in bounds:
            cases.append(("not one of its values", wrap("nonsense")))
    if "enum" in schema and "array" not in kinds(schema):
        cases.append(("not one of its values", "nonsense"))
    if schema.get("minItems"):
        cases.append(("empty", []))
    if schema.get("minLength"):
        cases.append(("empty", ""))
    if schema.get("uniqueItems"):
        valid = schema["default"][0] if schema.get("default") else "dev-0"
        cases.append(("a duplicate", [valid, valid]))
    return cases


def nested(path, value):
    """The config holding value at path, a cloze model's entry with its kind."""
    tree = value
    for depth in range(len(path) - 1, -1, -1):
        tree = {path[depth]: tree}
        if depth == 2 and path[0] == "neural":
            # A neural model's entry: the keys its generated name stands for.
            tree = {**ENTRIES.get(path[1], {}), **tree}
    return tree


def dotted(path):
    return ".".join(path)


# The classes of bad value the generator walks: each is tried on every setting it applies to.
CLASSES = sorted({what for _, schema in settings() for what, _ in bad_values(schema)})


def test_every_setting_is_generated_and_described():
    assert [dotted(path) for path, schema in settings() if "description" not in schema] == []
    paths = {dotted(path) for path, _ in settings()}
    assert {"orders", "gap.top_k", "lmplz.prune", "corpus.commit", f"neural.{NEURAL}.train.steps"} <= paths
    assert {f"neural.{CLOZE}.train.window", f"neural.{CLOZE}.train.steps"} <= paths
    assert set(CLASSES) >= {"wrong type", "below its minimum", "above its maximum", "not one of its values", "empty"}


@pytest.mark.parametrize("what", CLASSES)
def test_each_class_of_bad_value_is_named_by_its_key_with_what_the_setting_takes(what):
    cases = [(path, schema, value) for path, schema in settings() for kind, value in bad_values(schema) if kind == what]
    assert cases
    for path, schema, value in cases:
        with pytest.raises(LmgapError) as err:
            validate_config(nested(path, value), SCHEMA_PATH)
        said = str(err.value)
        assert said.startswith(f"config: {dotted(path)}"), said
        # What to give: the refused setting's own description, no other's.
        assert said.endswith(f"; give what {path[-1]} takes: {schema['description']}"), said


@pytest.mark.pipeline
@pytest.mark.parametrize("form", ["config.yaml", "--configfile", "--config"])
def test_each_form_of_setting_a_bad_value_stops_a_dry_run_before_any_job(tmp_path, form):
    config = {"orders": [3]}
    args = []
    if form == "config.yaml":
        config["gap"] = {"top_k": 0}
    elif form == "--configfile":
        (tmp_path / "other.yaml").write_text("gap: {top_k: 0}\n")
        args = ["--configfile", str(tmp_path / "other.yaml")]
    else:
        args = ["--config", "gap={'top_k': 0}"]
    done = run_pipeline(tmp_path / "work", config, "--dry-run", *args, check=False)
    said = done.stdout + done.stderr
    assert done.returncode != 0
    # Set in config.yaml or a --configfile, the setting is named with its file and line there.
    where = {"config.yaml": " (config.yaml line 2)", "--configfile": f" ({tmp_path / 'other.yaml'} line 1)"}.get(
        form, ""
    )
    assert f"config: gap.top_k{where}: 0 is less than the minimum of 1; give what top_k takes: words listed" in said
    assert "Traceback" not in said and not (tmp_path / "work/results").exists()


# --- The corpus: every file of a split, each malformation, through the code of the jobs that read it.

CORPUS_FILES = ["train/in.tsv.xz", "train/expected.tsv", "dev-0/in.tsv.xz", "dev-0/expected.tsv", "in-header.tsv"]


def content(path):
    return lzma.decompress(path.read_bytes()) if path.suffix == ".xz" else path.read_bytes()


def store(path, data):
    path.write_bytes(lzma.compress(data) if path.suffix == ".xz" else data)


def at_second_line(change):
    """A malformation of one line: the second, or the only one (in-header.tsv's)."""

    def apply(path):
        lines = content(path).split(b"\n")
        at = 1 if len(lines) > 2 else 0
        store(path, b"\n".join([*lines[:at], *change(lines[at]), *lines[at + 1 :]]))

    return apply


MALFORMED = {
    "missing": lambda path: path.unlink(),
    "empty": lambda path: path.write_bytes(b""),
    "truncated": lambda path: path.write_bytes(path.read_bytes()[: path.stat().st_size // 2]),
    "not UTF-8": at_second_line(lambda line: [line + b"\xff\xfe"]),
    "CRLF": lambda path: store(path, content(path).replace(b"\n", b"\r\n")),
    "byte-order mark": lambda path: store(path, b"\xef\xbb\xbf" + content(path)),
    "a column too many": at_second_line(lambda line: [line + b"\textra"]),
    "a column too few": at_second_line(lambda line: [line.rsplit(b"\t", 1)[0] if b"\t" in line else b""]),
    "a blank line": at_second_line(lambda line: [b"", line]),
}
# What becomes of each: refused (a message naming the file, its line where one line is wrong, and
# a fix), accepted with the same results, or accepted with its known difference: a warning, the
# bytes kept as they are (the text takes what is not UTF-8 as bytes, KenLM's way, and only the
# scored split's gap words must be UTF-8, for GEval), or the years unknown (no header names them).
REFUSED, SAME, WARNED, BYTES, NO_YEARS = "refused", "same", "warned", "bytes kept", "years unknown"
OUTCOME = {
    **{(name, how): REFUSED for name in CORPUS_FILES for how in ("missing", "empty", "truncated")},
    **{(name, how): SAME for name in CORPUS_FILES for how in ("CRLF", "byte-order mark")},
    **{(name, how): REFUSED for name in CORPUS_FILES[:4] for how in ("a column too many", "a blank line")},
    ("train/in.tsv.xz", "a column too few"): REFUSED,
    ("dev-0/in.tsv.xz", "a column too few"): REFUSED,
    # An expected.tsv line without its one column is an empty gap word.
    ("train/expected.tsv", "a column too few"): WARNED,
    ("dev-0/expected.tsv", "a column too few"): WARNED,
    ("train/expected.tsv", "byte-order mark"): WARNED,
    ("dev-0/expected.tsv", "byte-order mark"): WARNED,
    ("train/in.tsv.xz", "not UTF-8"): BYTES,
    ("dev-0/in.tsv.xz", "not UTF-8"): BYTES,
    ("train/expected.tsv", "not UTF-8"): BYTES,
    ("dev-0/expected.tsv", "not UTF-8"): REFUSED,
    # in-header.tsv: missing, there is no year column; a column more or less than in.tsv has, or
    # none (empty, truncated), and every in.tsv line disagrees with it; as bytes, it is read by tab.
    ("in-header.tsv", "missing"): NO_YEARS,
    ("in-header.tsv", "not UTF-8"): SAME,
    ("in-header.tsv", "a column too many"): REFUSED,
    ("in-header.tsv", "a column too few"): REFUSED,
    ("in-header.tsv", "a blank line"): REFUSED,
}
# The outputs of the jobs that read the corpus, under a run's working folder.
READ_BY_JOBS = [
    "fetched.json",
    "train.json",
    "dev-0.json",
    "train.txt",
    "dev-0.txt",
    "train.years.tsv",
    "dev-0.years.tsv",
    "heldout.tsv",
    "gap_words.tsv",
]


def read_by_the_jobs(root, work):
    """What fetch_corpus, split_fingerprint, rebuild_text, document_years and gap_heldout do with a
    corpus (their own functions, in the order the run takes them); the fetch's warnings."""
    with open(work / "fetch.log", "w") as log:
        required = required_files("train", ["dev-0"], False)
        params = SimpleNamespace(source=str(root), commit=None, clone_dir=str(work / "clone"), required=required)
        fetch_corpus(params, work / "fetched.json", log)
    for split in ("train", "dev-0"):
        write_fingerprint(work / "fetched.json", split, work / f"{split}.json", scored_for_gaps=split == "dev-0")
        rebuild_split(root / split, work / f"{split}.txt")
        write_years(root / split, work / f"{split}.years.tsv")
    write_heldout(root / "train", 20, work / "heldout.tsv", work / "gap_words.tsv")
    return yaml.safe_load((work / "fetched.json").read_text())["warnings"]


@pytest.fixture(scope="module")
def well_formed(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    demo_corpus(root / "corpus", seed=3, train_sentences=300, dev_sentences=30)
    (root / "work").mkdir()
    read_by_the_jobs(root / "corpus", root / "work")
    return root


def test_every_pair_of_file_and_malformation_has_its_outcome():
    assert set(OUTCOME) == {(name, how) for name in CORPUS_FILES for how in MALFORMED}


@pytest.mark.parametrize("how", MALFORMED)
@pytest.mark.parametrize("name", CORPUS_FILES)
def test_a_malformed_corpus_file_is_refused_with_its_name_and_a_fix_or_read_as_documented(
    well_formed, tmp_path, name, how
):
    root, work = tmp_path / "corpus", tmp_path / "work"
    shutil.copytree(well_formed / "corpus", root)
    work.mkdir()
    MALFORMED[how](root / name)
    outcome = OUTCOME[(name, how)]
    if outcome == REFUSED:
        with pytest.raises(LmgapError) as err:
            read_by_the_jobs(root, work)
        said = str(err.value)
        # The file by its name (the header's fault shows in the in.tsv lines it describes).
        named = "in.tsv.xz" if name == "in-header.tsv" else name
        assert named in said and FIX.search(said), said
        if how in ("not UTF-8", "a column too many", "a column too few", "a blank line"):
            assert re.search(r"line [12]\b", said), said
        if how == "a blank line" and name != "in-header.tsv":
            # The blank line named with its own file, not beside the other file's count.
            assert re.search(rf"{re.escape(named)} line [12] is blank", said), said
        if how in ("a column too many", "a column too few", "a blank line"):
            # A line the jobs cannot read is refused by the fetch, before any of them starts.
            assert not (work / "fetched.json").exists(), said
        # Nothing half-written: no temporary file left, and what was written is whole.
        assert not [path for path in work.rglob("*") if ".tmp-" in path.name]
        return
    warnings = read_by_the_jobs(root, work)
    made = {file: (work / file).read_bytes() for file in READ_BY_JOBS}
    clean = {file: (well_formed / "work" / file).read_bytes() for file in READ_BY_JOBS}
    texts = ["train.txt", "dev-0.txt", "heldout.tsv", "gap_words.tsv"]
    if outcome == SAME:
        assert {file: made[file] for file in texts + ["train.years.tsv", "dev-0.years.tsv"]} == {
            file: clean[file] for file in texts + ["train.years.tsv", "dev-0.years.tsv"]
        }
    elif outcome == WARNED:
        assert any(warning.startswith(f"{root}/{name} ") for warning in warnings), warnings
    elif outcome == BYTES:
        split = name.split("/")[0]
        assert b"\xff\xfe" in made[f"{split}.txt"] and made[f"{split}.txt"] != clean[f"{split}.txt"]
    else:
        assert {file: made[file] for file in texts} == {file: clean[file] for file in texts}
        # No column is named Year: the years table holds its header alone.
        assert made["train.years.tsv"] == made["dev-0.years.tsv"] == b"year\n" != clean["dev-0.years.tsv"]


def test_a_blank_line_in_both_files_at_one_place_is_refused_by_the_fetch(well_formed, tmp_path):
    # The line counts agree, so only the blank in.tsv line itself tells.
    root, work = tmp_path / "corpus", tmp_path / "work"
    shutil.copytree(well_formed / "corpus", root)
    work.mkdir()
    for name in ("dev-0/in.tsv.xz", "dev-0/expected.tsv"):
        at_second_line(lambda line: [b"", line])(root / name)
    with pytest.raises(
        LmgapError, match=r"^dev-0/in.tsv.xz line 2 is blank: .*remove that line, and its line of expected"
    ):
        read_by_the_jobs(root, work)
    assert not (work / "fetched.json").exists()


# --- `lmgap score`: each malformation of a token (the second of line 2) and of a line (line 2).

TOKENS = {
    "no colon": "b0.4",
    "no number": "b:",
    "a word and no number": "b: ",
    "not a number": "b:x",
    "a number with text after it": "b:0.4x",
    "a number without its leading digit": "b:.4",
    "a number ending in its point": "b:4.",
    "an exponent without digits": "b:4e",
    "not a number, spelled": "b:nan",
    "an empty token (two spaces)": " b:0.4",
}
LINES = {
    "empty": "",
    "a space alone": " ",
    "a space before": " a:0.5 b:0.4",
    "a space after": "a:0.5 b:0.4 ",
    "numbers without words, not 1024 of them": "0.5 0.4",
}


def score(tmp_path, lines, capsys):
    out, expected = tmp_path / "out.tsv", tmp_path / "expected.tsv"
    out.write_bytes(lines)
    expected.write_text("a\nb\nc\n")
    code = cli.main(["score", str(out), str(expected)])
    said = capsys.readouterr()
    return code, said.out, said.err, out


@pytest.mark.parametrize("token", TOKENS.values(), ids=TOKENS)
def test_a_malformed_token_is_named_by_file_line_and_position_with_the_fix(tmp_path, capsys, token):
    code, printed, said, out = score(tmp_path, f"a:1\na:0.5 {token} :0.1\nc:1\n".encode(), capsys)
    assert code == 2 and printed == ""
    assert said.startswith(f"lmgap score: {out} line 2, token ") and FIX.search(said), said


@pytest.mark.parametrize("line", LINES.values(), ids=LINES)
def test_a_malformed_line_is_named_by_file_and_line_with_the_fix(tmp_path, capsys, line):
    code, printed, said, out = score(tmp_path, f"a:1\n{line}\nc:1\n".encode(), capsys)
    assert code == 2 and printed == ""
    assert said.startswith(f"lmgap score: {out} line 2") and FIX.search(said), said


@pytest.mark.parametrize(
    "lines, says",
    [
        (b"a:1\nb:1\n", "has 2 lines but"),
        (b"a:1\nb:1\nc:1\nd:1\n", "has 4 lines but"),
        (b"", "is empty"),
        (b"a:1\n\xffb:1\nc:1\n", "line 2 is not valid UTF-8"),
    ],
    ids=["too few lines", "too many lines", "empty", "not UTF-8"],
)
def test_a_malformed_file_is_named_with_the_fix(tmp_path, capsys, lines, says):
    code, printed, said, out = score(tmp_path, lines, capsys)
    assert code == 2 and printed == "" and str(out) in said and says in said and FIX.search(said), said


@pytest.mark.parametrize(
    "lines, warns",
    [
        (b"a:1\na:0.5 b:0.2\tc:0.2 :0.1\nc:1\n", "has tokens holding a tab, line 2"),
        (b"\xef\xbb\xbfa:1\nb:1\nc:1\n", "begins with a byte-order mark"),
    ],
    ids=["a tab inside a token", "a byte-order mark"],
)
def test_what_geval_accepts_but_was_not_meant_is_scored_as_geval_does_and_warned_about(tmp_path, capsys, lines, warns):
    code, printed, said, out = score(tmp_path, lines, capsys)
    assert code == 0 and f"lmgap score: warning: {out} {warns}" in said
    # The same figures as the line read at spaces alone, each such token one word.
    metrics, _ = score_lines(lines.decode().removesuffix("\n").split("\n"), ["a", "b", "c"])
    assert dict(line.split("\t") for line in printed.splitlines()) == {k: repr(v) for k, v in metrics.items()}


def test_crlf_line_ends_score_as_the_same_lines(tmp_path, capsys):
    code, printed, _, _ = score(tmp_path, b"a:1\r\nb:0.5 :0.5\r\nc:1\r\n", capsys)
    assert code == 0 and printed == score(tmp_path, b"a:1\nb:0.5 :0.5\nc:1\n", capsys)[1]
