# Every Python helper the rules use, in the order of the stages, as snakemake-workflows keep
# them (each stage's .smk holds its rules alone, which `snakemake --lint` asks for): the config
# and the experiment it asks for, job sizes, then each stage's input functions and settings.
# The logic itself is in the package, lmgap.
import copy
import math
import os
from pathlib import Path

from lmgap.configcheck import check_corpus_given, located, validate_config
from lmgap.corpus.fetch import required_files
from lmgap.corpus.place import CLONE_DIR
from lmgap.corpus.place import corpus_root as lmgap_corpus_root
from lmgap.corpus.rebuild import header_path
from lmgap.corpus.textrecord import record_path as text_record_path
from lmgap.errors import LmgapError
from lmgap.gap.candidates import index_memory_mb, workers_within
from lmgap.gap.systems import BASELINE, BLEND, OUT as SYSTEM_OUT, STATS, GapSystems
from lmgap.keyed import split_keyed
from lmgap.machine import default_budget_mb, physical_memory_mb
from lmgap.models import FRACTION_TEXT, SPLIT_TEXT
from lmgap.models import interpolate_settings, models_from_config, prune_settings, trainings_of
from lmgap.models import training_text as training_text_of
from lmgap.neural.files import model_folder, weights_bytes
from lmgap.neural.settings import neural_models
from lmgap.ngram.build import PYTHON_MODULE_MAX_ORDER, TOOLS, pinned_kenlm
from lmgap.ngram.formats import format_settings, gap_format, parse_format
from lmgap.ngram.memory import text_mb, text_tokens, train_job_mb
from lmgap.report.comparison import TABLE as COMPARISON_TABLE
from lmgap.report.cost import TABLE as COST_TABLE
from lmgap.report.documents import DECADES_TABLE, HARDEST_TABLE
from lmgap.report.gap import TABLE as GAP_TABLE
from lmgap.report.perplexity import TABLE as PERPLEXITY_TABLE

# Each rule's params give its script's code by content (`code=script_code(rule)`): an edit reruns
# the jobs it changes, a touch none (the profile leaves out Snakemake's script-date trigger).
from lmgap.sourcecode import lmgap_version, package_code, script_code

# The experiment: the config, checked, and the models, splits and gap systems it asks for.
SCHEMA = Path(workflow.basedir) / "workflow/schemas/config.schema.yaml"
# Whether the corpus comes from the user's config, or (a line deleted, say) the schema's default, which a
# failed fetch then says.
SOURCE_GIVEN = isinstance(config.get("corpus"), dict) and "source" in config["corpus"]
# The config as given, for the lines of the refusals the schema cannot make (configcheck.located).
GIVEN = copy.deepcopy(config)
try:
    check_corpus_given(GIVEN)
except LmgapError as err:
    raise WorkflowError(located(str(err), GIVEN, CONFIG_FILE_SETTINGS)) from None
try:
    config = validate_config(config, SCHEMA, CONFIG_FILE_SETTINGS)
except LmgapError as err:
    raise WorkflowError(str(err)) from None

ORDERS = sorted({int(order) for order in config["orders"]})
TRAIN_FRACTIONS = sorted({float(fraction) for fraction in config["train_fraction"]})
# KenLM's binary formats each model is built in, and the one the gap task's blend takes.
try:
    FORMATS = format_settings(config["build_binary"]["format"])
    GAP_FORMAT = gap_format(config["gap"]["format"], config["build_binary"]["format"])
except LmgapError as err:
    raise WorkflowError(located(str(err), GIVEN, CONFIG_FILE_SETTINGS)) from None
MODELS = models_from_config(
    ORDERS,
    prune_settings(config["lmplz"]["prune"]),
    config["lmplz"]["discount_fallback"],
    TRAIN_FRACTIONS,
    interpolate_settings(config["lmplz"]["interpolate_unigrams"]),
    config["lmplz"]["vocab_pad"],
    FORMATS,
)
# The lmplz runs: each builds its model in every format (rule train), named as its probing model.
TRAININGS = trainings_of(MODELS)
# Neural models by name, each with its evaluation window settled (a `path:` model's folder is
# checked now, before any job).
try:
    NEURAL = neural_models(config["neural"])
except LmgapError as err:
    raise WorkflowError(located(str(err), GIVEN, CONFIG_FILE_SETTINGS)) from None
