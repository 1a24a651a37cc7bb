"""Every family predicts gaps, end to end in the real snakemake: a model the pipeline trains and a
user's saved causal model rescore the n-gram's candidates, a user's saved masked model predicts
from both contexts, a cloze model trained here and a saved one predict from both contexts, and the
blend mixes them all with the n-grams and the baseline."""

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import yaml

from conftest import GAP_TABLE, REPO, benchmark_record, demo_corpus, read_table, run_pipeline
from lmgap.configcheck import validate_config
from lmgap.corpus.rebuild import rebuild_split
from lmgap.gap.blend import FOLDS, mixed_line
from lmgap.gap.heldout import write_heldout

torch = pytest.importorskip("torch")

from lmgap.neural.cloze_train import train_cloze  # noqa: E402
from tiny_models import save_causal_model, save_masked_model  # noqa: E402

pytestmark = pytest.mark.pipeline

SMALL = {"layers": 1, "width": 32, "heads": 2, "context": 64, "vocab_size": 600, "steps": 20, "batch_size": 8}
CLOZE = {"width": 32, "window": 8, "vocab_size": 2000, "steps": 40, "batch_size": 16}
# The schema's defaults for the settings CLOZE leaves out, as the pipeline fills them in.
CLOZE_DEFAULTS = validate_config(
    {"neural": {"c": {"kind": "cloze", "train": {}}}}, REPO / "workflow/schemas/config.schema.yaml"
)["neural"]["c"]["train"]
LMGAP = str(Path(sys.executable).parent / "lmgap")


@pytest.fixture(scope="module")
def gap_run(tmp_path_factory, kenlm_bin):
    root = tmp_path_factory.mktemp("neural-gap")
    corpus = demo_corpus(root / "corpus", train_sentences=1500, dev_sentences=100)
    words = (corpus / "train/expected.tsv").read_text().split()
    texts = [" ".join(words[k : k + 30]) for k in range(0, len(words), 30)]
    save_causal_model(root / "causal", texts, positions=128)
    save_masked_model(root / "masked", texts, vocab_size=500, positions=64)
    save_cloze_model(root, corpus)
    config = {
        "corpus": {"source": str(corpus)},
        "orders": [3],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"neural_candidates": 20, "right_tokens": 4},
        "neural": {
            "small": {"train": SMALL},
            "mine": {"path": str(root / "causal")},
            "bert": {"path": str(root / "masked"), "kind": "masked"},
            "gapper": {"kind": "cloze", "train": CLOZE},
            "saved": {"kind": "cloze", "path": str(root / "cloze/model")},
        },
    }
    # Benchmark records with each job's resources (what it asked the scheduler for).
    done = run_pipeline(root / "work", config, "--benchmark-extended")
    return root, config, done


def save_cloze_model(root, corpus):
    """A cloze model trained as the pipeline trains `gapper` (the same text, held-out lines and
    settings), saved where a user keeps one."""
    rebuild_split(corpus / "train", root / "train.txt")
    write_heldout(corpus / "train", 4000, root / "heldout.tsv", root / "gap_words.tsv")
    outputs = {"model": root / "cloze/model", "loss": root / "cloze/loss.tsv", "record": root / "cloze/training.json"}
    with open(root / "cloze.log", "w") as log:
        train_cloze(
            {"text": root / "train.txt", "heldout": root / "heldout.tsv"}, {**CLOZE_DEFAULTS, **CLOZE}, outputs, 2, log
        )


def rows_by_model(work):
    """dev-0's rows with both contexts (or none, the baseline's), by model."""
    return {
        row["model"]: row for row in read_table(work, "gap.tsv") if row["split"] == "dev-0" and row["context"] != "left"
    }


def test_every_family_has_its_gap_row_and_the_masked_model_no_perplexity_row(gap_run):
    root, _, done = gap_run
    work = root / "work"
    rows = rows_by_model(work)
    assert [(row["model"], row["family"], row["context"]) for row in read_table(work, "gap.tsv")] == [
        ("unigram", "baseline", "none"),
        ("o3", "ngram", "both"),
        ("o3", "ngram", "left"),
        ("bert", "neural", "both"),
        ("mine", "neural", "both"),
        ("small", "neural", "both"),
        ("gapper", "cloze", "both"),
        ("saved", "cloze", "both"),
        ("document", "document", "both"),
        ("document", "document", "left"),
        ("blend", "blend", "both"),
    ]
    assert rows["o3"]["order"] == "3" and rows["small"]["order"] == rows["blend"]["order"] == ""
    # The causal models rescore the n-gram's 20 best words and up to 10 of the page's (the
    # document family's best, gap.document.neural_words); the masked one lists from its vocabulary.
    assert 20 < float(rows["small"]["candidates_per_gap"]) <= 20 + 10
    assert 20 < float(rows["mine"]["listed_per_gap"]) <= 20 + 10
    assert float(rows["bert"]["listed_per_gap"]) == 100
    # A cloze model weighs every word of its vocabulary and lists 100; it has no perplexity row.
    assert float(rows["gapper"]["listed_per_gap"]) == 100 and float(rows["gapper"]["seconds"]) > 0
    training = json.loads((work / "results/neural/gapper/training.json").read_text())
    assert float(rows["gapper"]["candidates_per_gap"]) == training["vocab_size"] > 100
    assert float(rows["small"]["seconds"]) > 0 and rows["blend"]["seconds"] == ""
    assert [row["model"] for row in read_table(work)] == ["o3", "mine", "small"]
    ran = done.jobs
    assert ran["gap_neural"] == 2 and ran["gap_masked"] == 1 and ran["gap_blend"] == 1
    # The cloze model trains without a tokenizer: the one train_tokenizer job is the small model's.
    assert ran["train_cloze"] == 1 and ran["gap_cloze"] == 2 and ran["train_tokenizer"] == 1
    md = (work / "results/tables/gap.md").read_text()
    assert "| dev-0 | blend | blend | both |" in md and "The blend on dev-0: weights `both/bert`" in md


