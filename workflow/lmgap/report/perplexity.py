"""Gather per-model metrics into the tidy TSV and the Markdown comparison table."""

from pathlib import Path

import pandas as pd

from ..corpus.vocabulary import check_padding, oov_price, unknown_words
from ..keyed import join_keyed
from ..shapes import COUNTS, TRAINING, VOCABULARY, read_metrics, read_record
from ..neural.files import parameter_count, weights_bytes
from ..ngram.formats import PROBING
from ..record import oovs_as_words_perplexity, split_figures
from .table import MISSING, Column, Table


def _thousands(value):
    return f"{int(value):,}"


def _full_order_hits(row):
    """The hit ratio of the model's own order; a neural model has none."""
    hits = row[f"hit_ratio_{int(row['order'])}"] if row["family"] == "ngram" else None
    return MISSING if pd.isna(hits) else f"{hits:.1%}"


TABLE = Table(
    "perplexity.tsv",
    (
        Column(
            "family",
            "the model's family: `ngram` (KenLM) or `neural` (a causal transformer, `neural` in "
            "config.yaml, scored with a sliding window; its row has no order, n-grams, hit ratios or options)",
        ),
        Column("order", "the n-gram model's order", integer=True),
        Column(
            "train_fraction",
            "the share of the training split's documents (lines) the model was trained on, the "
            "same nested sample every run (`train_fraction` in config.yaml)",
        ),
        Column(
            "train_tokens",
            "the training text's tokens, the words of every line and one `</s>` per line, as "
            "`tokens` counts them (empty for a neural model the pipeline did not train)",
            "Train tokens:",
            _thousands,
            integer=True,
        ),
        Column("split", "the split scored"),
        Column(
            "perplexity_including_oovs",
            "KenLM's perplexity including OOVs, 10^(-log10 P / tokens), each "
            "out-of-vocabulary (OOV) word scored as `<unk>`, the class of all unknown words; a neural model's "
            "log10 P of a word is the sum of its subword tokens' and its end-of-text token plays `</s>`, so it "
            "counts the same tokens, and reading bytes it has no OOVs",
            "PPL incl. OOVs:",
            "{:.2f}",
            per_split=True,
        ),
        Column(
            "perplexity_excluding_oovs",
            "KenLM's perplexity excluding OOVs: the OOV tokens left out of log10 P "
            "and of the count (a neural model's equals its perplexity including OOVs)",
            "PPL excl. OOVs:",
            "{:.2f}",
            per_split=True,
        ),
        Column(
            "perplexity_oovs_as_words",
            "the perplexity with each OOV priced as one word of the run's vocabulary V (every word type of "
            "the training split and the scored splits) rather than as the class `<unk>`: its `<unk>` "
            "probability divided by `unknown_words`, the words of V the model does not know (kpu/kenlm#67); "
            "models of other vocabularies (training fractions) and families compare on it; a neural "
            "model's equals its perplexity including OOVs",
            "PPL, OOVs as words:",
            "{:.2f}",
            per_split=True,
        ),
        Column("oovs", "the OOV tokens: words of the split out of the model's vocabulary", integer=True),
        Column(
            "tokens",
            "the predicted tokens: the words of every line and one `</s>` per line, never `<s>`",
            integer=True,
        ),
        Column("sentences", "the split's sentences: its lines (documents)", integer=True),
        Column("words", "the split's words: tokens less one `</s>` per line", integer=True),
        Column(
            "oov_rate",
            "the OOV rate, `oovs / tokens` (One Billion Word benchmark convention: `</s>` counted, `<s>` never)",
            "OOV rate:",
            "{:.2%}",
            per_split=True,
        ),
        Column(
            "cross_entropy_bits_incl",
            "the cross-entropy in bits per token, -log2 P / tokens (log2 of the perplexity), OOVs included",
            "Bits/token:",
            "{:.3f}",
            per_split=True,
        ),
        Column(
            "cross_entropy_bits_excl",
            "the cross-entropy in bits per token with OOVs excluded from log2 P and from the count",
        ),
        Column("log10_likelihood_incl", "the log10 likelihood of the whole split, log10 P, OOVs included"),
        Column("log10_likelihood_excl", "the log10 likelihood of the whole split with OOV tokens excluded"),
        Column("ln_likelihood_incl", "the natural-log likelihood of the whole split, ln P, OOVs included"),
        Column("ln_likelihood_excl", "the natural-log likelihood of the whole split with OOV tokens excluded"),
        Column(
            "likelihood_incl",
            "the likelihood per token including OOVs, the geometric mean probability, 1 / `perplexity_including_oovs`",
        ),
        Column("likelihood_excl", "the likelihood per token excluding OOVs, 1 / `perplexity_excluding_oovs`"),
        Column(
            "srilm_ppl",
            "SRILM's `ngram -ppl` ppl: OOVs left out of log10 P, divided by words - OOVs + "
            "sentences (with no zero-probability words, which KenLM has none of, it equals "
            "`perplexity_excluding_oovs`)",
        ),
        Column(
            "srilm_ppl1",
            "SRILM's `ngram -ppl` ppl1: OOVs left out of log10 P, divided by words - OOVs, without the `</s>` tokens",
            "SRILM ppl1:",
            # Undefined where every word is unseen (it divides by the words KenLM knows).
            "{:.2f}",
            per_split=True,
        ),
        Column(
            "hit_ratio_k",
            "the hit ratio of order k: the share of tokens for which the model held an n-gram of "
            "length k or more (cumulative; an OOV token is a miss at every k)",
            "Full-order hits:",
            cell=_full_order_hits,
            per_split=True,
        ),
        Column(
            "vocabulary",
            "the n-gram model's vocabulary in words: its unigrams but `<s>`, `</s>` and `<unk>`",
            integer=True,
        ),
        Column(
            "unknown_words",
            "the unknown words of the n-gram model: those of the run's vocabulary V it does not know, "
            "V - `vocabulary`, among which its `<unk>` probability is shared",
            integer=True,
        ),
        Column(
            "ngrams_k", "the distinct k-grams (n-grams of order k) in the model, from its ARPA header", integer=True
        ),
        Column(
            "ngrams_total",
            "the total of the model's distinct n-grams over every order",
            "n-grams:",
            _thousands,
            integer=True,
        ),
        Column(
            "binary_bytes",
            "the size in bytes of KenLM's binary model, or of a neural model's weight files",
            "Model file (MB):",
            lambda value: f"{value / 2**20:.1f}",
            integer=True,
        ),
        Column("parameters", "a neural model's parameters (tied embeddings counted once)", integer=True),
        Column("log10_prob", "the raw sum the figures come from: log10 P of all tokens"),
        Column("log10_prob_oov", "the raw sum of log10 P over the OOV tokens alone"),
        Column("prune", "the `lmplz --prune` thresholds, or `none`"),
        Column(
            "interpolate_unigrams",
            "`true` for KenLM's unigrams, interpolated with the uniform distribution; `false` for "
            "SRILM's, the discounted mass given to `<unk>` (`lmplz --interpolate_unigrams 0`)",
        ),
        Column(
            "vocab_pad",
            "the size `lmplz --vocab_pad` padded the model's vocabulary to (`lmplz.vocab_pad`: V + 1, the "
            "run's vocabulary and `</s>`), its `<unk>` then one unknown word's probability; 0 for none (empty "
            "for a neural model)",
            integer=True,
        ),
        Column("discount_fallback", "whether `lmplz --discount_fallback` was given (`true` or `false`)"),
        Column(
            "format",
            "the binary's format, named as `build_binary`'s options name it (`probing`, `trie`, `trie-q8b8` for "
            "`-q 8 -b 8 trie`, `trie-a22` for `-a 22 trie`); a column only when `build_binary.format` asks for "
            "another than `probing`",
            "Format",
            optional=True,
        ),
        Column(
            "model",
            "the model's name: its folder under `results/models/`, or `results/neural/` for a neural model",
            "Model",
            noted=False,
        ),
    ),
    shown=(
        "model",
        "train_tokens",
        "perplexity_including_oovs",
        "perplexity_excluding_oovs",
        "perplexity_oovs_as_words",
        "oov_rate",
        "cross_entropy_bits_incl",
        "srilm_ppl1",
        "hit_ratio_k",
        "ngrams_total",
        "binary_bytes",
        "format",
    ),
)


