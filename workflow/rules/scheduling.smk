# Job sizes: the most memory a job may reserve, each rule's threads, runtimes and priorities. Read
# by every family's sizing functions (loading_mem_mb and the budget).
import math
import os

from lmgap.machine import default_budget_mb, physical_memory_mb

# Priorities of the gap jobs, for a run on a few cores: the held-out lines, the candidate pass and
# the scoring first, since every system waits for them, then what the blend waits for (its
# members, neural models' training among them); the left-context ablations, which nothing waits
# for, take the cores left over. Training an n-gram model (priority: its order, 3 and up by
# default) comes before all of these.
SCORING_FIRST, BLEND_PATH = 2, 1


# The most memory one job may reserve: memory.budget_mb, else 80% of this machine's memory. A
# train job reserves its model's estimated size and lmplz's -S within it, and asks for it as
# mem_mb. What all the jobs running at once may take together is Snakemake's own limit,
# --resources mem_mb=N: Snakemake documents no way for a workflow to set it, so `make run` gives
# 80% of the machine's memory, and a plain `snakemake` run without it starts jobs by their
# threads alone (docs/running.md). On a cluster each job asks the scheduler for its mem_mb.
MEMORY_BUDGET_MB = config["memory"]["budget_mb"] or default_budget_mb()


# The one core count is each rule's threads: locally, Snakemake runs jobs while their threads fit
# in --cores (and gives a job no more threads than --cores); on SLURM, a job asks for its threads
# as cpus. A job that splits its work (the candidate pass's spans, the gap scorers' processes,
# PyTorch's threads) takes two, whatever the machine: a neural model's weights depend on its
# threads, so that the same settings train the same model anywhere. `--set-threads RULE=N` gives
# a rule more.
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
