"""Each edit reruns exactly what it changes: the jobs Snakemake ran, read from the run itself."""

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import GAP_TABLE, PERPLEXITY_TABLE, demo_corpus, jobs_planned, read_table, run_pipeline, with_installs

pytestmark = pytest.mark.pipeline

# Jobs that run after any change of the corpus's files or place: the fetch, each split's
# fingerprint (train and dev-0 here) and what records the corpus.
# The submission's gonito.yaml is made from the provenance record: it follows it.
FETCH = with_installs(
    {"fetch_corpus": 1, "split_fingerprint": 2, "corpus_manifest": 1, "provenance": 1, "gap_submission": 1}
)
# What every table depends on; rewritten whenever a model or a scored split changes.
TABLES = with_installs(
    {
        "perplexity_table": 1,
        "cost_table": 1,
        "comparison_table": 1,
        "document_tables": 1,
        "plots": 1,
        "gap_table": 1,
        "provenance": 1,
        "gap_submission": 1,
    }
)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory, kenlm_bin):
    root = tmp_path_factory.mktemp("reruns")
    demo_corpus(root / "corpus", seed=5, train_sentences=1500, dev_sentences=120)
    # The corpus by a path relative to the working folder, so that a copy of both is the same run.
    config = {"corpus": {"source": "../corpus"}, "orders": [3, 4], "kenlm": {"bin_dir": str(kenlm_bin)}}
    run_pipeline(root / "work", config)
    return root, config


@pytest.fixture
def first_run(finished_run, tmp_path):
    """A copy of the finished run (corpus, results and Snakemake's records, dates kept) for one
    test alone: every test starts from the same state, alone or in any order."""
    root, config = finished_run
    shutil.copytree(root, tmp_path / "run", symlinks=True)
    return tmp_path / "run", config


def rerun(work, config, *args):
    done = run_pipeline(work, config, *args)
    return done.jobs, done


def test_edits_that_change_no_result_run_nothing(first_run):
    root, config = first_run
    work = root / "work"
    assert jobs_planned(work, config) == {}
    (work / "config.yaml").write_text(yaml.safe_dump(config) + "# a comment about the experiment\n")
    assert jobs_planned(work, None) == {}
    for edit in ({"memory": {"budget_mb": 4000}}, {"lmplz": {"temp_dir": str(root / "elsewhere")}}):
        assert jobs_planned(work, {**config, **edit}) == {}, edit


def test_a_failed_fetch_is_tried_again_and_no_record_takes_the_settings_it_failed_with(first_run):
    root, config = first_run
    work = root / "work"
    provenance = (work / "results/provenance.json").read_bytes()
    # The corpus damaged (a gap word lost) while a setting changes: the fetch fails, and removes its record.
    expected = root / "corpus/dev-0/expected.tsv"
    good = expected.read_bytes()
    expected.write_bytes(good[: good.rindex(b"\n", 0, len(good) - 1) + 1])
    changed = {**config, "comparison": {"seed": 7}}
    for _ in range(2):
        # The same command again fails again: the run does not end in "Nothing to be done".
        done = run_pipeline(work, changed, check=False)
        said = done.stdout + done.stderr
        assert done.returncode and "expected.tsv has" in said and "provenance" not in done.jobs, said[-3000:]
        assert (work / "results/provenance.json").read_bytes() == provenance
    # The corpus mended, the fetch runs again, and the record is of the settings the run had.
    expected.write_bytes(good)
    done = run_pipeline(work, changed)
    assert "fetch_corpus" in done.jobs and (work / "results/corpus/fetched.json").is_file()
    assert yaml.safe_load((work / "results/provenance.json").read_text())["experiment"]["comparison"]["seed"] == 7


