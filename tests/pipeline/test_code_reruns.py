"""A result follows the code that made it: an edit to a module reruns the jobs whose scripts import
it, directly or through other modules, and what depends on their outputs; a touch reruns nothing.
Each case edits a copy of the repository, one module per wing (where two wings share a run, each is
told apart by jobs only it reruns), and reruns a copy of one finished run with it; which jobs ran is
read from the run's own logs."""

import json

import pytest

from conftest import copy_of_repository, run_pipeline, with_installs
from lmgap.sourcecode import package_code

pytestmark = pytest.mark.pipeline

# A change to what a module does that changes no result: the jobs that run it must run again all
# the same (Snakemake cannot know it changes nothing).
EDIT = "\nEDITED_BY_A_TEST = True\n"
# Every job of the finished run, by rule: orders 3, the gap task and one small neural model.
CORPUS = {"fetch_corpus": 1, "split_fingerprint": 2, "corpus_manifest": 1}
TABLES = with_installs(
    {"perplexity_table": 1, "cost_table": 1, "comparison_table": 1, "document_tables": 1, "plots": 1}
)
# Every code change is recorded: the provenance record names the workflow's code, and so does the
# submission's gonito.yaml, made from it.
RECORD = with_installs({"provenance": 1, "gap_submission": 1})
# Gap scoring: both contexts and the left alone for o3 and for the document family, the neural
# rescoring, the blend and the baseline.
EVALUATE = {"gap_evaluate": 7}


@pytest.fixture
def rerun_edited(neural_run_copy):
    """rerun_edited({module: text}): a copy of the finished run rerun by a copy of the repository
    in which each workflow/MODULE ends with its text; the jobs that ran, by rule, the run's
    working folder and the repository's copy."""

    def rerun(edits):
        run = neural_run_copy()
        repo = copy_of_repository(run.parent / "repo")
        for module, text in edits.items():
            path = repo / "workflow" / module
            path.write_text(path.read_text() + text)
        return run_pipeline(run, None, repo=repo).jobs, run, repo

    return rerun


def test_edits_to_the_fetch_and_the_training_rerun_each_its_own_jobs_and_no_score(rerun_edited):
    # Two wings, whose reruns share no job: each is told apart, and neither rescores anything.
    ran, _, _ = rerun_edited({"lmgap/corpus/fetch.py": EDIT, "lmgap/ngram/run.py": EDIT})
    assert ran == {
        # The fetch brings the same files: their fingerprints stop it there.
        **CORPUS,
        # run.py trains: the model is trained again and put in place. Trained to the same bytes, it
        # is the model its scores and gap predictions were made from: they stand, and the tables
        # that read its files and its training's cost are written again.
        "train": 1,
        "install_model": 1,
        "model_fingerprint": 1,
        **TABLES,
        **RECORD,
    }


def test_an_edit_to_the_neural_window_rescores_the_neural_model_without_training_it(rerun_edited):
    ran, _, _ = rerun_edited({"lmgap/neural/window.py": EDIT})
    assert ran == with_installs(
        {
            "score_neural": 1,
            "gap_neural": 1,
            "gap_evaluate": 2,
            "gap_blend": 1,
            "gap_table": 1,
            **TABLES,
            **RECORD,
        }
    )


def test_the_gap_metric_and_a_comment_in_the_tables_code_rerun_what_imports_them(rerun_edited):
    # GEval's arithmetic: every system's scores, the blend's fit and the neural rescoring (which
    # computes its n-gram base's share with it), then the gap table; no prediction is made again.
    # A comment is an edit too (the digest does not tell comments from code): perplexity_table,
    # cost_table and gap_table import the module, and the comparison and the plots read
    # perplexity.tsv.
    ran, run, repo = rerun_edited({"lmgap/gap/geval.py": EDIT, "lmgap/report/perplexity.py": "\n# a comment\n"})
    assert ran == with_installs(
        {
            **EVALUATE,
            "gap_blend": 1,
            "gap_neural": 1,
            "gap_table": 1,
            "perplexity_table": 1,
            "cost_table": 1,
            "comparison_table": 1,
            "plots": 1,
            **RECORD,
        }
    )
    # The record names the edited code, which is no git checkout.
    made = json.loads((run / "results/provenance.json").read_text())["lmgap"]
    assert made["code"] == package_code(repo / "workflow") != package_code()
    assert made["commit"] is None and made["uncommitted_changes"] is None


def test_touching_every_file_reruns_nothing(neural_run_copy):
    # As a checkout of another branch and back, or a copy without its dates, does.
    run = neural_run_copy()
    repo = copy_of_repository(run.parent / "repo")
    for path in [*repo.rglob("*"), *run.glob("*.yaml")]:
        if path.is_file():
            path.touch()
    done = run_pipeline(run, None, repo=repo)
    assert done.jobs == {}
    assert "Nothing to be done" in done.stdout + done.stderr
