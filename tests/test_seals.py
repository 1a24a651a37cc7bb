"""Every file a job writes is sealed, and a job refuses an input changed since its job wrote it: a hand
edit that keeps a record's shape, which no reader of shapes can see, is named with the fix."""

import json
import os
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from lmgap import seals
from lmgap.errors import LmgapError
from lmgap.files import DamagedRecord
from lmgap.preflight import check_folders
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
    # A figure changed, the size and the modification time put back (touch -r): its change time tells.
    written, sealed = record.read_text(), json.loads(seals.seal_path(record).read_text())
    record.write_text(written.replace('"tokens": 12', '"tokens": 13'))
    os.utime(record, ns=(sealed["mtime_ns"], sealed["mtime_ns"]))
    assert (record.stat().st_size, record.stat().st_mtime_ns) == (sealed["bytes"], sealed["mtime_ns"])
    with pytest.raises(SystemExit):
        run(job(tmp_path, [str(record)], [str(table)]), lambda log: pytest.fail("the job read it"))
    assert "other bytes than its job wrote" in capsys.readouterr().err
    record.write_text(written)
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
        # A seal's size as text, beside a file cut short: the seal is named, not a crash on its size.
        (
            lambda path: (
                seals.seal_path(path).write_text(
                    json.dumps({**json.loads(seals.seal_path(path).read_text()), "bytes": "970"})
                ),
                path.write_text("{}"),
            ),
            r"its seal results/\.seals/dev-0\.json\.seal is damaged",
        ),
    ],
)
def test_a_file_or_its_seal_damaged_is_named(damage, why):
    record = Path("results/dev-0.json")
    write(record, RECORD)
    seals.seal([record])
    damage(record)
    with pytest.raises(DamagedRecord, match=why):
        seals.check([record])


def test_a_file_under_results_without_its_seal_is_refused_and_others_are_taken(tmp_path):
    # A folder, a file outside results/: nothing to hold them to.
    folder, tool = Path("results/model"), tmp_path / "lmplz"
    folder.mkdir()
    tool.write_text("#!/bin/sh\n")
    seals.seal([folder, tool])
    seals.check([folder, tool])
    assert not seals.seal_path(folder).exists() and seals.seal_path(tool) is None
    # A record whose seal was deleted, or that was written by hand: not known to be its job's.
    record = Path("results/dev-0.json")
    write(record, RECORD)
    seals.seal([record])
    seals.seal_path(record).unlink()
    with pytest.raises(DamagedRecord, match=r"it has no seal at results/\.seals/dev-0\.json\.seal"):
        seals.check([record])
    # (Taken where asked: a staged table of a run of earlier code, which its job writes again before it is used.)
    seals.check([record], unsealed=True)
    # Their whole folder deleted, each is refused still, all of a job's inputs in one message.
    other = Path("results/test-A.json")
    write(other, RECORD)
    shutil.rmtree("results/.seals")
    with pytest.raises(LmgapError) as err:
        seals.check([record, other])
    assert [line.split(" is damaged (it has no seal")[0] for line in str(err.value).splitlines()] == [
        str(record),
        str(other),
    ]


def test_a_job_removes_the_seals_of_what_it_will_write(tmp_path):
    # Killed after writing its output, before sealing it: no earlier run's seal stands beside what it wrote
    # (Snakemake runs an incomplete job again).
    record = Path("results/dev-0.json")
    write(record, RECORD)
    seals.seal([record])

    def killed(log):
        write(record, {**RECORD, "split": "test-A"})
        raise KeyboardInterrupt

    with pytest.raises(SystemExit):
        run(job(tmp_path, [], [str(record)]), killed)
    assert not seals.seal_path(record).exists()


def test_a_benchmark_file_is_sealed_by_its_first_reader_and_its_seal_left_pending_by_the_job_it_times(tmp_path, capsys):
    # Snakemake writes it as its job ends, so no job writes its seal: the job leaves a pending one, and the
    # first job that reads the file seals it.
    benchmark, table = Path("results/benchmarks/query/o3/dev-0.tsv"), Path("results/table.tsv")
    query = SimpleNamespace(log=["logs/query/o3/dev-0.log"], rule="query", input=[], output=[], bench_iteration=0)
    Path("logs/query/o3").mkdir(parents=True)
    run(query, lambda log: None)
    benchmark.parent.mkdir(parents=True)
    benchmark.write_text("s\tmax_rss\n0.18\t12.5\n")
    run(job(tmp_path, [str(benchmark)], [str(table)]), lambda log: table.write_text("read\n"))
    assert json.loads(seals.seal_path(benchmark).read_text())["bytes"] == benchmark.stat().st_size
    # A timing changed by hand since is refused, as any record is.
    benchmark.write_text("s\tmax_rss\n9.99\t12.5\n")
    with pytest.raises(SystemExit):
        run(job(tmp_path, [str(benchmark)], [str(table)]), lambda log: pytest.fail("the job read it"))
    assert f"{benchmark} is damaged (other bytes than its job wrote" in capsys.readouterr().err
    # So is one whose seal was removed by hand.
    seals.seal_path(benchmark).unlink()
    with pytest.raises(SystemExit):
        run(job(tmp_path, [str(benchmark)], [str(table)]), lambda log: pytest.fail("the job read it"))
    assert f"{benchmark} is damaged (it has no seal at" in capsys.readouterr().err
    # The job it times, run again, leaves its seal pending: Snakemake's new timing is taken.
    run(query, lambda log: benchmark.write_text("s\tmax_rss\n0.21\t12.5\n"))
    run(job(tmp_path, [str(benchmark)], [str(table)]), lambda log: table.write_text("read\n"))
    # A job without a benchmark leaves no seal of one.
    vocabulary = SimpleNamespace(log=["logs/x/x.log"], rule="x", input=[], output=[], bench_iteration=None)
    Path("logs/x").mkdir()
    run(vocabulary, lambda log: None)
    assert not Path("results/.seals/benchmarks/x").exists()


