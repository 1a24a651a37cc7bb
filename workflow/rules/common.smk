from pathlib import Path

from lmgap.configcheck import validate_config
from lmgap.errors import LmgapError
from lmgap.models import interpolate_settings, models_from_config, prune_settings
from lmgap.neural.settings import neural_models

# Each rule's params give its script's code by content (`code=script_code(rule)`): an edit reruns
# the jobs it changes, a touch none (the profile leaves out Snakemake's script-date trigger).
from lmgap.sourcecode import lmgap_version, package_code, script_code

# The experiment: the config, checked, and the models, splits and gap systems it asks for. Each
# family's input functions and job sizes live beside its rules; local scheduling in scheduling.smk.
try:
    config = validate_config(config, Path(workflow.basedir) / "workflow/schemas/config.schema.yaml")
except LmgapError as err:
    raise WorkflowError(str(err)) from None

ORDERS = sorted({int(order) for order in config["orders"]})
TRAIN_FRACTIONS = sorted({float(fraction) for fraction in config["train_fraction"]})
MODELS = models_from_config(
    ORDERS,
    prune_settings(config["lmplz"]["prune"]),
    config["lmplz"]["discount_fallback"],
    TRAIN_FRACTIONS,
    interpolate_settings(config["lmplz"]["interpolate_unigrams"]),
)
# Neural models by name, each with its evaluation window settled (a `path:` model's folder is
# checked now, before any job).
try:
    NEURAL = neural_models(config["neural"])
except LmgapError as err:
    raise WorkflowError(str(err)) from None
NEURAL_TRAINED = sorted(name for name, entry in NEURAL.items() if entry["source"] == "train")
# Causal models have a perplexity row; masked ones define no perplexity and predict gaps only.
NEURAL_CAUSAL = sorted(name for name, entry in NEURAL.items() if entry["kind"] == "causal")
NEURAL_MASKED = sorted(name for name, entry in NEURAL.items() if entry["kind"] == "masked")
SPLITS = sorted({config["train_split"], *config["eval_splits"]})
TEST_A = ["test-A"] if config["corpus"]["test_a"] else []
# Every split the corpus step provides: the scored ones, the training one and test-A if asked for.
CORPUS_SPLITS = sorted({*SPLITS, *TEST_A})
GAP = config["gap"]
# Splits whose gaps are predicted: the scored ones, and test-A (whose gap words stay unread) when
# the corpus has it.
GAP_SPLITS = sorted({*config["eval_splits"], *TEST_A}) if GAP["enabled"] else []


wildcard_constraints:
    model=r"o\d+(-[a-z0-9.]+)*",
    # Never an n-gram's name (the schema keeps `o` and a digit for those).
    neural=r"(?!o\d)[a-z][a-z0-9_-]*",
    split=r"train|dev-0|dev-1|test-A",
    tool=r"lmplz|query|build_binary",
    context=r"both|left",
    max_order=r"\d+",
    order=r"\d+",
    fraction=r"0\.[0-9]*[1-9]",
    system=r"(both|left)/(o\d+(-[a-z0-9.]+)*|document)|both/[a-z][a-z0-9_-]*|unigram",


def fingerprints_of(*splits):
    """The splits' fingerprints, once the corpus is fetched: all that their texts depend on."""
    return [checkpoints.split_fingerprint.get(split=split).output.fingerprint for split in dict.fromkeys(splits)]


# Snakemake looks again at a job after a checkpoint only if it depends on it directly, so every
# job downstream of the corpus takes as input the fingerprint of every split it depends on:
# the training split's for the models, its own split's for what scores one, all for the tables.
def split_fingerprint(wildcards):
    return fingerprints_of(wildcards.split)


def train_fingerprint(wildcards):
    return fingerprints_of(config["train_split"])


def model_and_split_fingerprints(wildcards):
    return fingerprints_of(config["train_split"], wildcards.split)


def scoring_fingerprints(models):
    """An input function: model_and_split_fingerprints, and the fingerprints of the n-gram
    models that models(wildcards) names, whose binaries the job reads (see model_fingerprint).
    """

    def fingerprints(wildcards):
        return [
            *model_and_split_fingerprints(wildcards),
            *(MODEL_FINGERPRINT.format(model=m) for m in dict.fromkeys(models(wildcards))),
        ]

    return fingerprints


def the_model(wildcards):
    return [wildcards.model]


def all_fingerprints(wildcards):
    return fingerprints_of(config["train_split"], *config["eval_splits"])


def model_options(wildcards):
    if wildcards.model not in MODELS:
        raise WorkflowError(f"model {wildcards.model} is not in the current config (orders: {ORDERS})")
    return MODELS[wildcards.model]


def kept_results():
    """What a run keeps on disk besides the tables: every model, its scores and gap predictions,
    asked for by `all`. Snakemake does not make again a missing file that only up-to-date jobs
    read, so without this a deleted model folder stayed deleted, and the tables kept its old
    figures; asked for, it is trained again, and what it feeds redone if its bytes changed.
    """
    splits = config["eval_splits"]
    models = sorted(MODELS)
    kept = [
        *expand(rules.install_model.output.binary, model=models),
        *expand(rules.install_model.output.counts, model=models),
        *expand(rules.install_model.output.usage, model=models),
        *(expand(rules.install_model.output.arpa, model=models) if config["keep_arpa"] else []),
        *scored_outputs("metrics"),
        *scored_outputs("documents"),
        *expand(rules.install_neural.output.model, neural=NEURAL_TRAINED),
    ]
    if GAP["enabled"]:
        systems = [system.name for system in GAP_SYSTEMS.all()]
        kept += expand(rules.gap_evaluate.output.metrics, system=systems, split=splits)
        kept += expand(SYSTEM_OUT, system=systems, split=GAP_SPLITS)
    return kept


# The gap task's candidates come from the whole training split, so it predicts with the models
# trained on all of it; models of smaller fractions are scored for perplexity only.
GAP_MODELS = sorted(name for name, options in MODELS.items() if options["train_fraction"] == 1)


def report_if_made(path, **settings):
    """path, flagged for `snakemake --report` where it exists: the report shows the results the run
    made, whatever config.yaml asks for now (a table the run did not make is left out of it rather
    than failing it). Flags nothing that a run reads."""
    return report(path, **settings) if Path(path).exists() else path