NEURAL_TRAINED = sorted(name for name, entry in NEURAL.items() if entry["source"] == "train")
# Causal models have a perplexity row; masked and cloze ones define no perplexity and predict gaps only.
NEURAL_CAUSAL = sorted(name for name, entry in NEURAL.items() if entry["kind"] == "causal")
NEURAL_MASKED = sorted(name for name, entry in NEURAL.items() if entry["kind"] == "masked")
NEURAL_CLOZE = sorted(name for name, entry in NEURAL.items() if entry["kind"] == "cloze")
# The models train_neural (with train_tokenizer) trains, and those train_cloze trains.
CAUSAL_TRAINED = sorted(set(NEURAL_TRAINED) & set(NEURAL_CAUSAL))
CLOZE_TRAINED = sorted(set(NEURAL_TRAINED) & set(NEURAL_CLOZE))
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
    models that models(wildcards) names, whose binaries the job reads."""

    def fingerprints(wildcards):
        named = dict.fromkeys(models(wildcards))
        return [
            *model_and_split_fingerprints(wildcards),
            *(MODEL_FINGERPRINT.format(model=m) for m in named),
            *tools_checks(MODELS[m]["order"] for m in named),
        ]

    return fingerprints


def the_model(wildcards):
    return [wildcards.model]


def all_fingerprints(wildcards):
    return fingerprints_of(config["train_split"], *config["eval_splits"])


def results_fingerprints(wildcards):
    """What a table job depends on of the checkpoints: every split's fingerprint and every order's tools check."""
    return [*all_fingerprints(wildcards), *tools_checks(ORDERS)]


def tools_checks(orders):
    """The records of the checks of the user's tools (kenlm.bin_dir) for these orders, a checkpoint's, which
    every job that a model's training reaches takes as input, as it takes the fingerprints: Snakemake looks
    again at a job after a checkpoint only if it depends on it directly. By path, not checkpoints.get(): a
    table given as the target, whose input raised for a new order's check not yet run, planned nothing."""
    if not config["kenlm"]["bin_dir"]:
        return []
    return [rules.kenlm_tools.output.record.format(order=order) for order in sorted(set(orders))]


def model_options(wildcards):
    """A model's options, or a training's (the train job's wildcard): a model's less its format."""
    options = MODELS.get(wildcards.model) or TRAININGS.get(wildcards.model)
    if options is None:
        raise WorkflowError(f"model {wildcards.model} is not in the current config (orders: {ORDERS})")
    return options


def kept_results():
    """Every model, its scores and gap predictions, asked for by `all`: Snakemake does not make
    again a missing file that only up-to-date jobs read, so a deleted model would stay deleted."""
    splits = config["eval_splits"]
    models = sorted(MODELS)
    kept = [
        # Each split's fingerprint: a job whose inputs wait on a checkpoint is held to its outputs alone, so
        # with one deleted, a changed setting downstream would rerun nothing (the checkpoint not due either).
        *expand(rules.split_fingerprint.output.fingerprint, split=CORPUS_SPLITS),
        *expand(rules.install_model.output.binary, model=models),
        *expand(rules.install_model.output.counts, model=models),
        *expand(rules.install_model.output.usage, model=models),
        *(expand(rules.install_model.output.arpa, model=models) if config["keep_arpa"] else []),
        *scored_outputs("metrics"),
        *scored_outputs("documents"),
        *expand(NEURAL_FILES["model"], neural=kept_neural_models()),
    ]
    if GAP["enabled"]:
        systems = [system.name for system in GAP_SYSTEMS.all()]
        kept += expand(rules.gap_evaluate.output.metrics, system=systems, split=splits)
        kept += expand(SYSTEM_OUT, system=systems, split=GAP_SPLITS)
        # The fits beside some (the document family's decay, a cloze model's temperature), which no job reads.
        fitted = [system.name for system in GAP_SYSTEMS.all() if system.model in ("document", *NEURAL_CLOZE)]
        kept += expand(str(Path(SYSTEM_OUT).with_name("fit.json")), system=fitted, split=GAP_SPLITS)
    return kept


def kept_neural_models():
    """The trained neural models a run keeps: a cloze model only when it predicts gaps, all it does."""
    return [name for name in NEURAL_TRAINED if GAP["enabled"] or name not in NEURAL_CLOZE]


# The gap task's candidates come from the whole training split, so it predicts with the models
# trained on all of it; models of smaller fractions are scored for perplexity only.
GAP_MODELS = sorted(name for name, options in MODELS.items() if options["train_fraction"] == 1)


def report_if_made(path, **settings):
    """path, flagged for `snakemake --report` where it exists: the report shows what the run made,
    whatever config.yaml asks for now, rather than failing on a table the run did not make."""
    return report(path, **settings) if Path(path).exists() else path


# Tables and plots: the job that makes them writes them under results/.staged/, and an install job
# copies them into place (tables.smk). Snakemake deletes a job's outputs before the job runs, so a
# table job that fails costs its staged copies alone: the tables of the last run that wrote them
# stay, and the job runs again until it succeeds (checks.smk names them).
def staged(path):
    return str(Path("results/.staged") / Path(path).relative_to("results"))


def staged_outputs(job):
    """The staged outputs of a job of RESULTS, by name."""
    return {name: staged(path) for name, (path, _, _) in RESULTS[job].items()}


def results_made():
    """The tables, plots and submission files the config makes (of RESULTS): every one, the gap table's
    with the gap task, the submission's where it has a blend."""
    made = {"gap_table": GAP["enabled"], "gap_submission": GAP["enabled"] and GAP_SYSTEMS.blend() is not None}
    return [path for job in RESULTS if made.get(job, True) for path, _, _ in RESULTS[job].values()]


