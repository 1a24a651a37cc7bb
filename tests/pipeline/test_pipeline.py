"""End to end: the real snakemake with the real KenLM on corpora the tests generate."""

import base64
import csv
import hashlib
import json
import lzma
import math
import re
import shutil
import subprocess
import tomllib

import pytest

import hand_recipe
from conftest import COMPARISON_TABLE, DOCUMENT_TABLES, PERPLEXITY_TABLE, REPO, read_table, run_pipeline
from figures import plotted
from lmgap.record import kenlm_perplexities
from lmgap.report import plots as drawing
from lmgap.sourcecode import package_code
from generate_corpus import MarkovSource, write_corpus

pytestmark = pytest.mark.pipeline


def test_kenlm_build_has_the_configured_maximum_order(kenlm_bin):
    done = subprocess.run([str(kenlm_bin / "query")], capture_output=True, text=True)
    assert "KenLM was compiled with maximum order 6." in done.stdout + done.stderr


def test_every_number_equals_the_hand_recipe(demo_run, kenlm_bin, tmp_path):
    rows = read_table(demo_run / "work")
    assert [(row["order"], row["split"]) for row in rows] == [("3", "dev-0"), ("4", "dev-0"), ("5", "dev-0")]
    for row in rows:
        printed = hand_recipe.run(demo_run / "corpus", kenlm_bin, int(row["order"]), tmp_path)
        assert float(row["perplexity_including_oovs"]) == float(printed["Perplexity including OOVs"])
        assert float(row["perplexity_excluding_oovs"]) == float(printed["Perplexity excluding OOVs"])
        assert row["oovs"] == printed["OOVs"] and row["tokens"] == printed["Tokens"]
        # The TSV keeps every printed digit: its text is the shortest exact form of query's number.
        assert row["perplexity_including_oovs"] == repr(float(printed["Perplexity including OOVs"]))
        assert (row["prune"], row["discount_fallback"]) == ("none", "false")


def test_an_oov_priced_as_one_word_by_hand_from_the_arpa_file(demo_run, kenlm_bin, tmp_path):
    # kpu/kenlm#67: an unknown word costs p(<unk>) / (V - |vocabulary|), V here every word type of
    # the hand-rebuilt training and dev-0 texts, |vocabulary| the ARPA file's unigrams less <s>,
    # </s> and <unk>; each token scored by the kenlm module on the hand recipe's ARPA file.
    import kenlm

    row = next(row for row in read_table(demo_run / "work") if row["model"] == "o3")
    hand_recipe.run(demo_run / "corpus", kenlm_bin, 3, tmp_path)
    arpa = (tmp_path / "model3.arpa").read_text()
    unigrams = int(re.search(r"^ngram 1=(\d+)$", arpa, re.M).group(1))
    unk = re.search(r"^(-?[\d.]+)\t<unk>\t?(-?[\d.]+)?$", arpa, re.M)
    start = re.search(r"^(-?[\d.]+)\t<s>\t(-?[\d.]+)$", arpa, re.M)
    words = {name: set((tmp_path / f"{name}.txt").read_bytes().split()) for name in ("train", "dev-0")}
    run_words, known = len(words["train"] | words["dev-0"]), unigrams - 3
    assert known == len(words["train"]) == int(row["vocabulary"])
    assert run_words - known == int(row["unknown_words"]) > 0
    share = -math.log10(run_words - known)

    # Lines end at b"\n" alone, as query reads them.
    lines = [line.decode() for line in (tmp_path / "dev-0.txt").read_bytes().split(b"\n")[:-1]]
    model, total, oovs = kenlm.Model(str(tmp_path / "model3.arpa")), 0.0, 0
    for line in lines:
        for log10, _, oov in model.full_scores(line):
            total, oovs = total + log10, oovs + oov
    # An OOV that opens a line: the ARPA file's <unk> line backed off from <s>, then its share.
    unseen = next(w for line in lines for w in line.split(" ") if w and w.encode() not in words["train"])
    first, _, oov = next(model.full_scores(unseen, eos=False))
    assert oov and first == pytest.approx(float(unk.group(1)) + float(start.group(2)), abs=1e-5)
    assert oovs == int(row["oovs"])
    priced = 10 ** (-(total + oovs * share) / int(row["tokens"]))
    assert float(row["perplexity_oovs_as_words"]) == pytest.approx(priced, rel=1e-6)
    assert priced > float(row["perplexity_including_oovs"])


