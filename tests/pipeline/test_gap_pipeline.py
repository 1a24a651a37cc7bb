"""The gap task end to end: out.tsv files in the challenge's format, scored as GEval does, tabled,
ready to submit, and test-A predicted without its gap words."""

import hashlib
import json
import lzma
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import benchmark_record, demo_corpus, jobs_planned, read_table, run_pipeline, with_installs
from lmgap.gap.candidate_sets import CandidateSets
from lmgap.gap.candidates import index_memory_mb
from lmgap.gap.heldout import read_heldout
from lmgap.gap.lines import read_gaps

pytestmark = pytest.mark.pipeline

LMGAP = str(Path(sys.executable).parent / "lmgap")
LINE = re.compile(r"(\S+:\S+ )*:\S+")


def test_every_model_writes_its_predictions_in_the_challenge_format(demo_run):
    work = demo_run / "work"
    train_words = set((work / "results/text/train.txt").read_text(encoding="utf-8").split())
    pages = [set((left + b" " + right).decode().split()) for left, right in read_gaps(demo_run / "corpus/dev-0")]
    unseen = 0
    for system in ("both/o3", "both/o4", "both/o5", "both/document"):
        lines = (work / f"results/gap/{system}/dev-0/out.tsv").read_text(encoding="utf-8").split("\n")
        assert lines.pop() == "" and len(lines) == 600
        for line, page in zip(lines, pages):
            assert LINE.fullmatch(line), line[:200]
            tokens = [token.rpartition(":") for token in line.split(" ")]
            words, values = [w for w, _, _ in tokens[:-1]], [float(v) for _, _, v in tokens]
            # Up to top_k words, most probable first, each seen in training or on the gap's own
            # page (the document family's all on its page); p0 last and positive, 1 only where
            # an empty page leaves the document family nothing to list.
            assert tokens[-1][0] == "" and 0 < values[-1] <= 1 and len(words) <= 100
            assert values[-1] < 1 or (system == "both/document" and words == [] and page == set())
            assert values[:-1] == sorted(values[:-1], reverse=True)
            assert set(words) <= (page if system == "both/document" else train_words | page)
            unseen += len(set(words) - train_words)
            assert abs(sum(values) - 1) < 1e-9
    # The pages' own names reach the n-grams' lists too.
    assert unseen > 0


def test_gap_table_holds_every_model_the_ablation_and_the_baseline_as_geval_scores_them(demo_run):
    work = demo_run / "work"
    rows = read_table(work, "gap.tsv")
    assert [(row["model"], row["context"]) for row in rows] == [
        ("unigram", "none"),
        ("o3", "both"),
        ("o3", "left"),
        ("o4", "both"),
        ("o4", "left"),
        ("o5", "both"),
        ("o5", "left"),
        ("document", "both"),
        ("document", "left"),
        ("blend", "both"),
    ]
    expected = demo_run / "corpus/dev-0/expected.tsv"
    by_system = {}
    for row in rows:
        system = "unigram" if row["model"] == "unigram" else f"{row['context']}/{row['model']}"
        out = work / f"results/gap/{system}/dev-0/out.tsv"
        # The installed command scores the file as the table says, to every digit.
        done = subprocess.run([LMGAP, "score", str(out), str(expected)], capture_output=True, text=True, check=True)
        printed = dict(line.split("\t") for line in done.stdout.splitlines())
        assert printed["PerplexityHashed"] == row["perplexity_hashed"]
        assert printed["LogLossHashed"] == row["log_loss_hashed"] and printed["Accuracy"] == row["top1_accuracy"]
        # The table's log loss is minus the mean of the per-line log-probabilities kept beside it.
        values = [
            float(line.split("\t")[1])
            for line in (work / f"results/gap/metrics/{system}/dev-0.lines.tsv").read_text().splitlines()[1:]
        ]
        assert len(values) == 600 and float(row["log_loss_hashed"]) == -(sum(values) / 600)
        assert float(row["perplexity_hashed"]) == math.exp(float(row["log_loss_hashed"]))
        assert 0 < float(row["p0_mean"]) < 1 and row["p0_method"]
        by_system[system] = float(row["perplexity_hashed"])
    for model in ("o3", "o4", "o5"):
        assert by_system[f"both/{model}"] < by_system[f"left/{model}"] < by_system["unigram"]
    # This corpus's lines are a Markov chain's, with no page to repeat itself: the document
    # family knows little, more of it with both contexts.
    assert by_system["both/document"] < by_system["left/document"]
    # The blend is worse than its best member by at most what cross-fitting costs (the weights fit
    # on all gaps at once against the folds' weights) and the prior's share for the other members.
    record = json.loads((work / "results/gap/both/blend/dev-0/weights.json").read_text())
    in_sample = record["fit_log_loss_hashed"]
    prior_share = (len(record["members"]) - 1) / 600
    assert in_sample["blend"] <= min(in_sample.values()) + prior_share
    crossfitting = math.log(by_system["both/blend"]) - in_sample["blend"]
    best = min(value for system, value in by_system.items() if system != "both/blend")
    assert 0 <= crossfitting < 0.01
    assert math.log(by_system["both/blend"]) <= math.log(best) + crossfitting + prior_share
    md = (work / "results/tables/gap.md").read_text()
    assert f"| dev-0 | o3 | ngram | both | {by_system['both/o3']:.2f} |" in md