def staged_copies():
    """{table, plot or submission file the config makes: its staged copy}."""
    return {path: staged(path) for path in results_made()}


def kept_from_an_earlier_run():
    """The tables and plots the config makes that lie in place while their staged copies are gone:
    the job that was to rewrite them failed, or was stopped, since the run that wrote them."""
    return [path for path, copy in staged_copies().items() if Path(path).is_file() and not Path(copy).is_file()]


# Job sizes: the most memory a job may reserve, each rule's threads, runtimes and priorities.
# Priorities of the gap jobs, for a run on a few cores: the held-out lines, the candidate pass and
# the scoring first, since every system waits for them, then what the blend waits for (its
# members, neural models' training among them); the left-context ablations, which nothing waits
# for, take the cores left over. Training an n-gram model (priority: its order, 3 and up by
# default) comes before all of these.
SCORING_FIRST, BLEND_PATH = 2, 1


# The most memory one job may reserve: memory.budget_mb, else 80% of this machine's memory. What
# the jobs running at once take together is Snakemake's --resources mem_mb (docs/running.md).
MEMORY_BUDGET_MB = config["memory"]["budget_mb"] or default_budget_mb()


# The one core count is each rule's threads (docs/running.md). A job that splits its work takes two
# on any machine: a neural model's weights depend on its threads.
PARALLEL_THREADS = 2


def input_mb(input):
    """The size of a job's inputs that exist now (a dry run plans jobs whose inputs are to come)."""
    return sum(os.path.getsize(path) for path in input if os.path.isfile(path)) / 2**20


def runtime_per_100_mb(wildcards, input):
    """Reading a model or a text once: query, gap scoring, sampling."""
    return 10 + math.ceil(input_mb(input) / 100)


def loading_mem_mb(input, working_mb):
    """A job that loads a model: about the size of its inputs (the model's file above all) and a
    working set, capped by the budget."""
    return min(MEMORY_BUDGET_MB, working_mb + int(1.2 * max(input_mb(input), 1)))


# KenLM: which tools train and score a model, and the record of them (kenlm.smk).
# KenLM's version and the sha256 of its source distribution, as the set-up pins them.
KENLM_VERSION, KENLM_SHA256 = pinned_kenlm(Path(workflow.basedir) / "requirements-kenlm.txt")


def kenlm_build_order(order):
    """KENLM_MAX_ORDER for an order-n model: KenLM's default 6 up to 6, else n, so that adding a
    high order rebuilds no tool an existing model uses."""
    return max(PYTHON_MODULE_MAX_ORDER, order)


KENLM_BUILDS = sorted({kenlm_build_order(order) for order in ORDERS})


def kenlm_identity():
    """Which KenLM trains the models: the pinned version, or the user's own tools (whose
    version nothing tells: a model depends on their files instead, see kenlm_tool)."""
    if not config["kenlm"]["bin_dir"]:
        return f"kenlm {KENLM_VERSION}"
    return "kenlm.bin_dir"


def kenlm_tools_checked(wildcards):
    """The check that the user's own tools run and support the model's order, before it trains or
    scores: a checkpoint's record, whose content the job depends on."""
    if not config["kenlm"]["bin_dir"]:
        return []
    return tools_checks([model_options(wildcards)["order"]])


def kenlm_build_dir(max_order):
    return Path(f"resources/kenlm/kenlm-{KENLM_VERSION}-maxorder{max_order}")


def kenlm_bin_dir(max_order):
    """The user's KenLM tools if configured, else the pipeline's build for max_order."""
    if config["kenlm"]["bin_dir"]:
        return Path(config["kenlm"]["bin_dir"])
    return kenlm_build_dir(max_order) / "bin"


def kenlm_tool(tool):
    """An input function: the tool a model's order needs. The pipeline's build is ancient(): built
    again from the same pinned source it trains the same. The user's tools are no input: a job
    finds them by kenlm.bin_dir (lmgap.scriptio.kenlm_tool) and depends on their content (the
    kenlm_tools job's record of their sha256), so that the same tools elsewhere, or the path
    retyped, retrain nothing, and tools of other bytes retrain."""

    def tool_for(wildcards):
        if config["kenlm"]["bin_dir"]:
            return []
        order = model_options(wildcards)["order"]
        return ancient(str(kenlm_bin_dir(kenlm_build_order(order)) / tool))

    return tool_for


def user_tools(tools=TOOLS):
    """The user's own tools that exist: a missing one is named, with the key that fixes it, by
    the kenlm_tools job that every model waits for (Snakemake's own error would not)."""
    paths = [Path(config["kenlm"]["bin_dir"]) / tool for tool in tools]
    return [str(path) for path in paths if path.exists()]


