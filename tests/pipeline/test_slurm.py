"""The demo sweep on a real one-node SLURM cluster through profiles/slurm: every job but the
fetch and the small table steps runs as a SLURM job, and the tables are byte for byte the local
run's."""

import shutil
import subprocess

import pytest

from conftest import REPO, SNAKEMAKE, jobs_started
from one_node_slurm import SlurmUnavailable, jobs_recorded, one_node_slurm, snakemake_on_slurm

# What runs where Snakemake was started: the fetch (the network) and what reads small files.
LOCAL_RULES = {
    "all",
    "fetch_corpus",
    "kenlm_tools",
    "split_fingerprint",
    "corpus_manifest",
    "install_model",
    "perplexity_table",
    "cost_table",
    "comparison_table",
    "provenance",
    "document_tables",
    "plots",
}
TABLES = ["perplexity.tsv", "perplexity.md", "comparison.tsv", "comparison.md", "decades.tsv", "hardest.tsv"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    try:
        with one_node_slurm(tmp_path_factory.mktemp("slurm")) as env:
            yield env
    except SlurmUnavailable as err:
        pytest.fail(str(err))


def test_the_sweep_runs_on_slurm_with_the_local_tables(cluster, sweep_run, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(sweep_run / "work/config.yaml", work)
    done = subprocess.run(snakemake_on_slurm(SNAKEMAKE, work), env=cluster, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-6000:]
    assert "lmgap: cluster run" in done.stderr
    for table in TABLES:
        assert (work / "results/tables" / table).read_bytes() == (
            sweep_run / "work/results/tables" / table
        ).read_bytes()
    # SLURM's own record: every job but the local ones, under a comment naming its rule and
    # wildcards, with the cores and memory the workflow asked for.
    jobs = jobs_started(done)
    assert {job["rule"] for job in jobs if job["local"]} == LOCAL_RULES
    asked = {job["comment"]: (job["cpus_per_task"], job["mem_mb"] + "M") for job in jobs if not job["local"]}
    listed = jobs_recorded(cluster)
    records = {comment: (state, cpus, memory) for comment, state, cpus, memory, _, _ in listed}
    # Both texts rebuilt, the years, the sample, eight models trained and scored.
    assert len(listed) == len(records) == len(asked) == 2 + 1 + 1 + 8 + 8
    assert records == {comment: ("COMPLETED", *request) for comment, request in asked.items()}
    # Training asks for two cores (lmplz and build_binary) and the memory its model needs, far
    # below the node's and the local budget (80% of the machine's memory).
    train = [request for comment, request in asked.items() if comment.startswith("rule_train_")]
    assert len(train) == 8 and all(cpus == "2" and 32 <= int(memory[:-1]) < 2000 for cpus, memory in train)
    # More jobs at once than the submit host's two cores: its core count caps nothing here.
    spans = [(start, end) for *_, start, end in listed]
    assert max(sum(start <= moment < end for start, end in spans) for moment, _ in spans) > 2


def test_no_parse_removes_a_lock(sweep_run, tmp_path):
    # Parsing the workflow (a dry run, and a cluster job's parse in Snakemake's remote mode) leaves
    # .snakemake/locks alone: inside a cluster job the run that holds the lock is on another host.
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(sweep_run / "work/config.yaml", work)
    lock = work / ".snakemake/locks/0.input.lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("results\n")
    command = [SNAKEMAKE, "--snakefile", str(REPO / "Snakefile"), "--directory", str(work), "-n", "--cores", "1"]
    for mode in ([], ["--mode", "remote"]):
        subprocess.run([*command, *mode], capture_output=True, text=True, check=True)
        assert lock.read_text() == "results\n", mode
