"""The cost table: time, memory and size of every model's jobs, from Snakemake's benchmark files
and the train jobs' usage records."""

import math

from ..keyed import join_keyed
from ..ngram.formats import split_format
from ..shapes import USAGE, read_metrics, read_record
from ..tsv import BENCHMARK, read_tsv
from .perplexity import TABLE as PERPLEXITY
from .perplexity import model_columns, several_formats
from .table import Column, Table


def _seconds(name, definition, headline=None):
    return Column(name, definition, headline, "{:.2f}")


TABLE = Table(
    "cost.tsv",
    (
        *(PERPLEXITY.column(name) for name in ("family", "order", "train_fraction", "train_tokens")),
        _seconds("lmplz_seconds", "lmplz's wall-clock seconds", "lmplz (s):"),
        Column("lmplz_cpu_seconds", "lmplz's CPU seconds, user and system"),
        _seconds(
            "build_binary_seconds",
            "build_binary's wall-clock seconds; it reads the ARPA model as lmplz writes it, so the two overlap",
            "build_binary (s):",
        ),
        Column("build_binary_cpu_seconds", "build_binary's CPU seconds, user and system"),
        _seconds(
            "train_job_seconds",
            "the train job's wall-clock seconds, about lmplz's plus build_binary's tail "
            "(a neural model's training job)",
            "Train job (s):",
        ),
        _seconds(
            "query_seconds",
            "the scoring seconds summed over the scored splits: KenLM's query, or a neural model's sliding window",
            "Scoring (s):",
        ),
        Column(
            "train_tokens_per_second",
            "the training tokens per second of the train job (words and `</s>`; "
            "for a neural model, subword tokens through the optimizer per second of training)",
            "Train tokens/s:",
            "{:,.0f}",
        ),
        Column(
            "eval_tokens_per_second",
            "the scored tokens (words and `</s>`) per second of scoring",
            "Scored tokens/s:",
            "{:,.0f}",
        ),
        Column(
            "peak_rss_mb",
            "the peak resident memory in MB of the model's jobs, each job's whole process tree",
            "Peak RSS (MB):",
            "{:.0f}",
        ),
        Column(
            "train_reserved_mb",
            "the memory in MB the train job reserved from the budget, an estimate made before lmplz counted anything",
            "Train job reserved (MB):",
            "{:,.0f}",
            integer=True,
        ),
        Column("lmplz_peak_rss_mb", "lmplz's own peak resident memory in MB"),
        Column(
            "build_binary_peak_rss_mb",
            "build_binary's own peak resident memory in MB (that of the model's format: a build_binary per "
            "format reads the same lmplz run)",
        ),
        Column(
            "load_seconds",
            "query's seconds before its first output, loading the model, on the first scored split; a column "
            "only when `build_binary.format` asks for another format than `probing`",
            "Load (s):",
            "{:.2f}",
            optional=True,
        ),
        Column(
            "query_peak_rss_mb",
            "the peak resident memory in MB of the model's scoring jobs (`query`), which load it; a column only "
            "when `build_binary.format` asks for another format than `probing`",
            "Query peak RSS (MB):",
            "{:.0f}",
            optional=True,
        ),
        *(
            PERPLEXITY.column(name)
            for name in (
                "binary_bytes",
                "prune",
                "interpolate_unigrams",
                "vocab_pad",
                "discount_fallback",
                "format",
                "model",
            )
        ),
    ),
    shown=(
        "model",
        "lmplz_seconds",
        "build_binary_seconds",
        "train_job_seconds",
        "query_seconds",
        "train_tokens_per_second",
        "eval_tokens_per_second",
        "peak_rss_mb",
        "train_reserved_mb",
        "binary_bytes",
        "format",
        "load_seconds",
        "query_peak_rss_mb",
    ),
)


def read_benchmark(path):
    """Seconds, CPU seconds and peak resident memory (MB) from a Snakemake benchmark file; NaN
    where Snakemake wrote NA (a job that ended before its first measurement)."""
    row = read_tsv(path, BENCHMARK, exact=False, missing=BENCHMARK).iloc[0]
    return {"s": float(row["s"]), "cpu": float(row["cpu_time"]), "rss": float(row["max_rss"])}


