import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "workflow"))

from lmgap.configcheck import validate_config
from lmgap.errors import LmgapError
from lmgap.fetch import check_files, is_url, split_files, uncompressed_mb
from lmgap.gap.candidates import index_memory_mb
from lmgap.kenlm_build import PYTHON_MODULE_MAX_ORDER, check_user_tools, pinned_kenlm
from lmgap.locks import clear_stale_locks
from lmgap.models import LMPLZ_MIN_MB, models_from_config, train_job_mb

try:
    config = validate_config(
        config, Path(workflow.basedir) / "workflow/schemas/config.schema.yaml"
    )
except LmgapError as err:
    raise WorkflowError(str(err)) from None

# A run killed with SIGKILL cannot release Snakemake's lock; with no run alive here, the next
# run clears it instead of asking for `snakemake --unlock`.
if clear_stale_locks():
    print(
        "lmgap: removed the lock a killed run left in .snakemake/locks", file=sys.stderr
    )

# KenLM's version and the sha256 of its source distribution, as the set-up pins them.
KENLM_VERSION, KENLM_SHA256 = pinned_kenlm(
    Path(workflow.basedir) / "requirements-kenlm.txt"
)
ORDERS = sorted({int(order) for order in config["orders"]})
# At least 6, KenLM's default, so that adding a small order never rebuilds the tools.
KENLM_MAX_ORDER = max(6, max(ORDERS))
MODELS = models_from_config(
    ORDERS, config["lmplz"]["prune"], config["lmplz"]["discount_fallback"]
)
SPLITS = sorted({config["train_split"], *config["eval_splits"]})
GAP = config["gap"]
# Splits whose gaps are predicted: the scored ones, and test-A (whose gap words stay unread) when
# the corpus has it.
GAP_SPLITS = (
    sorted(
        {*config["eval_splits"], *(["test-A"] if config["corpus"]["test_a"] else [])}
    )
    if GAP["enabled"]
    else []
)
if config["kenlm"]["bin_dir"]:
    try:
        check_user_tools(config["kenlm"]["bin_dir"], ORDERS)
    except LmgapError as err:
        raise WorkflowError(str(err)) from None


wildcard_constraints:
    model=r"o\d+(-[a-z0-9.]+)*",
    split=r"train|dev-0|dev-1|test-A",
    tool=r"lmplz|query|build_binary",
    context=r"both|left",
    system=r"(both|left)/o\d+(-[a-z0-9.]+)*|unigram",


def kenlm_bin_dir():
    """The user's KenLM tools if configured, else the pipeline's own build."""
    if config["kenlm"]["bin_dir"]:
        return Path(config["kenlm"]["bin_dir"])
    return Path(f"resources/kenlm/kenlm-{KENLM_VERSION}-maxorder{KENLM_MAX_ORDER}/bin")


def kenlm_tool(tool):
    # ancient(): a rebuilt tool (say for a larger maximum order) gives the same models.
    return ancient(str(kenlm_bin_dir() / tool))


def corpus_root():
    """Where the corpus files are: the clone for URLs and pinned commits, else the source itself."""
    source = config["corpus"]["source"]
    if is_url(source) or config["corpus"]["commit"]:
        return Path("resources/corpus/clone")
    return Path(source)


def corpus_required_files():
    files = [name for split in SPLITS for name in split_files(split)]
    if config["corpus"]["test_a"]:
        files += split_files("test-A", with_gaps=False)
    return files


def corpus_is_local():
    """The corpus is read in place from a local directory, not cloned."""
    return corpus_root() != Path("resources/corpus/clone")


def local_corpus_files(wildcards):
    """For a local directory, its files are inputs, so that editing them redoes the fetch."""
    if not corpus_is_local():
        return []
    return [str(corpus_root() / name) for name in corpus_required_files()]


# A local corpus is checked before any job: its missing files would otherwise stop the run
# with Snakemake's MissingInputException, which names the file but not the fix.
if corpus_is_local():
    try:
        check_files(corpus_root(), corpus_required_files())
    except LmgapError as err:
        raise WorkflowError(str(err)) from None


def model_options(wildcards):
    if wildcards.model not in MODELS:
        raise WorkflowError(
            f"model {wildcards.model} is not in the current config (orders: {ORDERS})"
        )
    return MODELS[wildcards.model]


def physical_memory_mb():
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20


# The memory budget of all jobs running at once: --resources mem_mb=N if given, else
# memory.budget_mb, else 80% of physical memory read now. Snakemake starts no job that
# would take the sum of running jobs' mem_mb over it.
if "mem_mb" in workflow.global_resources:
    MEMORY_BUDGET_MB = int(workflow.global_resources["mem_mb"].value)
    BUDGET_FROM = "--resources mem_mb"
