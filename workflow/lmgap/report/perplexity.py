"""Gather per-model metrics into the tidy TSV and the Markdown comparison table."""

import json
import math
import re
from pathlib import Path

import pandas as pd

from ..atomic import atomic_open
from ..neural.files import parameter_count, weights_bytes
from ..record import split_figures
from .markdown import definition_lines, known, markdown_table

OPTIONS = ["prune", "discount_fallback"]
# Figure columns of perplexity.tsv, in order; hit ratios and n-gram counts follow per order.
FIGURES = [
    "perplexity_including_oovs",
    "perplexity_excluding_oovs",
    "oovs",
    "tokens",
    "sentences",
    "words",
    "oov_rate",
    "cross_entropy_bits_incl",
    "cross_entropy_bits_excl",
    "log10_likelihood_incl",
    "log10_likelihood_excl",
    "ln_likelihood_incl",
    "ln_likelihood_excl",
    "likelihood_incl",
    "likelihood_excl",
    "srilm_ppl",
    "srilm_ppl1",
]
INTEGERS = {"oovs", "tokens", "sentences", "words", "binary_bytes", "ngrams_total", "train_tokens", "parameters"}

# The meaning of every column of perplexity.tsv, one sentence each, written once: the Markdown
# table's note, the report's caption and docs/tables.md's table are made from it (`hit_ratio_k` and
# `ngrams_k` stand for every order k).
DEFINITIONS = {
    "family": "the model's family: `ngram` (KenLM) or `neural` (a causal transformer, `neural` in "
    "config.yaml, scored with a sliding window; its row has no order, n-grams, hit ratios or options)",
    "order": "the n-gram model's order",
    "train_fraction": "the share of the training split's documents (lines) the model was trained on, the "
    "same nested sample every run (`train_fraction` in config.yaml)",
    "train_tokens": "the training text's tokens, the words of every line and one `</s>` per line, as "
    "`tokens` counts them (empty for a neural model the pipeline did not train)",
    "split": "the split scored",
    "perplexity_including_oovs": "KenLM's perplexity including OOVs, 10^(-log10 P / tokens), each "
    "out-of-vocabulary (OOV) word scored as `<unk>`, the class of all unknown words; a neural model's "
    "log10 P of a word is the sum of its subword tokens' and its end-of-text token plays `</s>`, so it "
    "counts the same tokens, and reading bytes it has no OOVs",
    "perplexity_excluding_oovs": "KenLM's perplexity excluding OOVs: the OOV tokens left out of log10 P "
    "and of the count (a neural model's equals its perplexity including OOVs)",
    "oovs": "the OOV tokens: words of the split out of the model's vocabulary",
    "tokens": "the predicted tokens: the words of every line and one `</s>` per line, never `<s>`",
    "sentences": "the split's sentences: its lines (documents)",
    "words": "the split's words: tokens less one `</s>` per line",
    "oov_rate": "the OOV rate, `oovs / tokens` (One Billion Word benchmark convention: `</s>` counted, `<s>` never)",
    "cross_entropy_bits_incl": "the cross-entropy in bits per token, -log2 P / tokens (log2 of the "
    "perplexity), OOVs included",
    "cross_entropy_bits_excl": "the cross-entropy in bits per token with OOVs excluded from log2 P and from the count",
    "log10_likelihood_incl": "the log10 likelihood of the whole split, log10 P, OOVs included",
    "log10_likelihood_excl": "the log10 likelihood of the whole split with OOV tokens excluded",
    "ln_likelihood_incl": "the natural-log likelihood of the whole split, ln P, OOVs included",
    "ln_likelihood_excl": "the natural-log likelihood of the whole split with OOV tokens excluded",
    "likelihood_incl": "the likelihood per token including OOVs, the geometric mean probability, "
    "1 / `perplexity_including_oovs`",
    "likelihood_excl": "the likelihood per token excluding OOVs, 1 / `perplexity_excluding_oovs`",
    "srilm_ppl": "SRILM's `ngram -ppl` ppl: OOVs left out of log10 P, divided by words - OOVs + "
    "sentences (with no zero-probability words, which KenLM has none of, it equals "
    "`perplexity_excluding_oovs`)",
    "srilm_ppl1": "SRILM's `ngram -ppl` ppl1: OOVs left out of log10 P, divided by words - OOVs, "
    "without the `</s>` tokens",
    "hit_ratio_k": "the hit ratio of order k: the share of tokens for which the model held an n-gram of "
    "length k or more (cumulative; an OOV token is a miss at every k)",
    "ngrams_k": "the distinct k-grams (n-grams of order k) in the model, from its ARPA header",
    "ngrams_total": "the total of the model's distinct n-grams over every order",
    "binary_bytes": "the size in bytes of KenLM's binary model, or of a neural model's weight files",
    "parameters": "a neural model's parameters (tied embeddings counted once)",
    "log10_prob": "the raw sum the figures come from: log10 P of all tokens",
    "log10_prob_oov": "the raw sum of log10 P over the OOV tokens alone",
    "prune": "the `lmplz --prune` thresholds, or `none`",
    "discount_fallback": "whether `lmplz --discount_fallback` was given (`true` or `false`)",
    "model": "the model's name: its folder under `results/models/`, or `results/neural/` for a neural model",
}
# What each headline of the Markdown table shows, from perplexity.tsv.
SHOWN = [
    ("Train tokens", "train_tokens"),
    ("PPL incl. OOVs", "perplexity_including_oovs"),
    ("PPL excl. OOVs", "perplexity_excluding_oovs"),
    ("OOV rate", "oov_rate"),
    ("Bits/token", "cross_entropy_bits_incl"),
    ("SRILM ppl1", "srilm_ppl1"),
    ("Full-order hits", "hit_ratio_k"),
    ("n-grams", "ngrams_total"),
    ("Model file (MB)", "binary_bytes"),
]


