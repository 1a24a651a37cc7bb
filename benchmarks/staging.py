"""What staging the tables costs a run: the install jobs that copy each table and plot job's files
from results/.staged/ into place, timed on a finished run.

    .venv/bin/python benchmarks/staging.py RUN [--repeat 5]

RUN: a folder a pipeline run finished in (`make demo` leaves one at the repository's top;
benchmarks/gap.py speed keeps one). Each repeat times, with the same command line as the main job:
a run with nothing to do (the parse, the DAG, the checks), and a run of every install job alone
(`--forcerun` of the install rules, which nothing else reads). The difference is what the install
jobs add to a run that rewrites every table; the bytes are what they copy.
"""

import argparse
import statistics
from pathlib import Path

from compare import MAIN_JOB, REPO, machine, measured


def install_rules(run):
    """The install jobs the run's config has, from the staged folders it wrote."""
    rules = ["install_perplexity_table", "install_cost_table", "install_comparison_table"]
    rules += ["install_document_tables", "install_plots"]
    if (run / "results/.staged/tables/gap.tsv").exists():
        rules.append("install_gap_table")
    return rules


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    run = args.run.resolve()
    command = [*MAIN_JOB, "--snakefile", str(REPO / "Snakefile"), "--quiet", "all"]
    rules = install_rules(run)
    staged = sum(path.stat().st_size for path in (run / "results/.staged").rglob("*") if path.is_file())
    idle, installs = [], []
    for _ in range(args.repeat):
        idle.append(measured(command, cwd=run)["wall_s"])
        installs.append(measured([*command, "--forcerun", *rules], cwd=run)["wall_s"])
    idle_s, installs_s = statistics.median(idle), statistics.median(installs)
    print(f"{machine()}; {run}; medians of {args.repeat}")
    print("| Run | Wall (s) |")
    print("|---|---:|")
    print(f"| nothing to do | {idle_s:.2f} |")
    print(f"| the {len(rules)} install jobs ({staged / 1e6:.2f} MB copied) | {installs_s:.2f} |")
    print(f"| what they add | {installs_s - idle_s:.2f} |")


if __name__ == "__main__":
    main()
