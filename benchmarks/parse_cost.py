"""What parsing the workflow costs, at one commit or another: the CPU time of a dry run and of the
parse a cluster job makes before it runs (Snakemake's remote mode), on one finished demo run,
beside Snakemake's own start-up (a dry run of a one-rule workflow).

    .venv/bin/python benchmarks/parse_cost.py --commits 4202369 HEAD

Each commit runs from its own `git worktree`; a demo-size corpus and the user's KenLM tools
(--kenlm-bin, or the pipeline's own build), orders 3-5 and the gap task, are run to the end once
per commit, then each parse is timed --repeats times (CPU seconds of snakemake and every process
it starts, user + system; the median is printed).
"""

import argparse
import json
import resource
import statistics
import subprocess
import tempfile
from pathlib import Path

from compare import SNAKEMAKE, checkout_env, kenlm_tools, machine, worktree
from generate_corpus import generate

# A workflow of one rule: what Snakemake itself costs and starts, whatever the workflow.
ONE_RULE = 'rule all:\n    output:\n        "x",\n    shell:\n        "touch {output}"\n'


def cpu_seconds(cmd, cwd, env):
    """CPU seconds (user + system) of a command and its children, which must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def parse_costs(commit, corpus, bin_dir, repeats, work):
    with worktree(commit, work / f"tree-{commit}") as (tree, sha):
        run_dir = work / f"run-{sha}"
        run_dir.mkdir()
        config = {"corpus": {"source": str(corpus)}, "orders": [3, 4, 5], "kenlm": {"bin_dir": str(bin_dir)}}
        (run_dir / "config.yaml").write_text(json.dumps(config))
        snakemake, env = [SNAKEMAKE, "--snakefile", str(tree / "Snakefile")], checkout_env(tree)
        subprocess.run([*snakemake, "--cores", "2"], cwd=run_dir, check=True, capture_output=True, env=env)
        commands = {
            "dry run (snakemake -n)": [*snakemake, "-n", "--cores", "2"],
            # What a SLURM job step runs first: the workflow parsed again, for the one job it runs.
            "cluster job's parse (--mode remote)": [
                *snakemake,
                "-n",
                "--cores",
                "1",
                "--mode",
                "remote",
                "--target-jobs",
                "query:model=o5,split=dev-0",
            ],
        }
        return sha, {
            name: statistics.median(cpu_seconds(cmd, run_dir, env) for _ in range(repeats))
            for name, cmd in commands.items()
        }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commits", nargs="+", required=True)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--kenlm-bin", default=None)
    args = parser.parse_args()
    bin_dir = kenlm_tools(args.kenlm_bin)
    with tempfile.TemporaryDirectory(prefix="lmgap-parse-") as work:
        work = Path(work)
        generate(work / "corpus", 1_000_000, seed=1)
        print(f"{machine()}; CPU seconds, median of {args.repeats}")
        (work / "alone").mkdir()
        (work / "alone/Snakefile").write_text(ONE_RULE)
        alone = statistics.median(
            cpu_seconds([SNAKEMAKE, "-n", "--cores", "2"], work / "alone", None) for _ in range(args.repeats)
        )
        print(f"-\tSnakemake alone (a one-rule workflow, -n)\t{alone:.2f}")
        for commit in args.commits:
            sha, costs = parse_costs(commit, work / "corpus", bin_dir, args.repeats, work)
            for name, seconds in costs.items():
                print(f"{sha}\t{name}\t{seconds:.2f}")


if __name__ == "__main__":
    main()
