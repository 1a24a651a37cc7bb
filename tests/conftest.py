"""Shared helpers: run the real pipeline in a scratch folder, build KenLM once per session."""

import ast
import csv
import fcntl
import os
import re
import shutil
import subprocess
import time
import tomllib
import traceback
from collections import Counter
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
# Three workers share two cores (pytest.ini), so a job's threads rarely have a core each: torch's
# OpenMP threads, which spin while they wait for one another, then burn the cores the other
# workers need (a 600-step training under load: 45 CPU-s spinning, 15 waiting passively). Set
# before anything loads OpenMP; the pipeline's runs and their jobs inherit it.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from compare import SNAKEMAKE, checkout_env, jobs_due  # benchmarks/, on pytest.ini's pythonpath  # noqa: E402
from generate_corpus import MarkovSource, write_corpus  # noqa: E402
from sweep import sweep_config, sweep_corpus  # noqa: E402


# The test files that take longest (2 to 4 minutes each, with --durations), started first: each
# of the workers takes whole files (pytest.ini), and one of these started last would run alone
# at the end. The order of the others, and of the tests within each, stays pytest-randomly's.
LONGEST_FIRST = [
    "pipeline/test_settings.py",
    "pipeline/test_faults.py",
    "pipeline/test_reruns.py",
    "pipeline/test_slurm.py",
]


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    place = {f"tests/{name}": rank for rank, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: place.get(item.nodeid.split("::")[0], len(place)))


def locked():
    """uv.lock's packages ({name, version, source, ...}), the pipeline's own among them."""
    return tomllib.loads((REPO / "uv.lock").read_text())["package"]


def pins():
    """The pins the set-up installs from besides uv.lock, as written: requirements-kenlm.txt's
    lines (comments and blank lines dropped) and the installer the Makefile pins (UV)."""
    lines = (REPO / "requirements-kenlm.txt").read_text().splitlines()
    lines += re.findall(r"^UV := (\S+)$", (REPO / "Makefile").read_text(), re.MULTILINE)
    return [line.split("#")[0].strip() for line in lines if line.split("#")[0].strip()]


def run_pipeline(workdir, config, *targets, cores=2, check=True, wrapper=(), repo=REPO):
    """Write config.yaml into workdir (unless config is None) and run the real snakemake there;
    return the finished process.

    wrapper: a command that runs snakemake's own command line, for a test that changes its world.
    repo: the copy of the repository whose workflow runs, for a test that edits it.
    """
    workdir = Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if config is not None:
        (workdir / "config.yaml").write_text(yaml.safe_dump(config))
    cmd = [SNAKEMAKE, "--snakefile", str(Path(repo) / "Snakefile"), "--directory", str(workdir)]
    since = time.time_ns()
    done = subprocess.run(
        [*wrapper, *cmd, "--cores", str(cores), *targets], capture_output=True, text=True, env=repo_env(repo)
    )
    if check and done.returncode:
        raise AssertionError(f"snakemake failed ({done.returncode}):\n{done.stdout}\n{done.stderr[-6000:]}")
    # The jobs it ran, by rule, and their logs (none for a dry run).
    done.logs = logs_written_since(workdir, since)
    done.jobs = dict(Counter(log.split("/")[0] for log in done.logs))
    return done


# The jobs that make tables, plots, the submission and the run's record, each followed by the job that
# copies its files into place.
TABLE_JOBS = (
    "perplexity_table",
    "cost_table",
    "comparison_table",
    "document_tables",
    "plots",
    "gap_table",
    "gap_submission",
    "provenance",
)


def with_installs(jobs):
    """{rule: count} of jobs, with install_RULE as often as each table job among them."""
    return {**jobs, **{f"install_{rule}": count for rule, count in jobs.items() if rule in TABLE_JOBS}}


def jobs_planned(workdir, config, *args, repo=REPO):
    """{rule: count} of the jobs a run in workdir with config (written as its config.yaml, unless
    None) and these options would run now (compare.jobs_due reads them from Snakemake's --summary)."""
    if config is not None:
        (Path(workdir) / "config.yaml").write_text(yaml.safe_dump(config))
    return jobs_due(Path(repo) / "Snakefile", workdir, *args, env=repo_env(repo))


def repo_env(repo):
    """The environment of a snakemake that runs repo's workflow: none of its own for this
    checkout, whose package .venv holds (editable); a copy's own package first."""
    return None if Path(repo) == REPO else checkout_env(repo)


def demo_corpus(root, seed=7, train_sentences=6000, dev_sentences=600):
    """A demo-size corpus in the challenge's format from a Zipf-vocabulary Markov source."""
    source = MarkovSource(vocab_size=20000, successors=10, mix=0.5, end=0.06, zipf=1.0, seed=seed)
    write_corpus(root, source, train_sentences=train_sentences, dev_sentences=dev_sentences, seed=seed)
    return root


def logs_written_since(workdir, since_ns):
    """The logs (RULE/WILDCARDS.log, under logs/) of the jobs that ran in workdir since since_ns
    (a time.time_ns()): the run's own record of them, as every job writes its log."""
    logs = Path(workdir) / "logs"
    written = [path for path in logs.rglob("*") if path.is_file() and path.stat().st_mtime_ns > since_ns]
    return sorted(path.relative_to(logs).as_posix() for path in written)


def rule_blocks():
    """{rule name: the text of its definition} of every rule and checkpoint in workflow/rules."""
    rules = {}
    for path in sorted((REPO / "workflow/rules").glob("*.smk")):
        text = path.read_text()
        starts = list(re.finditer(r"^\s*(?:rule|checkpoint) (\w+):", text, re.M))
        for start, end in zip(starts, [*starts[1:], None]):
            rules[start.group(1)] = text[start.end() : end.start() if end else len(text)]
    return rules


