"""Every setting the README and config.yaml advertise, run end to end with the real tools and
checked against the hand recipe with the same options, or query run by hand."""

import base64
import csv
import hashlib
import json
import lzma
import random
import shutil
import subprocess

import numpy as np
import pytest

import hand_recipe
from conftest import COMPARISON_TABLE, DOCUMENT_TABLES, PERPLEXITY_TABLE, jobs_planned, read_table, run_pipeline
from generate_corpus import MarkovSource, write_headers, write_split

pytestmark = pytest.mark.pipeline


@pytest.fixture(scope="module")
def three_splits(tmp_path_factory):
    """A corpus with train, dev-0 and dev-1, in the challenge's layout."""
    root = tmp_path_factory.mktemp("three") / "corpus"
    source = MarkovSource(vocab_size=3000, successors=8, mix=0.3, end=0.06, seed=21)
    sentences, writer = random.Random(21), np.random.default_rng(21)
    for split, count in (("train", 2500), ("dev-0", 150), ("dev-1", 120)):
        lines = ([source.words[w] for w in source.sentence(sentences)] for _ in range(count))
        write_split(root / split, lines, writer)
    write_headers(root)
    return root


def printed_numbers(printed):
    return {
        "perplexity_including_oovs": float(printed["Perplexity including OOVs"]),
        "perplexity_excluding_oovs": float(printed["Perplexity excluding OOVs"]),
        "oovs": int(printed["OOVs"]),
        "tokens": int(printed["Tokens"]),
    }


def table_numbers(row):
    return {
        "perplexity_including_oovs": float(row["perplexity_including_oovs"]),
        "perplexity_excluding_oovs": float(row["perplexity_excluding_oovs"]),
        "oovs": int(row["oovs"]),
        "tokens": int(row["tokens"]),
    }


def test_two_scored_splits_fill_every_table_the_report_and_the_hand_recipe_agrees(three_splits, kenlm_bin, tmp_path):
    work = tmp_path / "work"
    config = {
        "corpus": {"source": str(three_splits)},
        "orders": [3],
        "eval_splits": ["dev-0", "dev-1"],
        "lmplz": {"discount_fallback": True},
        "kenlm": {"bin_dir": str(kenlm_bin)},
    }
    run_pipeline(work, config)
    rows = read_table(work)
    assert [row["split"] for row in rows] == ["dev-0", "dev-1"]
    for row in rows:
        printed = hand_recipe.run(
            three_splits, kenlm_bin, 3, tmp_path, ["--discount_fallback"], splits=("train", row["split"])
        )
        assert table_numbers(row) == printed_numbers(printed)
    markdown = (work / "results/tables/perplexity.md").read_text()
    for row in rows:
        assert f"{row['split']} PPL incl. OOVs" in markdown
        assert f"| {float(row['perplexity_including_oovs']):.2f} |" in markdown
    # The cost table sums the queries of both splits, as their own benchmark files say.
    (cost,) = read_table(work, "cost.tsv")
    seconds = 0.0
    for split in ("dev-0", "dev-1"):
        with open(work / f"results/benchmarks/query/o3/{split}.tsv") as handle:
            seconds += float(next(csv.DictReader(handle, delimiter="\t"))["s"])
    assert float(cost["query_seconds"]) == pytest.approx(seconds)
    assert {row["split"] for row in read_table(work, "gap.tsv")} == {"dev-0", "dev-1"}
    assert {row["split"] for row in read_table(work, "decades.tsv")} == {"dev-0", "dev-1"}
    # Into a folder that does not exist: refused at the parse, before the report is built.
    refused = run_pipeline(work, config, "--report", "no dir/report.html", check=False)
    assert refused.returncode and f"make it with mkdir -p -- '{work}/no dir'" in refused.stderr
    run_pipeline(work, config, "--report", "results/report.html")
    html = (work / "results/report.html").read_text()
    for table in ("perplexity.tsv", "gap.tsv", "cost.tsv", "decades.tsv"):
        assert base64.b64encode((work / "results/tables" / table).read_bytes()).decode() in html


