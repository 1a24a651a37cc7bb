"""Clean runs of the pipeline at one commit or another on one generated corpus: wall time, peak
memory, and when each train job ran with the memory it reserved.

    .venv/bin/python benchmarks/schedule.py --words 123700000 --commits ea9687e HEAD
    .venv/bin/python benchmarks/schedule.py --words 123700000 --commits HEAD --budget-mb 12800

Each commit runs from its own `git worktree` on the same corpus and KenLM tools (--kenlm-bin, or
the pipeline's own build), plain `snakemake --cores 8`, orders 3-5. The gap task, which commits
before it lack, is switched off where the commit knows it, so that every run does the same work.
"""

import argparse
import csv
import json
import re
import shutil
import time
from datetime import datetime
from pathlib import Path

from compare import SNAKEMAKE, kenlm_tools, machine, measured, worktree
from generate_corpus import generate

STAMP = re.compile(r"^\[(\w{3} \w{3} +\d+ \d\d:\d\d:\d\d \d{4})\]$")


def train_events(log_text):
    """[(event, model, mem_mb, seconds)] of the train jobs in the order Snakemake printed them:
    event "start" or "end", seconds from the log's first time stamp (None before any)."""
    events, jobs, first, now, current = [], {}, None, None, None
    for line in log_text.splitlines():
        line = line.strip()
        if match := STAMP.match(line):
            now = datetime.strptime(match.group(1), "%a %b %d %H:%M:%S %Y").timestamp()
            first = now if first is None else first
        elif line in ("rule train:", "localrule train:"):
            current = {}
        elif current is not None and line.startswith("jobid:"):
            jobs[int(line.split()[1])] = current
        elif current is not None and line.startswith("wildcards: model="):
            current["model"] = line.split("=", 1)[1]
        elif current is not None and line.startswith("resources:"):
            current["mem_mb"] = int(re.search(r"\bmem_mb=(\d+)", line).group(1))
            events.append(("start", current["model"], current["mem_mb"], _since(first, now)))
            current = None
        elif (match := re.match(r"Finished jobid: (\d+) \(Rule: train\)", line)) and int(match.group(1)) in jobs:
            job = jobs[int(match.group(1))]
            events.append(("end", job["model"], job["mem_mb"], _since(first, now)))
    return events


def _since(first, now):
    return None if now is None else now - first


def train_timeline(log_text):
    """[{model, mem_mb, start, end}] of the train jobs, in the order they started."""
    jobs = {}
    for event, model, mem_mb, seconds in train_events(log_text):
        jobs.setdefault(model, {"model": model, "mem_mb": mem_mb})[event] = seconds
    return list(jobs.values())


def run_commit(commit, corpus, bin_dir, orders, budget_mb, work):
    """A clean run of commit's pipeline; returns its cost, train timeline and cost table."""
    with worktree(commit, work / f"tree-{commit}") as (tree, sha):
        config = {"corpus": {"source": str(corpus)}, "orders": orders, "kenlm": {"bin_dir": str(bin_dir)}}
        if budget_mb:
            config["memory"] = {"budget_mb": budget_mb}
        if "gap:" in (tree / "config.yaml").read_text():
            config["gap"] = {"enabled": False}
        run_dir = work / f"run-{commit}"
        run_dir.mkdir(parents=True)
        (run_dir / "config.yaml").write_text(json.dumps(config))
        with open(run_dir / "snakemake.log", "w") as log:
            try:
                cost = measured(
                    [SNAKEMAKE, "--snakefile", str(tree / "Snakefile"), "--cores", "8"],
                    cwd=run_dir,
                    stdout=log,
                    stderr=log,
                )
                cost["finished"] = True
            except SystemExit as failed:
                cost = {"finished": False, "error": str(failed)}
        log_text = (run_dir / "snakemake.log").read_text()
        cost["killed_or_failed_jobs"] = log_text.count("Error in rule")
        table = run_dir / "results/tables/cost.tsv"
        rows = []
        if table.exists():
            with open(table) as handle:
                rows = list(csv.DictReader(handle, delimiter="\t"))
        return {"commit": sha, "cost": cost, "train": train_timeline(log_text), "cost_table": rows}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, required=True)
    parser.add_argument("--commits", nargs="+", required=True)
    parser.add_argument("--orders", type=int, nargs="+", default=[3, 4, 5])
    parser.add_argument("--budget-mb", type=int, default=None, help="memory.budget_mb (default: 80%% of memory)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--work", default="/tmp/lmgap-benchmark")
    parser.add_argument("--kenlm-bin", default=None)
    parser.add_argument("--keep", action="store_true", help="keep each run's folder (GBs of models)")
    args = parser.parse_args()
    bin_dir = kenlm_tools(args.kenlm_bin)
    corpus = Path(args.work) / f"corpus-{args.words}-seed{args.seed}"
    if not (corpus / "dev-0/expected.tsv").exists():
        generate(corpus, args.words, args.seed)
    print(f"machine: {machine()}; orders {args.orders}; budget {args.budget_mb or '80% of memory'}")
    for commit in args.commits:
        work = Path(args.work) / f"schedule-{time.strftime('%Y%m%dT%H%M%S')}"
        work.mkdir(parents=True)
        result = run_commit(commit, corpus, bin_dir, args.orders, args.budget_mb, work)
        result.update(words=args.words, budget_mb=args.budget_mb, machine=machine())
        print(json.dumps(result), flush=True)
        with open(Path(args.work) / "schedule.jsonl", "a") as out:
            out.write(json.dumps(result) + "\n")
        if not args.keep:
            shutil.rmtree(work)


if __name__ == "__main__":
    main()