def test_moving_the_corpus_retrains_and_rescores_nothing(first_run):
    root, config = first_run
    work = root / "work"
    copy = root / "copy"
    shutil.copytree(root / "corpus", copy)
    models = {p: p.stat().st_mtime_ns for p in (work / "results/models").rglob("model.binary")}
    # A dry run cannot know the fingerprints will come out as they were: it lists the jobs after
    # them, and says so where it lists each fingerprint and at its end.
    planned = run_pipeline(work, {**config, "corpus": {"source": str(copy)}}, "--dry-run")
    said = planned.stdout + planned.stderr
    assert "Fingerprint dev-0's files (results/corpus/splits/dev-0.json). If they are the bytes they were" in said
    # And, under the job table where the eye lands, Snakemake's own closing words.
    assert planned.stdout.rstrip().endswith(
        "alteration of the DAG of jobs (e.g. adding more jobs) after their completion."
    )
    jobs, _ = rerun(work, {**config, "corpus": {"source": str(copy)}})
    assert jobs == FETCH
    (root / "link").symlink_to(copy)
    jobs, _ = rerun(work, {**config, "corpus": {"source": str(root / "link")}})
    assert jobs == FETCH
    # The gap words with CRLF line ends, and the last without one: the same lines to every reader.
    for split in ("train", "dev-0"):
        expected = copy / split / "expected.tsv"
        expected.write_bytes(expected.read_bytes().replace(b"\n", b"\r\n").removesuffix(b"\r\n"))
    jobs, _ = rerun(work, {**config, "corpus": {"source": str(root / "link")}})
    assert jobs == FETCH
    assert models == {p: p.stat().st_mtime_ns for p in (work / "results/models").rglob("model.binary")}
    rerun(work, config)


def test_the_same_tools_elsewhere_retrain_nothing_and_tools_of_other_bytes_retrain(first_run):
    root, config = first_run
    work = root / "work"
    models = {p: p.stat().st_mtime_ns for p in (work / "results/models").rglob("model.binary")}
    real = Path(config["kenlm"]["bin_dir"])
    tools = root / "tools"
    tools.mkdir()
    for tool in ("lmplz", "query", "build_binary"):
        (tools / tool).symlink_to(real / tool)
    # A folder of links to the same tools: they are checked again (the check records their sha256), and
    # what depends on their place alone, the provenance, is written again. Its path retyped runs nothing.
    jobs, _ = rerun(work, {**config, "kenlm": {"bin_dir": str(tools)}})
    assert jobs == with_installs({"kenlm_tools": 2, "provenance": 1, "gap_submission": 1})
    assert rerun(work, {**config, "kenlm": {"bin_dir": f"{tools}/"}})[0] == {}
    assert models == {p: p.stat().st_mtime_ns for p in (work / "results/models").rglob("model.binary")}
    # Another lmplz (here one that runs the same): every model trains again and is scored again.
    (tools / "lmplz").unlink()
    (tools / "lmplz").write_text(f'#!/bin/sh\nexec {real / "lmplz"} "$@"\n')
    (tools / "lmplz").chmod(0o755)
    jobs, _ = rerun(work, {**config, "kenlm": {"bin_dir": str(tools)}})
    assert jobs["kenlm_tools"] == jobs["train"] == jobs["install_model"] == jobs["query"] == 2, jobs


def test_an_order_added_then_a_table_as_the_target_trains_it_into_the_table(first_run):
    # The new order's tools check has not run: the target's plan holds it, and what follows it.
    root, config = first_run
    work = root / "work"
    jobs, _ = rerun(work, {**config, "orders": [3, 4, 5]}, "results/tables/perplexity.tsv")
    assert jobs["kenlm_tools"] == jobs["train"] == 1 and jobs["install_perplexity_table"] == 1, jobs
    assert [row["model"] for row in read_table(work)] == ["o3", "o4", "o5"]


