"""Settings the schema admits that the config's other settings leave without effect, or the data past a
point, in one place: each is a warning that names it, what makes it idle, and what gives it an effect."""

import numpy as np

from .files import read_json
from .gap.heldout import MAX_SHARE
from .models import interpolate_settings
from .ngram.formats import format_settings

# The settings of the gap task's causal neural rescoring, which only a causal model reads.
RESCORING = ("gap.neural_candidates", "gap.right_tokens", "gap.document.neural_words")


def value(config, dotted):
    for key in dotted.split("."):
        config = config[key]
    return config


def changed(config, defaults, section):
    """The settings under section (dotted) whose values are not their defaults."""
    return [key for key in defaults if key.startswith(section + ".") and value(config, key) != defaults[key]]


def unused_settings(config, defaults, neural, gap_models, compared, given=None):
    """A warning for each setting that has no effect: config (validated), defaults (schema_defaults),
    neural ({name: settled settings}, lmgap.neural.settings), gap_models (the n-grams the gap task uses),
    compared (whether comparison.tsv has a pair of models to compare), given (the config as written, where a
    setting written at its default counts as set; else one at its default does not)."""
    kinds = {name: entry["kind"] for name, entry in neural.items()}
    yield from _gap_settings(config, defaults, kinds, gap_models, given)
    for name in sorted(kinds):
        if kinds[name] == "masked" and config["neural"][name].get("stride") is not None:
            yield (
                f"neural.{name}.stride is set, but a masked model reads one window per gap, around its mask; "
                "drop it (max_length sets the window)"
            )
    lmplz = config["lmplz"]
    if lmplz["vocab_pad"] and not any(interpolate_settings(lmplz["interpolate_unigrams"])):
        yield (
            "lmplz.vocab_pad is true, but lmplz pads only interpolated unigrams and every model is trained with "
            "interpolate_unigrams: false: no model is padded; set interpolate_unigrams: true (or [true, false]), "
            "or drop vocab_pad"
        )
    prune = lmplz["prune"]
    for setting in prune if prune and all(isinstance(item, list) for item in prune) else [prune]:
        if setting and not any(setting):
            yield (
                f"lmplz.prune {setting} prunes nothing (lmplz keeps every n-gram at a threshold of 0): its model "
                "is the unpruned one; give a threshold above 0 to prune, or drop it"
            )
    if not compared:
        for key in changed(config, defaults, "comparison"):
            yield (
                f"{key} is set, but no two models of the config differ in one setting, so comparison.tsv "
                f"compares none; add an order, a fraction, a pruning or a causal neural model, or drop {key}"
            )


def written(given, dotted):
    """Whether the config as written (given) sets the setting of this dotted key, at its default or not."""
    for key in dotted.split("."):
        if not isinstance(given, dict) or key not in given:
            return False
        given = given[key]
    return True


def _gap_settings(config, defaults, kinds, gap_models, given=None):
    """The gap task's settings that have no effect."""
    causal = sorted(name for name, kind in kinds.items() if kind == "causal")
    gaps_only = sorted(name for name, kind in kinds.items() if kind in ("masked", "cloze"))
    gap = config["gap"]
    if not gap["enabled"]:
        for key in changed(config, defaults, "gap"):
            if key != "gap.enabled":
                yield (
                    f"{key} is set, but gap.enabled is false and the gap task does not run; set gap.enabled: "
                    f"true, or drop {key}"
                )
        if gaps_only:
            yield (
                f"the masked and cloze models {', '.join(gaps_only)} only predict gaps, and gap.enabled is false: "
                "they do nothing; set it true, or remove them"
            )
        return
    if not gap["document"]["enabled"]:
        for key in changed(config, defaults, "gap.document"):
            if key not in ("gap.document.enabled", "gap.document.neural_words"):
                yield (
                    f"{key} is set, but gap.document.enabled is false and the document family does not run; "
                    f"set it true, or drop {key}"
                )
    if gap["format"] is not None and len(format_settings(config["build_binary"]["format"])) == 1:
        yield (
            "gap.format is set, but build_binary.format builds one format, which the gap task takes anyway; "
            "list more formats there, or drop gap.format"
        )
    if not gap_models:
        # The n-grams of a sample are for the learning curve: the gap task takes those of the whole split.
        rescoring = (
            f", nor the causal neural models {', '.join(causal)}, which rescore an n-gram's candidates"
            if causal
            else ""
        )
        yield (
            "the gap task takes the n-grams trained on the whole training split, and train_fraction has no 1.0: no "
            f"n-gram predicts the gaps{rescoring} (the blend mixes the rest alone); add 1.0 to train_fraction"
        )
    elif (
        causal
        and gap["neural_candidates"] > gap["top_k"]
        and (
            written(given, "gap.neural_candidates")
            if given is not None
            else "gap.neural_candidates" in changed(config, defaults, "gap")
        )
    ):
        # (Its default above a top_k the user lowered is top_k's doing, as documented: said only of a value written.)
        yield (
            f"gap.neural_candidates, {gap['neural_candidates']:,}, is above gap.top_k, {gap['top_k']:,}: a causal "
            "model rescores at most the top_k words the n-gram lists, so any value from top_k up changes nothing; "
            f"give at most {gap['top_k']:,}, or drop it"
        )
    if not causal:
        for key in RESCORING:
            if value(config, key) != defaults[key]:
                yield (
                    f"{key} is set, but only a causal neural model (neural: with train: or path:) reads it and "
                    f"the config has none; add one, or drop {key}"
                )


