"""A job's word that its outputs are complete, and its own benchmark record, in the forms
Snakemake itself reads."""

import re
import subprocess

from snakemake.persistence.file import FilePersistence

from conftest import REPO
from lmgap.report.cost import read_benchmark
from lmgap.scriptio import clear_incomplete_marks, record_benchmark


def snakemake_mark(folder, output):
    """The mark Snakemake's own code writes for an output it starts to make."""
    persistence = object.__new__(FilePersistence)
    persistence._max_len = None
    mark = persistence._record_path(str(folder), output)
    mark_path = folder / mark[len(str(folder)) + 1 :]
    mark_path.parent.mkdir(parents=True, exist_ok=True)
    mark_path.write_text("{}")
    return mark_path


def test_the_job_clears_the_marks_of_its_own_outputs_only(tmp_path):
    folder = tmp_path / "incomplete"
    folder.mkdir()
    # A path long enough that Snakemake splits its mark's name into folders.
    long_output = "results/models/" + "o5-prune0.0.1" * 20 + "/model.binary"
    ours = [snakemake_mark(folder, path) for path in ("results/models/o3/model.binary", long_output)]
    assert len(ours[1].relative_to(folder).parts) > 1
    other = snakemake_mark(folder, "results/models/o4/model.binary")
    clear_incomplete_marks(["results/models/o3/model.binary", long_output, "results/eval/o3/dev-0.json"], folder)
    assert not any(mark.exists() for mark in ours)
    assert other.exists()


def test_no_marks_folder_is_no_error(tmp_path):
    clear_incomplete_marks(["results/models/o3/model.binary"], tmp_path / "incomplete")
    assert not (tmp_path / "incomplete").exists()


def test_every_timed_rule_names_its_benchmark_file_from_the_one_table():
    # A job records its benchmark only where BENCHMARKS names the file.
    for rules in (REPO / "workflow/rules").glob("*.smk"):
        for declared in re.findall(r"benchmark:\n\s+(.+)", rules.read_text()):
            assert re.fullmatch(r'BENCHMARKS\["([a-z_]+)"\]', declared), f"{rules.name}: {declared}"


def test_a_job_s_own_benchmark_record_reads_as_snakemake_s(tmp_path):
    path = tmp_path / "results/benchmarks/train/o3.tsv"
    subprocess.run(["sleep", "0.2"], check=True)
    record_benchmark(str(path))
    figures = read_benchmark(path)
    assert figures["s"] > 0.2 and figures["rss"] > 1 and figures["cpu"] >= 0
    assert path.read_text().split("\n")[0] == "\t".join(
        ["s", "h:m:s", "max_rss", "max_vms", "max_uss", "max_pss", "io_in", "io_out", "mean_load", "cpu_time"]
    )
