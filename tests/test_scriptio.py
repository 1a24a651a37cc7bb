"""What the user is told of a job or a run: a damaged record of ours named with its fix, an
interrupt as an interrupt, not a crash, and a table an earlier configuration left as such."""

import base64
import errno
import json
import os
import shutil
import re
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from lmgap import seals
from lmgap.errors import LmgapError
from lmgap.files import DamagedRecord, read_json
from lmgap.report.cost import read_benchmark
from lmgap.report.scores import read_scores
from lmgap.neural.settings import saved_config
from lmgap.preflight import (
    behind_inputs,
    behind_settings,
    check_dates,
    earlier_train_split,
    check_folders,
    check_report_folder,
    check_texts_unchanged,
    compare_installed,
    damaged_warnings,
    folders_in_place,
    given_touch,
    install_staged,
    keep_edited,
    killed_warning,
    not_placed_warning,
    note_unseen,
    planned_jobs,
    rerun_triggers_warning,
    edited_warning,
    other_models_warning,
    unfinished_rules,
    train_split_warning,
    until_warning,
    unseen_changes,
)
from lmgap.atomic import atomic_path
from lmgap.corpus.textrecord import write_text_record
from lmgap.scriptio import full_disk, run


def job(tmp_path):
    return SimpleNamespace(log=[str(tmp_path / "job.log")], rule="perplexity_table", input=[], output=[])


def test_a_damaged_record_is_named_with_the_fix_in_one_line(tmp_path, capsys):
    record = tmp_path / "ngram_counts.json"
    record.write_text('{"orders": [1, 2')
    with pytest.raises(DamagedRecord, match=r"ngram_counts.json is damaged \(.*\): delete it, and run the pipeline"):
        read_json(record)
    # Still a ValueError, as json's own error is, for the readers that take a damaged record as none.
    with pytest.raises(ValueError):
        read_json(record)
    with pytest.raises(SystemExit) as stopped:
        run(job(tmp_path), lambda log: read_json(record))
    said = capsys.readouterr().err
    assert stopped.value.code == 1
    assert f"lmgap error in rule perplexity_table: {record} is damaged" in said and "Traceback" not in said


BENCHMARK = (
    "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    "3.44\t0:00:03\t143.09\t1\t1\t1\t0\t0\t36\t1.25\n"
)
SCORES = (
    "line\ttokens\toovs\tlog10_prob\tlog10_prob_oov\tperplexity_including_oovs\tperplexity_excluding_oovs\n"
    "1\t5\t1\t-9.0\t-2.0\t63.1\t34.5\n"
)


@pytest.mark.parametrize(
    "text, why",
    [
        ("", "empty, or its last line cut short"),
        (BENCHMARK[:-9], "empty, or its last line cut short"),
        (BENCHMARK.split("\n")[0] + "\n", "it has no rows"),
        (BENCHMARK.replace("3.44", "3.4x"), "row 1's s is '3.4x', not a number"),
        (BENCHMARK.replace("\t1.25", ""), "row 1 has 9 fields where its header has 10"),
    ],
)
def test_a_damaged_benchmark_is_named_with_the_fix(tmp_path, text, why):
    path = tmp_path / "o3.tsv"
    path.write_text(BENCHMARK)
    assert read_benchmark(path) == {"s": 3.44, "cpu": 1.25, "rss": 143.09}
    path.write_text(text)
    with pytest.raises(DamagedRecord, match=rf"o3.tsv is damaged \({why}.*\): delete it, and run the pipeline again"):
        read_benchmark(path)


@pytest.mark.parametrize(
    "text",
    ["", SCORES[:-5], SCORES.split("\n")[0] + "\n", SCORES.replace("\t34.5", "\t"), SCORES.replace("1\t5", "1.5\t5")],
)
def test_damaged_document_scores_are_named_with_the_fix(tmp_path, text):
    path = tmp_path / "dev-0.documents.tsv"
    path.write_text(SCORES)
    assert read_scores(path)["tokens"].tolist() == [5]
    path.write_text(text)
    with pytest.raises(DamagedRecord, match=r"dev-0.documents.tsv is damaged \(.+\): delete it"):
        read_scores(path)


