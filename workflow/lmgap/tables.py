"""Gather per-model metrics into the tidy TSV and the Markdown comparison table."""

import json
import math
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
INTEGERS = {"oovs", "tokens", "sentences", "words", "binary_bytes", "ngrams_total"}

DEFINITIONS = """\
Definitions (every figure is in `perplexity.tsv`, with the raw sums it is computed from):

- **Tokens**: predicted tokens, the words of each line plus its `</s>`, never `<s>`. \
**Words**: tokens less one `</s>` per line (**sentences**: lines).
- **PPL incl. OOVs**: KenLM's perplexity, 10^(-log10 P / tokens), out-of-vocabulary words \
scored as `<unk>`. **PPL excl. OOVs**: out-of-vocabulary tokens left out of log10 P and the count.
- **OOV rate**: out-of-vocabulary tokens / tokens (One Billion Word benchmark convention).
- **Bits/token**: cross-entropy, -log2 P / tokens = log2 of the perplexity (incl. OOVs here; \
`cross_entropy_bits_excl` in the TSV). Log-likelihoods: `log10_likelihood_*` and `ln_likelihood_*` \
are log P over the split; `likelihood_*` is the geometric mean probability per token, 1 / perplexity.
- **SRILM ppl1**: as SRILM's `ngram -ppl`: OOVs leave the log-probability and the count, \
ppl1 = 10^(-log10 P / (words - OOVs)); SRILM's `ppl` divides by words - OOVs + sentences \
(`srilm_ppl` in the TSV; with no zero-probability words it equals PPL excl. OOVs).
- **k-gram hits**: share of tokens for which the model held an n-gram of length k or more \
(cumulative; an OOV token is a miss at every order), `hit_ratio_k` in the TSV. **Full-order hits**: \
k = the model's order.
- **n-grams**: distinct n-grams of all orders in the model (`ngrams_k` per order in the TSV); \
**Binary**: size of KenLM's binary model on disk.
- Models: modified Kneser-Ney estimated by KenLM's `lmplz --skip_symbols`{options}.
"""


def prune_label(values):
    """`0 0 1`, or `none` for an unpruned model."""
    return " ".join(str(v) for v in values) or "none"


def flag_label(flag):
    return "true" if flag else "false"


def load_metrics(metric_paths, count_paths, binary_paths):
    """One row per (model, split): every figure, the model's size and the raw sums, rows sorted.

    count_paths and binary_paths map a model name to its ngram_counts.json and binary.
    """
    rows = []
    max_order = 1
    for path in metric_paths:
        with open(path) as handle:
            record = json.load(handle)
        with open(count_paths[record["model"]]) as handle:
            ngrams = json.load(handle)["ngrams"]
        max_order = max(max_order, record["order"])
        rows.append({
            "order": record["order"],
            "split": record["split"],
            **split_figures(record["raw"]),
            **{f"ngrams_{k}": n for k, n in enumerate(ngrams, start=1)},
            "ngrams_total": sum(ngrams),
            "binary_bytes": Path(binary_paths[record["model"]]).stat().st_size,
            "log10_prob": record["raw"]["log10_prob"],
            "log10_prob_oov": record["raw"]["log10_prob_oov"],
            "prune": prune_label(record["prune"]),
            "discount_fallback": record["discount_fallback"],
            "model": record["model"],
        })
    orders = range(1, max_order + 1)
    columns = [
        "order", "split", *FIGURES, *(f"hit_ratio_{k}" for k in orders), *(f"ngrams_{k}" for k in orders),
        "ngrams_total", "binary_bytes", "log10_prob", "log10_prob_oov", *OPTIONS, "model",
    ]
    frame = pd.DataFrame(rows, columns=columns)
    return frame.sort_values(["order", "split", "prune", "discount_fallback"], kind="stable").reset_index(drop=True)


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


def _model_label(row, vary):
    label = str(row["order"])
    if "prune" in vary and row["prune"] != "none":
        label += f", prune {row['prune']}"
    if "discount_fallback" in vary and row["discount_fallback"]:
        label += ", fallback"
    return label


def markdown(frame):
    """A table for people: one row per model, the headline figures per evaluated split."""
    splits = list(dict.fromkeys(frame["split"]))
    vary = [opt for opt in OPTIONS if frame[opt].nunique() > 1]
    header = ["Order"]
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
        cells = [_model_label(first, vary)]
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
        options.append("pruning as given in the Order column or `lmplz.prune`")
    if frame["discount_fallback"].any():
        options.append("`--discount_fallback`")
    extra = f", {', '.join(options)}" if options else ""
    note = DEFINITIONS.format(options=extra).rstrip("\n")
    return markdown_table(f"Perplexity on {', '.join(splits)}", header, rows, note)


def write_tables(metric_paths, count_paths, binary_paths, tsv_path, md_path):
    """Write both tables from the metrics files of the current config's models."""
    frame = load_metrics(metric_paths, count_paths, binary_paths)
    write_tsv(frame, tsv_path)
    with atomic_open(md_path) as handle:
        handle.write(markdown(frame))


COST_COLUMNS = [
    "order", "train_seconds", "train_cpu_seconds", "binarize_seconds", "binarize_cpu_seconds",
    "job_seconds", "query_seconds", "peak_rss_mb", "binary_bytes", *OPTIONS, "model",
]


def read_benchmark(path):
    """Seconds, CPU seconds and peak resident memory (MB) from a Snakemake benchmark file."""
    row = pd.read_csv(path, sep="\t").iloc[0]
    return {"s": float(row["s"]), "cpu": float(row["cpu_time"]), "rss": float(row["max_rss"])}


def cost_frame(models, files):
    """One row per model; files maps (kind, model) to its train benchmark, usage record, query
    benchmarks and binary."""
    rows = []
    for name, options in models.items():
        job = read_benchmark(files[("train", name)])
        with open(files[("usage", name)]) as handle:
            usage = json.load(handle)
        queries = [read_benchmark(path) for path in files[("query", name)]]
        rows.append({
            "order": options["order"],
            "train_seconds": usage["lmplz"]["seconds"],
            "train_cpu_seconds": usage["lmplz"]["cpu_seconds"],
            "binarize_seconds": usage["build_binary"]["seconds"],
            "binarize_cpu_seconds": usage["build_binary"]["cpu_seconds"],
            "job_seconds": job["s"],
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
            row["model"], f"{row['train_seconds']:.2f}", f"{row['binarize_seconds']:.2f}",
            f"{row['job_seconds']:.2f}", f"{row['query_seconds']:.2f}", f"{row['peak_rss_mb']:.0f}",
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