def test_a_model_trained_on_another_split_equals_the_hand_recipe_on_it(three_splits, kenlm_bin, tmp_path):
    work = tmp_path / "work"
    config = {
        "corpus": {"source": str(three_splits)},
        "orders": [3],
        "train_split": "dev-0",
        "eval_splits": ["dev-1"],
        "lmplz": {"discount_fallback": True},
        "kenlm": {"bin_dir": str(kenlm_bin)},
    }
    run_pipeline(work, config)
    (row,) = read_table(work)
    printed = hand_recipe.run(three_splits, kenlm_bin, 3, tmp_path, ["--discount_fallback"], splits=("dev-0", "dev-1"))
    assert table_numbers(row) == printed_numbers(printed)
    # The gap task holds out lines of the split it trains on: at most a tenth of dev-0's 150.
    assert 0 < len((work / "results/gap/heldout.tsv").read_text().splitlines()) <= 15


def test_a_pruned_model_equals_lmplz_prune_by_hand(three_splits, kenlm_bin, tmp_path):
    work = tmp_path / "work"
    config = {
        "corpus": {"source": str(three_splits)},
        "orders": [3],
        "lmplz": {"prune": [0, 0, 1], "discount_fallback": True},
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }
    run_pipeline(work, config, PERPLEXITY_TABLE)
    (row,) = read_table(work)
    assert (row["model"], row["prune"]) == ("o3-prune0.0.1", "0 0 1")
    printed = hand_recipe.run(three_splits, kenlm_bin, 3, tmp_path, ["--prune", "0", "0", "1", "--discount_fallback"])
    assert table_numbers(row) == printed_numbers(printed)
    # Pruning removed singleton trigrams: fewer than the unpruned model holds.
    unpruned = tmp_path / "unpruned.arpa"
    subprocess.run(
        hand_recipe.lmplz_command(kenlm_bin / "lmplz", 3, tmp_path / "train.txt", unpruned, ["--discount_fallback"]),
        shell=True,
        check=True,
        capture_output=True,
    )
    assert int(row["ngrams_3"]) < int(unpruned.read_text().split("ngram 3=")[1].split()[0])


# Each format's build_binary arguments, typed as KenLM's documentation gives them.
BY_HAND = {
    "o3": ["probing"],
    "o3-probing-p1.2": ["-p", "1.2", "probing"],
    "o3-trie": ["trie"],
    "o3-trie-q8b8": ["-q", "8", "-b", "8", "trie"],
    "o3-trie-q4b6-a22": ["-q", "4", "-b", "6", "-a", "22", "trie"],
}


def test_every_binary_format_equals_build_binary_and_query_by_hand(three_splits, kenlm_bin, tmp_path):
    work = tmp_path / "work"
    config = {
        "corpus": {"source": str(three_splits)},
        "orders": [3],
        "lmplz": {"discount_fallback": True},
        "build_binary": {"format": ["trie", "trie-q4b6-a22", "probing", "trie-q8", "probing-p1.2"]},
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }
    run_pipeline(work, config, PERPLEXITY_TABLE, "results/tables/comparison.tsv", "results/tables/cost.tsv")
    rows = {row["model"]: row for row in read_table(work)}
    assert sorted(rows) == sorted(BY_HAND)
    for model, arguments in BY_HAND.items():
        printed = hand_recipe.run(three_splits, kenlm_bin, 3, tmp_path, ["--discount_fallback"], binary=arguments)
        assert table_numbers(rows[model]) == printed_numbers(printed), model
        assert rows[model]["format"] == (model.partition("-")[2] or "probing")
        # One lmplz run fed every format: each binary is what build_binary makes of its ARPA text.
        built = (work / "results/models" / model / "model.binary").read_bytes()
        assert built == (tmp_path / "model3.binary").read_bytes(), model
    # Without quantisation the trie is the probing model, every figure the same; quantised, it is not.
    same = set(rows["o3"]) - {"model", "format", "binary_bytes"}
    assert all(rows["o3-trie"][column] == rows["o3"][column] for column in same)
    assert all(rows["o3-probing-p1.2"][column] == rows["o3"][column] for column in same)
    assert rows["o3-trie-q8b8"]["log10_prob"] != rows["o3"]["log10_prob"]
    sizes = {model: int(row["binary_bytes"]) for model, row in rows.items()}
    assert sizes["o3-trie-q4b6-a22"] < sizes["o3-trie-q8b8"] < sizes["o3-trie"] < sizes["o3-probing-p1.2"] < sizes["o3"]
    # Each format is set against its probing twin, the bootstrap's verdict beside it.
    compared = read_table(work, "comparison.tsv")
    pairs = {(row["model"], row["baseline"]): row for row in compared if row["differs_in"] == "format"}
    assert sorted(pairs) == sorted((model, "o3") for model in BY_HAND if model != "o3")
    assert pairs["o3-trie", "o3"]["ratio"] == "1.0" and pairs["o3-trie", "o3"]["real"] == "no"
    costs = {row["model"]: row for row in read_table(work, "cost.tsv")}
    # One train job: every format shares its lmplz run, and each has its own build_binary and loading.
    assert len({costs[model]["lmplz_seconds"] for model in BY_HAND}) == 1
    assert all(float(costs[model]["load_seconds"]) > 0 for model in BY_HAND)
    assert (work / "results/benchmarks/train/o3.tsv").is_file()
    assert not list((work / "results/benchmarks/train").glob("o3-*"))


