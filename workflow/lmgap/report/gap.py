"""The gap-prediction table: GEval's hashed metrics per model, context and split, with the baseline."""

import math

from ..keyed import join_keyed
from ..gap.blend import describe_weights
from ..gap.coverage import describe
from ..gap.geval import DEFAULT_BITS, metric_names
from ..shapes import COVERAGE, GAP_METRICS, GAP_STATS, WEIGHTS, read_record
from .cost import read_benchmark
from .table import Column, Table


def _seconds(row):
    """Empty for the blend and the baseline, which no job of their own times."""
    return "" if math.isnan(row["seconds"]) else f"{row['seconds']:.1f}"


TABLE = Table(
    "gap.tsv",
    (
        Column("split", "the split scored", "Split", noted=False),
        Column(
            "model",
            "the model predicting, `document` (the words of the gap's own page), `blend` (the "
            "mixture of the both-context systems) or `unigram`, the context-free baseline",
            "Model",
            noted=False,
        ),
        Column(
            "family",
            "the prediction's family: `ngram` (KenLM), `neural` (a causal model rescoring the "
            "n-gram's most probable words, or a masked model), `cloze` (a model of both contexts trained "
            "for the gap), `document` (a cache of the gap's own contexts), `blend` or `baseline`",
            "Family",
        ),
        Column("order", "the model's n-gram order (empty for the other families)", integer=True),
        Column(
            "context",
            "the context the prediction reads: `both` (the submission in `results/gap/both/`), "
            "`left` (the ablation) or `none`",
            "Context",
        ),
        Column(
            "perplexity_hashed",
            "GEval's PerplexityHashed, the challenge's ranking (lower is better): exp(`log_loss_hashed`)",
            "PerplexityHashed:",
            "{:.2f}",
        ),
        Column(
            "likelihood_hashed",
            "GEval's LikelihoodHashed, exp(-`log_loss_hashed`): the geometric mean "
            "probability of the gap words' buckets",
            "LikelihoodHashed:",
            "{:.4f}",
        ),
        Column(
            "log_loss_hashed",
            "GEval's LogLossHashed, the mean negative natural log of the probability of "
            f"each gap word's bucket among {2**DEFAULT_BITS:,} hash buckets",
            "LogLossHashed:",
            "{:.4f}",
        ),
        Column(
            "top1_accuracy",
            "the top-1 accuracy: the share of gaps whose word is the first listed word (unhashed)",
            "Top-1:",
            "{:.1%}",
        ),
        Column(
            "top10_accuracy",
            "the top-10 accuracy: the share of gaps whose word is among the first ten listed (unhashed)",
            "Top-10:",
            "{:.1%}",
        ),
        Column(
            "candidates_per_gap",
            "the candidates scored per gap, on average (a masked model: its whole-word "
            "tokens; a cloze model: its vocabulary; the blend: the words it lists)",
            "Candidates/gap:",
            "{:,.0f}",
        ),
        Column(
            "candidate_recall",
            "the candidate recall: the share of gaps whose word was among the candidates "
            "(a neural or cloze model's and the blend's: among the words listed)",
            "Word among candidates:",
            "{:.1%}",
        ),
        Column(
            "listed_per_gap",
            "the words listed per out.tsv line, on average (`gap.top_k` at most; the "
            "blend lists every word its members list)",
        ),
        Column("p0_mean", "the mean rest mass p0 a line leaves to unlisted words", "p0 (mean):", "{:.3f}"),
        Column(
            "p0_method",
            "the p0 method: how the rest mass was set (the n-grams', the cloze models' and the document "
            "family's from held-out training gaps, never from the scored split)",
        ),
        Column(
            "seconds",
            "the wall time in seconds of the job that scored the candidates (an n-gram's both "
            "contexts at once) or made a neural or cloze model's or the document family's predictions; empty for "
            "the blend and the baseline (varies between runs)",
            "Time (s):",
            cell=_seconds,
        ),
    ),
)
CONTEXT_ORDER = {"both": 0, "left": 1, "none": 2}
FAMILY_ORDER = {"baseline": 0, "ngram": 1, "neural": 2, "cloze": 3, "document": 4, "blend": 5}


