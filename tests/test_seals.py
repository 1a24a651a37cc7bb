"""Every file a job writes is sealed, and a job refuses an input changed since its job wrote it: a hand
edit that keeps a record's shape, which no reader of shapes can see, is named with the fix."""

import json
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from lmgap import seals
from lmgap.files import DamagedRecord
from lmgap.scriptio import run

RECORD = {"model": "o3", "split": "dev-0", "sums": {"tokens": 12, "oovs": 1}}


@pytest.fixture(autouse=True)
def in_a_run_folder(tmp_path, monkeypatch):
    """Jobs run in the run's folder, their files named relative to it, under results/."""
    monkeypatch.chdir(tmp_path)
    Path("results").mkdir()


def job(tmp_path, inputs, outputs):
    return SimpleNamespace(log=[str(tmp_path / "job.log")], rule="perplexity_table", input=inputs, output=outputs)


def write(path, record):
    path.write_text(json.dumps(record, indent=2) + "\n")


def test_a_job_seals_what_it_writes_and_the_next_refuses_it_changed_by_hand(tmp_path, capsys):
    record, table = Path("results/eval/dev-0.json"), Path("results/table.tsv")
    record.parent.mkdir()
    run(job(tmp_path, [], [str(record)]), lambda log: write(record, RECORD))
    # In one tree of its own: a folder the user copies holds its own files alone.
    assert json.loads(Path("results/.seals/eval/dev-0.json.seal").read_text())["bytes"] == record.stat().st_size
    assert sorted(path.name for path in record.parent.iterdir()) == ["dev-0.json"]
    run(job(tmp_path, [str(record)], [str(table)]), lambda log: table.write_text("read\n"))
    # Touched, or copied in place: the same bytes pass.
    os.utime(record, ns=(1, 1))
    run(job(tmp_path, [str(record)], [str(table)]), lambda log: table.write_text("read\n"))
    # A figure changed, the shape and even the size kept: no reader of shapes would see it.
    write(record, {**RECORD, "sums": {"tokens": 13, "oovs": 1}})
    with pytest.raises(SystemExit):
        run(job(tmp_path, [str(record)], [str(table)]), lambda log: pytest.fail("the job read it"))
    said = capsys.readouterr().err
    assert (
        f"{record} is damaged (other bytes than its job wrote, as many: changed since, by hand?): delete it, and "
        "run the pipeline again" in said
    )


@pytest.mark.parametrize(
    "damage, why",
    [
        (lambda path: path.write_text(""), r"empty where its job wrote \d+"),
        (lambda path: path.write_text(path.read_text()[:20]), r"20 bytes where its job wrote \d+"),
        (lambda path: seals.seal_path(path).write_text("{"), r"its seal results/\.seals/dev-0\.json\.seal is damaged"),
        (lambda path: seals.seal_path(path).write_text("{}"), r"its seal results/\.seals/dev-0\.json\.seal is damaged"),
    ],
)
def test_a_file_or_its_seal_damaged_is_named(damage, why):
    record = Path("results/dev-0.json")
    write(record, RECORD)
    seals.seal([record])
    damage(record)
    with pytest.raises(DamagedRecord, match=why):
        seals.check([record])


def test_what_has_no_seal_is_taken_as_it_is_and_a_job_unseals_what_it_will_write(tmp_path):
    # A file a shell command wrote, a folder, a file from before seals, one outside results/: nothing to hold
    # them to.
    record, folder, tool = Path("results/dev-0.json"), Path("results/model"), tmp_path / "lmplz"
    write(record, RECORD)
    folder.mkdir()
    tool.write_text("#!/bin/sh\n")
    seals.seal([folder, tool])
    seals.check([record, folder, tool])
    assert not seals.seal_path(folder).exists() and seals.seal_path(tool) is None
    # A job killed after writing its output, before sealing it, leaves no earlier run's seal to refuse it by.
    seals.seal([record])

    def killed(log):
        write(record, {**RECORD, "split": "test-A"})
        raise KeyboardInterrupt

    with pytest.raises(SystemExit):
        run(job(tmp_path, [], [str(record)]), killed)
    seals.check([record])