def test_markdown_table_has_one_row_per_order(demo_run):
    md = (demo_run / "work/results/tables/perplexity.md").read_text()
    rows = read_table(demo_run / "work")
    body = [line for line in md.splitlines() if line.startswith("| ") and not line.startswith("| Model")]
    assert [line.split(" | ")[0] for line in body] == ["| o3", "| o4", "| o5"]
    for line, row in zip(body, rows):
        assert f"| {float(row['perplexity_including_oovs']):.2f} |" in line
        assert f"| {100 * float(row['oov_rate']):.2f}% |" in line
        assert f"| {100 * float(row['hit_ratio_' + row['order']]):.1f}% |" in line


def test_arpa_is_not_kept_by_default_and_text_ends_with_newline(demo_run):
    models = demo_run / "work/results/models"
    assert sorted(p.name for p in models.iterdir()) == ["o3", "o4", "o5"]
    assert sorted(p.name for p in (models / "o3").iterdir()) == [
        "fingerprint.json",
        "model.binary",
        "ngram_counts.json",
        "usage.json",
    ]
    text = (demo_run / "work/results/text/dev-0.txt").read_bytes()
    assert text.endswith(b"\n") and text.count(b"\n") == 600


def test_order3_comes_close_to_the_known_source(tmp_path, kenlm_bin):
    source = MarkovSource(vocab_size=20, successors=4, mix=0.1, end=0.08, seed=11)
    dev = write_corpus(tmp_path / "corpus", source, train_sentences=40000, dev_sentences=3000, seed=11, layout=4)
    config = {
        "corpus": {"source": str(tmp_path / "corpus")},
        "orders": [3],
        "gap": {"enabled": False},
        # Twenty words leave no singleton unigram, which modified Kneser-Ney needs.
        "lmplz": {"discount_fallback": True},
        "keep_arpa": True,
        "kenlm": {"bin_dir": str(kenlm_bin)},
    }
    run_pipeline(tmp_path / "work", config, PERPLEXITY_TABLE)
    arpa = (tmp_path / "work/results/models/o3/model.arpa").read_text()
    assert "\\data\\\nngram 1=" in arpa[:100] and arpa.rstrip().endswith("\\end\\")
    (row,) = read_table(tmp_path / "work")
    assert row["discount_fallback"] == "true"
    assert int(row["oovs"]) == 0 and int(row["tokens"]) == sum(len(s) + 1 for s in dev)
    # n-gram counts: the entries of each section of the ARPA file, counted here.
    counted, section = {}, None
    for line in arpa.splitlines():
        if line.endswith("-grams:"):
            section = int(line[1:].split("-")[0])
            counted[section] = 0
        elif line and section and line != "\\end\\":
            counted[section] += 1
    assert [int(row[f"ngrams_{k}"]) for k in (1, 2, 3)] == [counted[1], counted[2], counted[3]]
    truth = source.perplexity(dev)
    model = float(row["perplexity_including_oovs"])
    assert truth * 0.99 <= model <= truth * 1.03, (model, truth)


