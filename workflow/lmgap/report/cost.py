"""The cost table: time, memory and size of every model's jobs, from Snakemake's benchmark files
and the train jobs' usage records."""

import csv
import math
from pathlib import Path

from ..files import read_json
from ..neural.files import weights_bytes
from .perplexity import TABLE as PERPLEXITY
from .perplexity import flag_label, prune_label
from .table import Column, Table


def _seconds(name, definition, headline=None):
    return Column(name, definition, headline, "{:.2f}")


# Every column of cost.tsv in its order, its meaning in one sentence, and its Markdown column; the
# columns it shares with perplexity.tsv are perplexity.tsv's.
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
        Column("build_binary_peak_rss_mb", "build_binary's own peak resident memory in MB"),
        *(PERPLEXITY.column(name) for name in ("binary_bytes", "prune", "discount_fallback", "model")),
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
    ),
)


def read_benchmark(path):
    """Seconds, CPU seconds and peak resident memory (MB) from a Snakemake benchmark file; NaN
    where Snakemake wrote NA (a job that ended before its first measurement)."""
    with open(path, newline="") as handle:
        row = next(csv.DictReader(handle, delimiter="\t"))
    figures = {"s": row["s"], "cpu": row["cpu_time"], "rss": row["max_rss"]}
    return {name: math.nan if text in ("NA", "") else float(text) for name, text in figures.items()}


def scored_tokens(metric_paths):
    """Tokens (words and one `</s>` per line) a model scored over the evaluated splits."""
    return sum(read_json(path)["sums"]["tokens"] for path in metric_paths)


def cost_rows(models, files, neural=None):
    """One row per model; files maps an n-gram model's name to {"train": its train benchmark,
    "usage": its usage record, "counts": its n-gram counts (with its training text's size),
    "query": its query benchmarks, "metrics": its metrics, "binary": its binary}. neural maps a
    neural model's name to {"train": its train benchmark or None, "record": its training.json or
    None, "score": its scoring benchmarks, "metrics": its metrics, "folder": its saved model}."""
    rows = []
    for name, options in models.items():
        job = read_benchmark(files[name]["train"])
        usage = read_json(files[name]["usage"])
        queries = [read_benchmark(path) for path in files[name]["query"]]
        training = read_json(files[name]["counts"])["training_text"]
        query_seconds = sum(q["s"] for q in queries)
        rows.append(
            {
                "family": "ngram",
                "order": options["order"],
                "train_fraction": options["train_fraction"],
                "train_tokens": training["tokens"],
                "lmplz_seconds": usage["lmplz"]["seconds"],
                "lmplz_cpu_seconds": usage["lmplz"]["cpu_seconds"],
                "build_binary_seconds": usage["build_binary"]["seconds"],
                "build_binary_cpu_seconds": usage["build_binary"]["cpu_seconds"],
                "train_job_seconds": job["s"],
                "query_seconds": query_seconds,
                "train_tokens_per_second": training["tokens"] / job["s"] if job["s"] else None,
                "eval_tokens_per_second": scored_tokens(files[name]["metrics"]) / query_seconds
                if query_seconds
                else None,
                # The job's whole process tree, lmplz and build_binary at once.
                "peak_rss_mb": max(job["rss"], *(q["rss"] for q in queries)),
                # What the train job reserved (usage records from before it was kept have none),
                # against what each of its tools held at its peak.
                "train_reserved_mb": usage.get("memory", {}).get("reserved_mb"),
                "lmplz_peak_rss_mb": usage["lmplz"]["peak_rss_mb"],
                "build_binary_peak_rss_mb": usage["build_binary"]["peak_rss_mb"],
                "binary_bytes": Path(files[name]["binary"]).stat().st_size,
                "prune": prune_label(options["prune"]),
                "discount_fallback": flag_label(options["discount_fallback"]),
                "model": name,
            }
        )
    for name, paths in sorted((neural or {}).items()):
        job = read_benchmark(paths["train"]) if paths["train"] else None
        record = read_json(paths["record"]) if paths["record"] else None
        scores = [read_benchmark(path) for path in paths["score"]]
        score_seconds = sum(q["s"] for q in scores)
        rows.append(
            {
                "family": "neural",
                "train_fraction": paths.get("train_fraction"),
                "train_tokens": record["training_text"]["tokens"] if record else None,
                "train_job_seconds": job["s"] if job else None,
                "query_seconds": score_seconds,
                # Subword tokens through the optimizer per second of training.
                "train_tokens_per_second": record["train_tokens_per_second"] if record else None,
                "eval_tokens_per_second": scored_tokens(paths["metrics"]) / score_seconds if score_seconds else None,
                "peak_rss_mb": max([q["rss"] for q in scores] + ([job["rss"]] if job else [])),
                "binary_bytes": weights_bytes(paths["folder"]),
                "model": name,
            }
        )
    return TABLE.frame(sorted(rows, key=_model_order))


def _model_order(row):
    """n-grams by order, then the neural models (which have none); each by name."""
    neural = row["family"] == "neural"
    return (neural, 0 if neural else row["order"], row["model"])


def write_cost_tables(models, files, splits, outputs, neural=None):
    rows = cost_rows(models, files, neural)
    title = f"Cost per model (scoring time summed over {', '.join(splits)})"
    TABLE.write(
        rows,
        outputs,
        TABLE.markdown(rows, title, "Definitions (every figure is in `cost.tsv`; timings vary from run to run):"),
    )
