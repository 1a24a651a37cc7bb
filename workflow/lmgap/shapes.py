"""The shape of every JSON record the pipeline writes and reads again, its keys and their types, checked
by one reader, so that a record cut short, emptied, stripped of a key or holding a value of another type
is named with its file and the fix, never met as a traceback (TSV records: lmgap.tsv).

A shape is a dict of key to type (a number: int or float; a list; a nested shape), a key ending in `?`
one that records of earlier versions lack (checked where present); keys beyond it are allowed."""

from .files import DamagedRecord, read_json

NUMBER = (int, float)
SUMS = {
    "sentences": int,
    "tokens": int,
    "oovs": int,
    "log10_prob": NUMBER,
    "log10_prob_oov": NUMBER,
    "matched_length": [int],
}
# results/eval/{model}/{split}.json: a model's sums on a split (lmgap.record), an n-gram's options too.
METRICS = {"model": str, "split": str, "sums": SUMS}
NGRAM_METRICS = {
    **METRICS,
    "order": int,
    "prune": list,
    "train_fraction": NUMBER,
    "kenlm_summary": dict,
    "load_seconds?": NUMBER,
}
NEURAL_METRICS = {**METRICS, "family": str, "max_length": int, "stride": int, "batch_size": int, "subword_tokens": int}
# results/models/{model}/ngram_counts.json and usage.json (lmgap.ngram.run).
COUNTS = {"ngrams": [int], "training_text": {"lines": int, "words": int, "tokens": int}, "fallback_discounts?": list}
TOOL_USAGE = {"seconds": NUMBER, "cpu_seconds": NUMBER, "peak_rss_mb": NUMBER}
USAGE = {"lmplz": TOOL_USAGE, "build_binary": TOOL_USAGE, "memory?": dict, "job?": dict}
# results/text/{split}.json, each text's own (lmgap.corpus.textrecord).
TEXT_RECORD = {"bytes": int, "lines": int, "sha256": str}
# results/text/vocabulary.json (lmgap.corpus.vocabulary).
VOCABULARY = {"words": int, "training_words": int, "added_by": dict}
# results/neural/{name}/training.json of a causal model (lmgap.neural.train).
TRAINING = {
    "parameters": int,
    "vocab_size": int,
    "training_text": {"lines": int, "words": int, "tokens": int},
    "epochs": NUMBER,
    "train_tokens_per_second": NUMBER,
    "final_loss_nats": NUMBER,
}
# The gap task's records (lmgap.gap.evaluate, lmgap.gap.lines, lmgap.gap.coverage, lmgap.gap.blend).
GAP_METRICS = {"bits": int, "gaps": int, "metrics": dict, "candidate_recall": NUMBER}
GAP_STATS = {"gaps": int, "candidates_per_gap": NUMBER, "listed_per_gap": NUMBER, "p0_mean": NUMBER}
VARIANT_COVERAGE = {"gaps": int, "hits": int, "levels": dict}
COVERAGE = {"coverage": {"both": VARIANT_COVERAGE, "left": VARIANT_COVERAGE}}
# results/corpus/manifest.json (lmgap.corpus.fetch), which provenance.json holds.
MANIFEST = {"files": dict}
# results/provenance.json, which the submission describes itself by (lmgap.report.provenance).
PROVENANCE = {"experiment": {"eval_splits": list}, "lmgap": {"version": str, "code": str}, "corpus": {"files": dict}}

WEIGHTS = {
    "members": list,
    "weights": dict,
    "fold_weights": list,
    "method": str,
    "fit_gaps": int,
    "fit_log_loss_hashed": dict,
}


def _type_name(kind):
    return " or ".join(t.__name__ for t in kind) if isinstance(kind, tuple) else kind.__name__


def shape_fault(value, shape, where=""):
    """What keeps value from the shape (a missing key, a value of another type), or None."""
    if not isinstance(value, dict):
        return f"{where or 'the record'} is {type(value).__name__}, not a mapping"
    for key, kind in shape.items():
        optional, key = key.endswith("?"), key.removesuffix("?")
        name = f"{where}.{key}" if where else key
        if key not in value:
            if optional:
                continue
            return f"it has no {name}"
        found = value[key]
        if isinstance(kind, dict):
            fault = shape_fault(found, kind, name)
            if fault:
                return fault
        elif isinstance(kind, list):
            # [type]: a list of values of that type.
            if not isinstance(found, list):
                return f"{name} is {found!r}, not a list"
            for item in found:
                if isinstance(item, bool) or not isinstance(item, kind[0]):
                    return f"{name} holds {item!r}, not {_type_name(kind[0])}"
        elif isinstance(found, bool) or not isinstance(found, kind):
            return f"{name} is {found!r}, not {_type_name(kind)}"
    return None


def read_record(path, shape):
    """A JSON record of the pipeline's, checked against its shape; a damaged one is named, with the fix."""
    record = read_json(path)
    fault = shape_fault(record, shape)
    if fault:
        raise DamagedRecord(path, fault)
    return record


def read_metrics(path):
    """A model's record of a split: an n-gram's, or (family neural) a neural model's."""
    record = read_json(path)
    shape = NEURAL_METRICS if isinstance(record, dict) and record.get("family") == "neural" else NGRAM_METRICS
    fault = shape_fault(record, shape)
    if fault:
        raise DamagedRecord(path, fault)
    return record
