"""config.yaml as hands edit it, walked by mutation: a line deleted or duplicated, indented one space
more or less or with a tab, a bracket or quote left open, a name's colon dropped, a value retyped, the
file emptied or every line commented out. Each mutant either means what it says (it loads, and its
settings are the file's as edited) or is refused before any job starts, naming config.yaml, the line of
the mistake and a fix. A few mutants stand for each class."""

import json
import re
import subprocess

import pytest
import yaml

from conftest import REPO, run_pipeline
from lmgap.configcheck import validate_config
from lmgap.configfile import check_config_file, keep_copy
from lmgap.errors import LmgapError
from lmgap.schema import read_defaults

SCHEMA = REPO / "workflow/schemas/config.schema.yaml"
LINES = (REPO / "config.yaml").read_text().split("\n")
SETTINGS = [number for number, line in enumerate(LINES) if line.split("#")[0].strip()]
# The lines a class's mutants are made at: a top-level key opening a block, a scalar, a flow list, a
# nested key, a key two levels down, the last line.
PICKS = [LINES.index(line) for line in ("corpus:", "train_split: train", "orders: [3, 4, 5]")] + [
    next(i for i in SETTINGS if LINES[i].strip().startswith(key)) for key in ("top_k:", "rarity:", "budget_mb:")
]
FIX = re.compile(r"(:|;) .*\b(indent|close|keep|give|remove|replace|retype|write|restore|use|fix)\b")
# The first setting of the block PICKS[0] opens.
FIRST = next(i for i in SETTINGS if i > PICKS[0])


def edited(number, replacement):
    """config.yaml with line `number` (from 0) replaced by the lines `replacement`."""
    return "\n".join([*LINES[:number], *replacement, *LINES[number + 1 :]])


def next_setting(number):
    """The line (from 1) a deleted line's next setting moves to."""
    return next((i for i in SETTINGS if i > number), None)


MUTANTS = {
    # A deleted line's mistake shows where what it held is missing: at the next setting, now in its place.
    **{f"line {n + 1} deleted": (edited(n, []), next_setting(n)) for n in PICKS},
    **{f"line {n + 1} duplicated": (edited(n, [LINES[n], LINES[n]]), n + 2) for n in PICKS},
    **{f"line {n + 1} one space more": (edited(n, [" " + LINES[n]]), n + 1) for n in PICKS},
    **{f"line {n + 1} one space less": (edited(n, [LINES[n][1:]]), n + 1) for n in PICKS if LINES[n][:1] == " "},
    **{f"line {n + 1} a tab": (edited(n, ["\t" + LINES[n]]), n + 1) for n in PICKS[:3]},
    "a bracket left open": (edited(PICKS[2], [LINES[PICKS[2]].replace("]", "")]), PICKS[2] + 1),
    "a quote left open": (
        edited(PICKS[1], [LINES[PICKS[1]].replace(": train", ': "train')]),
        PICKS[1] + 1,
    ),
    # YAML reads a name without its colon (or the space after it) as a word running on, and gives up lines
    # later.
    **{f"line {n + 1} colon dropped": (edited(n, [LINES[n].replace(": ", " ", 1)]), n + 1) for n in PICKS[1:3]},
    "a space after a colon dropped": (edited(PICKS[2], [LINES[PICKS[2]].replace(": ", ":", 1)]), PICKS[2] + 1),
    "a bracket too many": (edited(PICKS[2], [LINES[PICKS[2]] + "]"]), PICKS[2] + 1),
    # A comma after a list, as between a list's items: the settings of a line each need none.
    "a comma after a list": (edited(PICKS[2], [LINES[PICKS[2]] + ","]), PICKS[2] + 1),
    "a tab after a value": (edited(PICKS[1], [LINES[PICKS[1]] + "\t"]), PICKS[1] + 1),
    # A no-break space, as pasted from a web page: YAML reads it as a character of a name or a value.
    "a no-break space in an indent": (edited(FIRST, ["\u00a0" + LINES[FIRST][1:]]), FIRST + 1),
    "a no-break space after a colon": (edited(PICKS[1], [LINES[PICKS[1]].replace(": ", ":\u00a0")]), PICKS[1] + 1),
    # A block's first setting pulled up onto its name's line: the lines under it are not to blame.
    "a setting on its block's line": (
        "\n".join(
            [
                *LINES[: PICKS[0]],
                f"{LINES[PICKS[0]]} {LINES[FIRST].strip()}",
                *LINES[PICKS[0] + 1 : FIRST],
                *LINES[FIRST + 1 :],
            ]
        ),
        PICKS[0] + 1,
    ),
    "a number quoted": (edited(PICKS[3], [LINES[PICKS[3]].replace("100", '"100"')]), PICKS[3] + 1),
    "a list written as a scalar": (edited(PICKS[2], ["orders: 3"]), PICKS[2] + 1),
    "emptied": ("", None),
    "every line commented out": ("\n".join(f"# {line}" for line in LINES), None),
}


