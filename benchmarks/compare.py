"""The pipeline against the hand recipe on a generated corpus: time, CPU, memory, identical numbers.

    .venv/bin/python benchmarks/compare.py --words 10000000 --orders 3 4 5
    .venv/bin/python benchmarks/compare.py --words 1000000 4000000 16000000 64000000 --pipeline-only

KenLM's tools come from the pipeline's own build (resources/kenlm/, built first if missing) or
--kenlm-bin, as they are after the first run on a machine; nothing else is reused: each run
starts from an empty folder. Corpora are generated once into --work and kept between calls.
"""

import argparse
import contextlib
import csv
import io
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

import hand_recipe  # noqa: E402
from generate_corpus import generate  # noqa: E402
from lmgap.ngram.output import parse_summary  # noqa: E402
from lmgap.corpus.rebuild import rebuild_split  # noqa: E402
from lmgap.machine import default_budget_mb  # noqa: E402

SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
# The main job as `make run` starts it: without --resources, Snakemake would start jobs by their
# threads alone, whatever memory each reserves.
MAIN_JOB = [SNAKEMAKE, "--cores", "8", "--resources", f"mem_mb={default_budget_mb()}"]


class TreeMemory(threading.Thread):
    """Peak of the summed resident memory of a process and all its descendants, sampled."""

    def __init__(self, pid, interval=0.05):
        super().__init__(daemon=True)
        self.pid, self.interval, self.peak_mb, self.running = pid, interval, 0.0, True

    def run(self):
        while self.running:
            self.peak_mb = max(self.peak_mb, tree_rss_mb(self.pid))
            time.sleep(self.interval)


def jobs_due(snakefile, workdir, *args, env=None):
    """{rule: count} of the jobs a run of snakefile in workdir would run now (after a run: what it
    left undone), from Snakemake's --summary: one row per output, each job's known by its log file
    (by its outputs' folder where it never ran: no log is known). env: snakemake's environment."""
    cmd = [SNAKEMAKE, "--snakefile", str(snakefile), "--directory", str(workdir), "--summary", *args]
    done = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
    rows = csv.DictReader(io.StringIO(done.stdout[done.stdout.index("output_file\t") :]), delimiter="\t")
    due = {
        (row["rule"], row["log-file(s)"] if row["log-file(s)"] != "-" else os.path.dirname(row["output_file"]))
        for row in rows
        if row["plan"] != "no update"
    }
    return dict(Counter(rule for rule, _ in due))


def tree_rss_mb(root):
    children = {}
    rss = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(entry))
            rss[int(entry)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError):
            continue
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, []))
    return total / 2**20


def measured(cmd, **kwargs):
    """Run cmd; return wall seconds, CPU seconds of all descendants, peak tree memory (MB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    proc = subprocess.Popen(cmd, **kwargs)
    monitor = TreeMemory(proc.pid)
    monitor.start()
    proc.wait()
    wall = time.monotonic() - start
    monitor.running = False
    monitor.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode:
        raise SystemExit(f"{cmd[:3]}... failed with exit {proc.returncode}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall_s": wall, "cpu_s": cpu, "peak_mb": monitor.peak_mb}


def timed_hand_recipe(corpus, bin_dir, orders, work):
    """The seed recipe as a person types it, order after order; returns cost and query summaries."""
    work.mkdir(parents=True)
    lines = ["set -euo pipefail"]
    for order in orders:
        lines += [
            hand_recipe.rebuild_command(corpus / "train", "train.txt"),
            hand_recipe.lmplz_command(bin_dir / "lmplz", order, "train.txt", f"model{order}.arpa")
            + f" 2> lmplz{order}.log",
            hand_recipe.rebuild_command(corpus / "dev-0", "dev-0.txt"),
            f"{hand_recipe.query_command(bin_dir / 'query', f'model{order}.arpa', 'dev-0.txt')} > query{order}.txt "
            f"2> query{order}.log",
        ]
    (work / "recipe.sh").write_text("\n".join(lines) + "\n")
    cost = measured(["bash", "recipe.sh"], cwd=work)
    numbers = {order: parse_summary((work / f"query{order}.txt").read_text()) for order in orders}
    return cost, numbers


def pipeline(corpus, bin_dir, orders, work):
    """A clean run of the pipeline as `make run` starts it: the jobs together within 80% of memory."""
    work.mkdir(parents=True)
    config = {"corpus": {"source": str(corpus)}, "orders": list(orders), "kenlm": {"bin_dir": str(bin_dir)}}
    # The hand recipe computes perplexities only; the gap task's own cost is gap.py's to measure.
    config["gap"] = {"enabled": False}
    (work / "config.yaml").write_text(json.dumps(config))
    with open(work / "snakemake.log", "w") as log:
        cost = measured([*MAIN_JOB, "--snakefile", str(REPO / "Snakefile")], cwd=work, stdout=log, stderr=log)
    # KenLM's own CPU (lmplz and build_binary, from wait4 in each train job): the part no
    # scheduling can remove, so cost["kenlm_cpu_s"] / cores bounds the pipeline's wall time.
    with open(work / "results/tables/cost.tsv") as table:
        rows = list(csv.DictReader(table, delimiter="\t"))
    cost["kenlm_cpu_s"] = sum(float(row["lmplz_cpu_seconds"]) + float(row["build_binary_cpu_seconds"]) for row in rows)
    numbers = {}
    with open(work / "results/tables/perplexity.tsv") as table:
        for row in csv.DictReader(table, delimiter="\t"):
            numbers[int(row["order"])] = {
                "perplexity_including_oovs": float(row["perplexity_including_oovs"]),
                "perplexity_excluding_oovs": float(row["perplexity_excluding_oovs"]),
                "oovs": int(row["oovs"]),
                "tokens": int(row["tokens"]),
            }
    return cost, numbers


def rebuild_against_xzcat(corpus, work):
    """Seconds for the pipeline's rebuild of train and for a bare xzcat of its in.tsv.xz."""
    start = time.monotonic()
    subprocess.run(["xzcat", str(corpus / "train/in.tsv.xz")], stdout=subprocess.DEVNULL, check=True)
    xzcat = time.monotonic() - start
    start = time.monotonic()
    rebuild_split(corpus / "train", work / "rebuild-train.txt")
    rebuild = time.monotonic() - start
    (work / "rebuild-train.txt").unlink()
    return {"xzcat_s": xzcat, "rebuild_s": rebuild, "ratio": rebuild / xzcat}


