"""A failed table job costs no finished table: the tables and plots of the last run that wrote them
stay in place, byte for byte, are named as an earlier run's (KEPT.md beside them, the run's closing
warning, the report), and once the cause is gone the next run writes them fresh."""

from pathlib import Path

import pytest

from conftest import run_pipeline

pytestmark = pytest.mark.pipeline

TABLES = ("perplexity", "cost", "comparison", "decades", "hardest", "gap")
KEPT = Path("results/tables/KEPT.md")


def written(work):
    """{file: bytes} of every table and plot."""
    return {
        path.relative_to(work): path.read_bytes()
        for folder in ("results/tables", "results/plots")
        for path in sorted((work / folder).iterdir())
        if path.is_file()
    }


def test_a_failed_table_job_keeps_its_tables_names_them_and_the_next_run_writes_them(neural_run_copy):
    work = neural_run_copy()
    before = written(work)
    assert {Path(f"results/tables/{name}.{kind}") for name in TABLES for kind in ("tsv", "md")} <= set(before)
    # A score record that reads as JSON and is no record: the tables that read it fail.
    record = work / "results/eval/o3/dev-0.json"
    good = record.read_bytes()
    record.write_text("{}\n")
    failed = run_pipeline(work, None, check=False)
    said = failed.stdout + failed.stderr
    assert failed.returncode and "Error in rule perplexity_table" in said
    after = written(work)
    assert set(after) - set(before) == {KEPT} and {path: after[path] for path in before} == before
    warning = next(line for line in said.splitlines() if "kept from an earlier run" in line)
    for name in ("perplexity.tsv", "perplexity.md", "cost.tsv", "cost.md"):
        assert f"- results/tables/{name}\n" in after[KEPT].decode() and f"results/tables/{name}" in warning, name
    # The report names them too, and shows them.
    report = run_pipeline(work, None, "--report", "report.html")
    html = (work / "report.html").read_text()
    assert "Report created" in report.stderr and "Kept from an earlier run" in html and "perplexity.tsv" in html
    # The cause gone, the next run writes them again, and nothing is kept.
    record.write_bytes(good)
    run_pipeline(work, None)
    again = written(work)
    assert KEPT not in again
    for name in TABLES:
        if name != "cost":  # (its timings vary)
            assert again[Path(f"results/tables/{name}.tsv")] == before[Path(f"results/tables/{name}.tsv")], name
