import math
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "workflow"))

from lmgap.configcheck import Origins, validate_config
from lmgap.errors import LmgapError
from lmgap.fetch import CLONE_DIR, required_files
from lmgap.fetch import corpus_root as lmgap_corpus_root
from lmgap.rebuild import header_path
from lmgap.gap.candidates import index_memory_mb
from lmgap.gap.table import gap_definitions_rst
from lmgap.tables import definitions_rst
from lmgap.comparison import DEFINITIONS as COMPARISON_COLUMNS
from lmgap.kenlm_build import PYTHON_MODULE_MAX_ORDER, TOOLS, pinned_kenlm
from lmgap.neural.settings import neural_models
from lmgap.models import fraction_label, models_from_config, prune_settings
from lmgap.train_memory import LMPLZ_MIN_MB, text_mb, text_tokens, train_job_mb

CONFIG_ORIGINS = Origins(
    workflow.config_settings.config, workflow.config_settings.configfiles
)
try:
    config = validate_config(
        config,
        Path(workflow.basedir) / "workflow/schemas/config.schema.yaml",
        CONFIG_ORIGINS,
    )
except LmgapError as err:
    raise WorkflowError(str(err)) from None

# Where the jobs run. Given --jobs rather than --cores, Snakemake sends them to a cluster (an
# executor plugin such as SLURM's; it then sets no limit on cores), and it parses this file
# again inside every cluster job (remote mode). Locally, a memory budget and one job per core
# decide what runs at once; on a cluster each job asks the scheduler for what it needs, and as
# many run at once as the cluster grants.
ON_CLUSTER = workflow.remote_exec or workflow.resource_settings.nodes is not None

# KenLM's version and the sha256 of its source distribution, as the set-up pins them.
KENLM_VERSION, KENLM_SHA256 = pinned_kenlm(
    Path(workflow.basedir) / "requirements-kenlm.txt"
)
ORDERS = sorted({int(order) for order in config["orders"]})


def kenlm_build_order(order):
    """The KENLM_MAX_ORDER of the tools that train and score an order-n model: KenLM's default,
    6, up to 6, else n itself. A model keeps its tools when orders are added, so adding a high
    order rebuilds no tool an existing model uses and retrains none of them."""
    return max(PYTHON_MODULE_MAX_ORDER, order)


KENLM_BUILDS = sorted({kenlm_build_order(order) for order in ORDERS})
TRAIN_FRACTIONS = sorted({float(fraction) for fraction in config["train_fraction"]})
MODELS = models_from_config(
    ORDERS,
    prune_settings(config["lmplz"]["prune"]),
    config["lmplz"]["discount_fallback"],
    TRAIN_FRACTIONS,
)
# Neural models by name, each with its evaluation window settled (a `path:` model's folder is
# checked now, before any job).
try:
    NEURAL = neural_models(config["neural"], CONFIG_ORIGINS.of(("neural",)))
except LmgapError as err:
    raise WorkflowError(str(err)) from None
NEURAL_TRAINED = sorted(
    name for name, entry in NEURAL.items() if entry["kind"] == "train"
)
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
    system=r"(both|left)/o\d+(-[a-z0-9.]+)*|unigram",


def kenlm_identity():
    """Which KenLM trains the models: the pinned version, or the user's own tools (whose
    version nothing tells: a model depends on their files instead, see kenlm_tool)."""
    if not config["kenlm"]["bin_dir"]:
        return f"kenlm {KENLM_VERSION}"
    return "kenlm.bin_dir"


def kenlm_tools_checked(wildcards):
    """The check that the user's own tools run and support the model's order, before it trains."""
    if not config["kenlm"]["bin_dir"]:
        return []
    return rules.kenlm_tools.output.record.format(
        order=MODELS[wildcards.model]["order"]
    )


def kenlm_build_dir(max_order):
    return Path(f"resources/kenlm/kenlm-{KENLM_VERSION}-maxorder{max_order}")


def kenlm_bin_dir(max_order):
    """The user's KenLM tools if configured, else the pipeline's build for max_order."""
    if config["kenlm"]["bin_dir"]:
        return Path(config["kenlm"]["bin_dir"])
    return kenlm_build_dir(max_order) / "bin"


def kenlm_tool(tool):
    """An input function: the tool a model's order needs. The pipeline's build is ancient(): built
    again from the same pinned source, it scores and trains the same, so its new date reruns
    nothing. A user's own tool replaced by a newer file retrains and rescores what it made.
    """

    def tool_for(wildcards):
        order = MODELS[wildcards.model]["order"]
        if config["kenlm"]["bin_dir"]:
            return user_tools([tool])
        return ancient(str(kenlm_bin_dir(kenlm_build_order(order)) / tool))

    return tool_for