def unigram_probabilities(arpa):
    """{word: probability} of an ARPA file's unigrams that have one (not <s>)."""
    lines = arpa.read_text().split("\\1-grams:\n")[1].split("\n\n")[0].splitlines()
    fields = [line.split("\t") for line in lines]
    return {word: 10 ** float(log10) for log10, word, *_ in fields if word != "<s>"}


def test_srilm_s_unigrams_equal_lmplz_by_hand_and_kenlm_s_interpolate_them(three_splits, kenlm_bin, tmp_path):
    work = tmp_path / "work"
    config = {
        "corpus": {"source": str(three_splits)},
        "orders": [3],
        "lmplz": {"interpolate_unigrams": [True, False], "discount_fallback": True},
        "keep_arpa": True,
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }
    run_pipeline(work, config, PERPLEXITY_TABLE, COMPARISON_TABLE)
    rows = {row["model"]: row for row in read_table(work)}
    assert {name: row["interpolate_unigrams"] for name, row in rows.items()} == {"o3": "true", "o3-interp0": "false"}
    options = ["--interpolate_unigrams", "0", "--discount_fallback"]
    printed = hand_recipe.run(three_splits, kenlm_bin, 3, tmp_path, options)
    assert table_numbers(rows["o3-interp0"]) == printed_numbers(printed)
    # Interpolating the unigrams gives each word with a probability its share of what SRILM's
    # unigrams give <unk> alone, the same share for all: p(w) = p0(w) + p0(<unk>) / |V|, and
    # p(<unk>) = p0(<unk>) / |V| (to the ARPA files' printed precision).
    kenlm = unigram_probabilities(work / "results/models/o3/model.arpa")
    srilm = unigram_probabilities(work / "results/models/o3-interp0/model.arpa")
    assert kenlm.keys() == srilm.keys() and srilm["<unk>"] > 100 * kenlm["<unk>"]
    share = srilm["<unk>"] / len(srilm)
    for word, probability in kenlm.items():
        assert probability == pytest.approx((word != "<unk>") * srilm[word] + share, rel=1e-6, abs=1e-9), word
    comparison = (work / "results/tables/comparison.tsv").read_text().splitlines()
    assert [line.split("\t")[1:4] for line in comparison[1:]] == [["o3-interp0", "o3", "interpolate_unigrams"]]
    # Back to KenLM's alone: its model's jobs stand; only the tables are written again.
    kenlm_only = {**config, "lmplz": {"interpolate_unigrams": True, "discount_fallback": True}}
    assert set(jobs_planned(work, kenlm_only, PERPLEXITY_TABLE)) == {"perplexity_table", "install_perplexity_table"}


def by_hand(kenlm_bin, text, scored, arpa, options):
    """lmplz and query run by hand on a text: query's summary lines on the scored text."""
    lmplz = hand_recipe.lmplz_command(kenlm_bin / "lmplz", 3, text, arpa, options)
    subprocess.run(lmplz, shell=True, check=True, capture_output=True)
    query = hand_recipe.query_command(kenlm_bin / "query", arpa, scored)
    return hand_recipe.summary(subprocess.run(query, shell=True, check=True, capture_output=True, text=True).stdout)


