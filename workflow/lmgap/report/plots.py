"""The report's figures (PNG), drawn from the tables so a plot never disagrees with them."""

import matplotlib

matplotlib.use("Agg")  # no screen on a server or in CI

import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from ..atomic import atomic_path  # noqa: E402
from ..tsv import LOSS, read_tsv  # noqa: E402
from .documents import load_all_documents  # noqa: E402

# No software version or date in the file: the same tables give the same bytes.
PNG_METADATA = {"Software": None}


def read_perplexity_table(path):
    """perplexity.tsv as the plots read it: empty cells missing, `prune` as its text."""
    # Its shape checked first: the columns every plot reads.
    text = ("family", "split", "model")
    read_tsv(path, (*text, "perplexity_including_oovs"), exact=False, text=text)
    table = pd.read_csv(path, sep="\t", keep_default_na=False, na_values=[""])
    table["prune"] = table["prune"].astype(str)
    return table


def _save(figure, path):
    """Write the figure, close it and return it, so that a test can hold what it shows against the table."""
    figure.tight_layout()
    with atomic_path(path) as tmp:
        figure.savefig(tmp, format="png", dpi=120, metadata=PNG_METADATA)
    plt.close(figure)
    return figure


def _labelled(figure, axes, path, xlabel, ylabel, log=False):
    """Name the axes, add a legend and a grid, and save (see _save); log: the x values span magnitudes."""
    if log:
        axes.set_xscale("log")
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    axes.legend(fontsize="small")
    axes.grid(alpha=0.3, which="both" if log else "major")
    return _save(figure, path)


def _empty(figure, axes, path, message):
    """A figure that says why it has nothing to show, saved (see _save)."""
    axes.text(0.5, 0.5, message, ha="center", va="center")
    axes.set_axis_off()
    return _save(figure, path)


def _variant_label(prune, interpolated, fallback, fraction=1.0):
    parts = [] if prune == "none" else [f"prune {prune}"]
    if not interpolated:
        parts.append("SRILM unigrams")
    if fallback:
        parts.append("fallback")
    if fraction != 1:
        parts.append(f"{fraction:g} of train")
    return ", ".join(parts)


def ngram_rows(frame):
    return frame[frame["family"] == "ngram"]


def neural_rows(frame):
    return frame[frame["family"] == "neural"]


def perplexity_by_order(frame, path):
    """One line per n-gram variant; each neural model a horizontal line at its perplexity."""
    figure, axes = plt.subplots(figsize=(6, 4))
    for row in neural_rows(frame).sort_values(["split", "model"]).itertuples(index=False):
        axes.axhline(row.perplexity_including_oovs, linestyle=":", color="black", alpha=0.6)
        axes.annotate(
            f"{row.model} (neural), {row.split}",
            (0.01, row.perplexity_including_oovs),
            xycoords=("axes fraction", "data"),
            fontsize=6,
            va="bottom",
        )
    frame = ngram_rows(frame)
    for split, by_split in frame.groupby("split", sort=True):
        # Models that differ only in order form one line.
        options = ["prune", "interpolate_unigrams", "discount_fallback", "train_fraction"]
        for (prune, interpolated, fallback, fraction), group in by_split.groupby(options, sort=True):
            group = group.sort_values("order")
            suffix = " ".join(filter(None, [split, _variant_label(prune, interpolated, fallback, fraction)]))
            axes.plot(group["order"], group["perplexity_including_oovs"], "o-", label=f"incl. OOVs, {suffix}")
            axes.plot(group["order"], group["perplexity_excluding_oovs"], "s--", label=f"excl. OOVs, {suffix}")
    axes.set_xticks(sorted(int(order) for order in frame["order"].unique()))
    return _labelled(figure, axes, path, "n-gram order", "perplexity")


PER_WORD_LABEL = "perplexity, each OOV priced as one word"


def learning_curve(frame, path):
    """Perplexity against the tokens trained on, a line per order (and pruning), each OOV priced as one word:
    a smaller sample knows fewer words and would price more of them as the one class `<unk>`."""
    figure, axes = plt.subplots(figsize=(6, 4))
    for split, by_split in ngram_rows(frame).groupby("split", sort=True):
        options = ["order", "prune", "interpolate_unigrams", "discount_fallback"]
        for (order, prune, interpolated, fallback), group in by_split.groupby(options, sort=True):
            group = group.sort_values("train_tokens")
            label = ", ".join(
                filter(None, [f"order {int(order)}", _variant_label(prune, interpolated, fallback), split])
            )
            axes.plot(group["train_tokens"], group["perplexity_oovs_as_words"], "o-", label=label)
    trained = neural_rows(frame).dropna(subset=["train_tokens"])
    for (model, split), group in trained.groupby(["model", "split"], sort=True):
        axes.plot(
            group["train_tokens"],
            group["perplexity_oovs_as_words"],
            "*",
            markersize=10,
            label=f"{model} (neural), {split}",
        )
    xlabel = "training tokens (train_fraction of the training split)"
    return _labelled(figure, axes, path, xlabel, PER_WORD_LABEL, log=True)