def test_a_changed_or_added_scored_split_is_scored_and_nothing_retrained(first_run):
    root, config = first_run
    work, corpus = root / "work", root / "corpus"
    lines = (corpus / "dev-0/expected.tsv").read_text().splitlines()
    (corpus / "dev-0/expected.tsv").write_text("\n".join(["changed", *lines[1:]]) + "\n")
    jobs, _ = rerun(work, config)
    # dev-0's text, years, words in the run's vocabulary, scores and gap predictions: twice two
    # contexts, the document family's two, the baseline and the blend of both models, the
    # document family and the baseline.
    dev0 = {
        "rebuild_text": 1,
        "document_years": 1,
        "vocabulary": 1,
        "query": 2,
        "gap_candidates": 1,
        "gap_logprobs": 2,
        "gap_predictions": 4,
        "gap_document": 2,
        "gap_unigram": 1,
        "gap_blend": 1,
        "gap_evaluate": 8,
    }
    assert jobs == {**FETCH, **TABLES, **dev0}
    shutil.copytree(corpus / "dev-0", corpus / "dev-1")
    jobs, _ = rerun(work, {**config, "eval_splits": ["dev-0", "dev-1"]})
    assert jobs == {**FETCH, "split_fingerprint": 3, **TABLES, **dev0}
    assert "train" not in jobs and "gap_heldout" not in jobs


def test_models_trained_again_to_other_bytes_are_scored_again(first_run):
    root, config = first_run
    work, corpus = root / "work", root / "corpus"
    fingerprints = {p: p.read_bytes() for p in (work / "results/models").glob("*/fingerprint.json")}
    lines = (corpus / "train/expected.tsv").read_text().splitlines()
    (corpus / "train/expected.tsv").write_text("\n".join(["changed", *lines[1:]]) + "\n")
    # The two tables need every job counted below.
    jobs, _ = rerun(work, config, PERPLEXITY_TABLE, GAP_TABLE)
    assert jobs["train"] == jobs["install_model"] == jobs["query"] == jobs["gap_logprobs"] == 2
    assert jobs["gap_predictions"] == 4 and jobs["gap_blend"] == 1
    assert all(p.read_bytes() != before for p, before in fingerprints.items()) and len(fingerprints) == 2


def test_orders_and_pruning_train_only_their_own_models(first_run):
    root, config = first_run
    work = root / "work"
    jobs, done = rerun(work, {**config, "orders": [3, 4, 5]})
    # Each new model scores dev-0 and predicts its gaps from both contexts and from the left.
    scored = {"query": 1, "gap_logprobs": 1, "gap_predictions": 2, "gap_evaluate": 2}
    # The user's tools are checked for the new order alone; the blend (and its score) takes the
    # new model in.
    assert jobs == {
        **TABLES,
        "kenlm_tools": 1,
        "train": 1,
        "install_model": 1,
        "model_fingerprint": 1,
        **scored,
        "gap_blend": 1,
        "gap_evaluate": 3,
    }
    assert {"kenlm_tools/order5.log", "train/o5.log"} <= set(done.logs) and "train/o4.log" not in done.logs
    # A model left out leaves the blend only.
    blend = {"gap_blend": 1, "gap_evaluate": 1}
    jobs, _ = rerun(work, {**config, "orders": [3, 5]})
    assert jobs == {**TABLES, **blend}
    jobs, _ = rerun(work, {**config, "orders": [3, 5], "lmplz": {"prune": [0, 0, 1]}})
    assert jobs == {
        **TABLES,
        "train": 2,
        "install_model": 2,
        "model_fingerprint": 2,
        **{k: 2 * v for k, v in scored.items()},
        "gap_blend": 1,
        "gap_evaluate": 5,
    }
    assert sorted(p.name for p in (work / "results/models").iterdir()) == [
        "o3",
        "o3-prune0.0.1",
        "o4",
        "o5",
        "o5-prune0.0.1",
    ]


def git(*args, cwd):
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True, capture_output=True
    )


