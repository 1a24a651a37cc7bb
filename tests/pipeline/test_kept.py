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
    # A run given one of them as its target has nothing to do and runs no hook: its parse names them.
    target = run_pipeline(work, None, "results/tables/perplexity.tsv")
    assert "an earlier run's, kept (listed in results/tables/KEPT.md)" in target.stderr and not target.jobs
    # The report names them too, and shows them.
    report = run_pipeline(work, None, "--report", "report.html")
    html = (work / "report.html").read_text()
    assert "Report created" in report.stderr and "Kept from an earlier run" in html and "perplexity.tsv" in html
    assert "Behind the config" not in html
    # The cause gone, the next run writes them again, and nothing is kept.
    record.write_bytes(good)
    run_pipeline(work, None)
    again = written(work)
    assert KEPT not in again
    for name in TABLES:
        if name != "cost":  # (its timings vary)
            assert again[Path(f"results/tables/{name}.tsv")] == before[Path(f"results/tables/{name}.tsv")], name
    # A report made after a setting changed, before the run that follows: its results are the earlier settings'.
    run_pipeline(work, None, "--report", "report.html", "--config", 'comparison={"seed": 7}')
    html = (work / "report.html").read_text()
    assert "Behind the config.</strong>" in html and '(<tt class=\\"docutils literal\\">comparison.seed</tt>)' in html


def test_a_kept_table_whose_fix_deletes_a_record_of_an_up_to_date_job_is_written_again(neural_run_copy):
    # The training's benchmark, damaged: the cost table's job fails. Its fix deletes the file, which
    # only the cost table reads besides the training that wrote it: the next run must train again for
    # it, though every installed table and model is in place.
    work = neural_run_copy()
    benchmark = work / "results/benchmarks/train/o3.tsv"
    benchmark.write_text("")
    failed = run_pipeline(work, None, check=False)
    assert failed.returncode and f"{benchmark.relative_to(work)} is damaged" in failed.stdout + failed.stderr
    assert "- results/tables/cost.tsv\n" in (work / KEPT).read_text()
    benchmark.unlink()
    done = run_pipeline(work, None)
    assert done.jobs["train"] == 1 and done.jobs["cost_table"] == 1 and done.jobs["install_cost_table"] == 1
    assert benchmark.stat().st_size and not (work / KEPT).exists()


def test_a_table_changed_by_hand_is_named_in_every_parse_and_the_report_and_deleting_it_restores_it(neural_run_copy):
    # Snakemake sees a table newer than its inputs as up to date: nothing to do, and no hook runs.
    work = neural_run_copy()
    table = work / "results/tables/perplexity.tsv"
    good = table.read_bytes()
    table.write_bytes(good + b"o9\t(a row of my own)\n")
    # (Said by the parse, which a dry run shares with a run.)
    said = run_pipeline(work, None, "--dry-run")
    said = said.stdout + said.stderr
    assert "Nothing to be done" in said
    assert "results/tables/perplexity.tsv: changed since the run that wrote it (by hand?)" in said
    run_pipeline(work, None, "--report", "report.html")
    assert "Changed since the run wrote them" in (work / "report.html").read_text()
    # The fix the warning gives: delete it and run; the run's copy comes back, and nothing is recomputed.
    table.unlink()
    done = run_pipeline(work, None)
    assert table.read_bytes() == good and set(done.jobs) <= {"install_perplexity_table", "all"}
    assert "changed since" not in done.stdout + done.stderr
    # Edited again, and a run that writes the table anew: the user's copy is kept, and said where.
    table.write_bytes(good + b"o9\t(a row of my own)\n")
    done = run_pipeline(work, None, "--forcerun", "perplexity_table")
    assert table.read_bytes() == good
    assert (work / "results/edited/tables/perplexity.tsv").read_bytes() == good + b"o9\t(a row of my own)\n"
    assert "and yours is kept as results/edited/tables/perplexity.tsv" in done.stderr