def every_kenlm_tool():
    """{name: path} of every build's tools, for the provenance record; the user's own tools by
    their names alone."""
    if config["kenlm"]["bin_dir"]:
        return {Path(path).name: path for path in user_tools()}
    return {
        f"{tool} (maxorder {max_order})": str(kenlm_bin_dir(max_order) / tool)
        for max_order in KENLM_BUILDS
        for tool in TOOLS
    }


def python_module_checks(wildcards):
    """The checks of the user's tools (kenlm.bin_dir) for the orders a kenlm module serves: an order they
    cannot train builds no module. ancient: a check run again does not build it again."""
    if not config["kenlm"]["bin_dir"]:
        return []
    orders = [order for order in ORDERS if kenlm_build_order(order) == int(wildcards.max_order)]
    return [ancient(rules.kenlm_tools.output.record.format(order=order)) for order in orders]


def kenlm_python_for(wildcards):
    """A kenlm module built for a model of an order the .venv's module cannot load; other models
    depend on none, so adding a high order rescores nothing else."""
    order = model_options(wildcards)["order"]
    if order <= PYTHON_MODULE_MAX_ORDER:
        return []
    return [ancient(str(kenlm_build_dir(kenlm_build_order(order)) / "python"))]


# The corpus: where it is read from and which of its files a run needs (corpus.smk).
def text_record(text):
    """The record beside a text the pipeline writes (results/text/dev-0.json for dev-0.txt)."""
    return str(text_record_path(text))


def corpus_root():
    return lmgap_corpus_root(config["corpus"])


def corpus_required_files():
    """{file: the config key that asks for it}."""
    return required_files(config["train_split"], config["eval_splits"], config["corpus"]["test_a"])


def corpus_is_local():
    """The corpus is read in place from a local directory, not cloned."""
    return corpus_root() != CLONE_DIR


def local_corpus_files(wildcards):
    """A local directory's files and in-header.tsv files, so that editing one fetches again: only
    those present, since onstart names a missing one with its fix."""
    if not corpus_is_local():
        return []
    headers = {header_path(corpus_root() / split) for split in CORPUS_SPLITS} - {None}
    files = [corpus_root() / name for name in corpus_required_files()]
    return [str(path) for path in files if path.is_file()] + sorted(map(str, headers))


# N-gram models: a model's training text, and the memory and time its train and query jobs
# ask for (ngram.smk; the estimates themselves in lmgap/ngram/memory.py).
def training_text(wildcards):
    return training_text_of(config["train_split"], model_options(wildcards)["train_fraction"])


def folder_options(wildcards):
    """A model's options its folder's name gives: not lmplz.discount_fallback, so that turning it
    redoes nothing after a model trained again to the same bytes."""
    return {key: value for key, value in model_options(wildcards).items() if key != "discount_fallback"}


def model_files(folder):
    """A model's files under results/FOLDER/{model}/: its binary, n-gram counts and usage, and the
    ARPA text when keep_arpa asks for it."""
    files = ["binary", "counts", "usage", *(["arpa"] if config["keep_arpa"] else [])]
    names = {"binary": "model.binary", "counts": "ngram_counts.json", "usage": "usage.json", "arpa": "model.arpa"}
    return {name: f"results/{folder}/{{model}}/{names[name]}" for name in files}


def trained_files():
    """Rule train's outputs: the files of its model in each format, each in the folder its model's files
    are installed from (results/training/{model}-trie-q8b8/ for o5-trie-q8b8), keyed `binary` for the
    probing model's binary and `binary-trie-q8b8` for that format's (the train job's wildcard is the
    training, lmgap.models.trainings_of)."""
    suffixes = [parse_format(binary).suffix for binary in FORMATS]
    return {
        f"{name}{suffix}": path.replace("{model}", f"{{model}}{suffix}")
        for suffix in suffixes
        for name, path in model_files("training").items()
    }


# A model's fingerprint, the sha256 of its binary (checkpoint model_fingerprint). What scores a
# model reads the binary by content: its date is ignored (ancient), and its fingerprint, a small
# file Snakemake compares by checksum, is an input beside it.
MODEL_FINGERPRINT = "results/models/{model}/fingerprint.json"
MODEL_BINARY = ancient(model_files("models")["binary"])


def training_text_mb(input):
    """The training text's size: the estimates are per byte of text (not of the tools, also inputs)."""
    return text_mb(input.text)


def train_mem_mb(wildcards, input):
    """lmplz and build_binary run together in one job: build_binary's model in each format, estimated
    from the text's tokens, and lmplz's -S (lmgap/ngram/memory.py)."""
    order = model_options(wildcards)["order"]
    try:
        return train_job_mb(order, text_tokens(input.text), training_text_mb(input), MEMORY_BUDGET_MB, FORMATS)
    except LmgapError as err:
        raise WorkflowError(str(err)) from None


# Minutes a job may run, for a cluster's scheduler (which kills a job that overruns), several
# times what BENCHMARKS.md measured: a 5-gram of the real corpus (836 MB of text) trains in
# about 6 minutes and is given 52. Local runs have no limit.
def train_runtime(wildcards, input):
    return 10 + math.ceil(model_options(wildcards)["order"] * training_text_mb(input) / 100)