def test_an_interrupt_stops_the_job_without_a_traceback(tmp_path, capsys):
    def interrupted(log):
        raise KeyboardInterrupt

    with pytest.raises(SystemExit) as stopped:
        run(job(tmp_path), interrupted)
    assert stopped.value.code == 130
    assert capsys.readouterr().err == ""
    assert (tmp_path / "job.log").read_text().strip() == "Interrupted."


def test_a_table_of_other_models_than_the_config_s_is_named(tmp_path):
    table = tmp_path / "perplexity.tsv"
    table.write_text("model\tsplit\no3-frac0.0001\tdev-0\n")
    assert other_models_warning(table, ["o3", "o4"]) == (
        f"{table} holds the rows of another configuration (o3-frac0.0001), not this one's (o3, o4): this run "
        "did not write it again; see what stopped it"
    )
    assert other_models_warning(table, ["o3-frac0.0001"]) is None
    assert other_models_warning(tmp_path / "none.tsv", ["o3"]) is None


def test_a_damaged_config_json_of_the_user_s_model_is_not_called_ours_to_delete(tmp_path):
    (tmp_path / "config.json").write_text('{"n_positions": 10')
    with pytest.raises(LmgapError, match=r"config.json is not valid JSON \(.*\): save the model again") as err:
        saved_config(tmp_path)
    assert "delete" not in str(err.value)