def outcome(text, tmp_path):
    """The validated config of config.yaml holding text, or the LmgapError's message."""
    path = tmp_path / "config.yaml"
    path.write_text(text)
    try:
        settings = check_config_file(path)
        return validate_config(yaml.safe_load(text) or {}, SCHEMA, settings, str(path))
    except LmgapError as err:
        return str(err)


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_a_mutant_means_what_it_says_or_is_refused_at_the_line_of_the_mistake(mutant, tmp_path):
    text, line = MUTANTS[mutant]
    result = outcome(text, tmp_path)
    if isinstance(result, dict):
        # It loads: as the edited file says, each setting it still holds as written there.
        written = yaml.safe_load(text)
        for section, value in written.items():
            # (A section with nothing under it takes its defaults.)
            if value is not None and not isinstance(value, dict):
                assert result[section] == value, (mutant, section)
        return
    where = f"{tmp_path}/config.yaml line {line}" if line else f"{tmp_path}/config.yaml"
    assert result.startswith(where) or f"(config.yaml line {line})" in result or f"{where})" in result, (
        mutant,
        result,
    )
    assert FIX.search(result), (mutant, result)


def test_the_mutants_that_load_are_those_that_change_no_meaning_or_a_default(tmp_path):
    loaded = sorted(mutant for mutant, (text, _) in MUTANTS.items() if isinstance(outcome(text, tmp_path), dict))
    # A line deleted leaves its setting to the schema's default, which config.yaml writes out (its last
    # line, memory: with nothing under it, the section of its defaults); a quoted number is the number;
    # a section's one setting may sit at any depth below it.
    last = len(LINES) - 1 - LINES[::-1].index(next(line for line in reversed(LINES) if line.strip()))
    expected = [f"line {n + 1} deleted" for n in PICKS if LINES[n] != "corpus:"] + ["a number quoted"]
    expected += [f"line {last + 1} one space more", f"line {last + 1} one space less"]
    assert loaded == sorted(expected)


@pytest.mark.pipeline
def test_snakemake_refuses_a_duplicated_line_before_any_job(tmp_path):
    (tmp_path / "config.yaml").write_text(MUTANTS[f"line {PICKS[3] + 1} duplicated"][0])
    done = run_pipeline(tmp_path, None, "--dry-run", check=False)
    said = done.stdout + done.stderr
    assert done.returncode and f"config.yaml line {PICKS[3] + 2} sets gap.top_k again (line {PICKS[3] + 1}" in said
    assert "Traceback" not in said and not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    "text, said",
    [
        (
            b"orders: [3]\ngap: {top_k: 5\x01}\n",
            "line 2 holds the character U+0001, which YAML does not allow: delete it",
        ),
        (b"orders: [3]\n# caf\xe9\n", "line 2 holds the byte 0xe9, which is not UTF-8: retype that character"),
        ("orders: [3]\n".encode("utf-16"), "is UTF-16 text (its byte-order mark says so): save it as UTF-8"),
        (
            b"orders: [3]\ngap:\n  top_k: !!int abc\n",
            "line 3: invalid literal for int() with base 10: 'abc'; write the",
        ),
        (b"orders: [3]\n? [a, b]\n: 1\n", "line 2: a setting's name is a list or a mapping, not a word: write"),
        (b"gap: {top_k: 5},\norders: [3]\n", "line 1 has `,` after its value's closing `}`: remove it"),
        (b"orders: [3]\ncomparison:\n  seed: 010\n", "line 3: 010 is read by YAML as an octal number (8): write 10"),
        (
            b"orders: [3]\ngap:\n  top_k: 5\n---\norders: [4]\n",
            "line 4 starts a second YAML document (`---`), where a config is one: delete that line, and keep one of "
            "the two lines that set orders (lines 1 and 5)",
        ),
        # A block's first line two steps in, its next one: YAML gives up at the second, the first is off.
        (
            b"orders: [3]\ncorpus:\n  source: c\ngap:\n    top_k: 5\n  enabled: true\n",
            "line 5 is indented 4 spaces, more than this file's step of 2 beyond its block's name, and line 6 2: "
            "indent the lines of that block alike, by 2",
        ),
    ],
    ids=[
        "a control character",
        "a byte of Latin-1",
        "UTF-16",
        "a tag its value cannot hold",
        "a list as a name",
        "a comma",
        "a leading 0",
        "a second document",
        "a block's first line two steps in",
    ],
)
def test_what_yaml_cannot_read_or_hold_is_named_at_its_line(tmp_path, text, said):
    path = tmp_path / "config.yaml"
    path.write_bytes(text)
    with pytest.raises(LmgapError) as err:
        check_config_file(path)
    assert str(err.value).startswith(f"{path} {said}")