def test_two_clean_runs_give_identical_tables_and_a_provenance_record(demo_run, kenlm_bin, tmp_path):
    # The gap task's tables hold times, and no table compared here reads it.
    config = {
        "corpus": {"source": str(demo_run / "corpus")},
        "orders": [3, 4, 5],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }
    run_pipeline(tmp_path / "again", config, PERPLEXITY_TABLE, DOCUMENT_TABLES, COMPARISON_TABLE)
    tables = ["perplexity", "decades", "hardest", "comparison"]
    for table in (f"{name}.{kind}" for name in tables for kind in ("tsv", "md")):
        first = (demo_run / "work/results/tables" / table).read_bytes()
        assert (tmp_path / "again/results/tables" / table).read_bytes() == first
    record = json.loads((demo_run / "work/results/provenance.json").read_text())
    assert record["experiment"]["orders"] == [3, 4, 5] and record["kenlm"]["version"] == "0.3.0"
    train = demo_run / "corpus/train/in.tsv.xz"
    assert record["corpus"]["files"]["train/in.tsv.xz"]["sha256"] == hashlib.sha256(train.read_bytes()).hexdigest()
    lmplz = (kenlm_bin / "lmplz").read_bytes()
    assert record["kenlm"]["tools_sha256"]["lmplz"] == hashlib.sha256(lmplz).hexdigest()
    # The code that made them: lmgap's version, the digest of its code, this checkout's commit.
    with open(REPO / "pyproject.toml", "rb") as handle:
        assert record["lmgap"]["version"] == tomllib.load(handle)["project"]["version"]
    assert record["lmgap"]["code"] == package_code()
    git = ["git", "-C", str(REPO)]
    head = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    changed = subprocess.run([*git, "diff", "HEAD", "--quiet"]).returncode == 1
    assert (record["lmgap"]["commit"], record["lmgap"]["uncommitted_changes"]) == (head, changed)


def benchmark_row(path):
    with open(path, newline="") as handle:
        return next(csv.DictReader(handle, delimiter="\t"))


