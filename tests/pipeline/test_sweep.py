"""The demo sweep (orders x training fractions x pruning): a model per combination, nested
samples, training tokens as lmplz counts them, edits that retrain nothing, the comparison table."""

import csv
import math
import shutil

import pytest
import yaml

from conftest import read_table, run_pipeline, with_installs
from figures import plotted
from lmgap.report import plots as drawing

pytestmark = pytest.mark.pipeline

MODELS = [
    f"o{order}{prune}{fraction}" for order in (2, 3) for prune in ("", "-prune0.1") for fraction in ("", "-frac0.5")
]


def test_every_combination_is_a_model_with_its_own_folder(sweep_run):
    work = sweep_run / "work"
    assert sorted(p.name for p in (work / "results/models").iterdir()) == sorted(MODELS)
    rows = read_table(work)
    assert sorted(row["model"] for row in rows) == sorted(MODELS)
    for row in rows:
        assert row["train_fraction"] == ("0.5" if row["model"].endswith("-frac0.5") else "1.0")
        assert row["prune"] == ("0 1" if "-prune" in row["model"] else "none")


def test_a_fraction_is_an_exact_ordered_subset_of_the_training_lines(sweep_run):
    text = sweep_run / "work/results/text"
    whole = (text / "train.txt").read_bytes().splitlines()
    half = (text / "train-frac0.5.txt").read_bytes().splitlines()
    assert len(whole) == 3000 and len(half) == 1500
    # In the training text's order: each sampled line found after the one before it.
    position = 0
    for line in half:
        position = whole.index(line, position) + 1
    assert half != whole[:1500]


def test_train_tokens_are_the_words_of_the_training_text_and_one_end_per_line(sweep_run):
    work = sweep_run / "work"
    cost = {row["model"]: row for row in read_table(work, "cost.tsv")}
    for row in read_table(work):
        suffix = "-frac0.5" if row["model"].endswith("-frac0.5") else ""
        lines = (work / f"results/text/train{suffix}.txt").read_bytes().splitlines()
        assert int(row["train_tokens"]) == sum(len(line.split()) for line in lines) + len(lines), row["model"]
        assert cost[row["model"]]["train_tokens"] == row["train_tokens"]


def test_comparison_ratios_agree_with_the_documents_and_more_data_helps(sweep_run):
    work = sweep_run / "work"
    figures = {row["model"]: row for row in read_table(work)}
    # The run's vocabulary, and each model's, counted here from the texts.
    texts = {name: set((work / f"results/text/{name}.txt").read_bytes().split()) for name in ("train", "dev-0")}
    run_words = len(texts["train"] | texts["dev-0"])
    half = len(set((work / "results/text/train-frac0.5.txt").read_bytes().split()))
    for name, row in figures.items():
        assert int(row["vocabulary"]) == (half if name.endswith("-frac0.5") else len(texts["train"]))
    rows = read_table(work, "comparison.tsv")
    assert {(row["model"], row["baseline"], row["differs_in"]) for row in rows} == {
        *((m, m.replace("o3", "o2"), "order") for m in MODELS if m.startswith("o3")),
        *((m, m + "-frac0.5", "train_fraction") for m in MODELS if not m.endswith("-frac0.5")),
        *((m, m.replace("-prune0.1", ""), "prune") for m in MODELS if "-prune" in m),
    }
    for row in rows:
        model, baseline = figures[row["model"]], figures[row["baseline"]]
        ratio = float(model["perplexity_oovs_as_words"]) / float(baseline["perplexity_oovs_as_words"])
        assert float(row["ratio"]) == ratio
        # The ratio from the per-document log-probabilities the bootstrap resamples, each OOV
        # priced at log10 1/(V - the model's vocabulary), V counted here from the texts.
        docs = {
            name: list(csv.DictReader(open(work / f"results/eval/{name}/dev-0.documents.tsv"), delimiter="\t"))
            for name in (row["model"], row["baseline"])
        }
        tokens = sum(int(d["tokens"]) for d in docs[row["model"]])

        def priced(name):
            unknown = run_words - int(figures[name]["vocabulary"])
            oovs = sum(int(d["oovs"]) for d in docs[name])
            # A model that knows every word of the run meets no OOV.
            assert unknown == int(figures[name]["unknown_words"]) and (unknown or not oovs)
            price = math.log10(unknown) if unknown else 0.0
            return sum(float(d["log10_prob"]) - int(d["oovs"]) * price for d in docs[name])

        assert math.isclose(10 ** ((priced(row["baseline"]) - priced(row["model"])) / tokens), ratio, rel_tol=1e-9)
        low, high = float(row["ratio_ci_low"]), float(row["ratio_ci_high"])
        assert low < ratio < high and row["documents"] == "200" and row["resamples"] == "1000"
        rates = float(model["oov_rate"]), float(baseline["oov_rate"])
        assert (float(row["oov_rate_model"]), float(row["oov_rate_baseline"])) == rates
        assert row["real"] == ("yes" if high < 1 or low > 1 else "no")
        if row["differs_in"] == "train_fraction":
            assert high < 1 and row["real"] == "yes"
    # Pruning a bigram at threshold 1 costs little on this corpus, and the table says so.
    assert {row["real"] for row in rows if row["differs_in"] == "prune"} == {"yes", "no"}
    md = (work / "results/tables/comparison.md").read_text()
    assert md.count("\n| dev-0 |") == len(rows) and "[0." in md