def test_the_candidate_pass_reserves_its_estimate_and_stays_below_it(demo_run):
    work = demo_run / "work"
    text_mb = (work / "results/text/train.txt").stat().st_size / 2**20
    # The job's benchmark record: its peak, and the memory it asked the scheduler for.
    record = benchmark_record(work / "results/benchmarks/gap_candidates/dev-0.tsv")
    reserved = int(record["resources"]["mem_mb"])
    # The estimate for the training text's size (at least 1 MB) and the processes that counted it.
    log = (work / "logs/gap_candidates/dev-0.log").read_text()
    workers = int(re.search(r"counting processes: (\d+)", log).group(1))
    # One process: the demo's text is far below the 100 MB where a second one pays.
    assert workers == 1
    assert reserved == index_memory_mb(max(text_mb, 1), workers)
    assert 0 < float(record["max_rss"]) <= reserved


def test_a_budget_that_cannot_hold_the_candidate_pass_is_refused_before_any_job(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=300, dev_sentences=20)
    config = {
        "corpus": {"source": str(corpus)},
        "orders": [3],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "memory": {"budget_mb": 600},
    }
    done = run_pipeline(tmp_path / "work", config, check=False)
    assert done.returncode != 0
    assert "Counting the gaps' candidates in the training text" in done.stderr
    assert "more than the 600 MB a job may reserve" in done.stderr and "gap.enabled: false" in done.stderr
    assert not (tmp_path / "work/results").exists()
    # Without the gap task the same budget is enough to start.
    run_pipeline(tmp_path / "work", {**config, "gap": {"enabled": False}}, "--dry-run")


def test_changing_top_k_rewrites_predictions_without_rescoring_candidates(demo_run, tmp_path):
    # The shared run's config.yaml stays as it is: the change comes in a --configfile of its own.
    (tmp_path / "top_k.yaml").write_text(yaml.safe_dump({"gap": {"top_k": 50}}))
    planned = jobs_planned(demo_run / "work", None, "--configfile", str(tmp_path / "top_k.yaml"))
    # The provenance record holds the experiment's settings, so it is written again too.
    assert planned == with_installs(
        {
            "gap_predictions": 6,
            "gap_document": 2,
            "gap_unigram": 1,
            "gap_blend": 1,
            "gap_evaluate": 10,
            "gap_table": 1,
            "gap_submission": 1,
            "provenance": 1,
        }
    )