def test_cost_table_columns_are_the_jobs_own_measurements(demo_run):
    work = demo_run / "work"
    with open(work / "results/tables/cost.tsv", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    assert [row["model"] for row in rows] == ["o3", "o4", "o5"]
    # The training text's tokens counted here: every word and one </s> per line.
    text = (work / "results/text/train.txt").read_bytes().split(b"\n")[:-1]
    train_tokens = sum(len(line.split()) + 1 for line in text)
    scored = {row["model"]: int(row["tokens"]) for row in read_table(work)}
    for row in rows:
        model = row["model"]
        binary = work / f"results/models/{model}/model.binary"
        assert int(row["binary_bytes"]) == len(binary.read_bytes())
        train = benchmark_row(work / f"results/benchmarks/train/{model}.tsv")
        query = benchmark_row(work / f"results/benchmarks/query/{model}/dev-0.tsv")
        usage = json.loads((work / f"results/models/{model}/usage.json").read_text())
        assert float(row["train_job_seconds"]) == float(train["s"])
        assert float(row["query_seconds"]) == float(query["s"])
        assert float(row["peak_rss_mb"]) == max(float(train["max_rss"]), float(query["max_rss"]))
        assert int(row["train_tokens"]) == train_tokens
        assert float(row["train_tokens_per_second"]) == pytest.approx(train_tokens / float(train["s"]), rel=1e-12)
        assert float(row["eval_tokens_per_second"]) == pytest.approx(scored[model] / float(query["s"]), rel=1e-12)
        for tool in ("lmplz", "build_binary"):
            # Each tool's own time, inside the job's, and its own peak and CPU time from wait4.
            assert 0 < float(row[f"{tool}_seconds"]) <= float(train["s"])
            assert float(row[f"{tool}_seconds"]) == usage[tool]["seconds"]
            assert float(row[f"{tool}_cpu_seconds"]) == usage[tool]["cpu_seconds"] > 0
            assert float(row[f"{tool}_peak_rss_mb"]) == usage[tool]["peak_rss_mb"] > 0
        assert float(row["train_reserved_mb"]) == usage["memory"]["reserved_mb"]
        assert (row["prune"], row["discount_fallback"], row["order"]) == ("none", "false", model[1:])


def test_bad_discounts_name_the_config_key_and_the_fallback_works(tmp_path, kenlm_bin):
    source = MarkovSource(vocab_size=8, successors=3, mix=0.1, seed=5)
    write_corpus(tmp_path / "corpus", source, train_sentences=300, dev_sentences=20, seed=5)
    config = {
        "corpus": {"source": str(tmp_path / "corpus")},
        "orders": [3],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }
    done = run_pipeline(tmp_path / "work", config, PERPLEXITY_TABLE, check=False)
    assert done.returncode != 0
    assert "Set lmplz.discount_fallback: true to pass" in done.stderr
    assert not list((tmp_path / "work/results/models").glob("*/model.*"))
    done = run_pipeline(tmp_path / "work", {**config, "lmplz": {"discount_fallback": True}}, PERPLEXITY_TABLE)
    assert [row["model"] for row in read_table(tmp_path / "work")] == ["o3"]
    # The models lmplz filled in discounts for are named, with their orders, where people look.
    counts = json.loads((tmp_path / "work/results/models/o3/ngram_counts.json").read_text())
    orders = ", ".join(map(str, counts["fallback_discounts"]))
    named = f"lmplz could not estimate the modified Kneser-Ney discounts of o3 (orders {orders}) on this text"
    assert counts["fallback_discounts"] and named in done.stderr
    assert named in (tmp_path / "work/results/tables/perplexity.md").read_text()


def query_one_line(kenlm_bin, model, line):
    """query's summary perplexity of one line alone, run by hand."""
    done = subprocess.run(
        [str(kenlm_bin / "query"), "-v", "summary", str(model)], input=line, capture_output=True, check=True
    )
    return float(done.stdout.decode().splitlines()[0].split("\t")[1])


def matched_lengths(kenlm_bin, model, text):
    """Each token's matched n-gram length as `query -v word` prints it (0 for an OOV, id 0)."""
    done = subprocess.run(
        [str(kenlm_bin / "query"), "-v", "word", str(model)], stdin=open(text, "rb"), capture_output=True, check=True
    )
    lengths = []
    for line in done.stdout.decode("utf-8", "replace").splitlines():
        for token in line.split("\t"):
            surface_id, _, rest = token.partition(" ")
            if rest and "=" in surface_id:
                lengths.append(0 if surface_id.rsplit("=", 1)[1] == "0" else int(rest.split()[0]))
    return lengths


def test_per_token_figures_reproduce_query_on_every_model_and_document(demo_run, kenlm_bin):
    work = demo_run / "work"
    texts = (work / "results/text/dev-0.txt").read_bytes().splitlines(keepends=True)
    for row in read_table(work):
        record = json.loads((work / f"results/eval/{row['model']}/dev-0.json").read_text())
        sums, printed = record["sums"], record["kenlm_summary"]
        # Bit for bit: query's own summary, and the table's text of it.
        assert kenlm_perplexities(sums) == {k: printed[k] for k in kenlm_perplexities(sums)}
        assert row["perplexity_excluding_oovs"] == repr(printed["perplexity_excluding_oovs"])
        # Counts against query's own summary and the text itself.
        assert float(row["oov_rate"]) == printed["oovs"] / printed["tokens"]
        assert int(row["words"]) == sum(len(line.split()) for line in texts) and int(row["sentences"]) == 600
        # Hit ratios against the n-gram lengths query prints for each token, read here by hand.
        model = work / f"results/models/{row['model']}/model.binary"
        lengths = matched_lengths(kenlm_bin, model, work / "results/text/dev-0.txt")
        assert len(lengths) == printed["tokens"]
        for k in range(1, int(row["order"]) + 1):
            assert float(row[f"hit_ratio_{k}"]) == sum(length >= k for length in lengths) / len(lengths)

        documents = list(
            csv.DictReader(open(work / f"results/eval/{row['model']}/dev-0.documents.tsv"), delimiter="\t")
        )
        assert [int(d["line"]) for d in documents] == list(range(1, 601))
        assert sum(int(d["tokens"]) for d in documents) == sums["tokens"]
        assert sum(int(d["oovs"]) for d in documents) == sums["oovs"]
        # A document's perplexity is query's on that line alone.
        for doc in (documents[0], documents[299], max(documents, key=lambda d: int(d["oovs"]))):
            tabled = float(doc["perplexity_including_oovs"])
            assert tabled == query_one_line(kenlm_bin, model, texts[int(doc["line"]) - 1])
            doc_sums = {key: int(doc[key]) for key in ("tokens", "oovs")}
            doc_sums.update({key: float(doc[key]) for key in ("log10_prob", "log10_prob_oov")})
            assert kenlm_perplexities(doc_sums) == {
                "perplexity_including_oovs": tabled,
                "perplexity_excluding_oovs": float(doc["perplexity_excluding_oovs"]),
            }


def test_decades_and_hardest_documents_from_the_corpus_years(demo_run):
    work = demo_run / "work"
    # Years read here from in.tsv.xz, by the Year column of the in-header.tsv the corpus keeps at
    # its top level for every split, as the challenge's repositories do.
    assert not (demo_run / "corpus/dev-0/in-header.tsv").exists()
    header = (demo_run / "corpus/in-header.tsv").read_text().rstrip("\n").split("\t")
    with lzma.open(demo_run / "corpus/dev-0/in.tsv.xz", "rt") as handle:
        years = [float(line.split("\t")[header.index("Year")]) for line in handle]
    decades = list(csv.DictReader(open(work / "results/tables/decades.tsv"), delimiter="\t"))
    hardest = list(csv.DictReader(open(work / "results/tables/hardest.tsv"), delimiter="\t"))
    texts = (work / "results/text/dev-0.txt").read_text().splitlines()
    for row in read_table(work):
        documents = list(
            csv.DictReader(open(work / f"results/eval/{row['model']}/dev-0.documents.tsv"), delimiter="\t")
        )
        model_decades = [d for d in decades if d["model"] == row["model"]]
        assert sum(int(d["tokens"]) for d in model_decades) == int(row["tokens"])
        for decade in model_decades:
            start = int(decade["decade"][:-1])
            docs = [d for d, year in zip(documents, years) if start <= year < start + 10]
            assert int(decade["documents"]) == len(docs)
            tokens = sum(int(d["tokens"]) for d in docs)
            log10 = math.fsum(float(d["log10_prob"]) for d in docs)
            assert float(decade["perplexity_including_oovs"]) == pytest.approx(10 ** (-log10 / tokens), rel=1e-12)

        top = [h for h in hardest if h["model"] == row["model"]]
        by_ppl = sorted(documents, key=lambda d: (-float(d["perplexity_including_oovs"]), int(d["line"])))
        assert [int(h["line"]) for h in top] == [int(d["line"]) for d in by_ppl[:10]]
        for h in top:
            assert " ".join(texts[int(h["line"]) - 1].split()).startswith(h["excerpt"])
            assert float(h["year"]) == years[int(h["line"]) - 1]


def test_a_report_shows_the_tables_the_run_made_whatever_config_yaml_asks_now(demo_run, tmp_path):
    # The run made no gap table (gap.enabled was false for it, say); config.yaml asks for one now.
    work = tmp_path / "work"
    shutil.copytree(demo_run / "work", work, symlinks=True)
    for made in ("gap.tsv", "gap.md"):
        (work / "results/tables" / made).unlink()
    done = run_pipeline(work, None, "--report", "report.html")
    assert "Report created" in done.stderr, done.stderr[-3000:]
    html = (work / "report.html").read_text()
    assert "filename=gap.tsv" not in html and "filename=perplexity.tsv" in html


def test_report_holds_every_table_and_plot_with_its_caption(demo_run):
    work = demo_run / "work"
    plots = [
        "perplexity_by_order",
        "hit_ratios",
        "document_perplexity",
        "perplexity_by_decade",
        "learning_curve",
        "perplexity_by_size",
        "neural_training_loss",
    ]
    html = (work / "results/report.html").read_text()
    # The run's own record of what made the results is in it, and its opening claims nothing of
    # the config that the record and the tables do not show.
    assert base64.b64encode((work / "results/provenance.json").read_bytes()).decode() in html
    assert "orders 3, 4, 5" not in html
    embedded = set(
        re.findall(r"data:(image/png|text/tab-separated-values);charset=utf8;filename=([\w.]+);base64", html)
    )
    assert {name for kind, name in embedded if kind == "image/png"} == {f"{plot}.png" for plot in plots}
    assert {name for kind, name in embedded if kind != "image/png"} == {
        "perplexity.tsv",
        "cost.tsv",
        "decades.tsv",
        "hardest.tsv",
        "gap.tsv",
        "comparison.tsv",
    }
    for caption in (REPO / "workflow/report").glob("*.rst"):
        first_words = " ".join(caption.read_text().split()[:4])
        if "{{" not in first_words:
            assert first_words in html, caption.name
    # The tables travel inside the report: the perplexity table's bytes, base64-encoded.
    table = (work / "results/tables/perplexity.tsv").read_bytes()
    assert base64.b64encode(table).decode() in html


def test_streamed_binary_equals_build_binary_on_the_arpa_file(demo_run, kenlm_bin, tmp_path):
    # lmplz streams into build_binary in the pipeline; by hand, the ARPA file goes to disk first.
    work = demo_run / "work"
    arpa, binary = tmp_path / "o4.arpa", tmp_path / "o4.binary"
    subprocess.run(
        [
            str(kenlm_bin / "lmplz"),
            "-o",
            "4",
            "--skip_symbols",
            "--text",
            str(work / "results/text/train.txt"),
            "--arpa",
            str(arpa),
        ],
        check=True,
        capture_output=True,
    )
    subprocess.run([str(kenlm_bin / "build_binary"), str(arpa), str(binary)], check=True, capture_output=True)
    assert binary.read_bytes() == (work / "results/models/o4/model.binary").read_bytes()
    usage = json.loads((work / "results/models/o4/usage.json").read_text())
    assert usage["lmplz"]["cpu_seconds"] > 0 and usage["build_binary"]["peak_rss_mb"] > 0


def test_the_order_and_hit_plots_show_the_table_and_are_the_pngs_the_run_wrote(demo_run, tmp_path):
    work = demo_run / "work"
    rows = sorted(read_table(work), key=lambda row: int(row["order"]))
    table = drawing.read_perplexity_table(work / "results/tables/perplexity.tsv")
    by_order = {label: (x, y) for label, x, y in plotted(drawing.perplexity_by_order(table, tmp_path / "by_order.png"))}
    orders = [float(row["order"]) for row in rows]
    for kind, column in (("incl.", "perplexity_including_oovs"), ("excl.", "perplexity_excluding_oovs")):
        assert by_order[f"{kind} OOVs, dev-0"] == (orders, [float(row[column]) for row in rows])
    hits = {label: (x, y) for label, x, y in plotted(drawing.hit_ratios(table, tmp_path / "hits.png"))}
    for row in rows:
        ks = range(1, int(row["order"]) + 1)
        assert hits[f"{row['model']} on dev-0"] == (
            [float(k) for k in ks],
            [100 * float(row[f"hit_ratio_{k}"]) for k in ks],
        )
    # The run drew the same figures from its table, to the byte.
    for mine, plot in (("by_order", "perplexity_by_order"), ("hits", "hit_ratios")):
        assert (tmp_path / f"{mine}.png").read_bytes() == (work / f"results/plots/{plot}.png").read_bytes()