@contextlib.contextmanager
def worktree(commit, folder):
    """A checkout of commit at folder (git worktree), removed afterwards; yields (path, short sha)."""
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", str(folder), commit], check=True, capture_output=True
    )
    try:
        sha = subprocess.run(
            ["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
        yield Path(folder), sha
    finally:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(folder)], check=True)


def checkout_env(tree):
    """The environment of a snakemake that runs the workflow of the checkout at tree: its own lmgap
    package first on PYTHONPATH (.venv's editable install is the main checkout's), for its jobs too."""
    return {**os.environ, "PYTHONPATH": str(Path(tree) / "workflow")}


def kenlm_tools(given):
    if given:
        return Path(given)
    bin_dir = REPO / "resources/kenlm/kenlm-0.3.0-maxorder6/bin"
    if not (bin_dir / "query").exists():
        tools = [f"resources/kenlm/kenlm-0.3.0-maxorder6/bin/{tool}" for tool in ("lmplz", "query", "build_binary")]
        subprocess.run([SNAKEMAKE, "--cores", "2", *tools], cwd=REPO, check=True)
    return bin_dir


def machine():
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores, {memory:.1f} GiB"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, nargs="+", required=True)
    parser.add_argument("--orders", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", default="/tmp/lmgap-benchmark")
    parser.add_argument("--kenlm-bin", default=None)
    parser.add_argument("--pipeline-only", action="store_true", help="skip the hand recipe")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each, for medians")
    parser.add_argument("--keep", action="store_true", help="keep each run's folder (GBs of models)")
    args = parser.parse_args()
    bin_dir = kenlm_tools(args.kenlm_bin)
    print(f"machine: {machine()}; orders {args.orders}")
    for words in args.words:
        corpus = Path(args.work) / f"corpus-{words}-seed{args.seed}"
        if not (corpus / "dev-0/expected.tsv").exists():
            generate(corpus, words, args.seed)
        budget = default_budget_mb()
        report = {"words": words, "orders": args.orders, "machine": machine(), "memory_budget_mb": budget, "runs": []}
        for attempt in range(args.repeat):
            # Alternate the two, so that a slow spell of a shared machine hits both alike.
            run_dir = Path(args.work) / f"run-{words}-{time.strftime('%Y%m%dT%H%M%S')}-{attempt}"
            run_dir.mkdir(parents=True)
            run = {"rebuild": rebuild_against_xzcat(corpus, run_dir)}
            run["pipeline"], piped = pipeline(corpus, bin_dir, args.orders, run_dir / "pipeline")
            if not args.pipeline_only:
                run["hand"], hand = timed_hand_recipe(corpus, bin_dir, args.orders, run_dir / "hand")
                run["identical"] = hand == piped
                run["wall_ratio"] = run["pipeline"]["wall_s"] / run["hand"]["wall_s"]
            report["runs"].append(run)
            print(json.dumps(run), flush=True)
            if not args.keep:
                # Each run leaves GBs of models and ARPA files; repeated runs would fill the disk.
                shutil.rmtree(run_dir)
        report["median"] = medians(report["runs"])
        print(json.dumps(report["median"], indent=1))
        with open(Path(args.work) / "results.jsonl", "a") as out:
            out.write(json.dumps(report) + "\n")


def medians(runs):
    """The median of every measured figure over the runs; identical only if it held every time."""
    out = {}
    for key in ("rebuild", "pipeline", "hand"):
        if key in runs[0]:
            out[key] = {name: statistics.median(run[key][name] for run in runs) for name in runs[0][key]}
    if "hand" in runs[0]:
        out["wall_ratio"] = statistics.median(run["wall_ratio"] for run in runs)
        out["identical"] = all(run["identical"] for run in runs)
    return out


if __name__ == "__main__":
    main()