def padding_vocabulary(wildcards):
    """The run's vocabulary, which a model with lmplz.vocab_pad pads to (none for the others)."""
    return [rules.vocabulary.output.vocabulary] if model_options(wildcards).get("vocab_pad") else []


# What a model is trained from and with: the inputs and settings of rule train, which
# install_model repeats (see there).
MODEL_SOURCES = {
    "text": training_text,
    "vocabulary": padding_vocabulary,
    "lmplz": kenlm_tool("lmplz"),
    "build_binary": kenlm_tool("build_binary"),
    "fingerprint": train_fingerprint,
    "tools_checked": kenlm_tools_checked,
}
MODEL_SETTINGS = {"options": model_options, "kenlm": kenlm_identity()}


# Neural models: a model's training text and folder, what the tables read of it, and the
# memory its jobs ask for (neural.smk).
def neural_training_text(wildcards):
    """A causal model's sample of the training split; a cloze model's whole split, whose fraction
    it takes itself (lmgap.neural.cloze.training_lines): it leaves out the held-out lines by number."""
    entry = NEURAL[wildcards.neural]
    fraction = 1.0 if entry["kind"] == "cloze" else entry["train"]["train_fraction"]
    return training_text_of(config["train_split"], fraction)


# The byte-level BPE a trained causal model reads text with, learnt by rule train_tokenizer.
TOKENIZER = "results/neural/{neural}/tokenizer.json"


def neural_tokenizer(wildcards):
    return TOKENIZER if NEURAL[wildcards.neural]["kind"] == "causal" else []


def cloze_heldout(wildcards):
    """The held-out training lines, which a cloze model leaves out of its training (p0 is set on them)."""
    return rules.gap_heldout.output.heldout if NEURAL[wildcards.neural]["kind"] == "cloze" else []


def neural_files_in(folder):
    """A neural model's files under results/FOLDER/{neural}/: the Hugging Face model folder that
    from_pretrained loads, its loss curve and its training record."""
    return {
        "model": directory(f"results/{folder}/{{neural}}/model"),
        "loss": f"results/{folder}/{{neural}}/loss.tsv",
        "record": f"results/{folder}/{{neural}}/training.json",
    }


# A neural model's files in place, its scores and its jobs' benchmarks: the paths of neural.smk's
# rules, which the tables and the gap task name whether or not the config has a neural model
# (neural.smk is included only when it has).
NEURAL_FILES = {name: str(path) for name, path in neural_files_in("neural").items()}
NEURAL_SCORES = {
    "metrics": "results/eval/{neural}/{split}.json",
    "documents": "results/eval/{neural}/{split}.documents.tsv",
}
NEURAL_BENCHMARKS = {
    "train_neural": "results/benchmarks/train_neural/{neural}.tsv",
    "score_neural": "results/benchmarks/score_neural/{neural}/{split}.tsv",
}


def neural_model_folder(wildcards):
    """A trained model's folder, or the files of a user's saved model (a changed file rescores)."""
    folder = neural_model_dir(wildcards.neural)
    if NEURAL[wildcards.neural]["source"] == "train":
        return folder
    return sorted(str(path) for path in Path(folder).iterdir() if path.is_file())


def neural_fingerprints(wildcards):
    """The scored split's fingerprint, and the training split's for a model trained here (a job
    depends directly on each fingerprint its inputs come from: see split_fingerprint)."""
    if NEURAL[wildcards.neural]["source"] == "train":
        return model_and_split_fingerprints(wildcards)
    return split_fingerprint(wildcards)


def neural_model_dir(name):
    entry = NEURAL[name]
    if entry["source"] == "train":
        return NEURAL_FILES["model"].format(neural=name)
    return entry["path"]


def neural_records():
    """Training records of the causal models the pipeline trains, the tables' neural rows."""
    return expand(NEURAL_FILES["record"], neural=CAUSAL_TRAINED)


def compared_neural():
    """{name: training fraction} of the neural models comparison.tsv sets against an n-gram."""
    return {name: entry["train_fraction"] for name, entry in neural_settings().items()}


def neural_settings():
    """What the tables know of each causal neural model beyond its records (see
    lmgap.report.perplexity.load_metrics)."""
    return {
        name: {
            "trained": entry["source"] == "train",
            "train_fraction": (entry["train"]["train_fraction"] if entry["source"] == "train" else None),
        }
        for name, entry in NEURAL.items()
        if entry["kind"] == "causal"
    }


def neural_train_mem_mb(wildcards, input):
    """The encoded text (2 bytes a subword token, about half a byte per byte of text, held twice
    while joined), the model, its gradients, AdamW's moments and PyTorch."""
    return loading_mem_mb(input, 1500)


def neural_score_mem_mb(wildcards, input):
    """The model, and a batch of windows' logits (4 bytes per vocabulary entry and position)."""
    entry = NEURAL[wildcards.neural]
    logits_mb = 3 * 4 * entry["vocab_size"] * entry["max_length"] * entry["batch_size"] // 2**20
    return loading_mem_mb(input, 1000 + logits_mb)


