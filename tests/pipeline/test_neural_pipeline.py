"""The neural rows end to end: a model the pipeline trains and a user's saved model (`path:`)
scored by the real snakemake beside an n-gram, on the same tokens, in every table."""

import csv
import json
import math
import re
import shutil
from importlib import metadata

import numpy as np
import pytest

from conftest import PERPLEXITY_TABLE, demo_corpus, read_table, run_pipeline

torch = pytest.importorskip("torch")

from tiny_models import save_causal_model  # noqa: E402

pytestmark = pytest.mark.pipeline

SMALL = {"layers": 1, "width": 32, "heads": 2, "context": 64, "vocab_size": 600, "steps": 40, "batch_size": 8}


def save_user_model(folder):
    """A user's saved GPT-2 of 512 positions, with a byte-level BPE of its own (a prefix space
    before the first word, unlike the pipeline's)."""
    return save_causal_model(folder, ["w1 w2 w3 the of and", "w10 w11 w12"] * 50)


def direct_log10_prob(model, tokenizer, line):
    """log10 P of a line and its end token in one forward pass, as the window does for a line
    shorter than the window; written here without the pipeline's code."""
    ids = [
        tokenizer.eos_token_id,
        *tokenizer(" ".join(line.split()), add_special_tokens=False)["input_ids"],
        tokenizer.eos_token_id,
    ]
    assert len(ids) <= 512
    with torch.inference_mode():
        logprobs = torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0].double(), dim=-1)
    return sum(logprobs[i, ids[i + 1]].item() for i in range(len(ids) - 1)) / math.log(10)


@pytest.fixture(scope="module")
def neural_run(tmp_path_factory, kenlm_bin):
    root = tmp_path_factory.mktemp("neural")
    demo_corpus(root / "corpus", train_sentences=3000, dev_sentences=200)
    user = save_user_model(root / "user-model")
    config = {
        "corpus": {"source": str(root / "corpus")},
        "orders": [3],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
        "neural": {"small": {"train": SMALL}, "mine": {"path": str(root / "user-model")}},
    }
    done = run_pipeline(root / "work", config)
    return root, config, user, done