def test_a_padded_model_equals_lmplz_vocab_pad_by_hand_and_prices_an_oov_as_one_word(three_splits, kenlm_bin, tmp_path):
    work, hand = tmp_path / "work", tmp_path / "hand"
    config = {
        "corpus": {"source": str(three_splits)},
        "orders": [3],
        # A tenth of the training lines: a model that does not know every word of the run's.
        "train_fraction": [0.1],
        "lmplz": {"interpolate_unigrams": [True, False], "vocab_pad": True, "discount_fallback": True},
        "keep_arpa": True,
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }
    run_pipeline(work, config, PERPLEXITY_TABLE)
    rows = {row["model"]: row for row in read_table(work)}
    # V by hand: the word types of the hand recipe's training and dev-0 texts; lmplz pads to V + 1.
    hand.mkdir()
    hand_recipe.run(three_splits, kenlm_bin, 3, hand, ["--discount_fallback"])
    vocabulary = len({w for split in ("train", "dev-0") for w in (hand / f"{split}.txt").read_bytes().split()})
    pad = {"o3-frac0.1-pad": vocabulary + 1, "o3-frac0.1-interp0": 0}
    assert {name: int(row["vocab_pad"]) for name, row in rows.items()} == pad
    # The pipeline's sample of the training lines, trained on by hand with and without the padding.
    sample, scored = work / "results/text/train-frac0.1.txt", hand / "dev-0.txt"
    options = ["--discount_fallback"]
    printed = by_hand(kenlm_bin, sample, scored, hand / "padded.arpa", ["--vocab_pad", str(vocabulary + 1), *options])
    assert table_numbers(rows["o3-frac0.1-pad"]) == printed_numbers(printed) and int(printed["OOVs"]) > 0
    # Its <unk> is one unknown word's probability: KenLM's own figure prices each OOV as a word, and
    # the per-word column is that figure.
    row = rows["o3-frac0.1-pad"]
    assert row["perplexity_oovs_as_words"] == row["perplexity_including_oovs"]
    # By hand from the ARPA files: padding moves each unigram's uniform share, gamma / types, to
    # gamma / (V + 1), gamma being the unpadded <unk>'s probability times types (every unigram but
    # <s>); <unk> and the V + 1 - types entries padded stand for the V - known words the model does
    # not know, each at <unk>'s probability, and with the model's entries they sum to one.
    by_hand(kenlm_bin, sample, scored, hand / "unpadded.arpa", options)
    unpadded = unigram_probabilities(hand / "unpadded.arpa")
    padded = unigram_probabilities(work / "results/models/o3-frac0.1-pad/model.arpa")
    types, size = len(unpadded), vocabulary + 1
    unknown = vocabulary - (types - 2)
    assert padded.keys() == unpadded.keys() and int(row["unknown_words"]) == unknown == size - types + 1 > 1
    gamma = unpadded["<unk>"] * types
    for word, probability in unpadded.items():
        assert padded[word] == pytest.approx(probability - gamma / types + gamma / size, rel=1e-5), word
    assert sum(padded.values()) + (unknown - 1) * padded["<unk>"] == pytest.approx(1.0, abs=1e-5)


def rewrite_in_tsv(split_dir, change):
    """Apply change to every line (its columns) of a split's in.tsv.xz."""
    with lzma.open(split_dir / "in.tsv.xz", "rt", encoding="utf-8") as handle:
        lines = [line.rstrip("\n").split("\t") for line in handle]
    with lzma.open(split_dir / "in.tsv.xz", "wt", encoding="utf-8") as handle:
        handle.writelines("\t".join(change(number, columns)) + "\n" for number, columns in enumerate(lines))


