"""Each edit reruns exactly what it changes: the jobs Snakemake ran, read from the run itself."""

import shutil
import subprocess

import pytest
import yaml

from conftest import demo_corpus, jobs_executed, run_pipeline

# Jobs that run after any change of the corpus's files or place: the fetch, each split's
# fingerprint (train and dev-0 here) and what records the corpus.
FETCH = {"fetch_corpus": 1, "split_fingerprint": 2, "corpus_manifest": 1, "provenance": 1, "all": 1}
# What every table depends on; rewritten whenever a model or a scored split changes.
TABLES = {
    "perplexity_table": 1, "cost_table": 1, "comparison_table": 1, "document_tables": 1, "plots": 1, "gap_table": 1,
    "provenance": 1,
}


@pytest.fixture(scope="module")
def first_run(tmp_path_factory, kenlm_bin):
    root = tmp_path_factory.mktemp("reruns")
    corpus = demo_corpus(root / "corpus", seed=5, train_sentences=1500, dev_sentences=120)
    config = {"corpus": {"source": str(corpus)}, "orders": [3, 4], "kenlm": {"bin_dir": str(kenlm_bin)}}
    run_pipeline(root / "work", config)
    return root, config


def rerun(work, config, *args):
    done = run_pipeline(work, config, *args)
    return jobs_executed(done), done


def test_edits_that_change_no_result_run_nothing(first_run):
    root, config = first_run
    work = root / "work"
    jobs, done = rerun(work, config)
    assert jobs == {} and "Nothing to be done" in done.stdout + done.stderr
    (work / "config.yaml").write_text(yaml.safe_dump(config) + "# a comment about the experiment\n")
    jobs, _ = rerun(work, None)
    assert jobs == {}
    for edit in ({"memory": {"budget_mb": 4000}}, {"lmplz": {"temp_dir": str(root / "elsewhere")}}):
        jobs, _ = rerun(work, {**config, **edit})
        assert jobs == {}, edit


def test_moving_the_corpus_retrains_and_rescores_nothing(first_run):
    root, config = first_run
    work = root / "work"
    copy = root / "copy"
    shutil.copytree(root / "corpus", copy)
    models = {p: p.stat().st_mtime_ns for p in (work / "results/models").rglob("model.binary")}
    jobs, _ = rerun(work, {**config, "corpus": {"source": str(copy)}})
    assert jobs == FETCH
    (root / "link").symlink_to(copy)
    jobs, _ = rerun(work, {**config, "corpus": {"source": str(root / "link")}})
    assert jobs == FETCH
    assert models == {p: p.stat().st_mtime_ns for p in (work / "results/models").rglob("model.binary")}
    rerun(work, config)


def test_a_changed_or_added_scored_split_is_scored_and_nothing_retrained(first_run):
    root, config = first_run
    work, corpus = root / "work", root / "corpus"
    lines = (corpus / "dev-0/expected.tsv").read_text().splitlines()
    (corpus / "dev-0/expected.tsv").write_text("\n".join(["changed", *lines[1:]]) + "\n")
    jobs, _ = rerun(work, config)
    # dev-0's text, years, scores and gap predictions: twice two contexts and the baseline.
    dev0 = {
        "rebuild_text": 1, "document_years": 1, "query": 2, "gap_candidates": 1, "gap_logprobs": 2,
        "gap_predictions": 4, "gap_unigram": 1, "gap_evaluate": 5,
    }
    assert jobs == {**FETCH, **TABLES, **dev0}
    shutil.copytree(corpus / "dev-0", corpus / "dev-1")
    jobs, _ = rerun(work, {**config, "eval_splits": ["dev-0", "dev-1"]})
    assert jobs == {**FETCH, "split_fingerprint": 3, **TABLES, **dev0}
    assert "train" not in jobs and "gap_heldout" not in jobs


def test_orders_and_pruning_train_only_their_own_models(first_run):
    root, config = first_run
    work = root / "work"
    config = {**config, "eval_splits": ["dev-0", "dev-1"]}
    jobs, done = rerun(work, {**config, "orders": [3, 4, 5]})
    scored = {"query": 2, "gap_logprobs": 2, "gap_predictions": 4, "gap_evaluate": 4}
    assert jobs == {"all": 1, **TABLES, "train": 1, **scored}
    assert "wildcards: model=o5" in done.stderr and "wildcards: model=o4\n" not in done.stderr
    jobs, _ = rerun(work, {**config, "orders": [3, 5]})
    assert jobs == {"all": 1, **TABLES}
    jobs, _ = rerun(work, {**config, "orders": [3, 5], "lmplz": {"prune": [0, 0, 1]}})
    assert jobs == {"all": 1, **TABLES, "train": 2, **{k: 2 * v for k, v in scored.items()}}
    assert sorted(p.name for p in (work / "results/models").iterdir()) == [
        "o3", "o3-prune0.0.1", "o4", "o5", "o5-prune0.0.1",
    ]


def git(*args, cwd):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True)


def test_a_git_source_without_a_commit_follows_its_newest(tmp_path, kenlm_bin):
    repo = demo_corpus(tmp_path / "repo", seed=6, train_sentences=800, dev_sentences=60)
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "one"]):
        git(*args, cwd=repo)
    config = {
        "corpus": {"source": repo.as_uri()}, "orders": [3], "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }
    run_pipeline(tmp_path / "work", config)
    jobs, _ = rerun(tmp_path / "work", config)
    assert jobs == {}
    lines = (repo / "dev-0/expected.tsv").read_text().splitlines()
    (repo / "dev-0/expected.tsv").write_text("\n".join(["moved", *lines[1:]]) + "\n")
    git("commit", "-qam", "two", cwd=repo)
    jobs, _ = rerun(tmp_path / "work", config)
    tables = {"perplexity_table": 1, "cost_table": 1, "comparison_table": 1, "document_tables": 1, "plots": 1}
    assert jobs == {**FETCH, **tables, "rebuild_text": 1, "document_years": 1, "query": 1}
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    provenance = yaml.safe_load((tmp_path / "work/results/provenance.json").read_text())
    assert provenance["corpus"]["commit"] == head