def test_test_a_is_predicted_its_gap_words_never_read_and_the_gap_settings_obeyed(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=2000, dev_sentences=100)
    (corpus / "test-A").mkdir()
    test_lines = list(lzma.open(corpus / "dev-0/in.tsv.xz", "rt"))[:70]
    with lzma.open(corpus / "test-A/in.tsv.xz", "wt") as handle:
        handle.writelines(test_lines)
    # A folder where test-A's gap words would be: any attempt to read them would fail the run.
    (corpus / "test-A/expected.tsv").mkdir()
    config = {
        "corpus": {"source": str(corpus), "test_a": True},
        "orders": [3],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"top_k": 7, "candidates_per_context": 5, "frequent_words": 3, "heldout_lines": 60},
    }
    run_pipeline(tmp_path / "work", config)
    # Each source of candidates gives at most candidates_per_context words, the frequent words are
    # exactly frequent_words, and the held-out lines are as many as asked for.
    candidates = CandidateSets.load(tmp_path / "work/results/gap/candidates/test-A.npz")
    assert len(candidates) == 70
    for gap in range(70):
        flags = candidates.of(gap)[1]
        per_source = [int(((flags >> bit) & 1).sum()) for bit in range(6)]
        assert max(per_source[:5]) <= 5 and per_source[5] == 3
    assert max(per_source[:5]) == 5
    assert len(read_heldout(tmp_path / "work/results/gap/heldout.tsv")) == 60
    gap = tmp_path / "work/results/gap"
    # The submission folder holds what the challenge's repository wants, nothing else.
    assert sorted(str(p.relative_to(gap / "both/o3")) for p in (gap / "both/o3").rglob("*") if p.is_file()) == [
        "dev-0/out.tsv",
        "test-A/out.tsv",
    ]
    predicted = (gap / "both/o3/test-A/out.tsv").read_text(encoding="utf-8").splitlines()
    assert len(predicted) == 70 and all(LINE.fullmatch(line) for line in predicted)
    assert max(len(line.split(" ")) - 1 for line in predicted) == 7
    assert not (gap / "metrics/both/o3/test-A.json").exists()
    assert [row["split"] for row in read_table(tmp_path / "work", "gap.tsv")] == ["dev-0"] * 6
    # The blend's test-A takes the weights fit on all of dev-0's gaps.
    weights = json.loads((gap / "both/blend/test-A/weights.json").read_text())
    assert weights["fold_weights"] == [] and weights["fit_gaps"] == 100
    submission = tmp_path / "work/results/submission"
    assert sorted(str(p.relative_to(submission)) for p in submission.rglob("*") if p.is_file()) == [
        "dev-0/out.tsv",
        "gonito.yaml",
        "inputs.json",
        "test-A/out.tsv",
    ]
    # What lmgap submit checks a clone against, the predicted splits' in.tsv.xz as the run read them,
    # and the submission against, the files as the run wrote them.
    manifest = json.loads((tmp_path / "work/results/corpus/manifest.json").read_text())["files"]
    written = ("gonito.yaml", "dev-0/out.tsv", "test-A/out.tsv")
    assert json.loads((submission / "inputs.json").read_text()) == {
        **{name: manifest[name]["sha256"] for name in ("dev-0/in.tsv.xz", "test-A/in.tsv.xz")},
        **{name: hashlib.sha256((submission / name).read_bytes()).hexdigest() for name in written},
    }
    assert (submission / "test-A/out.tsv").read_bytes() == (gap / "both/blend/test-A/out.tsv").read_bytes()
    manifest = json.loads((tmp_path / "work/results/corpus/manifest.json").read_text())
    assert manifest["files"]["test-A/in.tsv.xz"]["lines"] == 70 and "test-A/expected.tsv" not in manifest["files"]


def commit_all(folder):
    """folder made a git repository, its files committed: a clone of the challenge as lmgap submit takes it."""
    for command in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c"]):
        subprocess.run(["git", "-C", str(folder), *command], check=True)


