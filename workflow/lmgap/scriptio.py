"""What every `script:` entry point shares: the log, errors shown to the user, and the word that
its outputs are complete."""

import contextlib
import datetime
import os
import resource
import sys
import time
import traceback
from base64 import urlsafe_b64encode

from .atomic import atomic_open
from .corpus.fetch import corpus_root
from .errors import LmgapError

# Each timed rule's benchmark file, named here once: the rules declare it, and the job writes a
# first record of its own (see record_benchmark).
BENCHMARKS = {
    "build_kenlm": "results/benchmarks/build_kenlm/maxorder{max_order}.tsv",
    "rebuild_text": "results/benchmarks/rebuild_text/{split}.tsv",
    "train": "results/benchmarks/train/{model}.tsv",
    "query": "results/benchmarks/query/{model}/{split}.tsv",
    "train_neural": "results/benchmarks/train_neural/{neural}.tsv",
    "score_neural": "results/benchmarks/score_neural/{neural}/{split}.tsv",
    "gap_candidates": "results/benchmarks/gap_candidates/{split}.tsv",
    "gap_logprobs": "results/benchmarks/gap_logprobs/{model}/{split}.tsv",
    "gap_neural": "results/benchmarks/gap_neural/{neural}/{split}.tsv",
    "gap_masked": "results/benchmarks/gap_masked/{neural}/{split}.tsv",
}
STARTED = time.monotonic()


def run(snakemake, main):
    """Call main(log) with the job's log open; show LmgapError messages on the console too."""
    console = sys.stderr
    with open(snakemake.log[0], "w") as log:
        sys.stderr = log
        try:
            main(log)
            if snakemake.rule in BENCHMARKS:
                record_benchmark(BENCHMARKS[snakemake.rule].format(**dict(snakemake.wildcards.items())))
            clear_incomplete_marks(snakemake.output)
        except LmgapError as err:
            log.write(f"\nERROR: {err}\n")
            print(f"\nlmgap error in rule {snakemake.rule}: {err}\n", file=console)
            sys.exit(1)
        except Exception:
            traceback.print_exc(file=log)
            raise
        finally:
            sys.stderr = console


def record_benchmark(path):
    """The job's own figures in a Snakemake benchmark file, written before it says its outputs are
    complete. The main process measures the job too and writes over this record once the job ends;
    when the main process was killed, this one keeps the finished job from counting as missing
    output. Peak memory: this process's plus its largest child's, a bound on the two together."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = _process_seconds()
    figures = {
        "s": f"{seconds:.4f}",
        "h:m:s": str(datetime.timedelta(seconds=round(seconds))),
        "max_rss": f"{(own.ru_maxrss + children.ru_maxrss) / 1024:.2f}",
        **dict.fromkeys(["max_vms", "max_uss", "max_pss", "io_in", "io_out", "mean_load"], "NA"),
        "cpu_time": f"{own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime:.2f}",
    }
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with atomic_open(path) as out:
        out.write("\t".join(figures) + "\n" + "\t".join(figures.values()) + "\n")


def _process_seconds():
    """Seconds since this process started (since this module was imported, without /proc)."""
    try:
        with open("/proc/self/stat") as stat:
            started = int(stat.read().rsplit(")", 1)[1].split()[19]) / os.sysconf("SC_CLK_TCK")
        with open("/proc/uptime") as uptime:
            return float(uptime.read().split()[0]) - started
    except (OSError, ValueError):
        return time.monotonic() - STARTED


def clear_incomplete_marks(outputs, folder=".snakemake/incomplete"):
    """Say that this job's outputs are complete, as the main process would once the job ends.
    A main process killed while its jobs run never does: its next run would see the marks and
    redo the jobs that finished (a whole sweep's training). The marks are Snakemake's: one file
    per output, named by the output's path in URL-safe base64, in NAME_MAX-long parts."""
    if not os.path.isdir(folder):
        return
    room = (os.pathconf(folder, "PC_NAME_MAX") or 256) - 1
    for output in outputs:
        name = urlsafe_b64encode(str(output).encode()).decode()
        parts = [name[i : i + room] for i in range(0, len(name), room)]
        mark = os.path.join(folder, *["@" + part for part in parts[:-1]], parts[-1])
        with contextlib.suppress(FileNotFoundError):
            os.remove(mark)


def split_dir(snakemake, split=None):
    """A split's folder in the corpus (the job's `split` wildcard unless given). It comes from the
    config, not from an input or a parameter: where the corpus lies determines no result, so
    moving it must rerun nothing."""
    return corpus_root(snakemake.config["corpus"]) / (split or snakemake.wildcards.split)
