"""What the pipeline says when something is off: the file, the line, the fix; warnings for what it
accepts but is likely a mistake, on the console and in the run's log."""

import shutil

import pytest
import yaml

from conftest import PERPLEXITY_TABLE, REPO, demo_corpus, run_pipeline

pytestmark = pytest.mark.pipeline


def run_log(workdir):
    """The text of the newest run's log in .snakemake/log/."""
    logs = sorted((workdir / ".snakemake/log").glob("*.snakemake.log"))
    return logs[-1].read_text()


@pytest.fixture
def small(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", seed=9, train_sentences=400, dev_sentences=30)
    config = {
        "corpus": {"source": str(corpus)},
        "orders": [3],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }
    return corpus, config


# Root writes into any folder through its capabilities to override file permissions; without
# them (dropping its own needs none it lacks in a container) it meets a folder's mode as any user.
WITHOUT_OVERRIDE = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]


@pytest.mark.parametrize(
    "folder, says",
    [
        ("results", "(Permission denied): run the pipeline in a folder you can write to"),
        (".snakemake", "(Snakemake keeps its records of the runs in"),
        # A folder results are installed in, which an earlier run made.
        ("results/submission", "(Permission denied): run the pipeline in a folder you can write to"),
    ],
)
def test_a_folder_the_run_cannot_write_is_named_in_one_line(tmp_path, small, folder, says):
    _, config = small
    work = tmp_path / "work"
    (work / folder).mkdir(parents=True)
    (work / folder).chmod(0o555)
    done = run_pipeline(work, config, wrapper=WITHOUT_OVERRIDE, check=False)
    said = done.stdout + done.stderr
    assert done.returncode != 0
    assert f"cannot write to {(work / folder).resolve()} {says}" in said, said[-3000:]
    assert "Traceback" not in said
    # Nothing written: no result, and no record in the folder that refused it.
    assert not (work / "results").exists() or set((work / "results").iterdir()) <= {work / folder}
    assert not list((work / folder).iterdir())


def test_a_config_without_orders_says_it_trains_the_default(tmp_path, small):
    # Its line deleted: the config means the schema's default, which the run says (the fetch alone runs here).
    _, config = small
    done = run_pipeline(
        tmp_path / "work", {k: v for k, v in config.items() if k != "orders"}, "results/corpus/fetched.json"
    )
    assert (
        "lmgap warning: the config sets no orders (its line deleted?): the default, [3, 4, 5], is trained"
        in done.stderr
    )


def test_a_setting_given_as_a_target_is_refused_before_any_job_with_the_option_that_gives_it(tmp_path, small):
    _, config = small
    work = tmp_path / "work"
    done = run_pipeline(work, config, "orders=[4]", "lmplz.prune=[0,1]", check=False)
    assert done.returncode and not done.jobs and not (work / "results").exists()
    said = done.stdout + done.stderr
    assert "is a setting, given where Snakemake takes a file to make: on the same command, put --config" in said
    assert "--config 'orders=[4]'" in said or """--config 'lmplz={"prune": [0,1]}'""" in said
    # A path for its value: its slashes make no folders of the target.
    done = run_pipeline(work, config, "corpus.source=/data/corpus", check=False)
    assert done.returncode and not done.jobs and not (work / "results").exists()
    assert """put --config 'corpus={"source": /data/corpus}' at its end""" in done.stdout + done.stderr


def test_scoring_the_training_split_warns_on_the_console_and_in_the_log(tmp_path, small):
    _, config = small
    work = tmp_path / "work"
    done = run_pipeline(work, {**config, "eval_splits": ["dev-0", "train"]}, PERPLEXITY_TABLE)
    warning = "lmgap warning: eval_splits scores train, the split the models are trained on (train_split)"
    assert warning in done.stderr and warning in run_log(work)


