"""A walk over every record kind the tables and the provenance record read, all damaged at once in
a finished run, the ways of damage dealt out among them (tests/test_shapes.py gives each reader every
way): each run names the damaged files its jobs met, with the fix; the fix followed (the file
deleted, the same command again) writes them anew; and the tables come back as the undamaged run's.
A fix that repeats its own error, or a traceback, fails the walk."""

import json
import re
from pathlib import Path

import pytest

from conftest import run_pipeline

pytestmark = pytest.mark.pipeline

# One record of each kind the tables read, in neural_run (orders 3, the gap task, one neural model).
RECORDS = [
    "results/eval/o3/dev-0.json",
    "results/eval/o3/dev-0.documents.tsv",
    "results/models/o3/ngram_counts.json",
    "results/models/o3/usage.json",
    "results/benchmarks/query/o3/dev-0.tsv",
    "results/text/vocabulary.json",
    "results/text/dev-0.years.tsv",
    "results/neural/small/training.json",
    "results/gap/metrics/both/o3/dev-0.json",
    "results/gap/stats/both/o3/dev-0.json",
    "results/gap/candidates/dev-0.coverage.json",
    "results/gap/both/blend/dev-0/weights.json",
    # Read by the provenance record, and a gap job's timing, read by the gap table.
    "results/corpus/manifest.json",
    "results/benchmarks/gap_logprobs/o3/dev-0.tsv",
]
# The columns that vary from run to run: timings, and what follows from them.
TIMED = re.compile(r"seconds|per_second|rss|reserved")


def without_keys(text, path):
    if path.endswith(".json"):
        return "{}\n"
    return "\t".join(f"{name}x" for name in text.split("\n")[0].split("\t")) + "\n" + text.split("\n", 1)[1]


def retyped(text, path):
    if path.endswith(".json"):
        record = json.loads(text)
        key = next(key for key, value in record.items() if not isinstance(value, str))
        return json.dumps({**record, key: "many"}) + "\n"
    header, first, rest = text.split("\n", 2)
    return "\n".join([header, "\t".join(["many", *first.split("\t")[1:]]), rest])


def changed(text, path):
    """One figure changed, the record's shape kept: what only its seal tells (lmgap.seals)."""
    if path.endswith(".json"):
        record = json.loads(text)
        key = next(key for key, value in record.items() if isinstance(value, (int, float)))
        return json.dumps({**record, key: record[key] + 1}) + "\n"
    header, first, rest = text.split("\n", 2)
    cells = first.split("\t")
    return "\n".join([header, "\t".join([*cells[:-1], repr(float(cells[-1]) * 2)]), rest])