def test_a_git_source_without_a_commit_stays_on_its_fetch_until_asked_to_fetch_again(tmp_path, kenlm_bin):
    repo = demo_corpus(tmp_path / "repo", seed=6, train_sentences=800, dev_sentences=60)
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "one"]):
        git(*args, cwd=repo)
    config = {
        "corpus": {"source": repo.as_uri()},
        "orders": [3],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }
    run_pipeline(tmp_path / "work", config)
    first = yaml.safe_load((tmp_path / "work/results/provenance.json").read_text())["corpus"]["commit"]
    lines = (repo / "dev-0/expected.tsv").read_text().splitlines()
    (repo / "dev-0/expected.tsv").write_text("\n".join(["moved", *lines[1:]]) + "\n")
    git("commit", "-qam", "two", cwd=repo)
    # The upstream moved: a run (and its parse) does not look, so the results stay reproducible.
    jobs, _ = rerun(tmp_path / "work", config)
    assert jobs == {}
    # Asked to, the fetch takes the newest commit and the run redoes what the new bytes change.
    jobs, _ = rerun(tmp_path / "work", config, "--forcerun", "fetch_corpus")
    tables = with_installs(
        {"perplexity_table": 1, "cost_table": 1, "comparison_table": 1, "document_tables": 1, "plots": 1}
    )
    # Without the gap task there is no submission to follow the record.
    fetch = {rule: count for rule, count in FETCH.items() if not rule.endswith("gap_submission")}
    assert jobs == {**fetch, **tables, "rebuild_text": 1, "document_years": 1, "vocabulary": 1, "query": 1}
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    provenance = yaml.safe_load((tmp_path / "work/results/provenance.json").read_text())
    assert provenance["corpus"]["commit"] == head != first