def copy_of_repository(dest):
    """The repository's workflow, settings and tests, without what a set-up or a run made: for a
    test that edits the code."""
    made = shutil.ignore_patterns(".git", ".venv", "resources", "results", "logs", ".snakemake", "__pycache__")
    shutil.copytree(REPO, dest, ignore=made)
    return dest


# Targets of a run whose test reads a few of the results: what a target does not need (the report's
# other tables, its plots and provenance record, the gap task's jobs) is left out, 3 CPU-s and more
# a run. The perplexity table needs the models (but not the ARPA file of a model trained before
# keep_arpa was turned on: the default target alone asks for it). The per-document scores' tables
# (decades.tsv's job writes hardest.tsv too), the significance tests' and the gap task's are the
# others.
PERPLEXITY_TABLE = "results/tables/perplexity.tsv"
DOCUMENT_TABLES = "results/tables/decades.tsv"
COMPARISON_TABLE = "results/tables/comparison.tsv"
GAP_TABLE = "results/tables/gap.tsv"

# Where the pipeline's own build_kenlm rule puts KenLM's tools, relative to a run's folder.
KENLM_TOOLS = "resources/kenlm/kenlm-0.3.0-maxorder6/bin"


def built_once(tmp_path_factory, name, build):
    """The folder `name` that build(folder) fills, once per test run: with several workers
    (pytest-xdist), the first to ask builds it while the others wait, and all then read it. A
    test that changes what it holds works on a copy. A build that failed fails the others at
    once, with its error, rather than running again."""
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    root, failed = shared / name, shared / f"{name}.failed"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if failed.exists():
            raise RuntimeError(f"building the shared {name} failed in another worker:\n{failed.read_text()}")
        if not (root / ".built").exists():
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir()
            try:
                build(root)
            except BaseException:
                failed.write_text(traceback.format_exc())
                raise
            (root / ".built").touch()
    return root


@pytest.fixture(scope="session")
def kenlm_bin(tmp_path_factory):
    """KenLM's tools as the pipeline's own build_kenlm rule builds them: those of this checkout,
    which `make test` builds before the tests start (so that no test worker waits for it), or else
    built once per run."""
    if all((REPO / KENLM_TOOLS / tool).is_file() for tool in ("lmplz", "query", "build_binary")):
        return REPO / KENLM_TOOLS
    tools = [f"{KENLM_TOOLS}/{tool}" for tool in ("lmplz", "query", "build_binary")]
    return built_once(tmp_path_factory, "kenlm", lambda root: run_pipeline(root, {"orders": [3]}, *tools)) / KENLM_TOOLS


def read_table(workdir, name="perplexity.tsv"):
    with open(workdir / "results/tables" / name, newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


@pytest.fixture(scope="session")
def demo_run(tmp_path_factory, kenlm_bin):
    """The pipeline on a demo-size corpus with orders 3, 4, 5 and the default options, and its
    report (results/report.html). Read only."""

    def build(root):
        demo_corpus(root / "corpus")
        config = {"corpus": {"source": str(root / "corpus")}, "orders": [3, 4, 5], "kenlm": {"bin_dir": str(kenlm_bin)}}
        # Benchmark records with each job's resources (what it asked the scheduler for).
        run_pipeline(root / "work", config, "--benchmark-extended")
        done = run_pipeline(root / "work", config, "--report", "results/report.html")
        assert "Report created" in done.stderr, done.stderr[-3000:]

    return built_once(tmp_path_factory, "demo", build)


@pytest.fixture(scope="session")
def sweep_run(tmp_path_factory, kenlm_bin):
    """The demo sweep run locally; the SLURM test compares its tables with these. Read only."""
    return built_once(
        tmp_path_factory,
        "sweep",
        lambda root: run_pipeline(root / "work", sweep_config(sweep_corpus(root / "corpus"), kenlm_bin)),
    )


@pytest.fixture(scope="session")
def neural_run(tmp_path_factory, kenlm_bin):
    """A finished run with every kind of job: orders 3, the gap task and one small neural model.
    Read only: neural_run_copy gives a test its own copy."""

    def build(root):
        demo_corpus(root / "corpus", seed=9, train_sentences=800, dev_sentences=60)
        config = {
            "corpus": {"source": "../corpus"},
            "orders": [3],
            "kenlm": {"bin_dir": str(kenlm_bin)},
            "neural": {
                "small": {
                    "train": {
                        "layers": 1,
                        "width": 16,
                        "heads": 2,
                        "context": 32,
                        "vocab_size": 300,
                        "steps": 5,
                        "batch_size": 4,
                    }
                }
            },
        }
        run_pipeline(root / "work", config)

    return built_once(tmp_path_factory, "neural-run", build)


@pytest.fixture
def neural_run_copy(neural_run, tmp_path):
    """copy(): a copy of neural_run for one test to change, dates kept; its working folder."""

    def copy():
        shutil.copytree(neural_run, tmp_path / "run", symlinks=True)
        return tmp_path / "run/work"

    return copy


def benchmark_record(path):
    """The one row of a job's benchmark file (--benchmark-extended adds the job's resources, read
    here as the dict they are)."""
    with open(path, newline="") as handle:
        row = next(csv.DictReader(handle, delimiter="\t"))
    if "resources" in row:
        row["resources"] = ast.literal_eval(row["resources"])
    return row
