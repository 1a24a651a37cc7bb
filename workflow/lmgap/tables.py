"""Gather per-model metrics into the tidy TSV and the Markdown comparison table."""

import json
import math
import re
from pathlib import Path

import pandas as pd

from .atomic import atomic_open
from .figures import split_figures

OPTIONS = ["prune", "discount_fallback"]
# Figure columns of perplexity.tsv, in order; hit ratios and n-gram counts follow per order.
FIGURES = [
    "perplexity_including_oovs", "perplexity_excluding_oovs", "oovs", "tokens", "sentences",
    "words", "oov_rate", "cross_entropy_bits_incl", "cross_entropy_bits_excl",
    "log10_likelihood_incl", "log10_likelihood_excl", "ln_likelihood_incl", "ln_likelihood_excl",
    "likelihood_incl", "likelihood_excl", "srilm_ppl", "srilm_ppl1",
]
INTEGERS = {"oovs", "tokens", "sentences", "words", "binary_bytes", "ngrams_total", "train_tokens"}

# The meaning of every column of perplexity.tsv, written once: the Markdown table's note and the
# report's caption are made from it, and the README's table is checked against it.
COLUMNS = [
    (("order", "split", "model"),
     "the model's n-gram order, the split scored, the model's folder under `results/models/`"),
    (("train_fraction", "train_tokens"),
     "the share of the training split's documents (lines) the model was trained on, the same "
     "nested sample every run (`train_fraction` in config.yaml); its tokens, the words of every "
     "line and one `</s>` per line, as `tokens` counts them"),
    (("perplexity_including_oovs", "perplexity_excluding_oovs"),
     "KenLM's two perplexities, 10^(-log10 P / tokens): out-of-vocabulary (OOV) words scored as "
     "`<unk>`, or OOV tokens left out of log10 P and the count"),
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
    (("binary_bytes",), "size of KenLM's binary model"),
    (("log10_prob", "log10_prob_oov"), "the raw sums: log10 P of all tokens, and of the OOV tokens alone"),
    (("prune", "discount_fallback"),
     "the `lmplz --prune` thresholds (or `none`), and whether `--discount_fallback` was given"),
]
# What each headline of the Markdown table shows, from perplexity.tsv.
SHOWN = [
    ("Train tokens", "train_tokens"), ("PPL incl. OOVs", "perplexity_including_oovs"), ("PPL excl. OOVs", "perplexity_excluding_oovs"),
    ("OOV rate", "oov_rate"), ("Bits/token", "cross_entropy_bits_incl"), ("SRILM ppl1", "srilm_ppl1"),
    ("Full-order hits", "hit_ratio_k"), ("n-grams", "ngrams_total"), ("Binary (MB)", "binary_bytes"),
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


def load_metrics(metric_paths, model_files):
    """One row per (model, split): every figure, the model's size and training text, and the raw
    sums, rows sorted.

    model_files maps a model name to {"counts": its ngram_counts.json, "binary": its binary}.
    """
    rows = []
    max_order = 1
    for path in metric_paths:
        with open(path) as handle:
            record = json.load(handle)
        files = model_files[record["model"]]
        with open(files["counts"]) as handle:
            counts = json.load(handle)
        ngrams = counts["ngrams"]
        max_order = max(max_order, record["order"])
        rows.append({
            "order": record["order"],
            "train_fraction": record["train_fraction"],
            "train_tokens": counts["training_text"]["tokens"],
            "split": record["split"],
            **split_figures(record["sums"]),
            **{f"ngrams_{k}": n for k, n in enumerate(ngrams, start=1)},
            "ngrams_total": sum(ngrams),
            "binary_bytes": Path(files["binary"]).stat().st_size,
            "log10_prob": record["sums"]["log10_prob"],
            "log10_prob_oov": record["sums"]["log10_prob_oov"],
            "prune": prune_label(record["prune"]),
            "discount_fallback": record["discount_fallback"],
            "model": record["model"],
        })
    orders = range(1, max_order + 1)
    columns = [
        "order", "train_fraction", "train_tokens", "split", *FIGURES, *(f"hit_ratio_{k}" for k in orders),
        *(f"ngrams_{k}" for k in orders), "ngrams_total", "binary_bytes", "log10_prob", "log10_prob_oov",
        *OPTIONS, "model",
    ]
    return sort_models(pd.DataFrame(rows, columns=columns))


def sort_models(frame):
    """Rows by order, unpruned before pruned, then training fraction, split, model."""
    key = frame.assign(pruned=frame["prune"] != "none")
    order = key.sort_values(
        ["order", "pruned", "prune", "discount_fallback", "train_fraction", "split", "model"], kind="stable"
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
    header += ["n-grams:", "Binary (MB):"]
    rows = []
    for model, group in frame.groupby("model", sort=False):
        by_split = group.set_index("split")
        first = group.iloc[0]
        cells = [model, f"{int(first['train_tokens']):,}"]
        for split in splits:
            row = by_split.loc[split]
            cells += [
                f"{row['perplexity_including_oovs']:.2f}",
                f"{row['perplexity_excluding_oovs']:.2f}",
                f"{100 * row['oov_rate']:.2f}%",
                f"{row['cross_entropy_bits_incl']:.3f}",
                f"{row['srilm_ppl1']:.2f}",
                f"{100 * row['hit_ratio_' + str(row['order'])]:.1f}%",
            ]
        cells += [f"{int(first['ngrams_total']):,}", f"{first['binary_bytes'] / 2**20:.1f}"]
        rows.append(cells)
    options = []
    if (frame["prune"] != "none").any():
        options.append("pruned as the Model column says (`prune` in the TSV)")
    if frame["discount_fallback"].any():
        options.append("`--discount_fallback`")
    extra = f", {', '.join(options)}" if options else ""
    return markdown_table(f"Perplexity on {', '.join(splits)}", header, rows, definitions_markdown(extra))


def write_tables(metric_paths, model_files, tsv_path, md_path):
    """Write both tables from the metrics files of the current config's models."""
    frame = load_metrics(metric_paths, model_files)
    write_tsv(frame, tsv_path)
    with atomic_open(md_path) as handle:
        handle.write(markdown(frame))


COST_COLUMNS = [
    "order", "train_fraction", "train_tokens", "lmplz_seconds", "lmplz_cpu_seconds",
    "build_binary_seconds", "build_binary_cpu_seconds", "train_job_seconds", "query_seconds",
    "peak_rss_mb", "binary_bytes", *OPTIONS, "model",
]


def read_benchmark(path):
    """Seconds, CPU seconds and peak resident memory (MB) from a Snakemake benchmark file."""
    row = pd.read_csv(path, sep="\t").iloc[0]
    return {"s": float(row["s"]), "cpu": float(row["cpu_time"]), "rss": float(row["max_rss"])}


def cost_frame(models, files):
    """One row per model; files maps (kind, model) to its train benchmark, usage record, n-gram
    counts (with its training text's size), query benchmarks and binary."""
    rows = []
    for name, options in models.items():
        job = read_benchmark(files[("train", name)])
        with open(files[("usage", name)]) as handle:
            usage = json.load(handle)
        queries = [read_benchmark(path) for path in files[("query", name)]]
        with open(files[("counts", name)]) as handle:
            training = json.load(handle)["training_text"]
        rows.append({
            "order": options["order"],
            "train_fraction": options["train_fraction"],
            "train_tokens": training["tokens"],
            "lmplz_seconds": usage["lmplz"]["seconds"],
            "lmplz_cpu_seconds": usage["lmplz"]["cpu_seconds"],
            "build_binary_seconds": usage["build_binary"]["seconds"],
            "build_binary_cpu_seconds": usage["build_binary"]["cpu_seconds"],
            "train_job_seconds": job["s"],
            "query_seconds": sum(q["s"] for q in queries),
            # The job's whole process tree, lmplz and build_binary at once.
            "peak_rss_mb": max(job["rss"], *(q["rss"] for q in queries)),
            "binary_bytes": Path(files[("binary", name)]).stat().st_size,
            "prune": prune_label(options["prune"]),
            "discount_fallback": flag_label(options["discount_fallback"]),
            "model": name,
        })
    return pd.DataFrame(rows, columns=COST_COLUMNS).sort_values(["order", "model"]).reset_index(drop=True)


def markdown_table(title, header, rows, note):
    """A titled Markdown table with a closing note; header names ending in `:` are right-aligned."""
    names = [name.rstrip(":") for name in header]
    rule = ["---:" if name.endswith(":") else "---" for name in header]
    lines = [title, "", "| " + " | ".join(names) + " |", "|" + "|".join(rule) + "|"]
    lines += ["| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join([*lines, "", note, ""])


def cost_markdown(frame, splits):
    rows = [
        [
            row["model"], f"{row['lmplz_seconds']:.2f}", f"{row['build_binary_seconds']:.2f}",
            f"{row['train_job_seconds']:.2f}", f"{row['query_seconds']:.2f}", f"{row['peak_rss_mb']:.0f}",
            f"{row['binary_bytes'] / 2**20:.1f}",
        ]
        for _, row in frame.iterrows()
    ]
    return markdown_table(
        f"Cost per model (query time summed over {', '.join(splits)})",
        ["Model", "lmplz (s):", "build_binary (s):", "Train job (s):", "Query (s):", "Peak RSS (MB):", "Binary (MB):"],
        rows,
        "Wall-clock seconds; build_binary reads the ARPA model as lmplz writes it, so the two overlap "
        "and the train job takes about as long as lmplz plus build_binary's tail. Timings vary from "
        "run to run.",
    )


def write_cost_tables(models, files, splits, tsv_path, md_path):
    frame = cost_frame(models, files)
    with atomic_open(tsv_path, newline="") as handle:
        frame.to_csv(handle, sep="\t", index=False, lineterminator="\n")
    with atomic_open(md_path) as handle:
        handle.write(cost_markdown(frame, splits))
