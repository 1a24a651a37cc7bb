"""The machine's memory, as the run sizes its jobs by it."""

import os


def physical_memory_mb():
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**20


def default_budget_mb():
    """80% of physical memory: what one job may reserve unless memory.budget_mb says otherwise,
    and what `make run` gives all the jobs at once (--resources mem_mb)."""
    return int(physical_memory_mb() * 0.8)