def user_tools(tools=TOOLS):
    """The user's own tools that exist: a missing one is named, with the key that fixes it, by
    the kenlm_tools job that every model waits for (Snakemake's own error would not)."""
    paths = [Path(config["kenlm"]["bin_dir"]) / tool for tool in tools]
    return [str(path) for path in paths if path.exists()]


def every_kenlm_tool():
    """The tools of every build the models use, {name: path}, for the provenance record; the
    user's own tools by their names alone (their maximum order is theirs; see user_tools).
    """
    if config["kenlm"]["bin_dir"]:
        return {Path(path).name: path for path in user_tools()}
    return {
        f"{tool} (maxorder {max_order})": str(kenlm_bin_dir(max_order) / tool)
        for max_order in KENLM_BUILDS
        for tool in TOOLS
    }


def corpus_root():
    return lmgap_corpus_root(config["corpus"])


def corpus_required_files():
    """{file: the config key that asks for it}."""
    return required_files(
        config["train_split"], config["eval_splits"], config["corpus"]["test_a"]
    )


def corpus_is_local():
    """The corpus is read in place from a local directory, not cloned."""
    return corpus_root() != CLONE_DIR


def local_corpus_files(wildcards):
    """For a local directory, its files (and the in-header.tsv files that describe them) are
    inputs, so that editing one fetches again. Only those present: the fetch job names a missing
    one with the key that asks for it and the fix (onstart's check, before any job)."""
    if not corpus_is_local():
        return []
    headers = {header_path(corpus_root() / split) for split in CORPUS_SPLITS} - {None}
    files = [corpus_root() / name for name in corpus_required_files()]
    return [str(path) for path in files if path.is_file()] + sorted(map(str, headers))


def fingerprints_of(*splits):
    """The splits' fingerprints, once the corpus is fetched: all that their texts depend on."""
    return [
        checkpoints.split_fingerprint.get(split=split).output.fingerprint
        for split in dict.fromkeys(splits)
    ]


# Snakemake looks again at a job after a checkpoint only if it depends on it directly, so every
# job downstream of the corpus takes as input the fingerprint of every split it depends on:
# the training split's for the models, its own split's for what scores one, all for the tables.
def split_fingerprint(wildcards):
    return fingerprints_of(wildcards.split)


def train_fingerprint(wildcards):
    return fingerprints_of(config["train_split"])


def model_and_split_fingerprints(wildcards):
    return fingerprints_of(config["train_split"], wildcards.split)


def all_fingerprints(wildcards):
    return fingerprints_of(config["train_split"], *config["eval_splits"])


def model_options(wildcards):
    if wildcards.model not in MODELS:
        raise WorkflowError(
            f"model {wildcards.model} is not in the current config (orders: {ORDERS})"
        )
    return MODELS[wildcards.model]


def training_text(wildcards):
    return text_of_fraction(MODELS[wildcards.model]["train_fraction"])


def text_of_fraction(fraction):
    """The training split's text, or the sample of it a training fraction takes."""
    split = config["train_split"]
    if fraction == 1:
        return f"results/text/{split}.txt"
    return f"results/text/{split}-frac{fraction_label(fraction)}.txt"


def neural_training_text(wildcards):
    return text_of_fraction(NEURAL[wildcards.neural]["train"]["train_fraction"])


def neural_model_folder(wildcards):
    """A trained model's folder, or the files of a user's saved model (a changed file rescores)."""
    folder = neural_model_dir(wildcards.neural)
    if NEURAL[wildcards.neural]["kind"] == "train":
        return folder
    return sorted(str(path) for path in Path(folder).iterdir() if path.is_file())


def neural_model_dir(name):
    entry = NEURAL[name]
    if entry["kind"] == "train":
        return rules.train_neural.output.model.format(neural=name)
    return entry["path"]


def scored_outputs(kind):
    """Every model's `metrics` or `documents` file on every scored split: the n-grams', then the
    neural models', each model's splits together (the order the table scripts read them in).
    """
    splits = config["eval_splits"]
    return expand(
        rules.query.output[kind], model=sorted(MODELS), split=splits
    ) + expand(rules.score_neural.output[kind], neural=sorted(NEURAL), split=splits)