def test_the_submission_is_the_blend_scored_as_the_table_says_and_named_by_the_config(demo_run, tmp_path):
    work = demo_run / "work"
    submission = work / "results/submission"
    assert sorted(str(p.relative_to(submission)) for p in submission.rglob("*") if p.is_file()) == [
        "dev-0/out.tsv",
        "gonito.yaml",
        "inputs.json",
    ]
    out = submission / "dev-0/out.tsv"
    assert out.read_bytes() == (work / "results/gap/both/blend/dev-0/out.tsv").read_bytes()
    done = subprocess.run(
        [LMGAP, "score", str(out), str(demo_run / "corpus/dev-0/expected.tsv")],
        capture_output=True,
        text=True,
        check=True,
    )
    printed = dict(line.split("\t") for line in done.stdout.splitlines())
    (blend,) = [row for row in read_table(work, "gap.tsv") if row["model"] == "blend"]
    assert printed["PerplexityHashed"] == blend["perplexity_hashed"]
    # gonito.yaml as gonito reads it: the settings of the run, flattened, and the blend's weights.
    gonito = yaml.safe_load((submission / "gonito.yaml").read_text())
    config = yaml.safe_load((work / "config.yaml").read_text())
    params = gonito["params"]
    assert params["orders"] == config["orders"] == [3, 4, 5]
    assert params["gap.top_k"] == 100 and params["gap.document.decays"] == [10, 30, 100, 300, 1000, None]
    assert params["lmplz.prune"] == [] and params["train_split"] == "train" and "corpus.source" not in params
    weights = json.loads((work / "results/gap/both/blend/dev-0/weights.json").read_text())["weights"]
    assert {name: params[f"weight.{name}"] for name in weights} == {n: round(w, 6) for n, w in weights.items()}
    assert set(gonito["tags"]) == {"lmgap", "blend", "kenlm", "n-grams", "document"}
    assert "orders 3, 4, 5" in gonito["description"] and "dev-0" in gonito["description"]
    # lmgap submit copies it into a clone of the challenge and says how to send it.
    clone = tmp_path / "clone"
    subprocess.run(["cp", "-r", str(demo_run / "corpus"), str(clone)], check=True)
    commit_all(clone)
    done = subprocess.run(
        [LMGAP, "submit", str(clone), "--submission", str(submission)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert (clone / "dev-0/out.tsv").read_bytes() == out.read_bytes()
    assert (clone / "gonito.yaml").read_bytes() == (submission / "gonito.yaml").read_bytes()
    assert "git add gonito.yaml dev-0/out.tsv" in done.stdout
    # It copies the splits gonito.yaml names, not a folder an earlier config left.
    assert params["lmgap.splits"] == "dev-0"
    stale = tmp_path / "stale"
    shutil.copytree(submission, stale)
    (stale / "dev-1").mkdir()
    (stale / "dev-1/out.tsv").write_bytes(out.read_bytes())
    (clone / "dev-1").mkdir()
    shutil.copy(clone / "dev-0/in.tsv.xz", clone / "dev-1/in.tsv.xz")
    done = subprocess.run([LMGAP, "submit", str(clone), "--submission", str(stale)], capture_output=True, text=True)
    assert done.returncode == 2 and not (clone / "dev-1/out.tsv").exists()
    assert "has dev-1/in.tsv.xz but the submission has no dev-1/out.tsv" in done.stderr
    # A clone with test-A needs its predictions: gonito scores every split.
    shutil.rmtree(clone / "dev-1")
    (clone / "test-A").mkdir()
    shutil.copy(clone / "dev-0/in.tsv.xz", clone / "test-A/in.tsv.xz")
    done = subprocess.run([LMGAP, "submit", str(clone), "--submission", str(stale)], capture_output=True, text=True)
    assert done.returncode == 2 and "set corpus.test_a: true" in done.stderr
    assert not (clone / "test-A/out.tsv").exists()
    # A clone of another version of the corpus is refused, and nothing is copied into it.
    other = tmp_path / "other"
    (other / "dev-0").mkdir(parents=True)
    with lzma.open(other / "dev-0/in.tsv.xz", "wt") as handle:
        handle.write("a\tb\n")
    commit_all(other)
    done = subprocess.run(
        [LMGAP, "submit", str(other), "--submission", str(submission)], capture_output=True, text=True
    )
    assert done.returncode == 2 and not (other / "gonito.yaml").exists()
    assert f"{out} has 600 lines but {other / 'dev-0'}/in.tsv.xz has 1" in done.stderr
    done = subprocess.run(
        [LMGAP, "submit", str(tmp_path), "--submission", str(submission)], capture_output=True, text=True
    )
    assert done.returncode == 2 and "give the folder of a clone of the challenge" in done.stderr