def test_the_learning_curve_and_size_plots_show_the_table(sweep_run, tmp_path):
    work = sweep_run / "work"
    rows = read_table(work)
    table = drawing.read_perplexity_table(work / "results/tables/perplexity.tsv")
    curve = {label: (x, y) for label, x, y in plotted(drawing.learning_curve(table, tmp_path / "curve.png"))}
    # One line per order and pruning: its points, the training tokens of each fraction, in order.
    lines = {}
    for row in sorted(rows, key=lambda row: int(row["train_tokens"])):
        prune = [] if row["prune"] == "none" else [f"prune {row['prune']}"]
        fallback = ["fallback"] if row["discount_fallback"] == "true" else []
        x, y = lines.setdefault(", ".join([f"order {row['order']}", *prune, *fallback, "dev-0"]), ([], []))
        x.append(float(row["train_tokens"]))
        y.append(float(row["perplexity_oovs_as_words"]))
    assert curve == lines
    sizes = {
        label: sorted(zip(x, y))
        for label, x, y in plotted(drawing.perplexity_by_size(table, tmp_path / "size.png"))
        if not label.startswith("_")
    }
    for kind in ("unpruned", "pruned"):
        chosen = [row for row in rows if (row["prune"] == "none") == (kind == "unpruned")]
        assert sizes[f"{kind}, dev-0"] == sorted(
            (int(row["binary_bytes"]) / 2**20, float(row["perplexity_oovs_as_words"])) for row in chosen
        )
    for mine, plot in (("curve", "learning_curve"), ("size", "perplexity_by_size")):
        assert (tmp_path / f"{mine}.png").read_bytes() == (work / f"results/plots/{plot}.png").read_bytes()


def test_switching_axes_back_and_forth_retrains_nothing(sweep_run, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(sweep_run / "work", work, symlinks=True)
    config = yaml.safe_load((work / "config.yaml").read_text())
    tables = with_installs(
        {
            "perplexity_table": 1,
            "cost_table": 1,
            "comparison_table": 1,
            "document_tables": 1,
            "plots": 1,
            "provenance": 1,
        }
    )
    # One value of each axis dropped, then all back: the tables are rewritten, nothing trained.
    fewer = {"train_fraction": [1.0], "orders": [3], "lmplz": {**config["lmplz"], "prune": [[0, 1]]}}
    for edit in (fewer, {}):
        assert run_pipeline(work, {**config, **edit}).jobs == tables, edit
    # A new fraction: its sample and its four models, nothing else trained again.
    done = run_pipeline(work, {**config, "train_fraction": [0.25, 0.5, 1.0]})
    assert done.jobs == {
        **tables,
        "sample_training_text": 1,
        "train": 4,
        "install_model": 4,
        "model_fingerprint": 4,
        "query": 4,
    }
    assert {log for log in done.logs if log.startswith(("train/", "query/"))} == {
        f"{rule}/o{order}{prune}-frac0.25{split}.log"
        for order in (2, 3)
        for prune in ("", "-prune0.1")
        for rule, split in (("train", ""), ("query", "/dev-0"))
    }