def test_tables_whose_job_never_started_a_job_before_it_having_failed_are_kept_and_named(neural_run_copy):
    # A member's per-line scores cut short: the blend is due again and fails on them, so gap_table, which
    # waits for the blend's weights, never starts, and its staged copy stays the earlier run's.
    work = neural_run_copy()
    before = written(work)
    lines = work / "results/gap/metrics/both/o3/dev-0.lines.tsv"
    lines.write_bytes(lines.read_bytes()[:-1])
    failed = run_pipeline(work, None, check=False)
    said = failed.stdout + failed.stderr
    assert failed.returncode and "Error in rule gap_blend" in said and "gap_table" not in failed.jobs
    after = written(work)
    assert {path: after[path] for path in before} == before
    assert "\n- results/tables/gap.md\n- results/tables/gap.tsv\n" in after[KEPT].decode()
    # Its staged copy, the earlier run's, is gone: the table stays kept, and its job due, until the job has run,
    # whatever else the next run finds due.
    assert not (work / "results/.staged/tables/gap.tsv").exists()
    assert "results/tables/gap.md, results/tables/gap.tsv: kept from an earlier run" in said
    run_pipeline(work, None, "--report", "report.html")
    html = (work / "report.html").read_text()
    assert "Kept from an earlier run" in html and "results/tables/gap.tsv" in html
    # The fix its error gives (delete the damaged file), and the next run writes them, keeping none.
    lines.unlink()
    done = run_pipeline(work, None)
    assert done.jobs["gap_table"] == 1 and not (work / KEPT).exists()
    assert written(work)[Path("results/tables/gap.tsv")] == before[Path("results/tables/gap.tsv")]


def test_a_failed_submission_job_keeps_the_submission_and_names_it(neural_run_copy):
    # The submission's gonito.yaml is made from the provenance record: an empty one fails that job alone.
    work = neural_run_copy()
    submission = work / "results/submission"
    before = {path: path.read_bytes() for path in sorted(submission.rglob("*")) if path.is_file()}
    assert len(before) == 3
    record = work / "results/provenance.json"
    record.write_text("")
    failed = run_pipeline(work, None, check=False)
    said = failed.stdout + failed.stderr
    assert failed.returncode and "Error in rule gap_submission" in said and "provenance.json is damaged" in said
    assert {path: path.read_bytes() for path in before} == before
    assert "- results/submission/gonito.yaml\n" in (work / KEPT).read_text()
    assert "results/submission/dev-0/out.tsv, results/submission/gonito.yaml" in said
    record.unlink()
    run_pipeline(work, None)
    out = submission / "dev-0/out.tsv"
    assert not (work / KEPT).exists() and out.read_bytes() == before[out] and (submission / "gonito.yaml").is_file()


def test_a_staged_copy_changed_by_hand_is_refused_before_any_job_and_the_tables_stay(neural_run_copy):
    # Its install job would fail on it: refused before any job, with whatever else the run would meet.
    work = neural_run_copy()
    before = written(work)
    staged = work / "results/.staged/tables/perplexity.tsv"
    staged.write_text(staged.read_text().replace("\t3\t", "\t4\t", 1))
    failed = run_pipeline(work, None, check=False)
    said = failed.stdout + failed.stderr
    assert failed.returncode and not failed.jobs and "Traceback" not in said, said[-3000:]
    assert "results/.staged/tables/perplexity.tsv is damaged (other bytes than its job wrote, as many" in said
    assert written(work) == before
    # Its fix followed: the table job writes it again, and the table in place is the run's.
    staged.unlink()
    run_pipeline(work, None)
    assert written(work)[Path("results/tables/perplexity.tsv")] == before[Path("results/tables/perplexity.tsv")]
    # The same with its seal deleted too: refused as well, and nothing put in its place's stead.
    (work / "results/.seals/.staged/tables/perplexity.tsv.seal").unlink()
    staged.write_text(staged.read_text().replace("\t3\t", "\t4\t", 1))
    failed = run_pipeline(work, None, check=False)
    said = failed.stdout + failed.stderr
    assert failed.returncode and not failed.jobs and "perplexity.tsv is damaged (it has no seal at" in said
    assert written(work)[Path("results/tables/perplexity.tsv")] == before[Path("results/tables/perplexity.tsv")]
