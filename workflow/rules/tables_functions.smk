# What the tables read: every model's record on every scored split, and the settings the
# provenance record keeps (rules in tables.smk).
from lmgap.report.comparison import TABLE as COMPARISON_TABLE
from lmgap.report.cost import TABLE as COST_TABLE
from lmgap.report.documents import DECADES_TABLE, HARDEST_TABLE
from lmgap.report.perplexity import TABLE as PERPLEXITY_TABLE

# The path patterns of each model's files that the tables read beside its records, as the rules
# that write them name them: lmgap.files.model_file fills one in with the model (and split) a
# record names (as strings: a rule's own path objects do not pickle into a job's params).
MODEL_FILES = {
    "counts": str(rules.install_model.output.counts),
    "binary": str(rules.install_model.output.binary),
    "usage": str(rules.install_model.output.usage),
    "train": str(rules.train.benchmark),
    "query": str(rules.query.benchmark),
    "documents": str(rules.query.output.documents),
    "record": str(rules.install_neural.output.record),
    "train_neural": str(rules.train_neural.benchmark),
    "score_neural": str(rules.score_neural.benchmark),
    "neural_documents": str(rules.score_neural.output.documents),
}


def scored_outputs(kind):
    """Every model's `metrics` or `documents` file on every scored split: the n-grams', then the
    neural models', each model's splits together."""
    splits = config["eval_splits"]
    return [
        *expand(rules.query.output[kind], model=sorted(MODELS), split=splits),
        *expand(rules.score_neural.output[kind], neural=NEURAL_CAUSAL, split=splits),
    ]


def experiment_settings():
    """The settings the results depend on, for the provenance record (not lmplz.temp_dir, not
    the memory budget)."""
    keys = ("corpus", "train_split", "eval_splits", "orders", "train_fraction", "comparison", "gap")
    lmplz = {key: value for key, value in config["lmplz"].items() if key != "temp_dir"}
    return {**{key: config[key] for key in keys}, "lmplz": lmplz, "neural": NEURAL}
