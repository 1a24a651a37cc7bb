"""Gather per-model metrics into the tidy TSV and the Markdown comparison table."""

import json
import math
import re
from pathlib import Path

import pandas as pd

from .atomic import atomic_open
from .figures import split_figures
from .neural.files import parameter_count, weights_bytes

OPTIONS = ["prune", "discount_fallback"]
# Figure columns of perplexity.tsv, in order; hit ratios and n-gram counts follow per order.
FIGURES = [
    "perplexity_including_oovs", "perplexity_excluding_oovs", "oovs", "tokens", "sentences",
    "words", "oov_rate", "cross_entropy_bits_incl", "cross_entropy_bits_excl",
    "log10_likelihood_incl", "log10_likelihood_excl", "ln_likelihood_incl", "ln_likelihood_excl",
    "likelihood_incl", "likelihood_excl", "srilm_ppl", "srilm_ppl1",
]
INTEGERS = {"oovs", "tokens", "sentences", "words", "binary_bytes", "ngrams_total", "train_tokens", "parameters"}

# The meaning of every column of perplexity.tsv, written once: the Markdown table's note and the
# report's caption are made from it, and the README's table is checked against it.
COLUMNS = [
    (("family",),
     "`ngram` (KenLM) or `neural` (a causal transformer, `neural` in config.yaml, scored with a "
     "sliding window; its row has no order, n-grams, hit ratios or options)"),
    (("order", "split", "model"),
     "the model's n-gram order, the split scored, the model's name (its folder under "
     "`results/models/`, or `results/neural/` for a neural model)"),
    (("train_fraction", "train_tokens"),
     "the share of the training split's documents (lines) the model was trained on, the same "
     "nested sample every run (`train_fraction` in config.yaml); its tokens, the words of every "
     "line and one `</s>` per line, as `tokens` counts them (empty for a neural model the "
     "pipeline did not train)"),
    (("perplexity_including_oovs", "perplexity_excluding_oovs"),
     "KenLM's two perplexities, 10^(-log10 P / tokens): out-of-vocabulary (OOV) words scored as "
     "`<unk>`, or OOV tokens left out of log10 P and the count. A neural model's log10 P of a "
     "word is the sum of its subword tokens', and its end-of-text token plays `</s>`, so it has "
     "the same tokens; reading bytes, it has no OOVs and both its perplexities are one figure, "
     "to set beside the n-grams' `perplexity_including_oovs`, which still prices each OOV as "
     "`<unk>`, the class of all unknown words, not the word itself (the neural model spells it "
     "out): on text with OOVs that favours the n-grams"),
    (("oovs", "tokens", "sentences", "words"),
     "OOV tokens; predicted tokens, the words of every line and one `</s>` per line, never `<s>`; "
     "lines; tokens less one `</s>` per line"),
    (("oov_rate",), "`oovs / tokens` (One Billion Word benchmark convention: `</s>` counted, `<s>` never)"),
    (("cross_entropy_bits_incl", "cross_entropy_bits_excl"),
     "-log2 P / tokens, bits per token (log2 of the perplexity), OOVs included or left out"),
    (("log10_likelihood_incl", "log10_likelihood_excl", "ln_likelihood_incl", "ln_likelihood_excl"),
     "log P of the whole split, base 10 and natural, OOVs included or left out"),
    (("likelihood_incl", "likelihood_excl"), "geometric mean probability per token, 1 / perplexity"),
    (("srilm_ppl", "srilm_ppl1"),
     "SRILM `ngram -ppl`: OOVs left out of log10 P, divided by words - OOVs + sentences, and by "
     "words - OOVs (with no zero-probability words, which KenLM has none of, `srilm_ppl` equals "
     "`perplexity_excluding_oovs`)"),
    (("hit_ratio_k",),
     "share of tokens for which the model held an n-gram of length k or more (cumulative; an OOV "
     "token is a miss at every k)"),
    (("ngrams_k", "ngrams_total"), "distinct k-grams in the model (from its ARPA header), and their sum"),
    (("binary_bytes",), "size of KenLM's binary model, or of a neural model's weight files"),
    (("parameters",), "a neural model's parameters (tied embeddings counted once)"),
    (("log10_prob", "log10_prob_oov"), "the raw sums: log10 P of all tokens, and of the OOV tokens alone"),
    (("prune", "discount_fallback"),
     "the `lmplz --prune` thresholds (or `none`), and whether `--discount_fallback` was given"),
]
# What each headline of the Markdown table shows, from perplexity.tsv.
SHOWN = [
    ("Train tokens", "train_tokens"), ("PPL incl. OOVs", "perplexity_including_oovs"), ("PPL excl. OOVs", "perplexity_excluding_oovs"),
    ("OOV rate", "oov_rate"), ("Bits/token", "cross_entropy_bits_incl"), ("SRILM ppl1", "srilm_ppl1"),
    ("Full-order hits", "hit_ratio_k"), ("n-grams", "ngrams_total"), ("Model file (MB)", "binary_bytes"),
]