def test_years_missing_malformed_or_absent_give_unknown_or_no_decades(three_splits, kenlm_bin, tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(three_splits, corpus)
    # Every fourth dev-0 line without a year, every fifth with one that is not a year.
    bad = {"": lambda n: n % 4 == 0, "n/a": lambda n: n % 4 and n % 5 == 0}
    rewrite_in_tsv(
        corpus / "dev-0", lambda n, cols: [*cols[:3], next((v for v, b in bad.items() if b(n)), cols[3]), *cols[4:]]
    )
    config = {
        "corpus": {"source": str(corpus)},
        "orders": [3],
        "lmplz": {"discount_fallback": True},
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }
    run_pipeline(tmp_path / "work", config, DOCUMENT_TABLES)
    decades = read_table(tmp_path / "work", "decades.tsv")
    unknown = [d for d in decades if d["decade"] == "unknown"]
    expected_unknown = sum(1 for n in range(150) if n % 4 == 0 or n % 5 == 0)
    assert len(unknown) == 1 and int(unknown[0]["documents"]) == expected_unknown
    assert sum(int(d["documents"]) for d in decades) == 150

    # A header naming no Year column: no decades, and the Markdown says why.
    (corpus / "in-header.tsv").write_text("FileId\tPaper\tIdx\tDate\tMonth\tDay\tLeftContext\tRightContext\n")
    run_pipeline(tmp_path / "work", config)
    assert read_table(tmp_path / "work", "decades.tsv") == []
    assert "names a Year column" in (tmp_path / "work/results/tables/decades.md").read_text()
    # The plots read the table of no decades too: every one is drawn, none kept from the first run.
    assert (tmp_path / "work/results/plots/perplexity_by_decade.png").stat().st_size
    assert not (tmp_path / "work/results/tables/KEPT.md").exists()


def unoptimised_compilers(folder):
    """A command that runs another with compilers that append -O0 to each compile, so that the
    builds' own commands run (cmake's Release flags and setup.py's -O3 included, which the last -O
    overrides). The test holds the pipeline's rebuild, not the compiler's optimiser, and its corpus
    needs no fast lmplz: it took 86 CPU-s rather than 117 (KenLM's two builds 58 rather than 94)."""
    folder.mkdir()
    compilers = {}
    for variable, compiler in (("CC", "gcc"), ("CXX", "g++")):
        path = folder / compiler
        path.write_text(f'#!/bin/sh\nexec {compiler} "$@" -O0\n')
        path.chmod(0o755)
        compilers[variable] = path
    return ("env", *(f"{variable}={path}" for variable, path in compilers.items()))


def test_an_order_above_six_rebuilds_kenlm_and_keeps_the_models_trained(three_splits, kenlm_bin, tmp_path):
    work = tmp_path / "work"
    # The tools for orders up to 6 as a first run builds them; copied, not built again.
    shutil.copytree(kenlm_bin.parent, work / "resources/kenlm" / kenlm_bin.parent.name)
    config = {"corpus": {"source": str(three_splits)}, "orders": [3], "lmplz": {"discount_fallback": True}}
    run_pipeline(work, config)
    order3 = (work / "results/models/o3/model.binary").stat().st_mtime_ns
    done = run_pipeline(work, {**config, "orders": [3, 7]}, wrapper=unoptimised_compilers(tmp_path / "compilers"))
    jobs = done.jobs
    assert jobs["build_kenlm"] == 1 and jobs["build_kenlm_python"] == 1 and jobs["train"] == 1
    assert "train/o7.log" in done.logs
    assert (work / "results/models/o3/model.binary").stat().st_mtime_ns == order3
    tools = work / "resources/kenlm/kenlm-0.3.0-maxorder7/bin"
    said = subprocess.run([str(tools / "query")], capture_output=True, text=True)
    assert "KenLM was compiled with maximum order 7." in said.stdout + said.stderr
    rows = {row["order"]: row for row in read_table(work)}
    printed = hand_recipe.run(three_splits, tools, 7, tmp_path, ["--discount_fallback"])
    assert table_numbers(rows["7"]) == printed_numbers(printed)
    # The gap predictor loads the 7-gram with a kenlm module built for it.
    assert {row["model"] for row in read_table(work, "gap.tsv")} == {"unigram", "o3", "o7", "document", "blend"}
    # The provenance record names each build's tools by their checksums.
    record = json.loads((work / "results/provenance.json").read_text())
    for max_order in (6, 7):
        query = work / f"resources/kenlm/kenlm-0.3.0-maxorder{max_order}/bin/query"
        assert (
            record["kenlm"]["tools_sha256"][f"query (maxorder {max_order})"]
            == hashlib.sha256(query.read_bytes()).hexdigest()
        )
    assert record["kenlm"]["max_orders"] == [6, 7]
