"""The cost table: time, memory and size of every model's jobs, from Snakemake's benchmark files
and the train jobs' usage records."""

import json
from pathlib import Path

import pandas as pd

from ..atomic import atomic_open
from ..neural.files import weights_bytes
from .markdown import definition_lines, known, markdown_table
from .perplexity import DEFINITIONS as PERPLEXITY
from .perplexity import OPTIONS, flag_label, prune_label

# The meaning of cost.tsv's columns, one sentence each and in the table's order; the columns it
# shares with perplexity.tsv mean what they mean there.
DEFINITIONS = {
    **{column: PERPLEXITY[column] for column in ("family", "order", "train_fraction", "train_tokens")},
    "lmplz_seconds": "lmplz's wall-clock seconds",
    "lmplz_cpu_seconds": "lmplz's CPU seconds, user and system",
    "build_binary_seconds": "build_binary's wall-clock seconds; it reads the ARPA model as lmplz writes "
    "it, so the two overlap",
    "build_binary_cpu_seconds": "build_binary's CPU seconds, user and system",
    "train_job_seconds": "the train job's wall-clock seconds, about lmplz's plus build_binary's tail "
    "(a neural model's training job)",
    "query_seconds": "the scoring seconds summed over the scored splits: KenLM's query, or a neural "
    "model's sliding window",
    "train_tokens_per_second": "the training tokens per second of the train job (words and `</s>`; "
    "for a neural model, subword tokens through the optimizer per second of training)",
    "eval_tokens_per_second": "the scored tokens (words and `</s>`) per second of scoring",
    "peak_rss_mb": "the peak resident memory in MB of the model's jobs, each job's whole process tree",
    "train_reserved_mb": "the memory in MB the train job reserved from the budget, an estimate made "
    "before lmplz counted anything",
    "lmplz_peak_rss_mb": "lmplz's own peak resident memory in MB",
    "build_binary_peak_rss_mb": "build_binary's own peak resident memory in MB",
    **{column: PERPLEXITY[column] for column in ("binary_bytes", *OPTIONS, "model")},
}
COST_COLUMNS = list(DEFINITIONS)
# What each headline of the Markdown table shows, from cost.tsv.
SHOWN = [
    ("lmplz (s)", "lmplz_seconds"),
    ("build_binary (s)", "build_binary_seconds"),
    ("Train job (s)", "train_job_seconds"),
    ("Scoring (s)", "query_seconds"),
    ("Train tokens/s", "train_tokens_per_second"),
    ("Scored tokens/s", "eval_tokens_per_second"),
    ("Peak RSS (MB)", "peak_rss_mb"),
    ("Train job reserved (MB)", "train_reserved_mb"),
    ("Model file (MB)", "binary_bytes"),
]


def read_benchmark(path):
    """Seconds, CPU seconds and peak resident memory (MB) from a Snakemake benchmark file."""
    row = pd.read_csv(path, sep="\t").iloc[0]
    return {"s": float(row["s"]), "cpu": float(row["cpu_time"]), "rss": float(row["max_rss"])}


def scored_tokens(metric_paths):
    """Tokens (words and one `</s>` per line) a model scored over the evaluated splits."""
    total = 0
    for path in metric_paths:
        with open(path) as handle:
            total += json.load(handle)["sums"]["tokens"]
    return total


def cost_frame(models, files, neural=None):
    """One row per model; files maps an n-gram model's name to {"train": its train benchmark,
    "usage": its usage record, "counts": its n-gram counts (with its training text's size),
    "query": its query benchmarks, "metrics": its metrics, "binary": its binary}. neural maps a
    neural model's name to {"train": its train benchmark or None, "record": its training.json or
    None, "score": its scoring benchmarks, "metrics": its metrics, "folder": its saved model}."""
    rows = []
    for name, options in models.items():
        job = read_benchmark(files[name]["train"])
        with open(files[name]["usage"]) as handle:
            usage = json.load(handle)
        queries = [read_benchmark(path) for path in files[name]["query"]]
        with open(files[name]["counts"]) as handle:
            training = json.load(handle)["training_text"]
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
        record = None
        if paths["record"]:
            with open(paths["record"]) as handle:
                record = json.load(handle)
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
    frame = pd.DataFrame(rows, columns=COST_COLUMNS).astype({"order": "Int64", "train_tokens": "Int64"})
    frame["neural"] = frame["family"] == "neural"
    frame = frame.sort_values(["neural", "order", "model"], na_position="last").drop(columns="neural")
    return frame.reset_index(drop=True)


def cost_markdown(frame, splits):
    def seconds(value):
        return known(value, lambda v: f"{v:.2f}")

    rows = [
        [
            row["model"],
            seconds(row["lmplz_seconds"]),
            seconds(row["build_binary_seconds"]),
            seconds(row["train_job_seconds"]),
            seconds(row["query_seconds"]),
            known(row["train_tokens_per_second"], lambda v: f"{v:,.0f}"),
            known(row["eval_tokens_per_second"], lambda v: f"{v:,.0f}"),
            f"{row['peak_rss_mb']:.0f}",
            known(row["train_reserved_mb"], lambda v: f"{v:,.0f}"),
            f"{row['binary_bytes'] / 2**20:.1f}",
        ]
        for _, row in frame.iterrows()
    ]
    return markdown_table(
        f"Cost per model (scoring time summed over {', '.join(splits)})",
        ["Model", *(f"{headline}:" for headline, _ in SHOWN)],
        rows,
        "\n".join(
            [
                "Definitions (every figure is in `cost.tsv`; timings vary from run to run):",
                "",
                *definition_lines(SHOWN, DEFINITIONS.get),
            ]
        ),
    )


def write_cost_tables(models, files, splits, tsv_path, md_path, neural=None):
    frame = cost_frame(models, files, neural)
    with atomic_open(tsv_path, newline="") as handle:
        frame.to_csv(handle, sep="\t", index=False, lineterminator="\n")
    with atomic_open(md_path) as handle:
        handle.write(cost_markdown(frame, splits))
