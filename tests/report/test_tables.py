"""The tables' cells: a figure a model does not define is a dash in the Markdown, never `nan`; a
cell's text reads back from the .tsv as it was."""

import csv
import io
import json
import math

import pytest
import numpy as np
import pandas as pd

from lmgap.report.cost import peak_mb, read_benchmark
from lmgap.report.documents import HARDEST_TABLE
from lmgap.report.perplexity import load_metrics, markdown
from lmgap.report.table import Column, Table


@pytest.mark.pipeline
def test_figures_undefined_when_every_word_is_unseen_show_a_dash(demo_run):
    frame = pd.read_csv(
        demo_run / "work/results/tables/perplexity.tsv", sep="\t", keep_default_na=False, na_values=[""]
    )
    shown = markdown(frame, 100_000)
    assert "—" not in shown.split("Definitions")[0]
    # A model that knows no word of the split: SRILM's ppl1 and the perplexity without OOVs divide
    # by the words it knows, none.
    frame.loc[0, ["srilm_ppl1", "perplexity_excluding_oovs"]] = math.nan
    shown = markdown(frame, 100_000)
    row = next(line for line in shown.splitlines() if line.startswith(f"| {frame.loc[0, 'model']} |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")]
    assert cells[3] == cells[7] == "—" and "nan" not in shown
    assert cells[2] == f"{frame.loc[0, 'perplexity_including_oovs']:.2f}"


def test_a_cell_holding_quotes_reads_back_as_it_was_and_as_pandas_writes_it():
    # Newspaper text quotes speech: an excerpt beginning with a quote must survive the round trip.
    excerpt = '"Hello," he said, "the end."'
    row = {"model": "o3", "split": "dev-0", "rank": 1, "line": 2, "year": "", "tokens": 5, "oovs": 1}
    row |= {"perplexity_including_oovs": 1.5, "perplexity_excluding_oovs": math.nan, "excerpt": excerpt}
    frame = pd.DataFrame([row])
    text = HARDEST_TABLE.tsv(frame)
    assert next(csv.DictReader(io.StringIO(text), delimiter="\t"))["excerpt"] == excerpt
    written = io.StringIO()
    frame.to_csv(written, sep="\t", index=False, lineterminator="\n")
    assert text == written.getvalue()


@pytest.mark.pipeline
def test_a_missing_full_order_hit_ratio_shows_a_dash(demo_run):
    frame = pd.read_csv(
        demo_run / "work/results/tables/perplexity.tsv", sep="\t", keep_default_na=False, na_values=[""]
    )
    first = frame.loc[0]
    frame.loc[0, f"hit_ratio_{int(first['order'])}"] = math.nan
    row = next(line for line in markdown(frame, 100_000).splitlines() if line.startswith(f"| {first['model']} |"))
    assert [cell.strip() for cell in row.strip("|").split("|")][8] == "—"


def test_a_benchmark_that_snakemake_could_not_measure_reads_as_nan(tmp_path):
    # Snakemake writes NA for the figures of a job that ended before its first measurement.
    header = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
    (tmp_path / "job.tsv").write_text(header + "0.31\t0:00:00\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\n")
    figures = read_benchmark(tmp_path / "job.tsv")
    assert figures["s"] == 0.31 and math.isnan(figures["cpu"]) and math.isnan(figures["rss"])
    # A peak over jobs leaves such a job out wherever it stands, and is NA only if all are.
    assert peak_mb([figures["rss"], 120.0, 80.0]) == peak_mb([120.0, figures["rss"], 80.0]) == 120.0
    assert math.isnan(peak_mb([figures["rss"], figures["rss"]]))


def test_numpy_values_are_written_as_the_python_values_they_hold():
    table = Table("t.tsv", (Column("flag", "A flag"), Column("count", "A count"), Column("share", "A share")))
    python = table.tsv(table.frame([{"flag": True, "count": 3, "share": 0.25}]))
    held = table.tsv(table.frame([{"flag": np.bool_(True), "count": np.int64(3), "share": np.float64(0.25)}]))
    assert python == held == "flag\tcount\tshare\ntrue\t3\t0.25\n"


def test_a_padded_model_prices_an_oov_as_its_unk_and_an_unpadded_one_as_an_unknown_word(tmp_path):
    # Two 3-grams of 10 unigrams on the same sums, in a run of 1,007 words (so 1,000 unknown to
    # each): the unpadded one's OOV gets 1/1,000 of `<unk>` (log10 -3), the padded one's `<unk>`
    # already is one word's (lmplz --vocab_pad 1,008: the run's words and `</s>`).
    sums = {"sentences": 10, "tokens": 100, "oovs": 5, "log10_prob": -200.0, "log10_prob_oov": -20.0}
    files = {kind: {model: str(tmp_path / model / kind) for model in ("o3", "o3-pad")} for kind in ("counts", "binary")}
    metrics = []
    for model, pad in (("o3", 0), ("o3-pad", 1008)):
        (tmp_path / model).mkdir()
        (tmp_path / model / "binary").write_bytes(b"\0" * 64)
        text = {"lines": 10, "words": 90, "tokens": 100}
        (tmp_path / model / "counts").write_text(
            json.dumps({"ngrams": [10, 20, 30], "training_text": text, **({"vocab_pad": pad} if pad else {})})
        )
        record = {"model": model, "split": "dev-0", "sums": {**sums, "matched_length": [10, 20, 65]}}
        record |= {"order": 3, "prune": [], "train_fraction": 1.0, "kenlm_summary": {}}
        metrics.append(tmp_path / f"{model}.json")
        metrics[-1].write_text(json.dumps(record))
    rows = load_metrics(metrics, 1007, files, {"discount_fallback": False, "neural": {}}).set_index("model")
    assert rows.loc["o3", "perplexity_oovs_as_words"] == pytest.approx(10 ** ((200 + 5 * 3) / 100))
    assert rows.loc["o3-pad", "perplexity_oovs_as_words"] == pytest.approx(10 ** (200 / 100))
    assert rows.loc["o3-pad", "perplexity_including_oovs"] == rows.loc["o3", "perplexity_including_oovs"]
