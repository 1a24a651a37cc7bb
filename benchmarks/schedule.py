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
import shutil
import subprocess
import time
from pathlib import Path

from compare import SNAKEMAKE, checkout_env, jobs_due, kenlm_tools, machine, measured, worktree

from lmgap.machine import default_budget_mb
from generate_corpus import generate


def train_timeline(run_dir):
    """[{model, mem_mb, start, end}] of a run's train jobs in the order they started, from each
    model's own record (usage.json): the memory its job reserved and when it ran, in seconds from
    the first start (none for a commit whose train jobs kept no such record)."""
    jobs = []
    for path in sorted(Path(run_dir).glob("results/models/*/usage.json")):
        usage = json.loads(path.read_text())
        if "job" in usage:
            jobs.append({"model": path.parent.name, "mem_mb": usage["memory"]["reserved_mb"], **usage["job"]})
    first = min((job["started"] for job in jobs), default=0)
    return [
        {"model": job["model"], "mem_mb": job["mem_mb"], "start": job["started"] - first, "end": job["ended"] - first}
        for job in sorted(jobs, key=lambda job: job["started"])
    ]


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
                # As `make run` runs it: the jobs at once within the budget.
                budget = budget_mb or default_budget_mb()
                cost = measured(
                    [
                        SNAKEMAKE,
                        "--snakefile",
                        str(tree / "Snakefile"),
                        "--cores",
                        "8",
                        "--resources",
                        f"mem_mb={budget}",
                    ],
                    cwd=run_dir,
                    env=checkout_env(tree),
                    stdout=log,
                    stderr=log,
                )
                cost["finished"] = True
            except SystemExit as failed:
                cost = {"finished": False, "error": str(failed)}
        # Jobs that failed or were killed, and those they kept from starting (None where even the
        # summary fails, so that the next commit still runs).
        try:
            cost["jobs_left_due"] = sum(jobs_due(tree / "Snakefile", run_dir, env=checkout_env(tree)).values())
        except subprocess.CalledProcessError:
            cost["jobs_left_due"] = None
        table = run_dir / "results/tables/cost.tsv"
        rows = []
        if table.exists():
            with open(table) as handle:
                rows = list(csv.DictReader(handle, delimiter="\t"))
        return {"commit": sha, "cost": cost, "train": train_timeline(run_dir), "cost_table": rows}


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