def cloze_train_mem_mb(wildcards, input):
    """The training text's ids (4 bytes a word, about 0.6 a byte of text) and its word counts, the
    network with its gradients and Adam's moments, and PyTorch."""
    return loading_mem_mb(input, 2000)


def cloze_gap_mem_mb(wildcards, input):
    """The network, and a batch of gaps' log-probabilities over its vocabulary (8 bytes each, held five
    times over while the words are chosen: 1,000 MB for 256 gaps of 100,000 words)."""
    entry = NEURAL[wildcards.neural]
    folder = model_folder(input.model)
    if entry["source"] == "train":
        # A trained model's folder is one input, which loading_mem_mb does not size.
        words, weights_mb = entry["train"]["vocab_size"], math.ceil(weights_bytes(folder) / 2**20)
    else:
        # A user's model: its vocabulary is one of the files the job is handed (and sized).
        with open(Path(folder) / "vocab.txt", "rb") as handle:
            words, weights_mb = sum(1 for _ in handle), 0
    batch_mb = math.ceil(5 * 8 * entry["batch_size"] * (words + 1) / 2**20)
    return loading_mem_mb(input, 1500 + batch_mb) + weights_mb


# What a neural model is trained from and with: the inputs and settings of rules train_neural and
# train_cloze, which install_neural repeats (see install_model).
NEURAL_SOURCES = {
    "text": neural_training_text,
    "tokenizer": neural_tokenizer,
    "heldout": cloze_heldout,
    "fingerprint": train_fingerprint,
}
NEURAL_SETTINGS = {"settings": lambda wildcards: NEURAL[wildcards.neural]["train"]}
TRAINING_CODE = {"causal": script_code("train_neural"), "cloze": script_code("train_cloze")}


# Tables: what they read, every model's record on every scored split, and the settings the
# provenance record keeps (tables.smk).


def keyed(pattern, keys, *wildcards):
    """{key: pattern with each of the key's parts as its wildcard of that name} (a key of one part
    a string, of several a tuple)."""
    return {key: str(pattern).format(**dict(zip(wildcards, key if isinstance(key, tuple) else (key,)))) for key in keys}


def model_table_files(*kinds):
    """What perplexity_table and cost_table read of each model beyond its metrics records (which name
    their model and split): {kind: {key: path}} of the kinds."""
    models, scored = sorted(MODELS), [(model, split) for model in sorted(MODELS) for split in config["eval_splits"]]
    files = {
        "counts": keyed(rules.install_model.output.counts, models, "model"),
        "binary": keyed(rules.install_model.output.binary, models, "model"),
        "usage": keyed(rules.install_model.output.usage, models, "model"),
        "train": keyed(rules.train.benchmark, sorted(TRAININGS), "model"),
        "query": keyed(rules.query.benchmark, scored, "model", "split"),
        "records": keyed(NEURAL_FILES["record"], CAUSAL_TRAINED, "neural"),
        "folders": {name: neural_model_dir(name) for name in NEURAL_CAUSAL},
        "train_neural": keyed(NEURAL_BENCHMARKS["train_neural"], CAUSAL_TRAINED, "neural"),
        "score_neural": keyed(
            NEURAL_BENCHMARKS["score_neural"],
            [(name, split) for name in NEURAL_CAUSAL for split in config["eval_splits"]],
            "neural",
            "split",
        ),
    }
    return {kind: files[kind] for kind in kinds}


def scored_documents():
    """{(model, split): its per-document scores} of every model on every scored split, n-gram or
    neural (comparison_table)."""
    splits = config["eval_splits"]
    return {
        **keyed(rules.query.output.documents, [(m, s) for m in sorted(MODELS) for s in splits], "model", "split"),
        **keyed(NEURAL_SCORES["documents"], [(n, s) for n in NEURAL_CAUSAL for s in splits], "neural", "split"),
    }


# What each table job reads beyond its own named inputs, by key: functions, as the rules whose
# files they name are defined after this file.
TABLE_FILES = {
    "perplexity_table": lambda: model_table_files("counts", "binary", "records", "folders"),
    "cost_table": lambda: model_table_files(
        "counts", "binary", "records", "folders", "usage", "train", "query", "train_neural", "score_neural"
    ),
    "comparison_table": lambda: {"documents": scored_documents()},
    "gap_table": lambda: gap_table_files(),
}


def table_inputs(job):
    """A table rule's named inputs: the files of TABLE_FILES[job], a list per kind (lmgap.keyed)."""
    return split_keyed(TABLE_FILES[job]())[0]


def table_keys(job):
    """A table rule's input_keys param: the key of each file of table_inputs(job), in the same order."""
    return split_keyed(TABLE_FILES[job]())[1]


# The plots, each named by its file and its report caption (rule plots).
PLOTS = (
    "perplexity_by_order",
    "hit_ratios",
    "learning_curve",
    "perplexity_by_size",
    "document_perplexity",
    "perplexity_by_decade",
    "neural_training_loss",
)