def p0_method(system, coverage, base):
    """How a system's rest mass was set; coverage: the split's candidate coverage table."""
    # The document and cloze families say how, in their predictions' summaries.
    return {
        "document": None,
        "cloze": None,
        "ngram": describe(coverage),
        "baseline": "1 - share of held-out training gap words among the listed ones",
        "blend": "the members' p0, mixed with the blend's weights",
        "causal": (
            f"`{base}`'s p0 and the mass it gives the words it lists beyond those rescored (its "
            "candidates' share set on held-out training gaps)"
        ),
        "masked": (
            "the probability the masked model leaves off its whole-word tokens (words of several "
            "subword pieces among it) and off the unlisted ones"
        ),
    }[system.get("kind") or system["family"]]


def gap_row(name, system, split, files, method):
    """One row: metrics and candidate recall from the evaluation, counts and p0 from the predictions, the
    seconds of its scoring job (none for the blend and the baseline, which have no job of their own timed).
    system: {"model", "family", "order", "context"}; files: as write_model_tables joins them."""
    evaluated = read_record(files["metrics"][name, split], GAP_METRICS)
    stats = read_record(files["stats"][name, split], GAP_STATS)
    timed = files["timings"].get((name, split))
    log_loss, likelihood, perplexity = metric_names(DEFAULT_BITS)
    metrics = evaluated["metrics"]
    return {
        "split": split,
        "model": system["model"],
        "family": system["family"],
        "order": system["order"],
        "context": system["context"],
        "log_loss_hashed": metrics[log_loss],
        "likelihood_hashed": metrics[likelihood],
        "perplexity_hashed": metrics[perplexity],
        "top1_accuracy": metrics["Accuracy"],
        "top10_accuracy": metrics["Top10Accuracy"],
        "candidates_per_gap": stats["candidates_per_gap"],
        "candidate_recall": evaluated["candidate_recall"],
        "listed_per_gap": stats["listed_per_gap"],
        "p0_mean": stats["p0_mean"],
        # A family that sets p0 by a fit of its own says how in its summary.
        "p0_method": stats.get("p0_method", method),
        "seconds": read_benchmark(timed)["s"] if timed else math.nan,
    }


def _gap_order(row):
    """By split, family, order (every n-gram has one, no other system any), context and model."""
    return (row["split"], FAMILY_ORDER[row["family"]], row["order"] or 0, CONTEXT_ORDER[row["context"]], row["model"])


def write_model_tables(inputs, params, outputs):
    """gap.tsv and .md. inputs: metrics, stats and timings (by system and split), coverage and weights (by
    split); params: systems ({name: System.described()}), input_keys (of each input: lmgap.keyed), settings (splits,
    blend, base, top_k)."""
    systems, settings = params["systems"], params["settings"]
    files, splits = join_keyed(inputs, params["input_keys"]), settings["splits"]
    tables = {split: read_record(files["coverage"][split], COVERAGE)["coverage"] for split in splits}
    records = [
        gap_row(name, system, split, files, p0_method(system, tables[split], settings["base"]))
        for name, system in systems.items()
        for split in splits
    ]
    rows = TABLE.frame(sorted(records, key=_gap_order))
    # Each way of setting p0 once, with the predictions that use it.
    methods = {}
    for row in rows.to_dict("records"):
        name = f"`{row['model']}`" if row["context"] != "left" else f"`{row['model']}` (left)"
        methods.setdefault(row["p0_method"], {})[name] = None
    blends = [(split, read_record(files["weights"][split], WEIGHTS)) for split in splits if settings["blend"]]
    markdown = TABLE.markdown(
        rows,
        f"Word-gap prediction, scored as GEval scores the challenge ({2**DEFAULT_BITS:,} hash buckets)",
        f"Definitions (each line of out.tsv lists at most {settings['top_k']} words, the blend every word its "
        "members list; every figure is in `gap.tsv`):",
        extra=[
            *(f"- p0 of {', '.join(names)}: {method}." for method, names in methods.items()),
            *(f"- The blend on {split}: {describe_weights(record)}." for split, record in blends),
        ],
    )
    TABLE.write(rows, outputs, markdown)
