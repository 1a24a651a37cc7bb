"""`--cores N` and `--resources mem_mb=N`: the jobs at once, the memory each reserves and the -S
each lmplz gets."""

import json
import re

import pytest

from conftest import PERPLEXITY_TABLE, demo_corpus, run_pipeline
from schedule import train_timeline

pytestmark = pytest.mark.pipeline


def physical_mb_from_meminfo():
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) // 1024
    raise AssertionError("no MemTotal in /proc/meminfo")


def test_cores_and_the_budget_keep_jobs_and_measured_memory_within_them(tmp_path, kenlm_bin):
    demo_corpus(tmp_path / "corpus", seed=11, dev_sentences=300)
    budget = 1500
    # Only the train jobs are measured: the gap task's jobs would only compete for the budget.
    config = {
        "corpus": {"source": str(tmp_path / "corpus")},
        "orders": [3, 4, 5],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
        # What `make run` gives: no job reserves more than all may take together.
        "memory": {"budget_mb": budget},
    }
    work = tmp_path / "work"
    # Two cores: a train job's one thread each must hold the three train jobs, all ready at once,
    # to two at a time, where the budget lets two run.
    cores = 2
    done = run_pipeline(work, config, PERPLEXITY_TABLE, "--resources", f"mem_mb={budget}", cores=cores)
    assert "lmgap: a job reserves at most 1,500 MB (memory.budget_mb" in done.stderr

    # What each train job's lmplz and build_binary used at their peaks, measured by wait4.
    used, reserved = {}, {}
    for model in ("o3", "o4", "o5"):
        usage = json.loads((work / f"results/models/{model}/usage.json").read_text())
        used[model] = usage["lmplz"]["peak_rss_mb"] + usage["build_binary"]["peak_rss_mb"]
        command = (work / f"logs/train/{model}.log").read_text().splitlines()[0]
        lmplz_s = int(re.search(r" -S (\d+)M ", command).group(1))
        assert 32 <= lmplz_s < budget
        # The job's record of its reservation: the -S it gave, the model it estimated before
        # lmplz ran, above KenLM's size of the model built and build_binary's peak.
        memory = usage["memory"]
        assert memory["lmplz_s_mb"] == lmplz_s
        assert memory["binary_model_mb"] < usage["build_binary"]["peak_rss_mb"] <= memory["binary_estimate_mb"]
        reserved[model] = memory["reserved_mb"]

    running, most = {}, 0
    # (event, model, mem_mb) in time order, from each job's own record of when it ran (an end
    # before a start at the same moment: one job's end lets the next one start).
    timeline = train_timeline(work)
    events = sorted(
        [(job["start"], 1, "start", job["model"], job["mem_mb"]) for job in timeline]
        + [(job["end"], 0, "end", job["model"], job["mem_mb"]) for job in timeline]
    )
    events = [event[2:] for event in events]
    assert sorted(model for event, model, _ in events if event == "start") == ["o3", "o4", "o5"]
    for event, model, mem_mb in events:
        if event == "end":
            del running[model]
            continue
        running[model] = mem_mb
        most = max(most, len(running))
        # --cores 2 never runs more train jobs than two.
        assert len(running) <= cores
        # Reserved and measured memory of the jobs running together both stay within the budget.
        assert sum(running.values()) <= budget
        assert sum(used[name] for name in running) <= budget, (running, used)
    # As many at once as the cores and the budget allow: two where the two smallest fit it.
    smallest = sorted(reserved.values())[:2]
    assert most == (2 if sum(smallest) <= budget else 1), (most, reserved)
    assert {model: mem_mb for _, model, mem_mb in events} == reserved
    for model, mem_mb in reserved.items():
        assert used[model] <= mem_mb, (model, used[model], mem_mb)


def test_a_job_reserves_at_most_80_percent_of_memory_and_a_budget_above_it_is_warned_about(tmp_path):
    # Said when the run starts (onstart), before its first job: the fetch alone is run.
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=200, dev_sentences=20)
    physical = physical_mb_from_meminfo()
    config = {"corpus": {"source": str(corpus)}, "orders": [3]}
    fetched = "results/corpus/fetched.json"
    done = run_pipeline(tmp_path / "default", config, fetched)
    assert f"lmgap: a job reserves at most {int(physical * 0.8):,} MB" in done.stderr
    assert "lmgap warning" not in done.stdout + done.stderr
    above = run_pipeline(tmp_path / "above", {**config, "memory": {"budget_mb": 4 * physical}}, fetched)
    assert (
        f"lmgap warning: memory.budget_mb, {4 * physical:,} MB, is above this machine's {physical:,} MB of memory"
    ) in above.stderr
    assert f"lmgap: a job reserves at most {4 * physical:,} MB" in above.stderr
