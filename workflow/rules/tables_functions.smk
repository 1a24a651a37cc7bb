# What the tables read: every model's record on every scored split, and the settings the
# provenance record keeps (rules in tables.smk).
from lmgap.report.comparison import TABLE as COMPARISON_TABLE
from lmgap.report.cost import TABLE as COST_TABLE
from lmgap.report.documents import DECADES_TABLE, HARDEST_TABLE
from lmgap.report.perplexity import TABLE as PERPLEXITY_TABLE


def scored_files(kind):
    """{model: {split: its `metrics` or `documents` file}} of every model on every scored split:
    the n-grams', then the neural models'."""
    splits = config["eval_splits"]
    files = {
        model: {split: rules.query.output[kind].format(model=model, split=split) for split in splits}
        for model in sorted(MODELS)
    }
    for name in NEURAL_CAUSAL:
        files[name] = {split: rules.score_neural.output[kind].format(neural=name, split=split) for split in splits}
    return files


def scored_outputs(kind):
    """The files of scored_files(kind), in its order, each model's splits together."""
    return paths_in(scored_files(kind))


def cost_files():
    """Each model's files the cost table reads, by its name: its train job's benchmark, usage
    record, n-gram counts and binary, and per scored split its scoring benchmark and metrics
    (a neural model's training record, folder and share of the training split instead).
    """
    splits = config["eval_splits"]
    ngram = {
        model: {
            "train": expand(rules.train.benchmark, model=model)[0],
            "usage": rules.install_model.output.usage.format(model=model),
            "counts": rules.install_model.output.counts.format(model=model),
            "binary": rules.install_model.output.binary.format(model=model),
            "query": expand(rules.query.benchmark, model=model, split=splits),
            "metrics": expand(rules.query.output.metrics, model=model, split=splits),
        }
        for model in sorted(MODELS)
    }
    neural = {
        name: {
            **entry,
            "train": (expand(rules.train_neural.benchmark, neural=name)[0] if entry["record"] else None),
            "score": expand(rules.score_neural.benchmark, neural=name, split=splits),
            "metrics": expand(rules.score_neural.output.metrics, neural=name, split=splits),
        }
        for name, entry in neural_files().items()
    }
    return {"ngram": ngram, "neural": neural}


def experiment_settings():
    """The settings the results depend on, for the provenance record (not lmplz.temp_dir, not
    the memory budget)."""
    keys = ("corpus", "train_split", "eval_splits", "orders", "train_fraction", "comparison", "gap")
    lmplz = {key: value for key, value in config["lmplz"].items() if key != "temp_dir"}
    return {**{key: config[key] for key in keys}, "lmplz": lmplz, "neural": NEURAL}