def capped_by_data(gap, vocabulary, candidates, manifest, train_split, given=None):
    """Warnings for the gap settings above what the data gives, once a run has made the files that tell: the
    training text's distinct words (vocabulary: the run's vocabulary.json) bound gap.frequent_words and
    gap.candidates_per_context, the most candidates of any gap (candidates: the splits' candidate files)
    gap.top_k, and a tenth of the training split's lines (manifest: the corpus's) gap.heldout_lines. Past that,
    each changes nothing. given: the gap settings the config sets (None: all), the only ones said: a default
    sized for the real corpus is above what a small one gives, and no one chose it."""
    if given is not None:
        gap = {key: value for key, value in gap.items() if key in given}
    try:
        words = read_json(vocabulary)["training_words"]
    except (OSError, ValueError, KeyError, TypeError):
        words = None
    for key in ("frequent_words", "candidates_per_context"):
        if isinstance(words, int) and gap.get(key, 0) > words:
            yield (
                f"gap.{key}, {gap[key]:,}, is above the {words:,} distinct words of the training text "
                f"({vocabulary}): {words:,} or more changes nothing"
            )
    most = 0
    for path in candidates:
        try:
            with np.load(path) as found:
                most = max(most, int(np.diff(found["offsets"]).max(initial=0)))
        except (OSError, ValueError, KeyError):
            continue
    if most and gap.get("top_k", 0) > most:
        yield (
            f"gap.top_k, {gap['top_k']:,}, is above the most candidates any gap has ({most:,}, in "
            f"{', '.join(map(str, candidates))}): every line of out.tsv lists all of its candidates already; "
            f"{most:,} or more changes nothing (gap.candidates_per_context and gap.frequent_words make more)"
        )
    try:
        lines = read_json(manifest)["files"][f"{train_split}/expected.tsv"]["lines"]
    except (OSError, ValueError, KeyError, TypeError):
        lines = None
    if isinstance(lines, int) and gap.get("heldout_lines", 0) > lines // MAX_SHARE:
        yield (
            f"gap.heldout_lines, {gap['heldout_lines']:,}, is above a tenth of the {lines:,} lines of {train_split} "
            f"({manifest}), which is the most held out: {lines // MAX_SHARE:,} or more changes nothing"
        )


def fallback_unneeded(lmplz, fallbacks, counts, models):
    """The warning for lmplz.discount_fallback set where lmplz estimated every discount of every model: fallbacks
    ({model: the orders that took the fallback}, of those that took any) is empty once every one of models has its
    ngram_counts.json (counts: {model: its path}). The flag then changed no model."""
    if not lmplz["discount_fallback"] or not models or set(counts) != set(models) or fallbacks:
        return None
    return (
        "lmplz.discount_fallback is true, but lmplz estimated every discount of every model (each ngram_counts.json "
        "under results/models/ records none taken): it changes no model; drop it (it is for a text too small or "
        "too odd for lmplz's estimates)"
    )


def fractions_whole(samples, whole):
    """The warning for training fractions whose sample holds every line of the split (samples: {fraction: its
    sample's text record}, whole: the split's text record; each written by a run): their models are the whole
    split's, as a share of a small split rounds up to all of it."""
    try:
        every = read_json(whole)
    except (OSError, ValueError):
        return None
    found = []
    for fraction, record in sorted(samples.items()):
        try:
            sample = read_json(record)
        except (OSError, ValueError):
            continue
        if isinstance(sample, dict) and isinstance(every, dict) and sample.get("sha256") == every.get("sha256"):
            found.append(fraction)
    if not found:
        return None
    lines = every.get("lines")
    return (
        f"train_fraction {', '.join(map(str, found))} keeps all {lines:,} lines of the training split ({whole}): its "
        "models are trained on the whole split, as 1.0's are; give a smaller share, or drop it"
    )
