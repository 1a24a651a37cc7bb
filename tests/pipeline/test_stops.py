"""A run stopped (SIGKILL, SIGTERM, --until) or limited to targets leaves no table missing, puts in place what
its jobs finished, and names what it left behind the files and settings they are made from."""

import os
import re
import signal
import subprocess
import sys
import time

import pytest
import yaml

from conftest import REPO, SNAKEMAKE, read_table, run_pipeline

pytestmark = pytest.mark.pipeline

KEPT = "results/tables/KEPT.md"


def test_a_run_killed_as_a_job_puts_a_table_in_place_leaves_a_whole_table_there(neural_run_copy, tmp_path):
    # Snakemake removes a job's outputs as it starts it, but not the tables' (flagged update): no stop of the
    # run, SIGKILL included, which no hook survives, leaves a table missing.
    work = neural_run_copy()
    table = work / "results/tables/comparison.tsv"
    before = table.read_bytes()
    config = yaml.safe_load((work / "config.yaml").read_text())
    (work / "config.yaml").write_text(yaml.safe_dump({**config, "comparison": {"seed": 7}}))
    output = tmp_path / "killed.log"
    with open(output, "w") as log:
        run = subprocess.Popen(
            [SNAKEMAKE, "--snakefile", str(REPO / "Snakefile"), "--cores", "2"],
            cwd=work,
            start_new_session=True,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 120
    while "localrule install_comparison_table:" not in output.read_text():
        assert run.poll() is None and time.monotonic() < deadline, output.read_text()[-3000:]
        time.sleep(0.002)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    staged = (work / "results/.staged/tables/comparison.tsv").read_bytes()
    assert staged != before and table.read_bytes() in (before, staged)
    # The lock the kill left removed (Snakemake's message names the fix), the next run puts the new one in place.
    run_pipeline(work, None, "--unlock")
    run_pipeline(work, None)
    assert table.read_bytes() == staged and not (work / KEPT).exists()


def test_a_sigterm_as_snakemake_records_a_finished_job_stops_the_run_and_keeps_the_tables(neural_run_copy):
    # Snakemake's SIGTERM handler takes the lock its main thread holds as it records a finished job: there, a
    # SIGTERM hung the run for good (lmgap.stopping); sent at that moment here, it stops the run.
    work = neural_run_copy()
    table = work / "results/tables/comparison.tsv"
    before = table.read_bytes()
    seed = ["--config", 'comparison={"seed": 7}']
    command = [SNAKEMAKE, "--snakefile", str(REPO / "Snakefile"), "--cores", "2", *seed]
    stopped = subprocess.run(
        [sys.executable, str(REPO / "tests/support/sigterm_as_recorded.py"), *command],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = stopped.stdout + stopped.stderr
    assert stopped.returncode != 0 and "Will exit after finishing currently running jobs" in said, said[-3000:]
    # The table job, if it was running, finished: its tables were put in place; else they are kept. Named either way.
    assert re.search(r"comparison\.tsv: (put in place from the copies their job staged|kept from an earlier run)", said)
    assert table.read_bytes() in (before, (work / "results/.staged/tables/comparison.tsv").read_bytes())
    run_pipeline(work, None, *seed)
    assert table.read_bytes() != before and not (work / KEPT).exists()


def test_tables_whose_new_copy_a_run_staged_and_never_put_in_place_are_put_in_place(neural_run_copy):
    # The run ends (here at --until, as a stopped run does) after the table job, before its install job: the
    # new copy, whole and sealed, is put in place by the run's end, and the run says so.
    work = neural_run_copy()
    table = work / "results/tables/comparison.tsv"
    before = table.read_bytes()
    done = run_pipeline(work, None, "--until", "comparison_table", "--config", 'comparison={"seed": 7}')
    assert done.jobs.get("comparison_table") == 1 and "install_comparison_table" not in done.jobs
    staged = (work / "results/.staged/tables/comparison.tsv").read_bytes()
    assert table.read_bytes() == staged != before and not (work / KEPT).exists()
    said = done.stdout + done.stderr
    assert "results/tables/comparison.md, results/tables/comparison.tsv: put in place from the copies" in said, said
    # The copy Snakemake puts back when an install job is stopped (the job removed its seal as it began), where
    # its record calls the job done and no hook ran: every parse names it, with the option that puts it in place.
    seed = ["--config", 'comparison={"seed": 7}']
    run_pipeline(work, None, *seed)
    table.write_bytes(before)
    (work / "results/.seals/tables/comparison.tsv.seal").unlink()
    done = run_pipeline(work, None, *seed)
    assert not done.jobs and "results/tables/comparison.tsv: a newer copy their job made is staged" in done.stderr
    assert "given --forcerun install_comparison_table" in done.stderr and table.read_bytes() == before
    run_pipeline(work, None, "--forcerun", "install_comparison_table", *seed)
    assert table.read_bytes() == staged


def test_a_run_until_a_table_job_ends_with_its_table_in_place_and_no_word_of_another_configuration(
    neural_run_copy,
):
    # More orders: the table's rows change. Its new copy, staged, is put in place before the table is checked.
    work = neural_run_copy()
    done = run_pipeline(work, None, "--until", "perplexity_table", "--config", "orders=[2,3]")
    assert done.jobs.get("perplexity_table") == 1 and "install_perplexity_table" not in done.jobs
    assert {"o2", "o3"} <= {row["model"] for row in read_table(work)}
    assert "holds the rows of another configuration" not in done.stderr, done.stderr[-3000:]


def test_a_run_limited_to_targets_names_the_tables_it_left_behind_their_inputs(neural_run_copy):
    # Settings changed, then the submission made: the gap jobs it needs run again, and the gap table, which reads
    # what they wrote, stays the earlier setting's, its rows the same; the comparison table, whose seed only it
    # reads, stays the earlier seed's, none of its files changed (the seals of its staged copies keep the digest
    # of its params).
    work = neural_run_copy()
    before = (work / "results/tables/gap.tsv").read_bytes()
    changed = ["--config", 'gap={"top_k": 50}', 'comparison={"seed": 7}']
    done = run_pipeline(work, None, "results/submission/dev-0/out.tsv", *changed)
    assert done.jobs.get("install_gap_submission") == 1 and "gap_table" not in done.jobs
    assert (work / "results/tables/gap.tsv").read_bytes() == before
    said = next(line for line in done.stderr.splitlines() if "an earlier run's, behind" in line)
    assert "results/tables/comparison.md, results/tables/comparison.tsv, results/tables/gap.md, " in said
    # (Not the submission, the target, made with the config's settings.)
    assert "results/submission" not in said
    assert "run the pipeline without targets to bring them up to date" in said
    # A target short of the submission (a member's predictions), after a change of settings the blend's members
    # are made with: the submission is of other settings.
    changed = ["--config", 'gap={"top_k": 40}', 'comparison={"seed": 7}']
    done = run_pipeline(work, None, "results/gap/both/o3/dev-0/out.tsv", *changed)
    said = next(line for line in done.stderr.splitlines() if "an earlier run's, behind" in line)
    assert "results/submission/dev-0/out.tsv, results/submission/gonito.yaml" in said
    # The whole pipeline brings them up to date, and says nothing of the kind.
    again = run_pipeline(work, None, *changed)
    assert again.jobs.get("gap_table") == 1 and "limited to its targets" not in again.stderr


def test_a_staged_copy_a_killed_job_left_unsealed_stops_no_run_that_makes_it_again(neural_run_copy):
    # A table job killed after writing a file and before sealing it (the last thing a job does) leaves it
    # unsealed. A run that makes it again does not refuse it; one that would install it as it is does.
    work = neural_run_copy()
    for table in ("gap.tsv", "comparison.tsv"):
        (work / f"results/.seals/.staged/tables/{table}.seal").unlink()
    refused = run_pipeline(work, None, "--forcerun", "gap_table", check=False)
    said = refused.stdout + refused.stderr
    assert refused.returncode and not refused.jobs, said[-3000:]
    assert "results/.staged/tables/comparison.tsv is damaged (it has no seal" in said
    assert "results/.staged/tables/gap.tsv is damaged" not in said
    # Its fix, followed: both are written again and put in place.
    (work / "results/.staged/tables/comparison.tsv").unlink()
    done = run_pipeline(work, None, "--forcerun", "gap_table")
    assert done.jobs["gap_table"] == done.jobs["comparison_table"] == 1 and not (work / KEPT).exists()
    # No job failed: the table is said to be kept as its staged copy is gone, not as a job failed.
    assert "comparison.tsv: an earlier run's, kept since their staged copies under results/.staged/ are gone" in (
        done.stderr
    )


def test_a_deleted_split_fingerprint_hides_no_changed_setting(neural_run_copy):
    # A job whose inputs wait on the split_fingerprint checkpoint is held to its outputs alone: with the
    # checkpoint's output deleted, a changed setting downstream ran nothing, silently ("Nothing to be done").
    work = neural_run_copy()
    table = work / "results/tables/comparison.tsv"
    before = table.read_bytes()
    (work / "results/corpus/splits/dev-0.json").unlink()
    done = run_pipeline(work, None, "--config", 'comparison={"seed": 7}')
    assert done.jobs.get("comparison_table") == 1 and (work / "results/corpus/splits/dev-0.json").is_file()
    assert table.read_bytes() != before