def table(name):
    """{kind: (results/tables/NAME.kind, its report caption or None, category)}: the TSV in the report."""
    return {
        kind: (f"results/tables/{name}.{kind}", name if kind == "tsv" else None, "Tables") for kind in ("tsv", "md")
    }


# Every table and plot, the submission and the run's record, by the job that makes them: {job: {output:
# (file, its caption in workflow/report/ or None, its category in the report)}}.
RESULTS = {
    "perplexity_table": table("perplexity"),
    "cost_table": table("cost"),
    "comparison_table": table("comparison"),
    "document_tables": {
        f"{name}_{kind}": entry for name in ("decades", "hardest") for kind, entry in table(name).items()
    },
    "plots": {name: (f"results/plots/{name}.png", name, "Plots") for name in PLOTS},
    "gap_table": table("gap"),
    # The blend's predictions for `lmgap submit`, in no report.
    "gap_submission": {
        **{f"out_{split}": (f"results/submission/{split}/out.tsv", None, None) for split in GAP_SPLITS},
        "gonito": ("results/submission/gonito.yaml", None, None),
        # The sha256 of each predicted split's in.tsv.xz, which lmgap submit checks the clone's against.
        "inputs": ("results/submission/inputs.json", None, None),
    },
    # The run's own record of what made its results, in the report too.
    "provenance": {"provenance": ("results/provenance.json", "provenance", "Run")},
}
# The checkpoints' outputs each table job reads, read by its install job too: Snakemake makes a job
# anew after a checkpoint only if it reads the checkpoint's output, and a job not made anew keeps
# the reason to run it was given before. An install whose table job a checkpoint spared would run.
FINGERPRINTS = {
    **{job: {"fingerprint": results_fingerprints} for job in RESULTS},
    "gap_table": {"fingerprint": results_fingerprints, "models": expand(MODEL_FINGERPRINT, model=GAP_MODELS)},
}
# What the report's captions read of each job (snakemake.params): the columns' definitions, from
# their one source.
CAPTION_PARAMS = {
    "perplexity_table": {"definitions": PERPLEXITY_TABLE.caption()},
    "cost_table": {"definitions": COST_TABLE.caption()},
    "comparison_table": {"definitions": COMPARISON_TABLE.caption()},
    "document_tables": {"decade_definitions": DECADES_TABLE.caption(), "hardest_definitions": HARDEST_TABLE.caption()},
    "plots": {},
    "gap_table": {"definitions": GAP_TABLE.caption()},
    "gap_submission": {},
    "provenance": {},
}


def scored_outputs(kind):
    """Every model's `metrics` or `documents` file on every scored split: the n-grams', then the
    neural models', each model's splits together."""
    splits = config["eval_splits"]
    return [
        *expand(rules.query.output[kind], model=sorted(MODELS), split=splits),
        *expand(NEURAL_SCORES[kind], neural=NEURAL_CAUSAL, split=splits),
    ]


def experiment_settings():
    """The settings the results depend on, for the provenance record (not lmplz.temp_dir, not
    the memory budget)."""
    keys = ("corpus", "train_split", "eval_splits", "orders", "train_fraction", "build_binary", "comparison", "gap")
    lmplz = {key: value for key, value in config["lmplz"].items() if key != "temp_dir"}
    return {**{key: config[key] for key in keys}, "lmplz": lmplz, "neural": NEURAL}


# The gap task: its systems, their files, and the memory and time its jobs ask for (gap.smk).
# The systems of the config, as records (lmgap.gap.systems): the n-grams trained on the whole
# training split, the neural models and the document family.
GAP_SYSTEMS = GapSystems(
    {name: MODELS[name] for name in GAP_MODELS},
    {name: entry["kind"] for name, entry in NEURAL.items()},
    GAP["document"]["enabled"],
    GAP_FORMAT,
)


def candidates_runtime(wildcards, input):
    return 10 + math.ceil(input_mb(input) / 20)


def gap_logprobs_mem_mb(wildcards, input):
    """The model (shared by the forked scorers), the candidates and a working set per scorer."""
    return loading_mem_mb(input, 300)


def check_gap_index_fits(size_mb):
    """The memory the candidate pass needs for a training text of size_mb, if the budget holds it."""
    need = index_memory_mb(max(size_mb, 1))
    if need > MEMORY_BUDGET_MB:
        raise WorkflowError(
            f"Counting the gaps' candidates in the training text ({size_mb:,.0f} MB) needs about "
            f"{need:,} MB, more than the {MEMORY_BUDGET_MB:,} MB a job may reserve. Raise "
            "memory.budget_mb, or set gap.enabled: "
            "false."
        )
    return need


def gap_index_mem_mb(wildcards, input, threads):
    """Per MB of the training text, for as many processes as the job's threads whose pass the
    budget holds (the job counts the same)."""
    size_mb = max(text_mb(input.text), 1)
    check_gap_index_fits(size_mb)
    return index_memory_mb(size_mb, workers_within(threads, MEMORY_BUDGET_MB, size_mb))


