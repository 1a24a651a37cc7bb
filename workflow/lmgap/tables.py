"""Gather per-model metrics into the tidy TSV and the Markdown comparison table."""

import json
from pathlib import Path

import pandas as pd

from .atomic import atomic_open

METRICS = ["perplexity_including_oovs", "perplexity_excluding_oovs", "oovs", "tokens"]
OPTIONS = ["prune", "discount_fallback"]
COLUMNS = ["order", "split", *METRICS, *OPTIONS, "model"]

DEFINITIONS = """\
- **Perplexity incl. OOVs**: KenLM's perplexity over every predicted token, each line's `</s>` included, \
out-of-vocabulary words scored as `<unk>`.
- **Perplexity excl. OOVs**: the same with out-of-vocabulary tokens left out of the sum and the count.
- **OOVs**: tokens not in the model's vocabulary. **Tokens**: predicted tokens, `</s>` included, `<s>` never.
- Models: modified Kneser-Ney estimated by KenLM's `lmplz --skip_symbols`{options}.
"""


def prune_label(values):
    """`0 0 1`, or `none` for an unpruned model."""
    return " ".join(str(v) for v in values) or "none"


def flag_label(flag):
    return "true" if flag else "false"


def load_metrics(paths):
    """One row per metrics file, columns in the published order, rows sorted."""
    rows = []
    for path in paths:
        with open(path) as handle:
            rows.append(json.load(handle))
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["prune"] = frame["prune"].map(prune_label)
    return frame.sort_values(["order", "split", "prune", "discount_fallback"], kind="stable").reset_index(drop=True)


def write_tsv(frame, path):
    """Full precision: floats as their shortest round-tripping repr, so reruns give identical bytes."""
    out = frame.copy()
    for column in ("perplexity_including_oovs", "perplexity_excluding_oovs"):
        out[column] = out[column].map(repr)
    out["discount_fallback"] = out["discount_fallback"].map(flag_label)
    with atomic_open(path, newline="") as handle:
        out.to_csv(handle, sep="\t", index=False, lineterminator="\n")


def _model_label(row, vary):
    label = str(row["order"])
    if "prune" in vary and row["prune"] != "none":
        label += f", prune {row['prune']}"
    if "discount_fallback" in vary and row["discount_fallback"]:
        label += ", fallback"
    return label


def markdown(frame):
    """A table for people: one row per model, a column group per evaluated split."""
    splits = list(dict.fromkeys(frame["split"]))
    vary = [opt for opt in OPTIONS if frame[opt].nunique() > 1]
    header = ["Order"]
    for split in splits:
        prefix = f"{split} " if len(splits) > 1 else ""
        header += [f"{prefix}PPL incl. OOVs", f"{prefix}PPL excl. OOVs", f"{prefix}OOVs", f"{prefix}Tokens"]
    lines = ["| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    for model, group in frame.groupby("model", sort=False):
        by_split = group.set_index("split")
        cells = [_model_label(group.iloc[0], vary)]
        for split in splits:
            row = by_split.loc[split]
            cells += [
                f"{row['perplexity_including_oovs']:.2f}",
                f"{row['perplexity_excluding_oovs']:.2f}",
                str(row["oovs"]),
                str(row["tokens"]),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    options = []
    if (frame["prune"] != "none").any():
        options.append("pruning as given in the Order column or `lmplz.prune`")
    if frame["discount_fallback"].any():
        options.append("`--discount_fallback`")
    extra = f", {', '.join(options)}" if options else ""
    title = f"Perplexity on {', '.join(splits)}\n\n"
    return title + "\n".join(lines) + "\n\n" + DEFINITIONS.format(options=extra)


def write_tables(metric_paths, tsv_path, md_path):
    """Write both tables from the metrics files of the current config's models."""
    frame = load_metrics(metric_paths)
    write_tsv(frame, tsv_path)
    with atomic_open(md_path) as handle:
        handle.write(markdown(frame))


COST_COLUMNS = [
    "order", "train_seconds", "train_cpu_seconds", "binarize_seconds", "query_seconds",
    "peak_rss_mb", "binary_bytes", *OPTIONS, "model",
]


def read_benchmark(path):
    """Seconds, CPU seconds and peak resident memory (MB) from a Snakemake benchmark file."""
    row = pd.read_csv(path, sep="\t").iloc[0]
    return {"s": float(row["s"]), "cpu": float(row["cpu_time"]), "rss": float(row["max_rss"])}


def cost_frame(models, benchmarks, binaries):
    """One row per model; benchmarks maps (rule, model) to a list of benchmark files."""
    rows = []
    for name, options in models.items():
        train = read_benchmark(benchmarks[("lmplz", name)][0])
        binarize = read_benchmark(benchmarks[("build_binary", name)][0])
        queries = [read_benchmark(path) for path in benchmarks[("query", name)]]
        rows.append({
            "order": options["order"],
            "train_seconds": train["s"],
            "train_cpu_seconds": train["cpu"],
            "binarize_seconds": binarize["s"],
            "query_seconds": sum(q["s"] for q in queries),
            "peak_rss_mb": max(b["rss"] for b in [train, binarize, *queries]),
            "binary_bytes": Path(binaries[name]).stat().st_size,
            "prune": prune_label(options["prune"]),
            "discount_fallback": flag_label(options["discount_fallback"]),
            "model": name,
        })
    return pd.DataFrame(rows, columns=COST_COLUMNS).sort_values(["order", "model"]).reset_index(drop=True)


def cost_markdown(frame, splits):
    lines = [
        f"Cost per model (query time summed over {', '.join(splits)})",
        "",
        "| Model | Train (s) | Binarize (s) | Query (s) | Peak RSS (MB) | Binary (MB) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for _, row in frame.iterrows():
        lines.append(
            f"| {row['model']} | {row['train_seconds']:.2f} | {row['binarize_seconds']:.2f} | "
            f"{row['query_seconds']:.2f} | {row['peak_rss_mb']:.0f} | {row['binary_bytes'] / 2**20:.1f} |"
        )
    lines += ["", "Times are wall-clock seconds from Snakemake's `benchmark:` files; they vary from run to run.", ""]
    return "\n".join(lines)


def write_cost_tables(models, benchmarks, binaries, splits, tsv_path, md_path):
    frame = cost_frame(models, benchmarks, binaries)
    with atomic_open(tsv_path, newline="") as handle:
        frame.to_csv(handle, sep="\t", index=False, lineterminator="\n")
    with atomic_open(md_path) as handle:
        handle.write(cost_markdown(frame, splits))