DAMAGES = {
    "changed, its shape kept": changed,
    "cut mid-line": lambda text, path: text[: len(text) * 2 // 3],
    # A line end kept: a record of TSV rows reads, short of the rows of the file it pairs with.
    "cut at a line end": lambda text, path: text[: text.rindex("\n", 0, len(text) - 1) + 1],
    "emptied": lambda text, path: "",
    "without its keys": without_keys,
    "a value of another type": retyped,
}


def tables(work):
    """Every table's rows, timing columns aside."""
    found = {}
    for path in sorted((work / "results/tables").glob("*.tsv")):
        lines = path.read_text().splitlines()
        keep = [i for i, name in enumerate(lines[0].split("\t")) if not TIMED.search(name)]
        found[path.name] = [[cells[i] for i in keep] for cells in (line.split("\t") for line in lines)]
    return found


def follow_fixes(work, damaged):
    """Run, delete each file a run names as damaged, as its fix says, and run again until a run succeeds;
    each damaged file (path: the content it was given) named, or written anew by a job its fix ran again."""
    named = set()
    for _ in range(len(damaged) + 1):
        done = run_pipeline(work, None, check=False)
        said = done.stdout + done.stderr
        if not done.returncode:
            break
        assert "Traceback" not in said, said[-4000:]
        # (A record written with a file besides it names that file too: delete it and FILE, and run ...)
        named_here = re.findall(r"(\S+) is damaged \(.*?\): delete it(?: and (\S+))?, and run the pipeline again", said)
        fixes = {
            str(Path(path).relative_to(work)) if Path(path).is_absolute() else path
            for path in (path for both in named_here for path in both if path)
        }
        assert fixes and not fixes & named, ("no fix, or one that repeats its own error", fixes & named, said[-4000:])
        named |= fixes
        for path in fixes:
            (work / path).unlink()
    assert not done.returncode, said[-4000:]
    # Each damaged record was named (and deleted), or written anew by a job its fix ran again.
    left = [name for name in damaged if name not in named and (work / name).read_text() == damaged[name]]
    assert named and not left, left
    assert all((work / name).is_file() for name in damaged), "a file deleted as told was not written anew"


def test_every_record_kind_damaged_is_named_and_its_fix_restores_the_tables(neural_run_copy):
    work = neural_run_copy()
    before = tables(work)
    ways = sorted(DAMAGES)
    damaged, resized = {}, []
    for number, name in enumerate(RECORDS):
        path = work / name
        damaged[name] = DAMAGES[ways[number % len(ways)]](path.read_text(), name)
        if len(damaged[name].encode()) != path.stat().st_size:
            resized.append(name)
        path.write_text(damaged[name])
    # A dry run, which plans the jobs as if each were whole, names those whose size changed.
    planned = run_pipeline(work, None, "--dry-run")
    said = planned.stdout + planned.stderr
    assert resized and not [name for name in resized if f"lmgap warning: {name} is damaged (" not in said], said
    follow_fixes(work, damaged)
    assert tables(work) == before


def test_a_text_changed_by_hand_is_named_and_its_fix_restores_the_tables(neural_run_copy):
    work = neural_run_copy()
    before = tables(work)
    text = work / "results/text/dev-0.txt"
    good = text.read_bytes()
    lines = text.read_text().splitlines(keepends=True)
    text.write_text("".join(lines[: len(lines) // 2]))
    done = run_pipeline(work, None, check=False)
    said = done.stdout + done.stderr
    assert done.returncode and "Traceback" not in said, said[-4000:]
    assert re.search(r"results/text/dev-0\.txt is not the text its job wrote \([\d,]+ bytes where it wrote", said)
    assert f"Delete {'results/text/dev-0.txt'} and run the pipeline again" in said
    # The tables of the run before stand meanwhile, and the fix followed keeps them: the refusal came before any
    # job, so none is due, and the job that next needs the text writes it anew.
    assert tables(work) == before
    text.unlink()
    run_pipeline(work, None)
    assert tables(work) == before
    # The text as it was written, though newer than its record, is taken as it is; a change that keeps
    # its size (one digit of a word for another) is not.
    text.write_bytes(good)
    assert run_pipeline(work, None).returncode == 0 and tables(work) == before
    text.write_bytes(good.replace(b"1", b"2", 1))
    # (Snakemake may find nothing due: its jobs here wait on a checkpoint, which spares them its check of
    # inputs' dates. Any run with a job to do checks every text first.)
    done = run_pipeline(work, None, "--forcerun", "perplexity_table", check=False)
    said = done.stdout + done.stderr
    assert done.returncode and "results/text/dev-0.txt is not the text its job wrote (other bytes;" in said
    assert tables(work) == before


def digit_changed(text, path):
    """A digit after the first line changed: the size and the shape kept."""
    at = next(i for i in range(text.index("\n"), len(text)) if text[i].isdigit())
    return text[:at] + str((int(text[at]) + 1) % 10) + text[at + 1 :]


def test_records_changed_by_hand_their_shape_kept_are_named_and_the_fix_restores_the_tables(neural_run_copy):
    # The kinds the walk above leaves out: a gap prediction, a table not yet put in place, and a text whose
    # record was emptied first (the text is checked by its seal still).
    work = neural_run_copy()
    before = tables(work)
    damaged = {}
    for name in [
        "results/gap/both/o3/dev-0/out.tsv",
        "results/.staged/tables/perplexity.tsv",
        "results/text/dev-0.txt",
    ]:
        damaged[name] = digit_changed((work / name).read_text(), name)
        (work / name).write_text(damaged[name])
    (work / "results/text/dev-0.json").write_text("")
    damaged["results/text/dev-0.json"] = ""
    follow_fixes(work, damaged)
    assert tables(work) == before


def test_a_fit_deleted_as_its_damage_warning_says_is_written_again(neural_run_copy):
    # No job reads it (docs/gap-task.md sends readers to it): the whole pipeline asks for it.
    work = neural_run_copy()
    fit = work / "results/gap/both/document/dev-0/fit.json"
    written = fit.read_bytes()
    fit.unlink()
    done = run_pipeline(work, None)
    assert done.jobs.get("gap_document") == 1 and fit.read_bytes() == written