@pytest.mark.parametrize(
    "text, line",
    [
        ("corpus:\n  source: it's here\norders: [3, 4\n", 3),
        ('corpus:\n  source: "a #b"\norders: [3, 4\n', 3),
        ("corpus:\n  source: 'abc\norders: [3]\n", 2),
    ],
    ids=["an apostrophe in a word", "a # inside quotes", "a quote left open"],
)
def test_an_open_bracket_or_quote_is_named_at_its_own_line_not_at_an_apostrophe_above(tmp_path, text, line):
    path = tmp_path / "config.yaml"
    path.write_text(text)
    with pytest.raises(LmgapError, match=rf"line {line} leaves a .* open: close it"):
        check_config_file(path)


@pytest.mark.parametrize(
    "lose, says",
    [
        (lambda path: path.write_text("# orders: [3]\n"), "holds no setting (every line is a comment)"),
        (lambda path: path.unlink(), "holds no config.yaml (deleted?)"),
    ],
    ids=["emptied", "deleted"],
)
def test_a_lost_config_s_fix_restores_it_pasted_anywhere(tmp_path, lose, says):
    # A run folder of its own in the repository (as .test/), its config lost; the fix pasted elsewhere.
    folder = tmp_path / "repo/run folder $(touch X)"
    folder.mkdir(parents=True)
    (folder / "config.yaml").write_text("orders: [3]\n")
    for command in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"]):
        subprocess.run(["git", *command], cwd=tmp_path / "repo", check=True)
    lose(folder / "config.yaml")
    with pytest.raises(LmgapError) as err:
        check_config_file(folder / "config.yaml")
    assert says in str(err.value)
    command = re.search(r"restore it with (.*) \(whose", str(err.value)).group(1)
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    assert (folder / "config.yaml").read_text() == "orders: [3]\n" and not (tmp_path / "X").exists()


def test_an_emptied_config_git_does_not_track_is_restored_from_the_repository_s(tmp_path):
    # A run folder copied from .test/, untracked: git has no copy of its config to give back.
    folder = tmp_path / "my run's folder"
    folder.mkdir()
    (folder / "config.yaml").write_text("")
    with pytest.raises(LmgapError) as err:
        check_config_file(folder / "config.yaml")
    command = re.search(r"describe each setting: (cp .*)$", str(err.value)).group(1)
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    assert (folder / "config.yaml").read_text() == (REPO / "config.yaml").read_text()


def test_a_run_folder_holding_nothing_but_what_snakemake_made_is_named_as_no_run_folder(tmp_path):
    # Snakemake makes the folder --directory names: a typo of the run folder's name.
    made = tmp_path / "nodir"
    (made / ".snakemake").mkdir(parents=True)
    with pytest.raises(LmgapError, match="nor anything but what Snakemake made for this run: a --directory"):
        check_config_file(made / "config.yaml")


@pytest.mark.parametrize(
    "lose",
    [
        lambda path: path.unlink(),
        lambda path: path.write_text(""),
        lambda path: path.write_text("".join(f"# {line}\n" for line in path.read_text().splitlines())),
    ],
    ids=["deleted", "emptied", "commented out"],
)
def test_a_lost_config_is_restored_from_the_copy_its_last_run_kept(tmp_path, monkeypatch, lose):
    # The repository's config, which the fix would copy otherwise, is another experiment than the folder's.
    folder = tmp_path / "run $(touch X)"
    (folder / "results").mkdir(parents=True)
    (folder / "config.yaml").write_text("# my sweep\norders: [2, 3]\n")
    monkeypatch.chdir(folder)
    keep_copy("config.yaml")
    lose(folder / "config.yaml")
    with pytest.raises(LmgapError) as err:
        check_config_file(folder / "config.yaml")
    command = re.search(r"restore the one its last run read: (cp [^,]*)(, or run|$)", str(err.value)).group(1)
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    assert (folder / "config.yaml").read_text() == "# my sweep\norders: [2, 3]\n" and not (tmp_path / "X").exists()
    # That copy itself emptied: not offered, the repository's is (an offer that led back here would never end).
    (folder / "results/.config.yaml").write_text("")
    lose(folder / "config.yaml")
    with pytest.raises(LmgapError) as err:
        check_config_file(folder / "config.yaml")
    assert "its last run read" not in str(err.value) and "restore it from the repository's" in str(err.value)