def kept_results():
    """What a run keeps on disk besides the tables: every model, its scores and gap predictions,
    asked for by `all`. Snakemake does not make again a missing file that only up-to-date jobs
    read, so without this a deleted model folder stayed deleted, and the tables kept its old
    figures; asked for, it is trained again and everything it feeds is redone."""
    splits = config["eval_splits"]
    models = sorted(MODELS)
    kept = [
        *expand(rules.train.output.binary, model=models),
        *expand(rules.train.output.counts, model=models),
        *expand(rules.train.output.usage, model=models),
        *(expand(rules.train.output.arpa, model=models) if config["keep_arpa"] else []),
        *scored_outputs("metrics"),
        *scored_outputs("documents"),
        *expand(rules.train_neural.output.model, neural=NEURAL_TRAINED),
    ]
    if GAP["enabled"]:
        systems = gap_systems()
        kept += expand(rules.gap_evaluate.output.metrics, system=systems, split=splits)
        kept += expand(
            "results/gap/{system}/{split}/out.tsv", system=systems, split=GAP_SPLITS
        )
    return kept


def neural_records():
    """Training records of the neural models the pipeline trains."""
    return expand(rules.train_neural.output.record, neural=NEURAL_TRAINED)


def neural_files():
    """What the tables read of each neural model (see lmgap.tables.load_metrics)."""
    return {
        name: {
            "family": "neural",
            "folder": neural_model_dir(name),
            "record": (
                rules.train_neural.output.record.format(neural=name)
                if entry["kind"] == "train"
                else None
            ),
            "train_fraction": (
                entry["train"]["train_fraction"] if entry["kind"] == "train" else None
            ),
        }
        for name, entry in NEURAL.items()
    }


def neural_train_mem_mb(wildcards, input):
    """The encoded text (2 bytes per subword token, about half a byte per byte of text, held
    twice while it is joined), the model, its gradients and AdamW's moments, and PyTorch.
    """
    return loading_mem_mb(input, 1500)


def neural_score_mem_mb(wildcards, input):
    """The model, and a batch of windows' logits (4 bytes per vocabulary entry and position)."""
    entry = NEURAL[wildcards.neural]
    logits_mb = (
        3 * 4 * entry["vocab_size"] * entry["max_length"] * entry["batch_size"] // 2**20
    )
    return loading_mem_mb(input, 1000 + logits_mb)


# The gap task's candidates come from the whole training split, so it predicts with the models
# trained on all of it; models of smaller fractions are scored for perplexity only.
GAP_MODELS = sorted(
    name for name, options in MODELS.items() if options["train_fraction"] == 1
)


def physical_memory_mb():
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20


# Locally, the memory budget of all jobs running at once: --resources mem_mb=N if given, else
# memory.budget_mb, else 80% of physical memory read now. Snakemake starts no job that would
# take the sum of running jobs' mem_mb over it. On a cluster no budget is shared: each job asks
# for what it needs, and memory.budget_mb, if set, caps what any one job may ask for (the
# memory of the largest node it may run on).
NO_CAP_MB = 2**40
if "mem_mb" in workflow.global_resources:
    MEMORY_BUDGET_MB = int(workflow.global_resources["mem_mb"].value)
    BUDGET_FROM = "--resources mem_mb"
elif config["memory"]["budget_mb"]:
    MEMORY_BUDGET_MB = config["memory"]["budget_mb"]
    BUDGET_FROM = "memory.budget_mb"
elif ON_CLUSTER:
    MEMORY_BUDGET_MB = NO_CAP_MB
    BUDGET_FROM = "none"
else:
    PHYSICAL_MB = physical_memory_mb()
    MEMORY_BUDGET_MB = int(PHYSICAL_MB * 0.8)
    BUDGET_FROM = f"80% of {PHYSICAL_MB:,} MB of memory; memory.budget_mb changes it"
if not ON_CLUSTER and "mem_mb" not in workflow.global_resources:
    workflow.register_resource("mem_mb", MEMORY_BUDGET_MB)
# Locally at most one job per physical core, whatever --cores says: lmplz, build_binary and
# query each keep about one core busy, and more jobs than cores only share them. On a cluster
# the scheduler places jobs by their cpus_per_task; gap scoring runs two processes per job.
if ON_CLUSTER:
    CPUS = 2
else:
    if "cpus" not in workflow.global_resources:
        workflow.register_resource("cpus", len(os.sched_getaffinity(0)))
    CPUS = int(workflow.global_resources["cpus"].value)


if workflow.is_main_process and ON_CLUSTER:
    print(
        "lmgap: cluster run: each job asks for the memory, cores and time it needs"
        + (
            f", at most {MEMORY_BUDGET_MB:,} MB ({BUDGET_FROM})"
            if MEMORY_BUDGET_MB != NO_CAP_MB
            else ""
        ),
        file=sys.stderr,
    )
elif workflow.is_main_process:
    print(
        f"lmgap: memory budget {MEMORY_BUDGET_MB:,} MB ({BUDGET_FROM}); each train job "
        "reserves its model's estimated size and lmplz's -S, and runs beside others while "
        "their reservations fit",
        file=sys.stderr,
    )