def gap_candidates_of(wildcards):
    """An n-gram prediction's candidate sets, for the share of gaps whose word is among them
    (the other systems' recall is of the words they list)."""
    if GAP_SYSTEMS.named(wildcards.system).family != "ngram":
        return []
    return expand(rules.gap_candidates.output.candidates, split=wildcards.split)


def system_models(system):
    """The n-gram models whose binaries a system's (named by its wildcard) predictions come from."""
    return GAP_SYSTEMS.models_of(GAP_SYSTEMS.named(system))


def blend_priority(system):
    """BLEND_PATH for the blend and its members, 0 for the rest."""
    return BLEND_PATH if system in {BLEND.name, *(member.name for member in GAP_SYSTEMS.members())} else 0


def blend_files(wildcards):
    """{"outs": {member: its out.tsv}, "fit": {member: its per-line scores on the split that fits the
    blend's weights}}: the split's own (cross-fitted), or the first scored split's for test-A."""
    split = wildcards.split
    fit_split = split if split in config["eval_splits"] else config["eval_splits"][0]
    members = GAP_SYSTEMS.members()
    return {
        "outs": {member.name: member.out(split) for member in members},
        "fit": {
            member.name: rules.gap_evaluate.output.lines.format(system=member.name, split=fit_split)
            for member in members
        },
    }


def blend_inputs(wildcards):
    """gap_blend's inputs: the files of blend_files, a list per kind (lmgap.keyed)."""
    return split_keyed(blend_files(wildcards))[0]


def blend_keys(wildcards):
    """gap_blend's input_keys param: the member of each file of blend_inputs, in the same order."""
    return split_keyed(blend_files(wildcards))[1]


# The benchmark of each family's scoring job (a neural model's by its kind); the blend and the
# baseline have no job of their own timed, and an n-gram's one job scores both contexts.
GAP_TIMINGS = {
    "ngram": lambda: rules.gap_logprobs.benchmark,
    "document": lambda: rules.gap_document.benchmark,
    "causal": lambda: rules.gap_neural.benchmark,
    "masked": lambda: rules.gap_masked.benchmark,
    "cloze": lambda: rules.gap_cloze.benchmark,
}


def gap_table_files():
    """What gap_table reads: {kind: {key: path}}, keyed by (system, split) or split (lmgap.keyed)."""
    splits, systems = config["eval_splits"], GAP_SYSTEMS.all()
    scored = [(system.name, split) for system in systems for split in splits]
    timed = {}
    for system in systems:
        pattern = GAP_TIMINGS.get(system.kind or system.family)
        for split in splits if pattern else []:
            timed[system.name, split] = str(pattern()).format(
                model=system.model, neural=system.model, context=system.context, split=split
            )
    return {
        "metrics": keyed(rules.gap_evaluate.output.metrics, scored, "system", "split"),
        "stats": keyed(STATS, scored, "system", "split"),
        "timings": timed,
        "coverage": keyed(rules.gap_candidates.output.coverage, splits, "split"),
        "weights": keyed(rules.gap_blend.output.weights, splits if GAP_SYSTEMS.blend() else [], "split"),
    }


def submission_outs():
    """{split: the blend's out.tsv on it} of every predicted split: what the submission holds."""
    return {split: BLEND.out(split) for split in GAP_SPLITS}


def document_line_for_rescoring():
    """{"document": the document family's both-context out.tsv} when the causal models rescore
    its words too, else nothing."""
    if not GAP_SYSTEMS.document or not GAP["document"]["neural_words"]:
        return {}
    return {"document": lambda wildcards: GAP_SYSTEMS.named("both/document").out(wildcards.split)}


def exactly(names):
    """A wildcard constraint matching these names only, and nothing if there are none."""
    return "|".join(names) if names else "(?!)"


def gap_neural_runtime(wildcards, input):
    """Minutes, for a cluster: three times BENCHMARKS.md's 43 ms a gap (2 cores, a 3.7 MB model,
    50 words rescored with 8 right tokens), scaled by gaps, words and model size, and 30 minutes more.
    It reads only the job's inputs: the gaps are the n-gram prediction's lines it rescores, or for a
    masked model (whose inputs hold none) twice the real dev-0's 10,519, counted as 50 words each."""
    if "base" in input.keys():
        with open(input.base, "rb") as handle:
            gaps = sum(1 for _ in handle)
        # The n-gram's words, and those of the document family's it adds.
        candidates = GAP["neural_candidates"] + (GAP["document"]["neural_words"] if "document" in input.keys() else 0)
    else:
        gaps, candidates = 2 * 10_519, 50
    model_mb = max(4, weights_bytes(model_folder(input.model)) / 2**20)
    seconds = 3 * 0.043 * gaps * candidates / 50 * model_mb / 4
    return 30 + math.ceil(seconds / 60)