def test_keep_arpa_turned_on_after_the_models_exist_writes_their_arpa(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", seed=8, train_sentences=600, dev_sentences=50)
    config = {
        "corpus": {"source": str(corpus)},
        "orders": [3],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }
    run_pipeline(tmp_path / "work", config)
    arpa = tmp_path / "work/results/models/o3/model.arpa"
    assert not arpa.exists()
    # The whole run: the perplexity table needs no ARPA file.
    jobs, _ = rerun(tmp_path / "work", {**config, "keep_arpa": True})
    # Trained again for its ARPA text, to the same binary: nothing scores it again.
    assert jobs["train"] == jobs["install_model"] == 1 and "query" not in jobs
    text = arpa.read_text()
    assert "\\data\\\nngram 1=" in text[:100] and text.rstrip().endswith("\\end\\")


def test_turning_the_gap_task_off_sets_its_old_tables_aside(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", seed=4, train_sentences=600, dev_sentences=50)
    config = {"corpus": {"source": str(corpus)}, "orders": [3], "kenlm": {"bin_dir": str(kenlm_bin)}}
    work = tmp_path / "work"
    run_pipeline(work, config)
    tables = work / "results/tables"
    gap = {name: (tables / name).read_bytes() for name in ("gap.tsv", "gap.md")}
    jobs, done = rerun(work, {**config, "gap": {"enabled": False}})
    assert "gap_table" not in jobs
    assert "lmgap warning: gap.enabled is false: gap.tsv and gap.md of an earlier run" in done.stderr
    assert not list(tables.glob("gap.*"))
    assert {name: (tables / "stale" / name).read_bytes() for name in gap} == gap
    # On again: the tables are put in place anew, and the copies set aside, superseded, go.
    jobs, _ = rerun(work, config)
    assert "install_gap_table" in jobs and {name: (tables / name).read_bytes() for name in gap} == gap
    assert not (tables / "stale").exists()


def test_a_deleted_model_folder_is_trained_again_and_the_tables_follow(tmp_path, kenlm_bin):
    # The README's recovery for a damaged binary: delete the model's folder and rerun.
    corpus = demo_corpus(tmp_path / "corpus", seed=3, train_sentences=600, dev_sentences=50)
    config = {"corpus": {"source": str(corpus)}, "orders": [3, 4], "kenlm": {"bin_dir": str(kenlm_bin)}}
    work = tmp_path / "work"
    run_pipeline(work, config)
    perplexity = (work / "results/tables/perplexity.tsv").read_bytes()
    gap = gap_scores(work)
    shutil.rmtree(work / "results/models/o4")
    (work / "results/gap/both/o3/dev-0/out.tsv").unlink()
    jobs, _ = rerun(work, config)
    # Trained again from the same text and options, o4 has the bytes its scores were made from:
    # they stand. The deleted prediction is made again, and what reads it.
    assert jobs["train"] == jobs["gap_predictions"] == 1
    assert not {"query", "gap_logprobs"} & set(jobs)
    assert (work / "results/models/o4/model.binary").stat().st_size > 0
    assert (work / "results/gap/both/o3/dev-0/out.tsv").stat().st_size > 0
    # Trained again from the same text and options: the same figures.
    assert (work / "results/tables/perplexity.tsv").read_bytes() == perplexity
    assert gap_scores(work) == gap


def gap_scores(work):
    """gap.tsv's rows but the time each took."""
    rows = (work / "results/tables/gap.tsv").read_text().splitlines()
    return [row.rsplit("\t", 1)[0] for row in rows]


def test_turning_discount_fallback_on_trains_the_same_models_to_the_same_figures(first_run):
    root, config = first_run
    work = root / "work"
    before = {row["model"]: row for row in read_table(work)}
    binaries = {order: (work / f"results/models/o{order}/model.binary").read_bytes() for order in (3, 4)}
    changed = {**config, "lmplz": {"discount_fallback": True}}
    # A dry run cannot know the bytes a training will give: it lists what scores the models, and
    # says so where it lists each model's fingerprint.
    planned = run_pipeline(work, changed, "--dry-run")
    said = planned.stdout + planned.stderr
    assert "Fingerprint o3's binary (results/models/o3/fingerprint.json). If it is the bytes it was" in said
    assert jobs_planned(work, changed)["query"] == 2
    # The gap table keeps the query and gap jobs in the run, which must find nothing to do.
    jobs, done = rerun(work, changed, PERPLEXITY_TABLE, GAP_TABLE)
    # The same folders, trained again: lmplz estimated every discount, so nothing changes, and
    # nothing scores them again (the query and gap jobs read a binary by its fingerprint). The run says so.
    assert "lmplz.discount_fallback is true, but lmplz estimated every discount of every model" in done.stderr
    assert jobs["train"] == jobs["install_model"] == 2
    assert jobs.keys() <= {"train", "install_model", "model_fingerprint", *TABLES}, jobs
    after = {row["model"]: row for row in read_table(work)}
    for name in ("o3", "o4"):
        assert after[name]["discount_fallback"] == "true"
        assert {**after[name], "discount_fallback": "false"} == before[name]
    assert binaries == {order: (work / f"results/models/o{order}/model.binary").read_bytes() for order in (3, 4)}


def test_a_binary_format_added_trains_each_model_once_and_rescores_no_probing_model(first_run):
    root, config = first_run
    work = root / "work"
    before = {row["model"]: row for row in read_table(work)}
    binaries = {order: (work / f"results/models/o{order}/model.binary").read_bytes() for order in (3, 4)}
    changed = {**config, "build_binary": {"format": ["probing", "trie-q8b8"]}}
    jobs, _ = rerun(work, changed, PERPLEXITY_TABLE, GAP_TABLE)
    # One lmplz run per order feeds both formats; the probing binaries come out the same bytes, which
    # nothing scores again: only the new models are queried and predict the gaps.
    assert jobs["train"] == 2 and jobs["install_model"] == jobs["model_fingerprint"] == 4
    assert jobs["query"] == 2 and jobs["gap_logprobs"] == 2
    assert binaries == {order: (work / f"results/models/o{order}/model.binary").read_bytes() for order in (3, 4)}
    after = {row["model"]: row for row in read_table(work)}
    assert sorted(after) == ["o3", "o3-trie-q8b8", "o4", "o4-trie-q8b8"]
    for name in ("o3", "o4"):
        assert after[name].pop("format") == "probing" and after[name] == before[name]
    # Back to probing alone: the tables, without the format columns, and nothing else.
    jobs, _ = rerun(work, config, PERPLEXITY_TABLE, GAP_TABLE)
    assert jobs.keys() <= TABLES.keys(), jobs
    assert {row["model"]: row for row in read_table(work)} == before