def meaning(column):
    """The definition of a perplexity.tsv column (hit_ratio_3 is hit_ratio_k's, and so on)."""
    generic = re.sub(r"_\d+$", "_k", column)
    for names, text in COLUMNS:
        if column in names or generic in names:
            return text
    raise KeyError(column)


def definitions_markdown(extra_options=""):
    lines = ["Definitions (every figure is in `perplexity.tsv`, with the raw sums it is computed from):", ""]
    lines += [f"- **{shown}** (`{column}`): {meaning(column)}." for shown, column in SHOWN]
    lines.append(f"- Full-order hits: k = the model's order. Models: modified Kneser-Ney estimated by KenLM's "
                 f"`lmplz --skip_symbols`{extra_options}.")
    return "\n".join(lines)


def definitions_rst(columns=COLUMNS):
    """Column definitions ((names, meaning) pairs) for a report caption, in reStructuredText."""
    return [(", ".join(f"``{name}``" for name in names), text.replace("`", "``")) for names, text in columns]


def prune_label(values):
    """`0 0 1`, or `none` for an unpruned model."""
    return " ".join(str(v) for v in values) or "none"


def flag_label(flag):
    return "true" if flag else "false"


def ngram_columns(record, files):
    """The columns only an n-gram model fills: its size in n-grams and on disk, its options."""
    with open(files["counts"]) as handle:
        counts = json.load(handle)
    ngrams = counts["ngrams"]
    return {
        "family": "ngram",
        "order": record["order"],
        "train_fraction": record["train_fraction"],
        "train_tokens": counts["training_text"]["tokens"],
        **{f"ngrams_{k}": n for k, n in enumerate(ngrams, start=1)},
        "ngrams_total": sum(ngrams),
        "binary_bytes": Path(files["binary"]).stat().st_size,
        "prune": prune_label(record["prune"]),
        "discount_fallback": record["discount_fallback"],
    }


def neural_columns(files):
    """A neural model's: its training text (when the pipeline trained it), weights and parameters."""
    training = None
    if files.get("record"):
        with open(files["record"]) as handle:
            training = json.load(handle)["training_text"]
    return {
        "family": "neural",
        "train_fraction": files.get("train_fraction"),
        "train_tokens": training["tokens"] if training else None,
        "binary_bytes": weights_bytes(files["folder"]),
        "parameters": parameter_count(files["folder"]),
    }


def load_metrics(metric_paths, model_files):
    """One row per (model, split): every figure, the model's size and training text, and the raw
    sums, rows sorted.

    model_files maps an n-gram model's name to {"counts": its ngram_counts.json, "binary": its
    binary}, a neural model's to {"family": "neural", "folder": its saved model, "record": its
    training.json or None, "train_fraction": its share of the training split or None}.
    """
    rows = []
    max_order = 1
    for path in metric_paths:
        with open(path) as handle:
            record = json.load(handle)
        files = model_files[record["model"]]
        if files.get("family") == "neural":
            own = neural_columns(files)
        else:
            own = ngram_columns(record, files)
            max_order = max(max_order, record["order"])
        rows.append({
            **own,
            "split": record["split"],
            **split_figures(record["sums"]),
            "log10_prob": record["sums"]["log10_prob"],
            "log10_prob_oov": record["sums"]["log10_prob_oov"],
            "model": record["model"],
        })
    orders = range(1, max_order + 1)
    columns = [
        "family", "order", "train_fraction", "train_tokens", "split", *FIGURES, *(f"hit_ratio_{k}" for k in orders),
        *(f"ngrams_{k}" for k in orders), "ngrams_total", "binary_bytes", "parameters", "log10_prob",
        "log10_prob_oov", *OPTIONS, "model",
    ]
    return sort_models(pd.DataFrame(rows, columns=columns))


def sort_models(frame):
    """n-grams by order, unpruned before pruned, then training fraction, split, model; then the
    neural models by name."""
    neural = frame["family"] == "neural"
    key = frame.assign(neural=neural, pruned=frame["prune"] != "none")
    # A neural row's n-gram options are empty: its name alone orders it.
    key.loc[neural, ["pruned", "prune", "discount_fallback", "train_fraction"]] = [False, "", False, 0.0]
    order = key.sort_values(
        ["neural", "order", "pruned", "prune", "discount_fallback", "train_fraction", "split", "model"],
        kind="stable", na_position="last",
    ).index
    return frame.loc[order].reset_index(drop=True)


