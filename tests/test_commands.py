"""Every command a message gives a user to paste (lmgap.commands, where messages build them all), made
with paths holding a space, quotes and `$(touch X)`, run in bash: each does what it says, and X is
never made."""

import bz2
import gzip
import inspect
import lzma
import os
import random
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import REPO
from lmgap import commands

HOSTILE = "a folder 'with\" $(touch X) `touch X`"
TEXT = "caf\xe9 au lait\n"


def bash(line, cwd, fails=False):
    # The git commit a command makes needs an author where the machine names none.
    names = {f"GIT_{who}_{what}": "t" for who in ("AUTHOR", "COMMITTER") for what in ("NAME", "EMAIL")}
    done = subprocess.run(["bash", "-c", line], cwd=cwd, capture_output=True, text=True, env={**os.environ, **names})
    assert (done.returncode != 0) == fails, (line, done.stderr)


def git(*args, cwd):
    identity = ["-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", *identity, *args], cwd=cwd, check=True, capture_output=True)


def recompressed(folder, reader, squeeze):
    path = folder / "in.tsv.xz"
    path.write_bytes(squeeze(TEXT.encode()))
    yield commands.recompress(path, reader)
    assert lzma.decompress(path.read_bytes()) == TEXT.encode()


def recompress_of_damaged(folder):
    """A gzip file cut short: the reader fails, so the command fails, and the file stays as it was."""
    path = folder / "in.tsv.xz"
    whole = gzip.compress(random.Random(1).randbytes(20000))
    damaged = whole[: len(whole) // 2]
    path.write_bytes(damaged)
    yield commands.recompress(path, "zcat"), 1
    assert path.read_bytes() == damaged


def compressed(folder):
    path = folder / "in.tsv.xz"
    path.write_text(TEXT)
    yield commands.compress(path)
    assert lzma.decompress(path.read_bytes()) == TEXT.encode()


def decompressed_once(folder):
    path = folder / "in.tsv.xz"
    path.write_bytes(lzma.compress(lzma.compress(TEXT.encode())))
    yield commands.decompress_once(path)
    assert lzma.decompress(path.read_bytes()) == TEXT.encode()


def reencoded(folder):
    path = folder / "expected.tsv"
    path.write_bytes(TEXT.encode("latin1"))
    yield commands.latin1_to_utf8(path)
    assert path.read_text(encoding="utf-8") == TEXT


def sent(folder):
    """A clone of a remote with a submission's files copied in: the commands commit and push them."""
    remote, clone = folder / "remote.git", folder / "clone"
    git("init", "-q", "--bare", str(remote), cwd=folder)
    git("clone", "-q", str(remote), str(clone), cwd=folder)
    files = [Path("gonito.yaml"), Path("dev-0 'x'") / "out.tsv"]
    for name in files:
        (clone / name).parent.mkdir(parents=True, exist_ok=True)
        (clone / name).write_text("the:1\n")
    yield " && ".join(commands.send_submission(clone, files)).split("  #")[0]
    pushed = subprocess.run(["git", "ls-tree", "-r", "--name-only", "HEAD"], cwd=remote, capture_output=True, text=True)
    assert sorted(pushed.stdout.splitlines()) == sorted(map(str, files))


def removed(folder):
    """A folder where a file goes, with what it holds: removed, and nothing beside it."""
    path = folder / "t.tsv"
    (path / "inner").mkdir(parents=True)
    (folder / "beside.tsv").write_text(TEXT)
    yield commands.remove(path)
    assert not path.exists() and (folder / "beside.tsv").read_text() == TEXT


def moved_aside(folder):
    """A folder holding a file of the user's, where the run keeps a file: moved aside, the file in it kept."""
    path = folder / "t.tsv"
    path.mkdir()
    (path / "mine.tsv").write_text(TEXT)
    yield commands.move_aside(path)
    assert not path.exists() and (folder / "t.tsv.aside/mine.tsv").read_text() == TEXT


def cleared(folder, holds):
    """What clear_the_way gives: a folder holding something moved aside, an empty one removed."""
    path = folder / "t.tsv"
    path.mkdir()
    if holds:
        (path / "mine.tsv").write_text(TEXT)
    yield commands.clear_the_way(path).split(": ", 1)[1]
    assert not path.exists() and (folder / "t.tsv.aside").exists() == holds


def cleared_file(folder):
    """A file of the user's where the run makes a folder: moved aside, its text kept."""
    path = folder / "tables"
    path.write_text(TEXT)
    yield commands.clear_the_way(path).split(": ", 1)[1]
    assert not path.exists() and (folder / "tables.aside").read_text() == TEXT


def given_with_config(folder, value, means):
    """A setting given as a target: the option that gives it, --config, at the end of the user's command, which
    Snakemake reads as KEY=YAML (a stand-in snakemake, first on the PATH, keeps the arguments it was given)."""
    fake = folder / "snakemake"
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$(dirname "$0")/given"\n')
    fake.chmod(0o755)
    yield f"PATH={commands.quoted(folder)}:$PATH; snakemake --cores 8 {commands.config_option('lmplz.prune', value)}"
    cores, eight, option, given = (folder / "given").read_text().splitlines()
    key, text = given.split("=", 1)
    assert [cores, eight, option, key] == ["--cores", "8", "--config", "lmplz"] and means(text)


def pipeline_run(folder):
    """The run that writes a run folder's results anew (a stand-in snakemake keeps the arguments it was given)."""
    fake = folder / "bin/snakemake"
    fake.parent.mkdir()
    fake.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$(dirname "$0")/given"\n')
    fake.chmod(0o755)
    yield f"PATH={commands.quoted(fake.parent)}:$PATH; {commands.run_pipeline(folder)}"
    given = (fake.parent / "given").read_text().splitlines()
    assert given == ["--cores", "8", "--snakefile", str(REPO / "Snakefile"), "--directory", str(folder)]
    assert commands.run_pipeline(REPO) == "snakemake --cores 8"


# Each command, made and checked: a generator that sets its file up, yields the command, then checks it.
CASES = {
    "recompress zcat": (commands.recompress, lambda folder: recompressed(folder, "zcat", gzip.compress)),
    "recompress bzcat": (commands.recompress, lambda folder: recompressed(folder, "bzcat", bz2.compress)),
    "recompress a damaged file": (commands.recompress, recompress_of_damaged),
    "recompress lzma": (
        commands.recompress,
        lambda folder: recompressed(
            folder, "xz --format=lzma -dc", lambda data: lzma.compress(data, format=lzma.FORMAT_ALONE)
        ),
    ),
    "compress": (commands.compress, compressed),
    "decompress_once": (commands.decompress_once, decompressed_once),
    "latin1_to_utf8": (commands.latin1_to_utf8, reencoded),
    "send_submission": (commands.send_submission, sent),
    "run_pipeline": (commands.run_pipeline, pipeline_run),
    "remove": (commands.remove, removed),
    "move_aside": (commands.move_aside, moved_aside),
    "clear_the_way of a folder holding a file": (commands.clear_the_way, lambda folder: cleared(folder, True)),
    "clear_the_way of an empty folder": (commands.clear_the_way, lambda folder: cleared(folder, False)),
    "clear_the_way of a file holding text": (commands.clear_the_way, cleared_file),
    "config_option": (
        commands.config_option,
        lambda folder: given_with_config(folder, "[0, 1]", lambda text: yaml.safe_load(text) == {"prune": [0, 1]}),
    ),
    "config_option of a hostile value": (
        commands.config_option,
        lambda folder: given_with_config(folder, "[0]'$(touch X)`touch X`", lambda text: "$(touch X)" in text),
    ),
}


def test_every_command_of_the_module_has_its_case():
    made = {function for function, _ in CASES.values()}
    builders = {function for name, function in inspect.getmembers(commands, inspect.isfunction)}
    assert builders - {commands.quoted, commands.quoted_file, commands._replace} == made


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_command_does_what_it_says_where_paths_hold_spaces_quotes_and_substitutions(case, tmp_path):
    folder = tmp_path / HOSTILE
    folder.mkdir()
    steps = CASES[case][1](folder)
    command = next(steps)
    # A case whose command must fail yields it with 1.
    command, fails = command if isinstance(command, tuple) else (command, 0)
    bash(command, cwd=tmp_path, fails=bool(fails))
    next(steps, None)
    assert not list(tmp_path.rglob("X")), "a substitution in a path ran"
    assert [path.name for path in folder.iterdir() if path.name.endswith((".new", ".plain", ".plain.xz"))] == []


def test_no_message_builds_a_command_outside_the_module():
    # The shapes a pasteable command has: a file rewritten in place, a pipe into xz, git's adding.
    shapes = re.compile(r"&& mv |\| xz|git add |iconv -f|-c \{")
    found = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sorted((REPO / "workflow/lmgap").rglob("*.py"))
        if path.name != "commands.py"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if shapes.search(line)
    ]
    assert found == []


def test_a_command_made_in_a_run_s_folder_works_pasted_in_another(tmp_path, monkeypatch):
    # A run with --directory names the corpus from its working folder; the user pastes where they are.
    run = tmp_path / "run"
    (run / "corpus").mkdir(parents=True)
    (run / "corpus/in.tsv.xz").write_text(TEXT)
    monkeypatch.chdir(run)
    line = commands.compress(Path("corpus/in.tsv.xz"))
    bash(line, cwd=tmp_path)
    assert lzma.decompress((run / "corpus/in.tsv.xz").read_bytes()) == TEXT.encode()
