import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir) / "workflow"))

from lmgap.configcheck import validate_config
from lmgap.errors import LmgapError
from lmgap.fetch import check_files, is_url, split_files
from lmgap.kenlm_build import check_user_tools
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

KENLM_VERSION = "0.3.0"
# sha256 of kenlm-0.3.0.tar.gz on PyPI; pip refuses any other file.
KENLM_SHA256 = "c4628bb9fb63c8a6f9240035b8b037385cfc404cb72e933cf48878291edac1e8"
ORDERS = sorted({int(order) for order in config["orders"]})
# At least 6, KenLM's default, so that adding a small order never rebuilds the tools.
KENLM_MAX_ORDER = max(6, max(ORDERS))
MODELS = models_from_config(
    ORDERS, config["lmplz"]["prune"], config["lmplz"]["discount_fallback"]
)
SPLITS = sorted({config["train_split"], *config["eval_splits"]})
if config["kenlm"]["bin_dir"]:
    try:
        check_user_tools(config["kenlm"]["bin_dir"], ORDERS)
    except LmgapError as err:
        raise WorkflowError(str(err)) from None


wildcard_constraints:
    model=r"o\d+(-[a-z0-9.]+)*",
    split=r"train|dev-0|dev-1|test-A",
    tool=r"lmplz|query|build_binary",


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