def test_each_neural_gap_job_stays_within_the_memory_it_reserved(gap_run):
    root, _, _ = gap_run
    for rule, name in (
        ("gap_neural", "small"),
        ("gap_neural", "mine"),
        ("gap_masked", "bert"),
        ("gap_cloze", "gapper"),
    ):
        record = benchmark_record(root / f"work/results/benchmarks/{rule}/{name}/dev-0.tsv")
        assert 0 < float(record["max_rss"]) <= int(record["resources"]["mem_mb"]), (rule, name)


@pytest.mark.parametrize(
    "system", ["both/o3", "both/small", "both/mine", "both/bert", "both/gapper", "both/blend", "unigram"]
)
def test_lmgap_score_of_each_out_tsv_equals_its_row(gap_run, system):
    root, _, _ = gap_run
    work = root / "work"
    printed = subprocess.run(
        [LMGAP, "score", str(work / f"results/gap/{system}/dev-0/out.tsv"), str(root / "corpus/dev-0/expected.tsv")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    scores = dict(line.split("\t") for line in printed.splitlines())
    row = rows_by_model(work)[system.split("/")[-1]]
    assert float(scores["PerplexityHashed"]) == float(row["perplexity_hashed"])
    assert float(scores["LogLossHashed"]) == float(row["log_loss_hashed"])
    assert float(scores["Accuracy"]) == float(row["top1_accuracy"])


def test_the_blend_mixes_its_members_lines_with_weights_from_the_other_folds(gap_run):
    root, _, _ = gap_run
    gap = root / "work/results/gap"
    record = json.loads((gap / "both/blend/dev-0/weights.json").read_text())
    members = record["members"]
    assert members == [
        "both/o3",
        "both/bert",
        "both/mine",
        "both/small",
        "both/gapper",
        "both/saved",
        "both/document",
        "unigram",
    ]
    member_lines = [(gap / f"{name}/dev-0/out.tsv").read_text().splitlines() for name in members]
    blended = (gap / "both/blend/dev-0/out.tsv").read_text().splitlines()
    assert len(blended) == 100
    for number in (0, 1, 2, 3, 4, 77, 99):
        weights = record["fold_weights"][number % FOLDS]
        lines = [lines[number] for lines in member_lines]
        assert blended[number] == mixed_line(lines, [weights[name] for name in members])[0]
    # The row's log-loss is the mixture's, line by line, of the members' scores GEval gave each line.
    scores = [
        [float(line.split("\t")[1]) for line in (gap / f"metrics/{name}/dev-0.lines.tsv").read_text().splitlines()[1:]]
        for name in members
    ]
    mixture = [
        math.log(
            sum(record["fold_weights"][n % FOLDS][name] * math.exp(scores[m][n]) for m, name in enumerate(members))
        )
        for n in range(100)
    ]
    row = rows_by_model(root / "work")["blend"]
    assert float(row["log_loss_hashed"]) == pytest.approx(-sum(mixture) / 100, abs=1e-4)


def test_fewer_rescored_candidates_rerun_the_rescoring_and_train_nothing(gap_run, tmp_path):
    root, config, _ = gap_run
    work = tmp_path / "work"
    shutil.copytree(root / "work", work, symlinks=True)
    # The gap table needs every job counted below.
    done = run_pipeline(work, {**config, "gap": {"neural_candidates": 5, "right_tokens": 4}}, GAP_TABLE)
    ran = done.jobs
    assert ran["gap_neural"] == 2 and ran["gap_blend"] == 1 and ran["gap_table"] == 1
    assert not {"train", "train_neural", "gap_logprobs", "gap_masked", "gap_candidates"} & set(ran)
    rows = rows_by_model(work)
    # Five of the base model's, and up to gap.document.neural_words (10) of the page's.
    assert 5 < float(rows["small"]["candidates_per_gap"]) <= 5 + 10


def test_a_saved_cloze_model_is_scored_as_the_one_trained_here_and_the_submission_names_the_family(gap_run):
    root, _, _ = gap_run
    work = root / "work"
    # Trained alike (the seed, the text, the held-out lines), the two are one model: the same weights,
    # and the same lines in out.tsv, the temperature fit alike on the run's held-out gaps.
    trained, saved = work / "results/neural/gapper/model", root / "cloze/model"
    for name in ("model.safetensors", "vocab.txt", "config.json"):
        assert (trained / name).read_bytes() == (saved / name).read_bytes(), name
    gap = work / "results/gap/both"
    assert (gap / "gapper/dev-0/out.tsv").read_bytes() == (gap / "saved/dev-0/out.tsv").read_bytes()
    assert (gap / "gapper/dev-0/fit.json").read_bytes() == (gap / "saved/dev-0/fit.json").read_bytes()
    gonito = yaml.safe_load((work / "results/submission/gonito.yaml").read_text())
    assert "cloze models of both contexts trained for the gap (gapper, saved)" in gonito["description"]
    assert "cloze" in gonito["tags"] and gonito["tags"].count("neural-network") == 1