def model_columns(record, files, settings):
    """The model's family, training text, size and options, as perplexity.tsv and cost.tsv share them."""
    name = record["model"]
    if record.get("family") == "neural":
        neural = settings["neural"][name]
        training = read_record(files["records"][name], TRAINING) if neural["trained"] else None
        return {
            "family": "neural",
            "train_fraction": neural["train_fraction"],
            "train_tokens": training["training_text"]["tokens"] if training else None,
            # cost.tsv's alone: subword tokens through the optimizer per second of training.
            "train_tokens_per_second": training["train_tokens_per_second"] if training else None,
            "binary_bytes": weights_bytes(files["folders"][name]),
            "parameters": parameter_count(files["folders"][name]),
            "model": name,
        }
    counts = read_record(files["counts"][name], COUNTS)
    return {
        "family": "ngram",
        "order": record["order"],
        "train_fraction": record["train_fraction"],
        "train_tokens": counts["training_text"]["tokens"],
        "binary_bytes": Path(files["binary"][name]).stat().st_size,
        "prune": " ".join(str(v) for v in record["prune"]) or "none",
        # Absent from the records of models with KenLM's default (lmgap.models.models_from_config).
        "interpolate_unigrams": record.get("interpolate_unigrams", True),
        "vocab_pad": counts.get("vocab_pad", 0),
        "discount_fallback": settings["discount_fallback"],
        "format": record.get("format", PROBING),
        "model": name,
    }