def meaning(column):
    """The definition of a perplexity.tsv column (hit_ratio_3 is hit_ratio_k's, and so on)."""
    return DEFINITIONS[re.sub(r"_\d+$", "_k", column) if column not in DEFINITIONS else column]


def definitions_markdown(extra_options=""):
    lines = ["Definitions (every figure is in `perplexity.tsv`, with the raw sums it is computed from):", ""]
    lines += definition_lines(SHOWN, meaning)
    lines.append(
        f"- Full-order hits: k = the model's order. Models: modified Kneser-Ney estimated by KenLM's "
        f"`lmplz --skip_symbols`{extra_options}."
    )
    return "\n".join(lines)


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
        "discount_fallback": files["discount_fallback"],
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
    binary, "discount_fallback": whether lmplz was given the flag}, a neural model's to
    {"family": "neural", "folder": its saved model, "record": its training.json or None,
    "train_fraction": its share of the training split or None}.
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
        rows.append(
            {
                **own,
                "split": record["split"],
                **split_figures(record["sums"]),
                "log10_prob": record["sums"]["log10_prob"],
                "log10_prob_oov": record["sums"]["log10_prob_oov"],
                "model": record["model"],
            }
        )
    orders = range(1, max_order + 1)
    columns = [
        "family",
        "order",
        "train_fraction",
        "train_tokens",
        "split",
        *FIGURES,
        *(f"hit_ratio_{k}" for k in orders),
        *(f"ngrams_{k}" for k in orders),
        "ngrams_total",
        "binary_bytes",
        "parameters",
        "log10_prob",
        "log10_prob_oov",
        *OPTIONS,
        "model",
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
        kind="stable",
        na_position="last",
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


def fallback_discounts(count_paths):
    """{model: the orders lmplz took --discount_fallback's discounts for} of the n-gram models
    (ngram_counts.json by model) that needed any."""
    found = {}
    for model, path in count_paths.items():
        with open(path) as handle:
            orders = json.load(handle).get("fallback_discounts")
        if orders:
            found[model] = orders
    return found


def fallback_note(fallbacks):
    """Which models took fallback discounts, in a sentence (None when none did)."""
    if not fallbacks:
        return None
    named = "; ".join(f"{model} (orders {', '.join(map(str, orders))})" for model, orders in fallbacks.items())
    return (
        f"lmplz could not estimate the modified Kneser-Ney discounts of {named} on this text and "
        "took `--discount_fallback`'s fixed ones for those orders"
    )


def markdown(frame, fallbacks=None):
    """A table for people: one row per model, the headline figures per evaluated split; fallbacks:
    the models that took fallback discounts (see fallback_discounts)."""
    splits = list(dict.fromkeys(frame["split"]))
    header = ["Model", "Train tokens:"]
    for split in splits:
        prefix = f"{split} " if len(splits) > 1 else ""
        header += [
            f"{prefix}PPL incl. OOVs:",
            f"{prefix}PPL excl. OOVs:",
            f"{prefix}OOV rate:",
            f"{prefix}Bits/token:",
            f"{prefix}SRILM ppl1:",
            f"{prefix}Full-order hits:",
        ]
    header += ["n-grams:", "Model file (MB):"]
    rows = []
    for model, group in frame.groupby("model", sort=False):
        by_split = group.set_index("split")
        first = group.iloc[0]
        cells = [model, known(first["train_tokens"], lambda v: f"{int(v):,}")]
        for split in splits:
            row = by_split.loc[split]
            hits = row["hit_ratio_" + str(int(row["order"]))] if row["family"] == "ngram" else None
            cells += [
                f"{row['perplexity_including_oovs']:.2f}",
                known(row["perplexity_excluding_oovs"], lambda v: f"{v:.2f}"),
                f"{100 * row['oov_rate']:.2f}%",
                f"{row['cross_entropy_bits_incl']:.3f}",
                # Undefined where every word is unseen (it divides by the words KenLM knows).
                known(row["srilm_ppl1"], lambda v: f"{v:.2f}"),
                known(hits, lambda v: f"{100 * v:.1f}%"),
            ]
        cells += [known(first["ngrams_total"], lambda v: f"{int(v):,}"), f"{first['binary_bytes'] / 2**20:.1f}"]
        rows.append(cells)
    ngrams = frame[frame["family"] == "ngram"]
    options = []
    if (ngrams["prune"] != "none").any():
        options.append("pruned as the Model column says (`prune` in the TSV)")
    if ngrams["discount_fallback"].astype(bool).any():
        options.append("`--discount_fallback`")
    extra = f", {', '.join(options)}" if options else ""
    note = definitions_markdown(extra)
    if fallback_note(fallbacks):
        note += f"\n- {fallback_note(fallbacks)}."
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
    counts = {model: files["counts"] for model, files in model_files.items() if "counts" in files}
    with atomic_open(md_path) as handle:
        handle.write(markdown(frame, fallback_discounts(counts)))
