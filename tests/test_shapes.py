"""Every record kind the tables read, damaged every way: cut mid-line or at a line end, emptied, its keys
(or columns) gone, a value of another type, fewer rows than the record it pairs with. Each reader
refuses, naming the file and the fix (delete it, and run again), never a traceback."""

import json

import pytest

from lmgap import shapes
from lmgap.files import DamagedRecord
from lmgap.report.cost import read_benchmark
from lmgap.report.documents import read_documents
from lmgap.report.scores import read_scores
from lmgap.tsv import LINES, read_tsv

SUMS = {
    "sentences": 2,
    "tokens": 12,
    "oovs": 1,
    "log10_prob": -30.5,
    "log10_prob_oov": -4.0,
    "matched_length": [1, 4, 7],
}
# A record of each JSON kind, as its writer writes it (the keys each shape names, and others).
RECORDS = {
    "metrics": (
        shapes.NGRAM_METRICS,
        {
            "model": "o3",
            "split": "dev-0",
            "order": 3,
            "prune": [],
            "train_fraction": 1.0,
            "sums": SUMS,
            "kenlm_summary": {},
        },
    ),
    "neural metrics": (
        shapes.NEURAL_METRICS,
        {
            "model": "small",
            "split": "dev-0",
            "family": "neural",
            "sums": SUMS,
            "max_length": 64,
            "stride": 32,
            "batch_size": 16,
            "subword_tokens": 20,
        },
    ),
    "counts": (
        shapes.COUNTS,
        {"ngrams": [10, 20, 30], "training_text": {"lines": 2, "words": 10, "tokens": 12}, "fallback_discounts": []},
    ),
    "usage": (
        shapes.USAGE,
        {name: {"seconds": 1.5, "cpu_seconds": 1.0, "peak_rss_mb": 40.0} for name in ("lmplz", "build_binary")},
    ),
    "vocabulary": (shapes.VOCABULARY, {"words": 120, "training_words": 100, "added_by": {"dev-0": 20}}),
    "training": (
        shapes.TRAINING,
        {
            "parameters": 900,
            "vocab_size": 300,
            "training_text": {"lines": 2, "words": 498, "tokens": 500},
            "epochs": 0.5,
            "train_tokens_per_second": 1000.0,
            "final_loss_nats": 5.5,
            "device": "cpu",
        },
    ),
    "gap metrics": (
        shapes.GAP_METRICS,
        {"bits": 10, "gaps": 3, "metrics": {"PerplexityHashed": 5.0}, "candidate_recall": 0.5},
    ),
    "gap stats": (shapes.GAP_STATS, {"gaps": 3, "candidates_per_gap": 7.0, "listed_per_gap": 5.0, "p0_mean": 0.2}),
    "coverage": (
        shapes.COVERAGE,
        {"coverage": {variant: {"gaps": 3, "hits": 2, "levels": {"0": [2, 3]}} for variant in ("both", "left")}},
    ),
    "weights": (
        shapes.WEIGHTS,
        {
            "members": ["unigram"],
            "weights": {"unigram": 1.0},
            "fold_weights": [],
            "method": "EM",
            "fit_gaps": 3,
            "fit_log_loss_hashed": {},
        },
    ),
}


def read(kind, path):
    shape, record = RECORDS[kind]
    return shapes.read_metrics(path) if "metrics" in kind and kind != "gap metrics" else shapes.read_record(path, shape)