else:
    if config["memory"]["budget_mb"]:
        MEMORY_BUDGET_MB = config["memory"]["budget_mb"]
        BUDGET_FROM = "memory.budget_mb"
    else:
        PHYSICAL_MB = physical_memory_mb()
        MEMORY_BUDGET_MB = int(PHYSICAL_MB * 0.8)
        BUDGET_FROM = (
            f"80% of {PHYSICAL_MB:,} MB of memory; memory.budget_mb changes it"
        )
    workflow.register_resource("mem_mb", MEMORY_BUDGET_MB)
# Work runs at most one job per physical core, whatever --cores says: lmplz, build_binary and
# query each keep about one core busy, and more jobs than cores only share them.
if "cpus" not in workflow.global_resources:
    workflow.register_resource("cpus", len(os.sched_getaffinity(0)))
CPUS = int(workflow.global_resources["cpus"].value)


def declared_cores():
    """--cores, or the machine's cores for commands that give none (--report, --lint)."""
    try:
        return workflow.cores or 1
    except WorkflowError:
        return CPUS


TRAIN_JOBS_AT_ONCE = max(1, min(len(MODELS), CPUS, declared_cores()))
LMPLZ_SHARE_MB = MEMORY_BUDGET_MB // TRAIN_JOBS_AT_ONCE
print(
    f"lmgap: memory budget {MEMORY_BUDGET_MB:,} MB ({BUDGET_FROM}); at most "
    f"{TRAIN_JOBS_AT_ONCE} train jobs at once, each within {LMPLZ_SHARE_MB:,} MB where its "
    "model allows",
    file=sys.stderr,
)
if LMPLZ_SHARE_MB < LMPLZ_MIN_MB:
    raise WorkflowError(
        f"The memory budget of {MEMORY_BUDGET_MB} MB leaves each lmplz running at once "
        f"{LMPLZ_SHARE_MB} MB, below the {LMPLZ_MIN_MB} MB lmplz needs to start. Raise "
        "memory.budget_mb in config.yaml (or --resources mem_mb=N), or run fewer jobs at once "
        "with a smaller --cores."
    )


def train_mem_mb(wildcards, input):
    """lmplz and build_binary run together in one job; it gives lmplz all but build_binary's part."""
    order, text_mb = MODELS[wildcards.model]["order"], max(input.size_mb, 1)
    try:
        return train_job_mb(order, text_mb, LMPLZ_SHARE_MB, MEMORY_BUDGET_MB)
    except LmgapError as err:
        raise WorkflowError(str(err)) from None


def model_mem_mb(wildcards, input):
    """Loading a model takes about the size of its ARPA or binary file, capped by the budget."""
    return min(MEMORY_BUDGET_MB, 256 + int(1.2 * max(input.size_mb, 1)))


def kenlm_python_dir():
    """Where a kenlm Python module for orders above the .venv's is built, or None if not needed."""
    if KENLM_MAX_ORDER <= PYTHON_MODULE_MAX_ORDER:
        return None
    return f"resources/kenlm/kenlm-{KENLM_VERSION}-maxorder{KENLM_MAX_ORDER}/python"


def kenlm_python_for(wildcards):
    """The built module, for a model of an order the .venv's module cannot load; models it can
    load do not depend on it, so adding a high order rescores nothing else."""
    if MODELS[wildcards.model]["order"] <= PYTHON_MODULE_MAX_ORDER:
        return []
    # ancient(): a module rebuilt for a yet larger order scores the same.
    return [ancient(kenlm_python_dir())]


def gap_logprobs_mem_mb(wildcards, input):
    """The model (shared by the forked scorers), the candidates and a working set per scorer."""
    return min(MEMORY_BUDGET_MB, 300 + int(1.2 * max(input.size_mb, 1)))


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


# A corpus on disk tells its training text's size before any job (the xz index of in.tsv.xz), so
# a budget that cannot hold the candidate pass stops the run before anything starts.
if GAP["enabled"] and corpus_is_local():
    TRAIN_IN_MB = uncompressed_mb(corpus_root() / config["train_split"] / "in.tsv.xz")
    if TRAIN_IN_MB is not None:
        check_gap_index_fits(TRAIN_IN_MB)


def split_dir(wildcards):
    return str(corpus_root() / wildcards.split)


def gap_candidates_of(wildcards):
    """An n-gram prediction's candidate sets, for the share of gaps whose word is among them."""
    if wildcards.system == "unigram":
        return []
    return expand(rules.gap_candidates.output.candidates, split=wildcards.split)


def gap_systems():
    """Every scored prediction: each model with both contexts and with the left alone, and the baseline."""
    return [
        f"{context}/{model}" for model in sorted(MODELS) for context in ("both", "left")
    ] + ["unigram"]


def gap_stats(system, split):
    if system == "unigram":
        return rules.gap_unigram.output.stats.format(split=split)
    context, model = system.split("/")
    return rules.gap_predictions.output.stats.format(
        context=context, model=model, split=split
    )
