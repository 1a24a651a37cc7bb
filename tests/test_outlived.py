"""A job that outlives its run keeps its outputs, in the forms Snakemake itself reads: its
benchmark record, and its outputs' marks and records cleared."""

import re
import subprocess
import sys
import time
from types import SimpleNamespace

import psutil
from snakemake.benchmark import BenchmarkRecord
from snakemake.persistence.file import FilePersistence

from conftest import REPO
from lmgap.outlived import clear_records, keep_if_orphaned, orphaned, record_benchmark
from lmgap.report.cost import read_benchmark
from lmgap.scriptio import BENCHMARKS


def snakemake_record(folder, output):
    """The file Snakemake's own code writes in folder for an output."""
    folder.mkdir(parents=True, exist_ok=True)
    persistence = object.__new__(FilePersistence)
    persistence._max_len = None
    path = persistence._record_path(str(folder), output)
    record = folder / path[len(str(folder)) + 1 :]
    record.parent.mkdir(parents=True, exist_ok=True)
    record.write_text("{}")
    return record


def test_the_job_clears_the_records_of_its_own_outputs_only(tmp_path):
    folder = tmp_path / "incomplete"
    # A path long enough that Snakemake splits its record's name into folders.
    long_output = "results/models/" + "o5-prune0.0.1" * 20 + "/model.binary"
    ours = [snakemake_record(folder, path) for path in ("results/models/o3/model.binary", long_output)]
    assert len(ours[1].relative_to(folder).parts) > 1
    other = snakemake_record(folder, "results/models/o4/model.binary")
    clear_records(["results/models/o3/model.binary", long_output, "results/eval/o3/dev-0.json"], folder)
    assert not any(record.exists() for record in ours)
    assert other.exists()
    clear_records(["results/models/o3/model.binary"], tmp_path / "no-such-folder")


def test_a_job_is_orphaned_only_without_a_snakemake_process_above_it():
    ask = [sys.executable, "-c", "from lmgap.outlived import orphaned; print(orphaned())"]
    assert orphaned()
    # Under a process that runs as `snakemake`, as a job under its main process or a cluster job's.
    under = subprocess.run(["bash", "-c", f'exec -a snakemake {sys.executable} -c "import subprocess, sys; '
                            f'sys.exit(subprocess.run({ask!r}).returncode)"'], capture_output=True, text=True)
    assert under.stdout == "False\n", under.stderr
    # Under a shell whose command line holds `.snakemake/`: not a Snakemake process.
    shell = subprocess.run(["bash", "-c", f"{' '.join(ask[:2])} '{ask[2]}'; true # .snakemake/scripts/tmp.train.py"],
                           capture_output=True, text=True)
    assert shell.stdout == "True\n", shell.stderr


def test_a_job_s_own_benchmark_record_reads_as_snakemake_s(tmp_path):
    path = tmp_path / "results/benchmarks/train/o3.tsv"
    record_benchmark(str(path))
    alive = time.time() - psutil.Process().create_time()
    figures = read_benchmark(path)
    assert abs(figures["s"] - alive) < 1 and figures["rss"] > 1 and figures["cpu"] > 0
    assert path.read_text().split("\n")[0].split("\t") == BenchmarkRecord.get_header()


def test_every_timed_rule_names_its_own_benchmark_file_from_the_one_table():
    for rules in (REPO / "workflow/rules").glob("*.smk"):
        for rule, body in re.findall(r"^\s*(?:rule|checkpoint) (\w+):\n(.*?)(?=^\s*(?:rule|checkpoint) |\Z)",
                                     rules.read_text(), re.M | re.S):
            declared = re.search(r"benchmark:\n\s+(.+)", body)
            if declared:
                assert declared.group(1) == f'BENCHMARKS["{rule}"]', f"{rules.name}: rule {rule}"
                assert BENCHMARKS[rule].startswith(f"results/benchmarks/{rule}/")


def test_an_orphaned_job_writes_its_benchmark_and_drops_its_outputs_marks_and_old_records(tmp_path):
    records = tmp_path / ".snakemake"
    outputs = ["results/models/o3/model.binary", "results/models/o3/usage.json"]
    marks = [snakemake_record(records / "incomplete", path) for path in outputs]
    # An earlier run's record would describe that run's settings, not this job's.
    old = [snakemake_record(records / "metadata", path) for path in outputs]
    job = SimpleNamespace(output=outputs, wildcards={"model": "o3"})
    benchmark = str(tmp_path / "results/benchmarks/train/{model}.tsv")
    with open(tmp_path / "train.log", "w") as log:
        keep_if_orphaned(job, benchmark, log, records)
    assert not any(path.exists() for path in marks + old)
    assert read_benchmark(tmp_path / "results/benchmarks/train/o3.tsv")["s"] > 0
    assert "outputs are marked complete" in (tmp_path / "train.log").read_text()