def test_every_rule_names_its_benchmark_after_its_log():
    # How a job finds its benchmark file (seals.benchmark_of): logs/X.log and results/benchmarks/X.tsv.
    rules = Path(__file__).parents[1] / "workflow/rules"
    # The neural rules' benchmarks, named once in common.smk for the cost table too.
    neural = dict(re.findall(r'^    "(\w+)": "(results/benchmarks/[^"]+)",$', (rules / "common.smk").read_text(), re.M))
    found = 0
    for smk in sorted(rules.glob("*.smk")):
        for block in re.split(r"\n\s*rule ", smk.read_text())[1:]:
            benchmark = re.search(r'benchmark:\s*\n\s*(?:"([^"]+)"|NEURAL_BENCHMARKS\["(\w+)"\])', block)
            if benchmark:
                log = re.search(r'log:\s*\n\s*"([^"]+)"', block).group(1)
                path = benchmark.group(1) or neural[benchmark.group(2)]
                assert str(seals.benchmark_of(log)) == path, f"{smk.name}: {log}"
                found += 1
    assert found == len(re.findall(r"^\s*benchmark:", "".join(p.read_text() for p in rules.glob("*.smk")), re.M))
    assert found >= 14


def test_results_without_their_seals_folder_are_warned_of_with_the_one_round_fix():
    record = Path("results/corpus/fetched.json")
    assert seals.gone_warning(record) is None
    record.parent.mkdir()
    write(record, RECORD)
    seals.seal([record])
    assert seals.gone_warning(record) is None
    shutil.rmtree(seals.SEALS)
    said = seals.gone_warning(record)
    assert "results/.seals/ is gone while results/ holds results (results/corpus/fetched.json among them)" in said
    assert said.endswith("run with --forceall to write them all anew")


def test_files_whose_size_is_not_their_seal_s_are_found_without_a_read():
    text = json.dumps(RECORD) + "\n"
    records = {
        name: Path(f"results/eval/{name}.json") for name in ("cut", "emptied", "grown", "same size", "again", "folder")
    }
    records["cut"].parent.mkdir()
    for path in records.values():
        path.write_text(text)
    seals.seal(records.values())
    # The seals older than the edits, as any hand edit after a run is.
    for name, changed in (("cut", text[:9]), ("emptied", ""), ("grown", text + "{}\n"), ("same size", text.upper())):
        records[name].write_text(changed)
        os.utime(seals.seal_path(records[name]), ns=(0, 0))
    # One older than its seal: written by its job, which sealed it (the size is not read).
    records["again"].write_text("")
    os.utime(records["again"], ns=(0, 0))
    # A benchmark file its job is writing: its seal pending.
    pending = Path("results/benchmarks/query/o3/dev-0.tsv")
    pending.parent.mkdir(parents=True)
    seals.await_benchmark(pending)
    pending.write_text("s\n1.0\n")
    # A folder in a record's place.
    records["folder"].unlink()
    records["folder"].mkdir()
    # A seal whose size is text: damaged, said where the file is read, not here (a parse must not crash on it).
    odd = Path("results/eval/odd.json")
    odd.write_text(text)
    seals.seal([odd])
    seals.seal_path(odd).write_text(json.dumps({**json.loads(seals.seal_path(odd).read_text()), "bytes": "9"}))
    odd.write_text(text[:9])
    os.utime(seals.seal_path(odd), ns=(0, 0))
    assert seals.sizes_changed() == [
        (str(records["cut"]), 9, len(text)),
        (str(records["emptied"]), 0, len(text)),
        (str(records["folder"]), None, len(text)),
        (str(records["grown"]), len(text) + 3, len(text)),
    ]
    assert seals.sizes_changed(leave_out=[Path("results/eval")]) == []


def test_a_file_made_where_a_run_made_a_folder_is_found_by_the_seals():
    model = Path("results/models/o3/model.binary")
    model.parent.mkdir(parents=True)
    model.write_bytes(b"binary")
    seals.seal([model])
    shutil.rmtree(model.parent)
    model.parent.write_text("a model folder made a file\n")
    assert Path("results/models/o3") in seals.sealed_folders()
    with pytest.raises(LmgapError, match=r"^results/models/o3 is a file where the run makes a folder: move it aside"):
        check_folders(seals.sealed_folders())