def load_metrics(metric_paths, vocabulary, files, settings):
    """A sorted row per (model, split) of the metrics records; vocabulary: the run's V in words; files: {kind:
    {model: path}} of counts, binary, records (training.json) and folders (a neural model's); settings:
    discount_fallback, neural (see neural_settings)."""
    rows = []
    for path in metric_paths:
        record = read_metrics(path)
        own = model_columns(record, files, settings)
        if own["family"] == "ngram":
            # Its n-grams, and the words of the run's vocabulary it does not know.
            ngrams = read_record(files["counts"][record["model"]], COUNTS)["ngrams"]
            unknown = unknown_words(vocabulary, ngrams[0])
            check_padding(own.get("vocab_pad"), vocabulary, record["model"])
            own |= {"vocabulary": vocabulary - unknown, "unknown_words": unknown, "ngrams_total": sum(ngrams)}
            own |= {f"ngrams_{k}": n for k, n in enumerate(ngrams, start=1)}
        rows.append(
            {
                **own,
                "split": record["split"],
                **split_figures(record["sums"]),
                "perplexity_oovs_as_words": oovs_as_words_perplexity(
                    record["sums"], oov_price(own.get("unknown_words"), record["sums"]["oovs"], own.get("vocab_pad"))
                ),
                "log10_prob": record["sums"]["log10_prob"],
                "log10_prob_oov": record["sums"]["log10_prob_oov"],
            }
        )
    # The columns of every order k stand for hit_ratio_k and ngrams_k.
    max_order = max((row["order"] for row in rows if row["family"] == "ngram"), default=1)
    columns = [
        name
        for column in TABLE.columns
        for name in (
            [column.name.replace("_k", f"_{k}") for k in range(1, max_order + 1)]
            if column.name.endswith("_k")
            else [column.name]
        )
    ]
    return TABLE.frame(sorted(rows, key=_model_order), columns, several_formats(rows))


def several_formats(rows):
    """Whether a model of the rows is in another binary format than KenLM's default: only then do
    perplexity.tsv and cost.tsv have their optional, format columns."""
    return any(row.get("format", PROBING) != PROBING for row in rows)