if MEMORY_BUDGET_MB < LMPLZ_MIN_MB:
    raise WorkflowError(
        f"The memory budget of {MEMORY_BUDGET_MB} MB is below the {LMPLZ_MIN_MB} MB lmplz "
        "needs to start. Raise memory.budget_mb in config.yaml (or --resources mem_mb=N)."
    )


def training_text_mb(input):
    """The training text's size: the estimates are per byte of text (not of the tools, also inputs)."""
    return text_mb(input.text)


def train_mem_mb(wildcards, input):
    """lmplz and build_binary run together in one job: build_binary's model, estimated from the
    text's tokens, and lmplz's -S (lmgap/train_memory.py)."""
    order = MODELS[wildcards.model]["order"]
    try:
        return train_job_mb(
            order, text_tokens(input.text), training_text_mb(input), MEMORY_BUDGET_MB
        )
    except LmgapError as err:
        raise WorkflowError(str(err)) from None


# Minutes a job may run, for a cluster's scheduler (which kills a job that overruns), several
# times what BENCHMARKS.md measured: a 5-gram of the real corpus (836 MB of text) trains in
# about 6 minutes and is given 52. Local runs have no limit.
def train_runtime(wildcards, input):
    return 10 + math.ceil(
        MODELS[wildcards.model]["order"] * training_text_mb(input) / 100
    )


def runtime_per_100_mb(wildcards, input):
    """Reading a model or a text once: query, gap scoring, sampling."""
    return 10 + math.ceil(input.size_mb / 100)


def candidates_runtime(wildcards, input):
    return 10 + math.ceil(input.size_mb / 20)


def loading_mem_mb(input, working_mb):
    """A job that loads a model: about the size of its inputs (the model's file above all) and a
    working set, capped by the budget."""
    return min(MEMORY_BUDGET_MB, working_mb + int(1.2 * max(input.size_mb, 1)))


def model_mem_mb(wildcards, input):
    """Loading a model takes about the size of its ARPA or binary file."""
    return loading_mem_mb(input, 256)


def kenlm_python_for(wildcards):
    """For a model of an order the .venv's kenlm module cannot load, a module built for it;
    models the .venv's module loads do not depend on one, so adding a high order rescores
    nothing else."""
    order = MODELS[wildcards.model]["order"]
    if order <= PYTHON_MODULE_MAX_ORDER:
        return []
    return [ancient(str(kenlm_build_dir(kenlm_build_order(order)) / "python"))]


def gap_logprobs_mem_mb(wildcards, input):
    """The model (shared by the forked scorers), the candidates and a working set per scorer."""
    return loading_mem_mb(input, 300)


def check_gap_index_fits(text_mb):
    """The memory the candidate pass needs for a training text of text_mb, if the budget holds it."""
    need = index_memory_mb(max(text_mb, 1))
    if need > MEMORY_BUDGET_MB:
        raise WorkflowError(
            f"Counting the gaps' candidates in the training text ({text_mb:,.0f} MB) needs about "
            f"{need:,} MB, more than the memory budget of {MEMORY_BUDGET_MB:,} MB. Raise "
            "memory.budget_mb in config.yaml (or --resources mem_mb=N), or set gap.enabled: false."
        )
    return need


def gap_index_mem_mb(wildcards, input):
    return check_gap_index_fits(input.size_mb)


def gap_candidates_of(wildcards):
    """An n-gram prediction's candidate sets, for the share of gaps whose word is among them."""
    if wildcards.system == "unigram":
        return []
    return expand(rules.gap_candidates.output.candidates, split=wildcards.split)


def gap_systems():
    """Every scored prediction: each model with both contexts and with the left alone, and the baseline."""
    return [
        f"{context}/{model}" for model in GAP_MODELS for context in ("both", "left")
    ] + ["unigram"]


def gap_stats(system, split):
    if system == "unigram":
        return rules.gap_unigram.output.stats.format(split=split)
    context, model = system.split("/")
    return rules.gap_predictions.output.stats.format(
        context=context, model=model, split=split
    )


def experiment_settings():
    """The settings the results depend on, for the provenance record (not lmplz.temp_dir, not
    the memory budget)."""
    keys = (
        "corpus",
        "train_split",
        "eval_splits",
        "orders",
        "train_fraction",
        "comparison",
        "gap",
    )
    lmplz = {key: value for key, value in config["lmplz"].items() if key != "temp_dir"}
    return {**{key: config[key] for key in keys}, "lmplz": lmplz, "neural": NEURAL}