def peak_mb(values):
    """The largest of peak memories, NA (NaN) ones left out: NaN only if all are NA. max() alone
    would return or skip a NaN by its place among the arguments."""
    known = [value for value in values if not math.isnan(value)]
    return max(known) if known else math.nan


def cost_rows(metrics, files, settings):
    """One row per model of the metrics records (a record per model and scored split); files and settings as
    load_metrics takes them, files with the benchmarks (train by training, query and score_neural by model and
    split) and usage records too."""
    scored, rows = {}, []
    for record in metrics:
        scored.setdefault(record["model"], []).append(record)
    for name, records in scored.items():
        splits = [record["split"] for record in records]
        tokens = sum(record["sums"]["tokens"] for record in records)
        own = model_columns(records[0], files, settings)
        if own["family"] == "neural":
            rows.append(own | neural_costs(name, splits, tokens, files, settings["neural"][name]))
            continue
        # Every format of a model is built by its training's one job (lmgap.models.trainings_of).
        job = read_benchmark(files["train"][split_format(name)[0]])
        usage = read_record(files["usage"][name], USAGE)
        queries = [read_benchmark(files["query"][name, split]) for split in splits]
        query_seconds = sum(q["s"] for q in queries)
        rows.append(
            {
                **own,
                "lmplz_seconds": usage["lmplz"]["seconds"],
                "lmplz_cpu_seconds": usage["lmplz"]["cpu_seconds"],
                "build_binary_seconds": usage["build_binary"]["seconds"],
                "build_binary_cpu_seconds": usage["build_binary"]["cpu_seconds"],
                "train_job_seconds": job["s"],
                "query_seconds": query_seconds,
                "train_tokens_per_second": own["train_tokens"] / job["s"] if job["s"] else None,
                "eval_tokens_per_second": tokens / query_seconds if query_seconds else None,
                # The job's whole process tree, lmplz and build_binary at once.
                "peak_rss_mb": peak_mb([job["rss"], *(q["rss"] for q in queries)]),
                # What the train job reserved (usage records from before it was kept have none),
                # against what each of its tools held at its peak.
                "train_reserved_mb": usage.get("memory", {}).get("reserved_mb"),
                "lmplz_peak_rss_mb": usage["lmplz"]["peak_rss_mb"],
                "build_binary_peak_rss_mb": usage["build_binary"]["peak_rss_mb"],
                "load_seconds": records[0].get("load_seconds"),
                "query_peak_rss_mb": peak_mb([q["rss"] for q in queries]),
            }
        )
    return TABLE.frame(sorted(rows, key=_model_order), optional=several_formats(rows))


def neural_costs(name, splits, tokens, files, settings):
    """A neural model's timings: its training job's (where the pipeline trained it) and scoring's."""
    job = read_benchmark(files["train_neural"][name]) if settings["trained"] else None
    scores = [read_benchmark(files["score_neural"][name, split]) for split in splits]
    score_seconds = sum(q["s"] for q in scores)
    return {
        "train_job_seconds": job["s"] if job else None,
        "query_seconds": score_seconds,
        "eval_tokens_per_second": tokens / score_seconds if score_seconds else None,
        "peak_rss_mb": peak_mb([q["rss"] for q in scores] + ([job["rss"]] if job else [])),
    }


def _model_order(row):
    """n-grams by order, then the neural models (which have none); each by name."""
    neural = row["family"] == "neural"
    return (neural, 0 if neural else row["order"], row["model"])


def write_cost_tables(inputs, params, outputs):
    """cost.tsv and .md from inputs' metrics and files; params: input_keys (lmgap.keyed), settings (see cost_rows);
    outputs: tsv, md."""
    records = [read_metrics(path) for path in inputs["metrics"]]
    rows = cost_rows(records, join_keyed(inputs, params["input_keys"]), params["settings"])
    splits = dict.fromkeys(record["split"] for record in records)
    title = f"Cost per model (scoring time summed over {', '.join(splits)})"
    opening = "Definitions (every figure is in `cost.tsv`; timings vary from run to run):"
    TABLE.write(rows, outputs, TABLE.markdown(rows, title, opening))