def _model_order(row):
    """n-grams by order, unpruned before pruned, then training fraction, split, model; then the
    neural models by split and name."""
    if row["family"] == "neural":
        return (True, row["split"], row["model"])
    options = (row["prune"] != "none", row["prune"], not row["interpolate_unigrams"], row["discount_fallback"])
    binary = row.get("format", PROBING)
    return (False, row["order"], *options, row["train_fraction"], binary != PROBING, row["split"], row["model"])


def fallback_discounts(count_paths):
    """{model: the orders lmplz took --discount_fallback's discounts for} of the n-gram models
    ({model: its ngram_counts.json}) that needed any."""
    found = {model: read_record(path, COUNTS).get("fallback_discounts") for model, path in count_paths.items()}
    return {model: orders for model, orders in found.items() if orders}


def fallback_note(fallbacks):
    """Which models took fallback discounts, in a sentence (None when none did)."""
    if not fallbacks:
        return None
    named = "; ".join(f"{model} (orders {', '.join(map(str, orders))})" for model, orders in fallbacks.items())
    return (
        f"lmplz could not estimate the modified Kneser-Ney discounts of {named} on this text and "
        "took `--discount_fallback`'s fixed ones for those orders"
    )


def markdown(rows, vocabulary, fallbacks=None):
    """The Markdown table: a row per model, the headline figures per scored split. rows: the frame (or
    perplexity.tsv read); vocabulary: the run's V in words; fallbacks: see fallback_discounts."""
    ngrams = rows[rows["family"] == "ngram"]
    options = []
    if (ngrams["prune"] != "none").any():
        options.append(", pruned as the Model column says (`prune` in the TSV)")
    if not ngrams["interpolate_unigrams"].all():
        options.append(", SRILM's unigrams (`--interpolate_unigrams 0`) for the models named `-interp0`")
    if ngrams["discount_fallback"].any():
        options.append(", `--discount_fallback`")
    extra = [
        "- Full-order hits: k = the model's order. Models: modified Kneser-Ney estimated by KenLM's "
        f"`lmplz --skip_symbols`{''.join(options)}.",
        f"- PPL, OOVs as words: V = {vocabulary:,} words, every word type of the training split and the "
        "scored splits; an n-gram model prices an OOV at its `<unk>` probability over the words of V it "
        "does not know (`unknown_words` in the TSV).",
    ]
    if fallbacks:
        extra.append(f"- {fallback_note(fallbacks)}.")
    if (rows["family"] == "neural").any():
        extra.append(NEURAL_NOTE)
    splits = ", ".join(rows["split"].unique())
    opening = "Definitions (every figure is in `perplexity.tsv`, with the raw sums it is computed from):"
    return TABLE.markdown(rows, f"Perplexity on {splits}", opening, extra)


# Under the Markdown table when it has neural rows: how to read them beside the n-grams.
NEURAL_NOTE = (
    "- Neural rows (`family` neural in the TSV): a causal transformer scored with a sliding window "
    "on the same text, each word's log-probability the sum of its subword tokens', the "
    "end-of-text token as `</s>`, so the same tokens count. It has no OOVs, so its two "
    "perplexities agree; set it beside the n-grams' PPL, OOVs as words, where each OOV costs "
    "one word too, rather than beside PPL incl. OOVs, which prices it as `<unk>`, the class of all "
    "unknown words."
)


def write_tables(inputs, params, outputs):
    """Both tables from the current config's models' metrics, their files and the run's vocabulary (inputs);
    params: input_keys (lmgap.keyed), settings (see load_metrics); outputs: tsv, md."""
    vocabulary = read_record(inputs["vocabulary"], VOCABULARY)["words"]
    files = join_keyed(inputs, params["input_keys"])
    rows = load_metrics(inputs["metrics"], vocabulary, files, params["settings"])
    ngrams = dict.fromkeys(rows.loc[rows["family"] == "ngram", "model"])
    fallbacks = fallback_discounts({m: files["counts"][m] for m in ngrams})
    TABLE.write(rows, outputs, markdown(rows, vocabulary, fallbacks))