def documents(work, model):
    with open(work / f"results/eval/{model}/dev-0.documents.tsv", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_neural_rows_score_the_n_grams_tokens(neural_run):
    root, _, _, done = neural_run
    rows = {row["model"]: row for row in read_table(root / "work")}
    assert [row["family"] for row in read_table(root / "work")] == ["ngram", "neural", "neural"]
    assert list(rows) == ["o3", "mine", "small"]
    for name in ("mine", "small"):
        row = rows[name]
        assert (row["tokens"], row["sentences"], row["words"]) == (rows["o3"]["tokens"], "200", rows["o3"]["words"])
        assert row["oovs"] == "0" and row["perplexity_excluding_oovs"] == row["perplexity_including_oovs"]
        # Spelling every word, it pays per word already: no vocabulary, no unknown words to share.
        assert row["perplexity_oovs_as_words"] == row["perplexity_including_oovs"]
        assert row["vocabulary"] == row["unknown_words"] == ""
        assert row["order"] == row["hit_ratio_3"] == row["ngrams_total"] == row["prune"] == ""
        # Each line holds the same tokens as the n-gram scored.
        assert [(d["line"], d["tokens"]) for d in documents(root / "work", name)] == [
            (d["line"], d["tokens"]) for d in documents(root / "work", "o3")
        ]
    assert rows["small"]["train_tokens"] == rows["o3"]["train_tokens"] and rows["mine"]["train_tokens"] == ""
    assert done.jobs["train_neural"] == 1 and done.jobs["score_neural"] == 2


def test_a_saved_model_scores_each_line_as_one_forward_pass_does(neural_run):
    root, _, (model, tokenizer), _ = neural_run
    lines = (root / "work/results/text/dev-0.txt").read_text().splitlines()
    expected = [direct_log10_prob(model, tokenizer, line) for line in lines]
    got = [float(d["log10_prob"]) for d in documents(root / "work", "mine")]
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    row = next(row for row in read_table(root / "work") if row["model"] == "mine")
    tokens = int(row["tokens"])
    assert float(row["perplexity_including_oovs"]) == pytest.approx(10 ** (-math.fsum(expected) / tokens), rel=1e-6)
    assert float(row["cross_entropy_bits_incl"]) == pytest.approx(
        -math.fsum(expected) / tokens * math.log2(10), rel=1e-6
    )
    parameters = sum(p.numel() for p in model.parameters())
    assert int(row["parameters"]) == parameters


def test_the_trained_model_is_recorded_and_compared(neural_run):
    root, _, _, _ = neural_run
    work = root / "work"
    loss = (work / "results/neural/small/loss.tsv").read_text().splitlines()
    assert loss[0] == "step\tloss_nats\tlearning_rate\tseconds" and len(loss) == 1 + SMALL["steps"]
    # The loss falls from about ln(vocabulary), a uniform guess, as the model learns.
    first, last = float(loss[1].split("\t")[1]), float(loss[-1].split("\t")[1])
    assert abs(first - math.log(SMALL["vocab_size"])) < 0.5 and last < first - 0.5
    training = json.loads((work / "results/neural/small/training.json").read_text())
    assert training["subword_tokens_seen"] == SMALL["steps"] * SMALL["batch_size"] * SMALL["context"]
    comparison = read_table(work, "comparison.tsv")
    assert [(row["model"], row["baseline"], row["differs_in"]) for row in comparison] == [
        ("mine", "o3", "family"),
        ("small", "o3", "family"),
    ]
    # Set against the n-gram's figure with each OOV priced as one word.
    figures = {row["model"]: row for row in read_table(work)}
    for row in comparison:
        priced = [float(figures[name]["perplexity_oovs_as_words"]) for name in (row["model"], row["baseline"])]
        assert (
            float(row["ratio"]) == priced[0] / priced[1]
            and row["perplexity_baseline"] == figures["o3"]["perplexity_oovs_as_words"]
        )
    assert float(figures["o3"]["perplexity_oovs_as_words"]) > float(figures["o3"]["perplexity_including_oovs"])
    cost = {row["model"]: row for row in read_table(work, "cost.tsv")}
    assert cost["small"]["family"] == "neural" and float(cost["small"]["train_tokens_per_second"]) > 0
    assert cost["mine"]["train_job_seconds"] == "" and float(cost["mine"]["eval_tokens_per_second"]) > 0
    assert cost["o3"]["order"] == "3"
    # An n-gram's whole numbers stay whole beside a neural row, which leaves their columns empty.
    usage = json.loads((work / "results/models/o3/usage.json").read_text())
    assert cost["o3"]["train_reserved_mb"] == str(usage["memory"]["reserved_mb"])
    decades = read_table(work, "decades.tsv")
    assert {row["model"] for row in decades} == {"o3", "mine", "small"}
    md = (work / "results/tables/perplexity.md").read_text()
    assert "| small | " in md and "Neural rows" in md
    provenance = json.loads((work / "results/provenance.json").read_text())
    assert provenance["packages"]["torch"] == metadata.version("torch") == torch.__version__
    assert provenance["experiment"]["neural"]["small"]["stride"] == 32


def test_a_new_stride_rescores_and_trains_nothing(neural_run, tmp_path):
    root, config, _, _ = neural_run
    # In a copy of the run (dates kept): the other tests read the run as it was made.
    work = tmp_path / "work"
    shutil.copytree(root / "work", work, symlinks=True)
    edited = {**config, "neural": {**config["neural"], "small": {"train": SMALL, "stride": 63}}}
    done = run_pipeline(work, edited, PERPLEXITY_TABLE)
    ran = done.jobs
    assert ran.get("train_neural", 0) == ran.get("train_tokenizer", 0) == ran.get("train", 0) == 0
    assert ran["score_neural"] == 1
    assert json.loads((work / "results/eval/small/dev-0.json").read_text())["stride"] == 63


@pytest.mark.parametrize(
    "entry,message",
    [
        ({"train": {}, "path": "/x"}, "needs exactly one of train: "),
        ({"train": {"context": 16}, "stride": 16}, "stride must be between 1 and 15"),
        ({"train": {"context": 16}, "max_length": 32}, "reads at most 16 tokens at once"),
        ({"path": "/nonexistent/model"}, "is not a folder holding a Hugging Face model"),
        ({"train": {"width": 100, "heads": 3}}, "width 100 is not a multiple of heads 3"),
        ({"train": {}, "kind": "masked"}, "kind: masked needs path:"),
        ({"train": {}, "kind": "cloze", "stride": 8}, "a cloze model reads words on each side of a gap"),
        ({"train": {"heads": 4}, "kind": "cloze"}, "('heads' was unexpected)"),
        ({"path": "/nonexistent/model", "kind": "cloze"}, "lacks config.json, vocab.txt, model.safetensors"),
    ],
)
def test_bad_neural_settings_are_refused_before_anything_runs(tmp_path, neural_run, entry, message):
    root, config, _, _ = neural_run
    done = run_pipeline(tmp_path, {**config, "neural": {"bad": entry}}, "-n", check=False)
    printed = done.stdout + done.stderr
    assert done.returncode and message in printed and "neural.bad" in printed


def test_a_neural_name_that_looks_like_an_n_gram_is_refused(tmp_path, neural_run):
    root, config, _, _ = neural_run
    done = run_pipeline(tmp_path, {**config, "neural": {"o3x": {"train": {}}}}, "-n", check=False)
    printed = done.stdout + done.stderr
    assert done.returncode and re.search(
        r"config: neural \(config.yaml line \d+\): 'o3x' is not of a form it takes", printed
    )