def damages(text, shape):
    """(what, the record's text so damaged) for each way a JSON record is damaged."""
    record = json.loads(text)
    key = next(iter(shape))
    retyped = {**record, key: "1" if shape[key] is not str else 1}
    return [
        ("cut mid-line", text[: len(text) // 2]),
        ("cut at a line end", text[: text.rindex("\n", 0, len(text) - 1) + 1]),
        ("empty", ""),
        ("without its keys", "{}\n"),
        ("a value of another type", json.dumps(retyped, indent=2) + "\n"),
        ("not a mapping", "[]\n"),
    ]


@pytest.mark.parametrize("kind", sorted(RECORDS))
def test_every_json_record_damaged_every_way_is_named_with_the_fix(kind, tmp_path):
    shape, record = RECORDS[kind]
    path = tmp_path / "record.json"
    text = json.dumps(record, indent=2, sort_keys=True) + "\n"
    path.write_text(text)
    assert read(kind, path) == record
    for what, damaged in damages(text, shape):
        path.write_text(damaged)
        with pytest.raises(DamagedRecord) as err:
            read(kind, path)
        assert str(err.value).startswith(f"{path} is damaged (") and str(err.value).endswith(
            "): delete it, and run the pipeline again to write it anew"
        ), (kind, what, str(err.value))


def test_a_value_of_another_type_is_named_by_its_key():
    fault = shapes.shape_fault({"model": "o3", "split": "dev-0", "sums": {**SUMS, "tokens": "12"}}, shapes.METRICS)
    assert fault == "sums.tokens is '12', not int"
    assert (
        shapes.shape_fault({**RECORDS["vocabulary"][1], "words": True}, shapes.VOCABULARY) == "words is True, not int"
    )
    # A list of counts: each is a count.
    counts = {"ngrams": [5, 9], "training_text": {"lines": 1, "words": 2, "tokens": 3}}
    assert shapes.shape_fault(counts, shapes.COUNTS) is None
    assert shapes.shape_fault({**counts, "ngrams": ["x", 9]}, shapes.COUNTS) == "ngrams holds 'x', not int"
    assert shapes.shape_fault({**counts, "ngrams": [5, None]}, shapes.COUNTS) == "ngrams holds None, not int"
    assert shapes.shape_fault({**counts, "ngrams": 5}, shapes.COUNTS) == "ngrams is 5, not a list"


DOCUMENTS = (
    "line\ttokens\toovs\tlog10_prob\tlog10_prob_oov\tperplexity_including_oovs\tperplexity_excluding_oovs\n"
    "1\t5\t1\t-9.0\t-2.0\t63.1\t34.5\n"
    "2\t7\t0\t-21.5\t0.0\t1170.2\t1170.2\n"
)
BENCHMARK = "s\th:m:s\tmax_rss\tmax_vms\tcpu_time\n3.44\t0:00:03\t143.09\t1\t1.25\n"


def named_once(err):
    """A damage named by the reader itself is not named again by the TSV reader around it."""
    assert str(err.value).count(" is damaged (") == 1, str(err.value)


@pytest.mark.parametrize(
    "what, damaged",
    [
        ("cut mid-line", DOCUMENTS[:-9]),
        ("empty", ""),
        ("without its columns", DOCUMENTS.replace("tokens", "tokns", 1)),
        ("a value of another type", DOCUMENTS.replace("\t5\t", "\t5.5\t")),
        ("an empty cell", DOCUMENTS.replace("\t34.5", "\t")),
        ("a header alone", DOCUMENTS.split("\n")[0] + "\n"),
    ],
)
def test_documents_damaged_every_way_are_named_with_the_fix(tmp_path, what, damaged):
    path = tmp_path / "dev-0.documents.tsv"
    path.write_text(damaged)
    with pytest.raises(DamagedRecord, match=r"dev-0.documents.tsv is damaged \(.+\): delete it") as err:
        read_scores(path)
    named_once(err)


def test_documents_cut_at_a_line_end_are_short_of_the_record_they_pair_with(tmp_path):
    path = tmp_path / "dev-0.documents.tsv"
    path.write_text(DOCUMENTS)
    assert len(read_scores(path, 2, "dev-0.json")) == 2
    path.write_text(DOCUMENTS[: DOCUMENTS.rindex("\n", 0, len(DOCUMENTS) - 1) + 1])
    with pytest.raises(DamagedRecord, match=r"documents.tsv is damaged \(it has 1 rows where dev-0.json has 2\)"):
        read_scores(path, 2, "dev-0.json")


def test_of_documents_and_years_the_shorter_is_named(tmp_path):
    documents, years = tmp_path / "dev-0.documents.tsv", tmp_path / "dev-0.years.tsv"
    documents.write_text(DOCUMENTS)
    years.write_text("year\n1901.5\n\n")
    assert read_documents(documents, years)["year"].tolist()[0] == 1901.5
    years.write_text("year\n1901.5\n")
    with pytest.raises(DamagedRecord, match=r"dev-0.years.tsv is damaged \(it has 1 rows where .*documents.tsv has 2"):
        read_documents(documents, years)
    years.write_text("year\n1901.5\n\n1999\n")
    with pytest.raises(DamagedRecord, match=r"dev-0.documents.tsv is damaged \(it has 2 rows where .*years.tsv has 3"):
        read_documents(documents, years)
    years.write_text("year\nabc\n\n")
    with pytest.raises(DamagedRecord, match=r"years.tsv is damaged \(row 1 is 'abc', not a year\)") as err:
        read_documents(documents, years)
    named_once(err)


@pytest.mark.parametrize(
    "what, damaged",
    [
        ("cut at a line end", BENCHMARK.split("\n")[0] + "\n"),
        ("without its columns", BENCHMARK.replace("max_rss", "rss")),
        ("a value of another type", BENCHMARK.replace("143.09", "big")),
    ],
)
def test_a_benchmark_damaged_is_named_and_na_is_none(tmp_path, what, damaged):
    path = tmp_path / "o3.tsv"
    path.write_text(BENCHMARK.replace("143.09", "NA"))
    assert read_benchmark(path)["rss"] != read_benchmark(path)["rss"]  # NaN: Snakemake measured none
    path.write_text(damaged)
    with pytest.raises(DamagedRecord, match=r"o3.tsv is damaged \(.+\): delete it") as err:
        read_benchmark(path)
    named_once(err)


def test_rows_of_a_field_more_or_less_than_the_header_are_named(tmp_path):
    # Pandas would take each row's first field for its index and read on: line 2, -2.5.
    path = tmp_path / "dev-0.lines.tsv"
    for text, row in (
        ("line\tlog_probability\n1\t2\t-2.5\n", "row 1 has 3 fields"),
        ("line\tlog_probability\n1\t-2\n2\n", "row 2 has 1 fields"),
    ):
        path.write_text(text)
        with pytest.raises(DamagedRecord, match=rf"lines.tsv is damaged \({row} where its header has 2\)"):
            read_tsv(path, LINES, integers=("line",))