def test_a_result_changed_after_it_was_put_in_place_is_told_from_one_not_yet_put_in_place(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    staged, installed = Path("results/.staged/tables/table.tsv"), Path("results/tables/table.tsv")
    for path in (staged, installed):
        path.parent.mkdir(parents=True)
        path.write_text("a\t1\n")
    seals.seal([staged, installed])
    assert compare_installed({installed: staged}) == ([], [])
    # Changed since its install job sealed it: by hand.
    installed.write_text("a\t2\n")
    assert compare_installed({installed: staged}) == ([str(installed)], [])
    assert edited_warning([str(installed)]).startswith(f"{installed}: changed since the run that wrote it")
    # As its install job wrote it, a newer copy staged since: one its install job has yet to put in place.
    seals.seal([installed])
    assert compare_installed({installed: staged}) == ([], [str(installed)])
    # Without a seal: the earlier copy Snakemake put back when the install job failed, or was stopped.
    seals.unseal([installed])
    assert compare_installed({installed: staged}) == ([], [str(installed)])
    # Put in place, as its install job would (Snakemake's record of a job stopped may call it done).
    assert install_staged({installed: staged}) == ([str(installed)], {})
    assert installed.read_text() == "a\t1\n" and not seals.fault(installed)
    # Never an edited one, nor a staged copy changed since its job wrote it: that one is not called a copy to put in
    # place either (onstart refuses it, naming it).
    installed.write_text("a\t3\n")
    staged.write_text("a\t4\n")
    assert install_staged({installed: staged}) == ([], {}) and installed.read_text() == "a\t3\n"
    seals.seal([installed])
    assert compare_installed({installed: staged}) == ([], [])
    # Nothing to compare with: none.
    assert compare_installed({installed: Path("gone.tsv"), Path("gone.md"): staged}) == ([], [])
    assert edited_warning([]) is None


def test_a_copy_that_cannot_be_put_in_place_is_named_and_left_due(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    staged, installed = Path("results/.staged/tables/table.tsv"), Path("results/tables/table.tsv")
    for path, text in ((staged, "a\t1\n"), (installed, "a\t0\n")):
        path.parent.mkdir(parents=True)
        path.write_text(text)
    seals.seal([staged])

    def full(source, target):
        raise OSError(errno.ENOSPC, "No space left on device", str(source), None, str(target))

    monkeypatch.setattr(shutil, "copyfile", full)
    placed, failed = install_staged({installed: staged})
    assert placed == [] and list(failed) == [str(installed)] and installed.read_text() == "a\t0\n"
    assert not list(installed.parent.glob(".*"))
    said = not_placed_warning(failed, ["install_table"])
    assert said.startswith(f"{installed}: an earlier run's, kept; the newer copy their job staged could not be put")
    assert f"(No space left on device, in {installed.parent.resolve()})" in said
    assert said.endswith("free space on that disk, then run the same command again with --forcerun install_table")
    assert not_placed_warning({}, []) is None


def test_a_full_disk_names_the_folder_written_not_the_one_read(tmp_path):
    err = OSError(errno.ENOSPC, "No space left on device", "results/.staged/t.tsv", None, "results/tables/.t.tsv.tmp")
    said = full_disk(err, ["results/tables/t.tsv"], "install_t")
    assert said.startswith(f"no space left writing in {Path('results/tables').resolve()} (No space left on device)")
    assert said.endswith("run the same command again with --forcerun install_t (what finished is kept)")
    one = OSError(errno.ENOSPC, "No space left on device", "results/eval/o3/x.json")
    assert full_disk(one, []).startswith(f"no space left writing in {Path('results/eval/o3').resolve()} ")
    assert f"writing in {Path('out').resolve()} " in full_disk(OSError(errno.ENOSPC, "full"), ["out/a.tsv"])


def test_a_run_s_log_gives_the_rules_of_the_jobs_it_planned_and_did_not_finish(tmp_path):
    # As Snakemake 9 writes them: a "Job stats" table, and a line per finished job.
    log = tmp_path / "run.snakemake.log"
    log.write_text(
        "Building DAG of jobs...\nJob stats:\njob                  count\n-----------------  -------\n"
        "gap_logprobs             2\ngap_table                1\ninstall_gap_table        1\n"
        "all                      1\ntotal                    5\n\nSelect jobs to execute...\n"
        "Finished jobid: 7 (Rule: gap_logprobs)\n1 of 5 steps (20%) done\nError in rule gap_logprobs:\n"
    )
    assert unfinished_rules([str(log)]) == {"gap_logprobs", "gap_table", "install_gap_table", "all", "total"}
    assert unfinished_rules(str(log)) == unfinished_rules([str(log)])
    assert unfinished_rules([str(tmp_path / "gone.log")]) == set() and unfinished_rules(None) == set()


def test_a_job_killed_with_sigkill_is_named_with_memory_as_its_likely_cause(tmp_path):
    # As Snakemake logs a job whose process the kernel killed (its own handler never runs).
    log = tmp_path / "run.log"
    log.write_text(
        'CalledProcessError in file "workflow/rules/neural.smk", line 60:\n'
        "Command 'set -euo pipefail;  python .snakemake/scripts/tmp.train_neural.py' died with <Signals.SIGKILL: 9>.\n"
        "[Mon Nov 30 03:58:09 2026]\nError in rule train_neural:\n    message: None\n"
    )
    said = killed_warning(str(log))
    assert said.startswith("a job of train_neural was killed (SIGKILL), by hand or, most often, by the kernel")
    log.write_text("Error in rule train:\n    message: None\n")
    assert killed_warning(str(log)) is None


def test_a_setting_changed_after_snakemake_s_records_were_deleted_is_named(tmp_path, monkeypatch):
    # Snakemake compares params with its records of the runs: without them, a changed setting reruns nothing.
    experiment = {"orders": [3], "comparison": {"seed": 12345}, "corpus": {"source": "corpus", "commit": None}}
    provenance = tmp_path / "provenance.json"
    provenance.write_text(json.dumps({"experiment": experiment}))
    metadata = tmp_path / ".snakemake/metadata"
    changed = {**experiment, "comparison": {"seed": 7}, "corpus": {"source": "moved", "commit": None}}
    said = unseen_changes(provenance, changed, metadata)
    assert "so it sees no change of settings since the results were made (comparison.seed differ from" in said
    assert said.endswith("If this run does nothing, or says so as it ends, run with --forceall")
    # The settings the results were made with (the corpus moved aside), or Snakemake's records there: nothing.
    assert unseen_changes(provenance, {**experiment, "corpus": {"source": "moved", "commit": None}}, metadata) is None
    # Records named, as Snakemake names them, by their output's path in URL-safe base64, a long one cut into folders.
    monkeypatch.chdir(tmp_path)
    outputs = [Path("results/eval/o3/dev-0.json"), Path("results/tables/perplexity.tsv")]
    for output in outputs:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text("{}")
    seals.seal(outputs)
    name = base64.urlsafe_b64encode(str(outputs[0]).encode()).decode()
    (metadata / name[:8]).mkdir(parents=True)
    (metadata / name[:8] / name[8:]).write_text("{}")
    record = metadata / base64.urlsafe_b64encode(str(outputs[1]).encode()).decode()
    record.write_text("{}")
    assert unseen_changes(provenance, changed, metadata) is None
    # A sealed result without its record: some were deleted (a benchmark file, which Snakemake writes itself and
    # keeps no record of, is not one).
    benchmark = Path("results/benchmarks/train/o3.tsv")
    benchmark.parent.mkdir(parents=True)
    benchmark.write_text("s\n1\n")
    seals.seal([benchmark])
    assert unseen_changes(provenance, changed, metadata) is None
    record.unlink()
    # A run stopped as the job ended, before Snakemake recorded it: marked incomplete, made again, no loss.
    incomplete = metadata.parent / "incomplete" / record.name
    incomplete.parent.mkdir()
    incomplete.write_text("{}")
    assert unseen_changes(provenance, changed, metadata) is None
    incomplete.unlink()
    said = unseen_changes(provenance, changed, metadata)
    assert said.startswith("Snakemake's records of the runs (.snakemake/metadata/) are gone (some of them), so it")
    # A run starts (the settings kept), reruns what it sees a change for and rewrites provenance.json: the results
    # without records are still of the earlier seed, said on every run until one has made them all again.
    marker = Path("results/.unseen-settings")
    note_unseen(provenance, changed, metadata, marker)
    provenance.write_text(json.dumps({"experiment": changed}))
    note_unseen(provenance, changed, metadata, marker)
    assert marker.read_text() == "comparison.seed\n"
    said = unseen_changes(provenance, changed, metadata, marker)
    # Named: the results without records, tables first.
    assert said.startswith(
        "results whose records (.snakemake/metadata/) are gone (results/tables/perplexity.tsv) were made with other "
        "values of "
    )
    assert said.endswith(
        "comparison.seed than this config's: a run since saw no change for them, and left them as "
        "they were, so the tables may mix both. Run with --forceall to make every result this config's"
    )
    # A --forceall writes every record again.
    record.write_text("{}")
    note_unseen(provenance, changed, metadata, marker)
    assert not marker.exists() and unseen_changes(provenance, changed, metadata, marker) is None


def test_results_a_whole_run_left_behind_the_config_are_named_until_they_follow_it(tmp_path):
    # Snakemake's records of some runs gone (the job run since wrote its own): a run of the whole pipeline
    # left the provenance record, what the results were made with, as it was.
    experiment = {"orders": [3], "comparison": {"seed": 12345}, "corpus": {"source": "corpus", "commit": None}}
    provenance, marker = tmp_path / "provenance.json", tmp_path / "results/.behind-settings"
    provenance.write_text(json.dumps({"experiment": experiment}))
    changed = {**experiment, "comparison": {"seed": 7}, "orders": [3, 4]}
    whole, targeted = tmp_path / "whole.log", tmp_path / "targeted.log"
    stats = "Job stats:\njob    count\n-----  -----\n"
    whole.write_text(stats + "all    1\ninstall_x    1\ntotal    2\n")
    targeted.write_text(stats + "install_x    1\ntotal    1\n")
    # Which run was of the whole pipeline, by its log: the one that plans a job of all.
    assert "all" in planned_jobs(str(whole))[0] and "all" not in planned_jobs(str(targeted))[0]
    # A run limited to targets leaves the rest as it was, rightly: said, and nothing marked.
    said = behind_settings(provenance, changed, marker, whole=False)
    assert "this run, limited to its targets, left the results that depend on them as they were" in said
    assert not marker.exists()
    said = behind_settings(provenance, changed, marker, whole=True)
    assert "other settings than this config's (comparison.seed, orders)" in said and "--forceall" in said
    # Every parse says it again (a next run has nothing to do, and runs no hook) ...
    assert behind_settings(provenance, changed, marker) == said
    # ... until the results are this config's (or the config theirs).
    assert behind_settings(provenance, experiment, marker) is None and not marker.exists()
    assert behind_settings(provenance, changed, marker) is None
    assert behind_settings(tmp_path / "none.json", changed, marker, whole=True) is None
    # A run given --touch (its log records the command): Snakemake then records the jobs as run with the config.
    touched = tmp_path / "touched.log"
    touched.write_text(f"  Command: .venv/bin/snakemake --cores 2 --touch\n{whole.read_text()}")
    assert given_touch(str(touched)) and not given_touch(str(whole))
    said = behind_settings(provenance, changed, marker, whole=True, touched=given_touch(str(touched)))
    assert "(comparison.seed, orders): a run given --touch marked them up to date without making" in said
    assert ".snakemake/metadata/" not in said and said.endswith(
        "Run with --forceall to make every result this config's"
    )
    assert behind_settings(provenance, changed, marker) == said


def test_outputs_older_than_an_input_or_with_one_missing_are_behind(tmp_path):
    table, record, other = tmp_path / "table.tsv", tmp_path / "record.json", tmp_path / "other.json"
    record.write_text("{}")
    table.write_text("a\n")
    os.utime(record, (1, 1))
    assert behind_inputs([table], [record]) is False
    os.utime(record, (table.stat().st_mtime + 5,) * 2)
    assert behind_inputs([table], [record]) is True
    os.utime(record, (1, 1))
    assert behind_inputs([table], [record, other]) is True
    # An output missing: named otherwise (kept, or the report's missing ones).
    assert behind_inputs([table, other], [record]) is None


@pytest.mark.parametrize(
    "make, says",
    [
        ("results/tables/t.tsv/", "results/tables/t.tsv is a folder where the run keeps a file"),
        ("results/tables", "results/tables is a file where the run makes a folder"),
        ("results", "results is a file where the run makes a folder"),
    ],
)
def test_a_folder_where_a_file_goes_or_a_file_where_a_folder_goes_is_named_with_its_removal(
    tmp_path, monkeypatch, capsys, make, says
):
    monkeypatch.chdir(tmp_path)
    if make.endswith("/"):
        Path(make).mkdir(parents=True)
    else:
        Path(make).parent.mkdir(parents=True, exist_ok=True)
        Path(make).touch()

    def write_table(log):
        with atomic_path("results/tables/t.tsv") as tmp:
            Path(tmp).write_text("a\n")

    with pytest.raises(SystemExit):
        run(job(tmp_path), write_table)
    said = capsys.readouterr().err
    removal = f"rm -r -- {tmp_path / make.rstrip('/')}"
    assert f"lmgap error in rule perplexity_table: {says}: remove it: {removal}; then run the same command" in said
    # The removal it prints, run, clears the way.
    subprocess.run(["bash", "-c", removal], check=True)
    run(job(tmp_path), write_table)
    assert Path("results/tables/t.tsv").read_text() == "a\n"


def test_a_folder_in_a_record_s_place_is_named_at_the_parse_with_its_removal(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    record = Path("results/eval/o3/dev-0.json")
    record.parent.mkdir(parents=True)
    record.write_text("{}\n")
    seals.seal([record])
    record.unlink()
    (record / "mine.txt").parent.mkdir(parents=True)
    (record / "mine.txt").write_text("kept\n")
    # The seal older than the folder, as any hand's change after a run is.
    os.utime(seals.seal_path(record), ns=(0, 0))
    [said] = damaged_warnings(["results/tables"])
    # It holds a file: moved aside, not removed.
    aside = f"mv -- {tmp_path / record} {tmp_path / record}.aside"
    assert said == (
        f"{record} is a folder where its job wrote a file: move it aside, keeping what it holds: {aside}; a run "
        "writes the file anew"
    )
    subprocess.run(["bash", "-c", aside], check=True)
    assert not record.exists() and list(damaged_warnings(["results/tables"])) == []
    assert Path(f"{record}.aside/mine.txt").read_text() == "kept\n"


def test_a_folder_in_a_text_s_place_is_refused_before_any_job_with_its_removal(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = Path("results/text/dev-0.txt")
    text.parent.mkdir(parents=True)
    text.write_text("a b c\n")
    write_text_record(text)
    check_texts_unchanged(text.parent)
    text.unlink()
    text.mkdir()
    removal = f"rm -r -- {tmp_path / text}"
    with pytest.raises(LmgapError) as refused:
        check_texts_unchanged(text.parent)
    assert str(refused.value) == (
        f"{text} is a folder where its job wrote a text: remove it: {removal}; then run the same command again: "
        "the job that next needs it writes it anew from the corpus"
    )
    subprocess.run(["bash", "-c", removal], check=True)
    check_texts_unchanged(text.parent)


def test_folders_where_the_run_puts_tables_are_named_at_every_parse(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    table, plot = Path("results/tables/gap.tsv"), Path("results/plots/hit_ratios.png")
    (table / "mine.tsv").parent.mkdir(parents=True)
    (table / "mine.tsv").write_text("a\n")
    plot.mkdir(parents=True)
    assert folders_in_place([table, plot, Path("results/tables/gap.md")]) == (
        f"{table} is a folder where the run puts a file: move it aside, keeping what it holds: mv -- "
        f"{tmp_path / table} {tmp_path / table}.aside; {plot} is a folder where the run puts a file: remove it: "
        f"rm -r -- {tmp_path / plot}; then run the pipeline again to put the run's copy there"
    )
    assert folders_in_place([Path("results/tables/gap.md")]) is None


def test_a_file_where_the_run_makes_a_folder_is_refused_at_the_parse_with_its_fix(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("results").mkdir()
    Path("results/tables").write_text("my notes\n")
    with pytest.raises(LmgapError) as refused:
        check_folders(["results/tables", "results/plots", "logs"])
    aside = f"mv -- {tmp_path / 'results/tables'} {tmp_path / 'results/tables'}.aside"
    assert str(refused.value) == (
        f"results/tables is a file where the run makes a folder: move it aside, keeping what it holds: {aside}"
    )
    subprocess.run(["bash", "-c", aside], check=True)
    assert Path("results/tables.aside").read_text() == "my notes\n"
    check_folders(["results/tables", "results/plots", "logs"])


@pytest.mark.parametrize(
    "argv",
    [
        ["snakemake", "--report", "no dir $(touch X)/report.html", "--cores", "2"],
        ["snakemake", "--report=no dir $(touch X)/report.html"],
        ["snakemake", "--report-html-path", "no dir $(touch X)/report.html"],
    ],
    ids=["--report FILE", "--report=FILE", "--report-html-path FILE"],
)
def test_a_report_into_a_missing_folder_is_refused_at_the_parse_with_its_mkdir(tmp_path, monkeypatch, argv):
    monkeypatch.chdir(tmp_path)
    # Snakemake's default name, or a folder that exists: nothing to say.
    check_report_folder(["snakemake", "--report", "--cores", "2"])
    check_report_folder(["snakemake", "--report", f"{tmp_path}/report.html"])
    with pytest.raises(LmgapError) as refused:
        check_report_folder(argv)
    command = re.search(r"make it with (mkdir .*) and run", str(refused.value)).group(1)
    subprocess.run(["bash", "-c", command], cwd="/", check=True)
    assert (tmp_path / "no dir $(touch X)").is_dir() and not Path("/X").exists() and not (tmp_path / "X").exists()
    check_report_folder(argv)
    # A folder where the report file goes: refused too, with a file name in it.
    (tmp_path / "no dir $(touch X)/report.html").mkdir()
    with pytest.raises(LmgapError, match=r"report.html is a folder, .*: give a file name, as --report '.*/report.html"):
        check_report_folder(argv)


def test_each_edit_kept_as_a_run_replaces_it_is_kept_beside_the_earlier_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    table = Path("results/tables/perplexity.md")
    table.parent.mkdir(parents=True)
    kept = []
    for text in ("my first note", "my first note", "my second note"):
        table.write_text(text)
        kept += keep_edited([str(table)])
    # The same edit twice is one copy; another edit is kept beside it, never over it.
    assert kept == ["results/edited/tables/perplexity.md"] * 2 + ["results/edited/tables/perplexity.2.md"]
    assert [Path(path).read_text() for path in kept[1:]] == ["my first note", "my second note"]


def test_rerun_triggers_without_params_are_named_where_a_setting_changed(tmp_path):
    # Snakemake reruns nothing for a changed setting unless params is among its --rerun-triggers.
    experiment = {"orders": [3], "comparison": {"seed": 12345}}
    provenance = tmp_path / "provenance.json"
    provenance.write_text(json.dumps({"experiment": experiment}))
    changed = {**experiment, "comparison": {"seed": 7}}
    for argv in (
        ["snakemake", "--rerun-triggers", "mtime", "input", "--cores", "2"],
        ["snakemake", "--rerun-triggers=mtime"],
    ):
        said = rerun_triggers_warning(argv, provenance, changed)
        assert said.startswith("--rerun-triggers mtime") and "leaves params out" in said and "(comparison.seed" in said
    # With params among them, without the option, or with the settings the results were made with: nothing.
    assert rerun_triggers_warning(["snakemake", "--rerun-triggers", "mtime", "params"], provenance, changed) is None
    assert rerun_triggers_warning(["snakemake", "--cores", "2"], provenance, changed) is None
    assert rerun_triggers_warning(["snakemake", "--rerun-triggers", "mtime"], provenance, experiment) is None


@pytest.mark.parametrize("count", [1, 7])
def test_files_dated_in_the_future_are_refused_with_a_touch_that_mends_them(tmp_path, monkeypatch, count):
    """Snakemake fails a job whose input is newer than its output, as it ends, on every run: the files are named
    before any job, and the printed command, run in bash, dates them now (a quote and a $(...) in a name stay
    names)."""
    monkeypatch.chdir(tmp_path)
    corpus = Path("my corpus 'x' $(touch X)/train")
    corpus.mkdir(parents=True)
    Path("results").mkdir()
    ahead = [corpus / "in.tsv.xz", *(Path(f"results/r{number}.json") for number in range(count - 1))]
    now = time.time()
    for path in [*ahead, Path("results/now.json")]:
        path.write_text("{}")
    for path in ahead:
        os.utime(path, (now + 86400, now + 86400))
    with pytest.raises(LmgapError) as refused:
        check_dates(["results", str(corpus.parent)], now=now)
    message = str(refused.value)
    assert message.startswith(f"{count} file{'s' if count > 1 else ''} dated in the future (")
    command = re.search(r"with (.*), and run the same command again$", message).group(1)
    assert command.startswith("touch -c -- " if count <= 5 else "find ")
    subprocess.run(["bash", "-c", command], check=True)
    assert not Path("X").exists()
    check_dates(["results", str(corpus.parent)], now=time.time())
    assert all(path.stat().st_mtime <= time.time() for path in ahead)


def test_a_train_split_other_than_the_results_is_warned_of_as_retraining_in_place(tmp_path):
    provenance = tmp_path / "provenance.json"
    experiment = {"train_split": "train", "orders": [3], "corpus": {"source": "corpus", "commit": None}}
    provenance.write_text(json.dumps({"experiment": experiment}))
    assert train_split_warning(provenance, {**experiment, "orders": [3, 4]}) is None
    said = train_split_warning(provenance, {**experiment, "train_split": "dev-0"})
    assert said.startswith(f"train_split is dev-0, where the results in results/ were trained on train ({provenance})")
    assert said.endswith(
        "A run copies the tables, plots and submission of train to results/kept/train_split-train/ as it starts; to "
        "keep the rest, copy results/ aside first (or run this config in a folder of its own, with --directory)"
    )
    assert earlier_train_split(provenance, {**experiment, "train_split": "dev-0"}) == "train"
    assert earlier_train_split(provenance, experiment) is None
    assert train_split_warning(tmp_path / "none.json", {**experiment, "train_split": "dev-0"}) is None


def test_an_until_rule_past_a_checkpoint_that_never_ran_is_named_with_its_files(tmp_path):
    # The log of `--until query` after a new order: query planned, then never reached past the models' fingerprints.
    log = tmp_path / "run.log"
    stats = "Job stats:\njob count\n--- -----\ntrain 1\nmodel_fingerprint 1\nquery 1\ntotal 3\n"
    log.write_text(f"{stats}\nlocalrule train:\n    output: x\nlocalrule install_model:\n")
    outputs = {"query": ["results/eval/{model}/{split}.json"]}
    said = until_warning(["query"], planned_jobs(str(log)), ("split_fingerprint", "model_fingerprint"), outputs)
    assert said == (
        "--until query: no query job ran. It follows a checkpoint (model_fingerprint), which Snakemake looks past only "
        "once it has run, and --until stops there: give the files as targets instead (query makes "
        "results/eval/{model}/{split}.json), as docs/sweeping.md says"
    )
    # A query job that ran, or a run without --until: nothing to say.
    log.write_text(f"{stats}\nlocalrule train:\nrule query:\n")
    assert until_warning(["query"], planned_jobs(str(log)), ("model_fingerprint",), outputs) is None
    assert until_warning([], planned_jobs(str(log)), ("model_fingerprint",), outputs) is None
