"""The demo sweep's orders and pruning, trained on a sample of the text, on a real one-node SLURM
cluster through profiles/slurm: every job but the fetch and the small table steps runs as a SLURM
job, and the tables are byte for byte a local run's."""

import json
import shutil
import subprocess
import time

import pytest
import yaml

from conftest import (
    COMPARISON_TABLE,
    DOCUMENT_TABLES,
    PERPLEXITY_TABLE,
    REPO,
    SNAKEMAKE,
    logs_written_since,
    run_pipeline,
)
from one_node_slurm import SlurmNotInstalled, SlurmUnavailable, jobs_recorded, one_node_slurm, snakemake_on_slurm

pytestmark = pytest.mark.pipeline

# What runs where Snakemake was started: the fetch (the network) and what reads small files.
LOCAL_RULES = {
    "all",
    "fetch_corpus",
    "kenlm_tools",
    "split_fingerprint",
    "corpus_manifest",
    "install_model",
    "model_fingerprint",
    "perplexity_table",
    "cost_table",
    "comparison_table",
    "provenance",
    "document_tables",
    "plots",
    *(
        f"install_{job}"
        for job in ("perplexity_table", "cost_table", "comparison_table", "document_tables", "plots", "provenance")
    ),
}
TABLES = ["perplexity.tsv", "perplexity.md", "comparison.tsv", "comparison.md", "decades.tsv", "hardest.tsv"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    try:
        with one_node_slurm(tmp_path_factory.mktemp("slurm")) as env:
            yield env
    except SlurmNotInstalled as err:
        # A machine without SLURM that cannot have it (no root, no package source): nothing to test.
        pytest.skip(str(err))
    except SlurmUnavailable as err:
        # Installed, yet it did not start: the set-up is at fault.
        pytest.fail(str(err))


def test_the_sweep_s_orders_and_pruning_run_on_slurm_with_the_local_tables(cluster, sweep_run, tmp_path):
    # Four models of one sampled fraction: each wave of SLURM jobs (the text, the sample, the
    # models, their scores) waits for the executor's status checks, and the sweep's second
    # fraction would add two waves of the same jobs.
    config = {**yaml.safe_load((sweep_run / "work/config.yaml").read_text()), "train_fraction": [0.5]}
    # The local run makes only the tables compared below.
    local = run_pipeline(tmp_path / "local", config, PERPLEXITY_TABLE, COMPARISON_TABLE, DOCUMENT_TABLES)
    assert local.jobs["train"] == 4
    work = tmp_path / "work"
    work.mkdir()
    shutil.copy(tmp_path / "local/config.yaml", work)
    since = time.time_ns()
    done = subprocess.run(snakemake_on_slurm(SNAKEMAKE, work), env=cluster, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-6000:]
    assert "lmgap: a job reserves at most" in done.stderr
    for table in TABLES:
        assert (work / "results/tables" / table).read_bytes() == (
            tmp_path / "local/results/tables" / table
        ).read_bytes()
    # SLURM's own record: every job but the local ones, under a comment naming its rule and
    # wildcards; the run's logs, every job's.
    listed = jobs_recorded(cluster)
    records = {comment: (state, cpus, memory) for comment, state, cpus, memory, _, _ in listed}
    on_slurm = {comment.split("_wildcards_")[0].removeprefix("rule_") for comment in records}
    assert {log.split("/")[0] for log in logs_written_since(work, since)} - on_slurm == LOCAL_RULES - {"all"}
    # Both texts rebuilt, the years, the sample, the run's vocabulary, four models trained and
    # scored, all completed.
    assert len(listed) == len(records) == 2 + 1 + 1 + 1 + 4 + 4
    assert {state for state, _, _ in records.values()} == {"COMPLETED"}
    # Every job asks for its threads as cores, one here, and training for the memory the job
    # reserved for its model (its own record), far below the node's and the local budget.
    for comment, (_, cpus, memory) in records.items():
        if comment.startswith("rule_train_"):
            model = comment.removeprefix("rule_train_wildcards_")
            usage = json.loads((work / f"results/models/{model}/usage.json").read_text())
            assert memory == f"{usage['memory']['reserved_mb']}M" and 32 <= int(memory[:-1]) < 2000
        assert cpus == "1", comment
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
