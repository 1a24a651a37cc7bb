"""Parsing the workflow reads the config and wires the jobs, nothing more: Snakemake parses it for
a dry run, a lint, a report and again inside every cluster job, so a dry run starts no process
but those Snakemake starts for any workflow, and opens no network connection."""

import re
import subprocess

import pytest

from conftest import REPO, SNAKEMAKE, demo_corpus
from parse_cost import ONE_RULE

pytestmark = pytest.mark.pipeline

# The shipped config's corpus: a git URL whose newest commit nothing may look up while parsing.
UPSTREAM = "git://gonito.net/challenging-america-word-gap-prediction"


def traced_dry_run(workdir, *args):
    """(programs started, inet connections tried) by `snakemake -n` in workdir, watched by strace
    across every process it starts."""
    trace = workdir / "strace.txt"
    subprocess.run(
        ["strace", "-f", "-qq", "-e", "trace=execve,connect", "-o", str(trace), SNAKEMAKE, "-n", "--cores", "2", *args],
        cwd=workdir,
        capture_output=True,
        text=True,
        check=True,
    )
    lines = trace.read_text().splitlines()
    # Each program that started, but the first: snakemake itself.
    started = [
        " ".join(re.findall(r'"([^"]*)"', line.split("[", 1)[1].split("]", 1)[0]))
        for line in lines
        if "execve(" in line and line.rstrip().endswith("= 0")
    ][1:]
    # Name look-ups aside (port 53): Snakemake itself may resolve a name at start-up, as a
    # one-rule workflow shows; a connection to a host (git's 9418, https' 443) is what counts,
    # by where it goes.
    connections = {
        destination(line) for line in lines if "connect(" in line and "AF_INET" in line and "htons(53)" not in line
    }
    return sorted(started), connections


def destination(line):
    """host:port of a traced connect()."""
    port = re.search(r"htons\((\d+)\)", line)
    host = re.search(r'inet_(?:addr|pton)\((?:AF_INET6?, )?"([^"]+)"', line)
    return f"{host.group(1) if host else '?'}:{port.group(1) if port else '?'}"


def snakemake_alone(tmp_path):
    """What Snakemake itself starts and connects to for a workflow of one rule: its executor
    plugins look for their tools, and where SLURM is configured (a cluster's login node) its
    plugin may reach the controller as it starts."""
    base = tmp_path / "base"
    base.mkdir()
    (base / "Snakefile").write_text(ONE_RULE)
    return traced_dry_run(base)


def test_a_dry_run_starts_nothing_and_connects_nowhere(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=300, dev_sentences=30)
    baseline, reached = snakemake_alone(tmp_path)
    configs = {
        # A local corpus, the user's own KenLM (its query binary tells its maximum order), the gap
        # task (its budget check reads in.tsv.xz's index with xz) and a fraction.
        "local": f"corpus:\n  source: {corpus}\nkenlm:\n  bin_dir: {kenlm_bin}\ntrain_fraction: [0.5, 1.0]\n",
        # A git source without a commit (its newest commit is looked up by no parse).
        "git": f"corpus:\n  source: {UPSTREAM}\n",
    }
    for name, config in configs.items():
        work = tmp_path / name
        work.mkdir()
        (work / "config.yaml").write_text(config)
        started, connections = traced_dry_run(work, "--snakefile", str(REPO / "Snakefile"))
        # As sets: Snakemake's own look-ups may come once or twice a run.
        assert set(started) - set(baseline) == set(), (name, started, baseline)
        assert connections - reached == set(), (name, connections, reached)
        # Nothing written but Snakemake's own records.
        assert sorted(path.name for path in work.iterdir()) == [".snakemake", "config.yaml", "strace.txt"], name