def perplexity_by_size(frame, path):
    """Perplexity against the binary model's size: what pruning and a binary format trade, model by model,
    each OOV priced as one word, so that models of any training fraction and family stand on one scale."""
    figure, axes = plt.subplots(figsize=(6, 4))
    for split, by_split in frame.groupby("split", sort=True):
        ngram = by_split["family"] == "ngram"
        # perplexity.tsv has a format column only in a run of several formats.
        probing = by_split["format"] == "probing" if "format" in by_split else ngram
        kinds = {
            "unpruned": ngram & probing & (by_split["prune"] == "none"),
            "pruned": ngram & probing & (by_split["prune"] != "none"),
            "another binary format": ngram & ~probing,
            "neural": by_split["family"] == "neural",
        }
        for (kind, chosen), marker in zip(kinds.items(), ("o", "x", "s", "^")):
            group = by_split[chosen]
            if group.empty:
                continue
            axes.scatter(
                group["binary_bytes"] / 2**20,
                group["perplexity_oovs_as_words"],
                marker=marker,
                label=f"{kind}, {split}",
            )
            for row in group.itertuples(index=False):
                axes.annotate(row.model, (row.binary_bytes / 2**20, row.perplexity_oovs_as_words), fontsize=6)
    return _labelled(figure, axes, path, "model file size (MB)", PER_WORD_LABEL, log=True)


def hit_ratios(frame, path):
    figure, axes = plt.subplots(figsize=(6, 4))
    frame = ngram_rows(frame)
    top = int(frame["order"].max())
    for row in frame.sort_values(["split", "order", "model"]).itertuples(index=False):
        ks = list(range(1, int(row.order) + 1))
        ratios = [100 * getattr(row, f"hit_ratio_{k}") for k in ks]
        axes.plot(ks, ratios, "o-", label=f"{row.model} on {row.split}")
    axes.set_xticks(range(1, top + 1))
    axes.set_ylim(0, 100)
    return _labelled(figure, axes, path, "n-gram length k", "tokens with a k-gram or longer (%)")


def document_perplexity(documents, path):
    """documents: {(model, split): frame}; one box per model and split, on a log scale."""
    figure, axes = plt.subplots(figsize=(max(6, 1.2 * len(documents)), 4))
    keys = sorted(documents)
    axes.boxplot(
        [documents[key]["perplexity_including_oovs"] for key in keys],
        tick_labels=[f"{model}\n{split}" for model, split in keys],
        showfliers=True,
    )
    axes.set_yscale("log")
    axes.set_ylabel("document perplexity incl. OOVs")
    axes.grid(alpha=0.3, axis="y")
    return _save(figure, path)


def perplexity_by_decade(decades, path):
    figure, axes = plt.subplots(figsize=(7, 4))
    known = decades[decades["decade"] != "unknown"]
    if known.empty:
        return _empty(figure, axes, path, "no year column in the evaluated splits")
    for (model, split), group in known.groupby(["model", "split"], sort=True):
        group = group.sort_values("decade")
        axes.plot(
            [int(d[:-1]) for d in group["decade"]],
            group["perplexity_including_oovs"],
            "o-",
            label=f"{model} on {split}",
        )
    return _labelled(figure, axes, path, "decade of publication", "perplexity incl. OOVs")


def training_loss(losses, path):
    """losses: {model: its loss.tsv as a frame}; the loss of every step, and a running mean."""
    figure, axes = plt.subplots(figsize=(6, 4))
    if not losses:
        return _empty(figure, axes, path, "no neural model trained by the pipeline (neural: in config.yaml)")
    for model, loss in sorted(losses.items()):
        (line,) = axes.plot(loss["step"], loss["loss_nats"], alpha=0.3, linewidth=0.8)
        window = max(1, len(loss) // 50)
        axes.plot(
            loss["step"],
            loss["loss_nats"].rolling(window, min_periods=1).mean(),
            color=line.get_color(),
            label=f"{model} (mean of {window} steps)",
        )
    return _labelled(figure, axes, path, "optimizer step", "training loss (nats per prediction)")


def draw_plots(inputs, params, outputs):
    """Every figure (outputs) from perplexity.tsv, decades.tsv, the documents' scores and the loss records
    (inputs); params: trained, the neural models of inputs' losses."""
    table = read_perplexity_table(inputs["table"])
    perplexity_by_order(table, outputs["perplexity_by_order"])
    hit_ratios(table, outputs["hit_ratios"])
    learning_curve(table, outputs["learning_curve"])
    perplexity_by_size(table, outputs["perplexity_by_size"])
    document_perplexity(load_all_documents(inputs["documents"], inputs["years"]), outputs["document_perplexity"])
    # A corpus whose header names no Year column has no decades: a header alone.
    read_tsv(
        inputs["decades"], ("model", "split", "decade"), exact=False, text=("model", "split", "decade"), empty=True
    )
    perplexity_by_decade(
        pd.read_csv(inputs["decades"], sep="\t", keep_default_na=False), outputs["perplexity_by_decade"]
    )
    losses = {name: read_tsv(path, LOSS, integers=("step",)) for name, path in zip(params["trained"], inputs["losses"])}
    training_loss(losses, outputs["neural_training_loss"])