def test_a_lost_config_whose_kept_copy_is_broken_names_that_copy_and_its_mistake(tmp_path, monkeypatch):
    # The user's settings are in the kept copy still: mended, it is theirs, where the repository's is not.
    folder = tmp_path / "run $(touch X)"
    (folder / "results").mkdir(parents=True)
    monkeypatch.chdir(folder)
    (folder / "results/.config.yaml").write_text("# my sweep\norders: [2, 3\n")
    with pytest.raises(LmgapError) as err:
        check_config_file(folder / "config.yaml")
    said = str(err.value)
    assert f"the copy kept by the last run, {folder}/results/.config.yaml, is damaged too (line 2 leaves a" in said
    command = re.search(r"copy it back with (cp .*?), or restore", said).group(1)
    (folder / "results/.config.yaml").write_text("# my sweep\norders: [2, 3]\n")
    subprocess.run(["bash", "-c", command], cwd=tmp_path, check=True)
    assert (folder / "config.yaml").read_text() == "# my sweep\norders: [2, 3]\n" and not (tmp_path / "X").exists()


def test_a_merge_key_means_what_yaml_merges(tmp_path):
    # `<<:` merges a mapping's settings into another's, which a setting of its own overrides.
    text = "orders: [3]\nlmplz: &shared\n  discount_fallback: true\n"
    text += "gap:\n  <<: {top_k: 50, right_tokens: 4}\n  top_k: 60\n"
    config = outcome(text, tmp_path)
    assert isinstance(config, dict), config
    gap, lmplz = config["gap"], config["lmplz"]
    assert (gap["top_k"], gap["right_tokens"], lmplz["discount_fallback"]) == (60, 4, True)


@pytest.mark.parametrize(
    "text, said",
    [
        (
            "orders: [3]\ntrain_fraction: [0,5]\n",
            "(a decimal comma? YAML reads 0,5 in a list as two numbers: write 0.5)",
        ),
        ("orders: [3]\ntrain_fraction: [0,25, 1]\n", "write 0.25)"),
    ],
)
def test_a_decimal_comma_in_a_list_of_shares_is_named(tmp_path, text, said):
    assert said in outcome(text, tmp_path)


def test_a_whole_number_list_written_without_spaces_gets_no_decimal_comma_hint(tmp_path):
    # `orders: [1,3]`: two orders, one of them refused; no share was meant.
    refused = outcome("orders: [1,3]\n", tmp_path)
    assert "1 is less than the minimum of 2" in refused and "decimal comma" not in refused


def follow_the_fix(folder, cwd):
    """Empty the folder's config.yaml and run, from cwd, the command its refusal gives to write it anew."""
    (folder / "config.yaml").write_text("")
    with pytest.raises(LmgapError) as err:
        check_config_file(folder / "config.yaml")
    command = re.search(r"but kenlm.bin_dir\): (printf .*), or restore it", str(err.value)).group(1)
    subprocess.run(["bash", "-c", command], cwd=cwd, check=True)


def test_a_lost_config_without_a_kept_copy_is_written_from_the_settings_its_results_record(tmp_path):
    # No copy kept (results/.config.yaml gone): provenance.json still records the experiment, and the user's tools.
    folder = tmp_path / "run $(touch X) it's"
    (folder / "results").mkdir(parents=True)
    # provenance.json spells out every default: written back, each would read as a setting the user gave.
    experiment = {"orders": [2, 3], "gap": {"top_k": 30, "enabled": True}, "corpus": {"source": "c", "commit": None}}
    provenance = {"experiment": experiment, "kenlm": {"bin_dir": "/opt/kenlm 'x'/bin"}}
    (folder / "results/provenance.json").write_text(json.dumps(provenance))
    follow_the_fix(folder, tmp_path)
    given = {"orders": [2, 3], "gap": {"top_k": 30}, "corpus": {"source": "c"}}
    assert read_defaults()["gap.enabled"] is True and read_defaults()["corpus.commit"] is None
    assert yaml.safe_load((folder / "config.yaml").read_text()) == {**given, "kenlm": provenance["kenlm"]}
    assert not (tmp_path / "X").exists()
    # Tools the run built in the folder's own resources/: not a setting the config gave.
    provenance["kenlm"]["bin_dir"] = str(folder / "resources/kenlm/kenlm-0.3.0-maxorder6/bin")
    (folder / "results/provenance.json").write_text(json.dumps(provenance))
    follow_the_fix(folder, tmp_path)
    assert yaml.safe_load((folder / "config.yaml").read_text()) == given