def test_a_byte_order_mark_and_empty_or_spaced_gap_words_are_warned_about(tmp_path, small):
    corpus, config = small
    expected = corpus / "dev-0/expected.tsv"
    lines = expected.read_text().splitlines()
    lines[4] = lines[9] = ""
    lines[6] = "new york"
    expected.write_bytes(b"\xef\xbb\xbf" + ("\n".join(lines) + "\n").encode())
    work = tmp_path / "work"
    done = run_pipeline(work, config, PERPLEXITY_TABLE)
    named = f"lmgap warning: {corpus}/dev-0/expected.tsv"
    warnings = (
        f"{named} begins with a byte-order mark, which becomes part of its first gap word",
        f"{named} has empty lines, gaps without a word: line 5, 10",
        f"{named} has gap words the rebuilt text does not hold as one word, line 7 (a space,",
    )
    for warning in warnings:
        assert warning in done.stderr and warning in run_log(work)
    # Another corpus: its run says nothing of the first (its fetch finds nothing to warn about).
    other = demo_corpus(tmp_path / "other", seed=10, train_sentences=400, dev_sentences=30)
    done = run_pipeline(work, {**config, "corpus": {"source": str(other)}}, PERPLEXITY_TABLE)
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("lmgap warning")]
    # (Only the tables it did not write, of the first corpus, are named: as older than the corpus.)
    assert [line for line in said if "computed from corpus files that differ" not in line] == []


def test_tables_older_than_the_corpus_are_warned_about(tmp_path, small):
    corpus, config = small
    work = tmp_path / "work"
    run_pipeline(work, config)
    lines = (corpus / "dev-0/expected.tsv").read_text().splitlines()
    (corpus / "dev-0/expected.tsv").write_text("\n".join(["other", *lines[1:]]) + "\n")
    # Only the manifest, or one score, is brought up to date; the tables still describe the old corpus.
    for target in ("results/corpus/manifest.json", "results/eval/o3/dev-0.json"):
        done = run_pipeline(work, config, target)
        assert (
            "lmgap warning: the tables in results/ were computed from corpus files that differ from those "
            "results/corpus/fetched.json lists now (dev-0/expected.tsv): run the pipeline" in done.stderr
        ), target
    # A run brings them up to date, and the warning goes.
    again = run_pipeline(work, config)
    assert "lmgap warning:" not in again.stdout + again.stderr


def test_the_readme_error_table_lists_what_the_pipeline_says():
    table = (REPO / "docs/errors.md").read_text()
    for beginning in (
        "config: KEY: …; give what KEY takes:",
        "config.yaml line N, column C:",
        "… lacks dev-1/in.tsv.xz (eval_splits asks for it)",
        "is gzip-compressed, not xz",
        "is a folder without git history",
        "has a tab in its gap word",
        "tokenizers is not installed",
        "cannot write to",
        "lmgap warning:",
    ):
        assert beginning in table, beginning


def test_write_protected_tables_are_named_in_one_line_before_any_job(tmp_path, small):
    _, config = small
    work = tmp_path / "work"
    run_pipeline(work, config, PERPLEXITY_TABLE)
    tables = work / "results/tables"
    # Another order: the tables are to be written (the perplexity table again), into a folder, then
    # a file, it may not; and a model's folder, deeper, which Snakemake meets only as it removes a job's outputs.
    again = {**config, "orders": [2, 3]}
    model = work / "results/models/o3"
    for protected, folder, says in (
        (tables, tables, "(Permission denied)"),
        (tables / "perplexity.tsv", tables, "(perplexity.tsv in it is write-protected)"),
        (model, model, "(Permission denied)"),
    ):
        protected.chmod(0o555 if protected.is_dir() else 0o444)
        done = run_pipeline(work, again, wrapper=WITHOUT_OVERRIDE, check=False)
        protected.chmod(0o755 if protected.is_dir() else 0o644)
        said = done.stdout + done.stderr
        assert done.returncode != 0 and f"cannot write to {folder.resolve()} {says}" in said, said[-3000:]
        assert "Traceback" not in said and "Select jobs to execute" not in said


def test_a_touch_over_a_changed_setting_is_named_as_why_the_results_are_behind(demo_run, tmp_path):
    # --touch records the jobs as run with the config's settings: the results stay the earlier settings'.
    work = tmp_path / "work"
    shutil.copytree(demo_run / "work", work, symlinks=True)
    config = yaml.safe_load((work / "config.yaml").read_text())
    touched = run_pipeline(work, {**config, "comparison": {"seed": 7}}, "--touch")
    said = "(comparison.seed): a run given --touch marked them up to date without making them again"
    assert said in touched.stderr and "Run with --forceall to make every result this config's" in touched.stderr
    # Every parse says it, not blaming records that are there; the --forceall it gives plans the table's job (a
    # dry run prints on stdout).
    planned = run_pipeline(work, None, "-n", "--forceall")
    assert said in planned.stdout and ".snakemake/metadata/" not in planned.stdout
    assert "comparison_table" in planned.stdout
