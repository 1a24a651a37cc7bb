"""A job that outlives its run. Snakemake's main process marks a job's outputs incomplete when the
job starts, and once it ends writes the job's benchmark and record (params, code, inputs) and
clears the marks. A main process killed while its jobs run does none of that: the next run would
take a finished model for an incomplete one and train it again (a whole sweep's training).

So a job whose outputs are decided by their paths and inputs alone (a model: its options are in
its name, its text and tools are inputs), finding at its end that no Snakemake process is among
its ancestors, does it itself: it writes its benchmark, clears its outputs' marks and drops their
old records, which would describe an earlier run of the job (without one, Snakemake goes by the
files' times). A job whose Snakemake lives does nothing: its Snakemake does it all."""

import contextlib
import datetime
import os
import resource
import time
from base64 import urlsafe_b64encode

from .atomic import atomic_open
from .processes import is_snakemake_main, process

STARTED = time.monotonic()


def keep_if_orphaned(snakemake, benchmark, log, records=".snakemake"):
    """At the end of a job: its benchmark, and its outputs' marks and records cleared, when no
    Snakemake process waits for it. Best effort: a job that finished never fails here."""
    if not orphaned():
        return
    try:
        record_benchmark(benchmark.format(**dict(snakemake.wildcards.items())))
        for folder in ("incomplete", "metadata"):
            clear_records(snakemake.output, os.path.join(records, folder))
        log.write("Snakemake's main process was gone: this job's outputs are marked complete.\n")
    except OSError as err:
        log.write(f"Snakemake's main process was gone, and marking this job's outputs complete failed: {err}\n")


def orphaned(pid=None):
    """Whether no ancestor of this process (or of pid) is a Snakemake process; False where /proc
    cannot tell, so that nothing is done there."""
    found = process(os.getpid() if pid is None else pid)
    while found is not None:
        parent = found[0]
        if parent <= 1:
            return True
        found = process(parent)
        if found is not None and is_snakemake_main(found[1]):
            return False
    return False


def record_benchmark(path):
    """The job's own figures in Snakemake's benchmark format. Peak memory: this process's and its
    largest child's, which understates two children running at once (lmplz and build_binary)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = process_seconds()
    figures = {
        "s": f"{seconds:.4f}",
        "h:m:s": str(datetime.timedelta(seconds=round(seconds))),
        "max_rss": f"{(own.ru_maxrss + children.ru_maxrss) / 1024:.2f}",
        **dict.fromkeys(["max_vms", "max_uss", "max_pss", "io_in", "io_out", "mean_load"], "NA"),
        "cpu_time": f"{own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime:.2f}",
    }
    with atomic_open(path) as out:
        out.write("\t".join(figures) + "\n" + "\t".join(figures.values()) + "\n")


def process_seconds():
    """Seconds since this process started (since this module was imported, without /proc)."""
    try:
        with open("/proc/self/stat") as stat:
            started = int(stat.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
        with open("/proc/uptime") as uptime:
            return float(uptime.read().split()[0]) - started
    except (OSError, ValueError):
        return time.monotonic() - STARTED


def clear_records(outputs, folder):
    """Remove Snakemake's file per output in folder: named by the output's path in URL-safe base64,
    in parts of NAME_MAX - 1 characters, all but the last a folder whose name starts with `@`."""
    if not os.path.isdir(folder):
        return
    room = (os.pathconf(folder, "PC_NAME_MAX") or 255) - 1
    for output in outputs:
        name = urlsafe_b64encode(str(output).encode()).decode()
        parts = [name[i : i + room] for i in range(0, len(name), room)]
        with contextlib.suppress(FileNotFoundError):
            os.remove(os.path.join(folder, *["@" + part for part in parts[:-1]], parts[-1]))