def _cell(value, column):
    """Exact text of a value: integers plainly, floats as their shortest round-tripping repr."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if column in INTEGERS or column.startswith("ngrams_") or column == "order":
        return str(int(value))
    if column == "discount_fallback":
        return flag_label(value)
    if isinstance(value, float):
        return repr(value)
    return str(value)


def write_tsv(frame, path):
    """Full precision, so reruns give identical bytes; an order a model lacks is an empty cell."""
    with atomic_open(path, newline="") as handle:
        handle.write("\t".join(frame.columns) + "\n")
        for row in frame.itertuples(index=False):
            handle.write("\t".join(_cell(v, c) for v, c in zip(row, frame.columns)) + "\n")


def _known(value, text):
    """A cell, or a dash where the model has no such figure (a neural model's n-grams)."""
    return "—" if value is None or (isinstance(value, float) and math.isnan(value)) else text(value)


def markdown(frame):
    """A table for people: one row per model, the headline figures per evaluated split."""
    splits = list(dict.fromkeys(frame["split"]))
    header = ["Model", "Train tokens:"]
    for split in splits:
        prefix = f"{split} " if len(splits) > 1 else ""
        header += [
            f"{prefix}PPL incl. OOVs:", f"{prefix}PPL excl. OOVs:", f"{prefix}OOV rate:",
            f"{prefix}Bits/token:", f"{prefix}SRILM ppl1:", f"{prefix}Full-order hits:",
        ]
    header += ["n-grams:", "Model file (MB):"]
    rows = []
    for model, group in frame.groupby("model", sort=False):
        by_split = group.set_index("split")
        first = group.iloc[0]
        cells = [model, _known(first["train_tokens"], lambda v: f"{int(v):,}")]
        for split in splits:
            row = by_split.loc[split]
            hits = row["hit_ratio_" + str(int(row["order"]))] if row["family"] == "ngram" else None
            cells += [
                f"{row['perplexity_including_oovs']:.2f}",
                _known(row["perplexity_excluding_oovs"], lambda v: f"{v:.2f}"),
                f"{100 * row['oov_rate']:.2f}%",
                f"{row['cross_entropy_bits_incl']:.3f}",
                # Undefined where every word is unseen (it divides by the words KenLM knows).
                _known(row["srilm_ppl1"], lambda v: f"{v:.2f}"),
                _known(hits, lambda v: f"{100 * v:.1f}%"),
            ]
        cells += [_known(first["ngrams_total"], lambda v: f"{int(v):,}"), f"{first['binary_bytes'] / 2**20:.1f}"]
        rows.append(cells)
    ngrams = frame[frame["family"] == "ngram"]
    options = []
    if (ngrams["prune"] != "none").any():
        options.append("pruned as the Model column says (`prune` in the TSV)")
    if ngrams["discount_fallback"].astype(bool).any():
        options.append("`--discount_fallback`")
    extra = f", {', '.join(options)}" if options else ""
    note = definitions_markdown(extra)
    if (frame["family"] == "neural").any():
        note += "\n" + NEURAL_NOTE
    return markdown_table(f"Perplexity on {', '.join(splits)}", header, rows, note)


# Under the Markdown table when it has neural rows: how to read them beside the n-grams.
NEURAL_NOTE = (
    "- Neural rows (`family` neural in the TSV): a causal transformer scored with a sliding window "
    "on the same text, each word's log-probability the sum of its subword tokens', the "
    "end-of-text token as `</s>`, so the same tokens count. It has no OOVs, so its two "
    "perplexities agree; set it beside the n-grams' PPL incl. OOVs, which still price each OOV "
    "as `<unk>` (the class of all unknown words) rather than the word itself."
)


def write_tables(metric_paths, model_files, tsv_path, md_path):
    """Write both tables from the metrics files of the current config's models."""
    frame = load_metrics(metric_paths, model_files)
    write_tsv(frame, tsv_path)
    with atomic_open(md_path) as handle:
        handle.write(markdown(frame))


COST_COLUMNS = [
    "family", "order", "train_fraction", "train_tokens", "lmplz_seconds", "lmplz_cpu_seconds",
    "build_binary_seconds", "build_binary_cpu_seconds", "train_job_seconds", "query_seconds",
    "train_tokens_per_second", "eval_tokens_per_second", "peak_rss_mb", "train_reserved_mb",
    "lmplz_peak_rss_mb", "build_binary_peak_rss_mb", "binary_bytes", *OPTIONS, "model",
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
    """One row per model; files maps (kind, model) to its train benchmark, usage record, n-gram
    counts (with its training text's size), query benchmarks, metrics and binary. neural maps a
    neural model's name to {"train": its train benchmark or None, "record": its training.json or
    None, "score": its scoring benchmarks, "metrics": its metrics, "folder": its saved model}."""
    rows = []
    for name, options in models.items():
        job = read_benchmark(files[("train", name)])
        with open(files[("usage", name)]) as handle:
            usage = json.load(handle)
        queries = [read_benchmark(path) for path in files[("query", name)]]
        with open(files[("counts", name)]) as handle:
            training = json.load(handle)["training_text"]
        query_seconds = sum(q["s"] for q in queries)
        rows.append({
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
            "eval_tokens_per_second": scored_tokens(files[("metrics", name)]) / query_seconds if query_seconds else None,
            # The job's whole process tree, lmplz and build_binary at once.
            "peak_rss_mb": max(job["rss"], *(q["rss"] for q in queries)),
            # What the train job reserved (usage records from before it was kept have none),
            # against what each of its tools held at its peak.
            "train_reserved_mb": usage.get("memory", {}).get("reserved_mb"),
            "lmplz_peak_rss_mb": usage["lmplz"]["peak_rss_mb"],
            "build_binary_peak_rss_mb": usage["build_binary"]["peak_rss_mb"],
            "binary_bytes": Path(files[("binary", name)]).stat().st_size,
            "prune": prune_label(options["prune"]),
            "discount_fallback": flag_label(options["discount_fallback"]),
            "model": name,
        })
    for name, paths in sorted((neural or {}).items()):
        job = read_benchmark(paths["train"]) if paths["train"] else None
        record = None
        if paths["record"]:
            with open(paths["record"]) as handle:
                record = json.load(handle)
        scores = [read_benchmark(path) for path in paths["score"]]
        score_seconds = sum(q["s"] for q in scores)
        rows.append({
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
        })
    frame = pd.DataFrame(rows, columns=COST_COLUMNS).astype({"order": "Int64", "train_tokens": "Int64"})
    frame["neural"] = frame["family"] == "neural"
    frame = frame.sort_values(["neural", "order", "model"], na_position="last").drop(columns="neural")
    return frame.reset_index(drop=True)


def markdown_table(title, header, rows, note):
    """A titled Markdown table with a closing note; header names ending in `:` are right-aligned."""
    names = [name.rstrip(":") for name in header]
    rule = ["---:" if name.endswith(":") else "---" for name in header]
    lines = [title, "", "| " + " | ".join(names) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join([*lines, "", note, ""])


def cost_markdown(frame, splits):
    def seconds(value):
        return _known(value, lambda v: f"{v:.2f}")

    rows = [
        [
            row["model"], seconds(row["lmplz_seconds"]), seconds(row["build_binary_seconds"]),
            seconds(row["train_job_seconds"]), seconds(row["query_seconds"]),
            _known(row["train_tokens_per_second"], lambda v: f"{v:,.0f}"),
            _known(row["eval_tokens_per_second"], lambda v: f"{v:,.0f}"), f"{row['peak_rss_mb']:.0f}",
            _known(row["train_reserved_mb"], lambda v: f"{v:,.0f}"), f"{row['binary_bytes'] / 2**20:.1f}",
        ]
        for _, row in frame.iterrows()
    ]
    return markdown_table(
        f"Cost per model (scoring time summed over {', '.join(splits)})",
        ["Model", "lmplz (s):", "build_binary (s):", "Train job (s):", "Scoring (s):", "Train tokens/s:",
         "Scored tokens/s:", "Peak RSS (MB):", "Train job reserved (MB):", "Model file (MB):"],
        rows,
        "Wall-clock seconds; build_binary reads the ARPA model as lmplz writes it, so the two overlap "
        "and the train job takes about as long as lmplz plus build_binary's tail. Scoring: KenLM's "
        "query, or a neural model's sliding window. Train tokens/s: an n-gram's training tokens "
        "(words and `</s>`) per second of its train job; a neural model's subword tokens through the "
        "optimizer per second of training. Scored tokens/s: words and `</s>` per second of scoring. "
        "Train job reserved: the memory an n-gram's train job held back from the budget, an "
        "estimate made before lmplz counted anything, against its peak RSS. "
        "Timings vary from run to run.",
    )


def write_cost_tables(models, files, splits, tsv_path, md_path, neural=None):
    frame = cost_frame(models, files, neural)
    with atomic_open(tsv_path, newline="") as handle:
        frame.to_csv(handle, sep="\t", index=False, lineterminator="\n")
    with atomic_open(md_path) as handle:
        handle.write(cost_markdown(frame, splits))
