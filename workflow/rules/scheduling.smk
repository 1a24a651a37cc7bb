# Local scheduling policy: the memory budget and one job per core; on a cluster, each job's own
# request. Read by every family's sizing functions (loading_mem_mb and the budget).
import math
import os
import sys

from lmgap.ngram.memory import LMPLZ_MIN_MB

# Where the jobs run. Given --jobs rather than --cores, Snakemake sends them to a cluster (an
# executor plugin such as SLURM's; it then sets no limit on cores), and it parses this file
# again inside every cluster job (remote mode). Locally, a memory budget and one job per core
# decide what runs at once; on a cluster each job asks the scheduler for what it needs, and as
# many run at once as the cluster grants.
ON_CLUSTER = workflow.remote_exec or workflow.resource_settings.nodes is not None


# Priorities of the gap jobs, for a run on a few cores: the held-out lines, the candidate pass and
# the scoring first, since every system waits for them, then what the blend waits for (its
# members, neural models' training among them); the left-context ablations, which nothing waits
# for, take the cores left over. Training an n-gram model (priority: its order, 3 and up by
# default) comes before all of these.
SCORING_FIRST, BLEND_PATH = 2, 1


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


# The one core count is each rule's threads: locally, Snakemake runs jobs while their threads fit
# in --cores (and gives a job no more threads than --cores); on SLURM, a job asks for its threads
# as cpus. A job that splits its work (the candidate pass's spans, the gap scorers' processes,
# PyTorch's threads) takes two, whatever the machine: a neural model's weights depend on its
# threads, so that the same settings train the same model anywhere. `--set-threads RULE=N` gives
# a rule more.
PARALLEL_THREADS = 2


if workflow.is_main_process and ON_CLUSTER:
    print(
        "lmgap: cluster run: each job asks for the memory, cores and time it needs"
        + (f", at most {MEMORY_BUDGET_MB:,} MB ({BUDGET_FROM})" if MEMORY_BUDGET_MB != NO_CAP_MB else ""),
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
        "needs to start. Raise memory.budget_mb (or --resources mem_mb=N)."
    )


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
