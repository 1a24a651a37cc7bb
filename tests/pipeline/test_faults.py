"""Interrupted runs finish on the next try; configured values never reach a shell."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest
import yaml

from conftest import (
    PERPLEXITY_TABLE,
    REPO,
    SNAKEMAKE,
    demo_corpus,
    jobs_planned,
    run_pipeline,
)
from lmgap.atomic import atomic_open
from lmgap.corpus.rebuild import rebuild_split
from lmgap.errors import LmgapError
from lmgap.ngram.run import train

pytestmark = pytest.mark.pipeline

FULL_DISK_SOURCE = REPO / "tests/data/full_disk.c"


def running_in(workdir, program):
    """The ids of the processes in workdir whose command line names program."""
    return [
        process.pid
        for process in psutil.process_iter(["cmdline", "cwd"])
        if process.info["cwd"] == str(workdir) and any(program in arg for arg in process.info["cmdline"] or [])
    ]


def slow_lmplz_tools(folder, kenlm_bin, seconds):
    """KenLM's tools, lmplz made to wait before it trains (not when only asked its version)."""
    folder.mkdir()
    for tool in ("query", "build_binary"):
        (folder / tool).symlink_to(kenlm_bin / tool)
    lmplz = folder / "lmplz"
    lmplz.write_text(
        f'#!/bin/sh\ncase " $* " in *" --text "*) sleep {seconds};; esac\nexec {kenlm_bin / "lmplz"} "$@"\n'
    )
    lmplz.chmod(0o755)
    return folder


def test_sigkill_during_lmplz_then_rerun_gives_identical_tables(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", seed=8, train_sentences=400, dev_sentences=30)
    config = {
        "corpus": {"source": str(corpus)},
        "orders": [3, 5],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "lmplz": {"discount_fallback": True},
    }
    # The clean run makes only the files compared below.
    run_pipeline(tmp_path / "clean", config, PERPLEXITY_TABLE, "results/gap/both/o5/dev-0/out.tsv")

    # lmplz waits a few seconds before it trains: the run is killed while it works.
    config = {**config, "kenlm": {"bin_dir": str(slow_lmplz_tools(tmp_path / "slow", kenlm_bin, 3))}}
    work = (tmp_path / "killed").resolve()
    work.mkdir()
    (work / "config.yaml").write_text(yaml.safe_dump(config))
    run = subprocess.Popen(
        [SNAKEMAKE, "--snakefile", str(REPO / "Snakefile"), "--cores", "2"],
        cwd=work,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not running_in(work, "lmplz"):
        assert run.poll() is None and time.monotonic() < deadline, "lmplz never started"
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGKILL)
    run.wait()
    assert not (work / "results/tables/perplexity.tsv").exists()

    # The killed run's lock stays: Snakemake's own message names the fix, which the README gives.
    locked = run_pipeline(work, config, check=False)
    assert locked.returncode != 0 and "--unlock" in locked.stdout + locked.stderr
    run_pipeline(work, config, "--unlock")
    run_pipeline(work, config)
    for table in ("tables/perplexity.tsv", "tables/perplexity.md", "gap/both/o5/dev-0/out.tsv"):
        assert (work / "results" / table).read_bytes() == (tmp_path / "clean/results" / table).read_bytes()
    assert not [p for p in (work / "results").rglob("*") if ".tmp-" in p.name]
    assert not list((work / "results/tmp/lmplz").iterdir())


# A tool that fails at one step of a train job, and only there (the check of the user's tools
# runs them too): lmplz as it trains, build_binary as it reads lmplz's model, or lmplz without the
# line of its log that the job's records need (the binary is written by then).
BROKEN = {
    "lmplz": ("lmplz", 'case " $* " in *" --text "*) echo "lmplz: broken" >&2; exit 1;; esac\nexec {real} "$@"'),
    "build_binary": (
        "build_binary",
        'case "$1" in /dev/stdin) cat >/dev/null; echo broken >&2; exit 1;; esac\nexec {real} "$@"',
    ),
    "records": ("lmplz", '{{ {real} "$@" 2>&1 1>&3 3>&- | grep -v "^Unigram tokens" 1>&2; }} 3>&1'),
}


def perplexity_run_with_own_tools(tmp_path, kenlm_bin):
    """KenLM's tools linked into a folder of the test's (for a broken one to replace), a small
    corpus, orders 3 without the gap task, run to the perplexity table: (tools, config, work)."""
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in ("lmplz", "query", "build_binary"):
        (tools / tool).symlink_to(kenlm_bin / tool)
    corpus = demo_corpus(tmp_path / "corpus", seed=8, train_sentences=400, dev_sentences=30)
    config = {
        "corpus": {"source": str(corpus)},
        "orders": [3],
        "kenlm": {"bin_dir": str(tools)},
        "gap": {"enabled": False},
    }
    work = tmp_path / "work"
    # The runs target the perplexity table: what they hold is the model, not the report.
    run_pipeline(work, config, PERPLEXITY_TABLE)
    return tools, config, work


def broken_tool(tools, tool, script):
    """Replace a linked tool by a bash script."""
    (tools / tool).unlink()
    (tools / tool).write_text("#!/bin/bash\n" + script + "\n")
    (tools / tool).chmod(0o755)


@pytest.mark.parametrize("step", sorted(BROKEN))
def test_a_train_job_that_fails_keeps_the_model_it_was_to_replace(tmp_path, kenlm_bin, step):
    tools, config, work = perplexity_run_with_own_tools(tmp_path, kenlm_bin)
    model = work / "results/models/o3"
    kept = {path.name: (path.stat().st_ino, path.read_bytes()) for path in model.iterdir()}
    # The tool is replaced (so the model is due again) by one that fails at this step; the
    # retraining, with keep_arpa on, writes the ARPA file too.
    tool, script = BROKEN[step]
    broken_tool(tools, tool, script.format(real=kenlm_bin / tool))
    again = {**config, "keep_arpa": True}
    failed = run_pipeline(work, again, PERPLEXITY_TABLE, check=False)
    assert failed.returncode != 0 and "Error in rule train" in failed.stdout + failed.stderr
    # The model in place is the one it was, untouched, and usable; the next run knows to train.
    assert {path.name: (path.stat().st_ino, path.read_bytes()) for path in model.iterdir()} == kept
    scored = subprocess.run(
        [str(kenlm_bin / "query"), str(model / "model.binary")], input="a b c\n", capture_output=True, text=True
    )
    assert scored.returncode == 0 and "Total:" in scored.stdout
    assert jobs_planned(work, again)["train"] == 1
    (tools / tool).unlink()
    (tools / tool).symlink_to(kenlm_bin / tool)
    run_pipeline(work, again, PERPLEXITY_TABLE)
    assert (model / "model.binary").read_bytes() == kept["model.binary"][1] and (model / "model.arpa").exists()


def test_a_neural_training_that_fails_keeps_the_model_it_was_to_replace(neural_run_copy):
    work = neural_run_copy()
    folder = work / "results/neural/small"
    kept = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file() and path.name != "tokenizer.json"}
    # A damaged tokenizer: newer than the model, which is due again, and no training can read it.
    (folder / "tokenizer.json").write_text("not a tokenizer")
    failed = run_pipeline(work, None, check=False)
    assert failed.returncode != 0 and "Error in rule train_neural" in failed.stdout + failed.stderr
    assert {path: path.read_bytes() for path in kept} == kept
    assert jobs_planned(work, None)["train_neural"] == 1


def test_killed_table_writer_leaves_no_table_and_its_leftover_is_removed(tmp_path):
    target = tmp_path / "perplexity.tsv"
    target.write_text("old complete table\n")
    code = (
        "import time\n"
        "from lmgap.atomic import atomic_open\n"
        f"with atomic_open({str(target)!r}) as out:\n"
        "    out.write('half a ta'); out.flush(); time.sleep(60)\n"
    )
    writer = subprocess.Popen([sys.executable, "-c", code])
    while not list(tmp_path.glob(".perplexity.tsv.tmp-*")):
        time.sleep(0.02)
    writer.send_signal(signal.SIGKILL)
    writer.wait()
    assert target.read_text() == "old complete table\n"
    with atomic_open(target) as out:
        out.write("new table\n")
    assert target.read_text() == "new table\n"
    assert [p.name for p in tmp_path.iterdir()] == ["perplexity.tsv"]


def test_shell_metacharacters_in_config_are_never_executed(tmp_path, kenlm_bin):
    odd = tmp_path / "corpus; touch PWNED1 $(touch PWNED2) `touch PWNED3` 'q\" |touch PWNED4"
    demo_corpus(odd, train_sentences=3000)
    tools = tmp_path / "kenlm $(touch PWNED5); touch PWNED6"
    tools.mkdir()
    for tool in ("lmplz", "query", "build_binary"):
        os.symlink(kenlm_bin / tool, tools / tool)
    work = tmp_path / "work"
    config = {"corpus": {"source": str(odd)}, "orders": [3], "kenlm": {"bin_dir": str(tools)}}
    run_pipeline(work, config)
    assert (work / "results/tables/perplexity.tsv").exists()
    # A shell would have run `touch` in the job's folder (work), or wherever snakemake started.
    planted = [*tmp_path.rglob("PWNED*"), *REPO.glob("PWNED*"), *Path.cwd().glob("PWNED*")]
    assert planted == []


@pytest.mark.parametrize(
    "missing, eval_splits, says",
    [
        ("dev-0/expected.tsv", ["dev-0"], "lacks dev-0/expected.tsv (eval_splits asks for it): put it back; or"),
        ("test-A/expected.tsv", ["dev-0", "test-A"], "which eval_splits asks for: the challenge keeps test-A"),
    ],
)
def test_local_corpus_missing_a_file_is_refused_before_any_job(tmp_path, kenlm_bin, missing, eval_splits, says):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=200)
    (corpus / "test-A").mkdir()
    (corpus / "test-A/in.tsv.xz").write_bytes((corpus / "dev-0/in.tsv.xz").read_bytes())
    (corpus / missing).unlink(missing_ok=True)
    config = {"corpus": {"source": str(corpus)}, "eval_splits": eval_splits, "kenlm": {"bin_dir": str(kenlm_bin)}}
    done = run_pipeline(tmp_path / "work", config, check=False)
    assert done.returncode != 0
    assert f"the corpus at {corpus} lacks" in done.stderr and says in done.stderr
    assert "MissingInputException" not in done.stderr
    assert not (tmp_path / "work/results").exists()


def tools(kenlm_bin):
    """KenLM's training tools, as lmgap.ngram.run.train takes them among its inputs."""
    return {"lmplz": kenlm_bin / "lmplz", "build_binary": kenlm_bin / "build_binary"}


def test_lmplz_short_of_memory_for_its_vocabulary_names_the_budget(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=2000)
    text = tmp_path / "train.txt"
    rebuild_split(corpus / "train", text)
    binary, arpa, tmpdir = tmp_path / "model.binary", tmp_path / "model.arpa", tmp_path / "lmplz-tmp"
    with open(tmp_path / "train.log", "w") as log, pytest.raises(LmgapError) as err:
        train({**tools(kenlm_bin), "text": text}, {"order": 3, "mem_mb": 8}, {"probing": binary}, tmpdir, log, arpa)
    assert "-S 8M" in str(err.value) and "memory.budget_mb" in str(err.value)
    assert "exceeds total memory" in (tmp_path / "train.log").read_text()
    assert not binary.exists() and not arpa.exists() and not tmpdir.exists()
    assert list(tmp_path.glob("*.tmp-*")) == []


def test_runs_sharing_lmplz_temp_dir_keep_each_other_s_files(tmp_path, kenlm_bin):
    # Other experiments train o3 in the same lmplz.temp_dir right now: here (the job's process is
    # alive) and on another node of a cluster (its process id means nothing here); a killed job
    # of this host left its folder behind (its process is gone).
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=2000)
    text = tmp_path / "train.txt"
    rebuild_split(corpus / "train", text)
    shared = tmp_path / "shared-temp"
    other = subprocess.Popen(["sleep", "60"])
    killed = subprocess.Popen(["true"])
    killed.wait()
    host = socket.gethostname()
    alive, elsewhere, stale = (
        f".o3.tmp-{host}-{other.pid}",
        f".o3.tmp-node7-{killed.pid}",
        f".o3.tmp-{host}-{killed.pid}",
    )
    try:
        for name in (alive, elsewhere, stale):
            (shared / name).mkdir(parents=True)
            (shared / name / "block").write_text("sorted n-grams\n")
        with open(tmp_path / "train.log", "w") as log:
            outputs = {"probing": tmp_path / "o3.binary"}
            train({**tools(kenlm_bin), "text": text}, {"order": 3, "mem_mb": 64}, outputs, shared / "o3", log)
        assert sorted(path.name for path in shared.iterdir()) == sorted([alive, elsewhere])
        assert all((shared / name / "block").read_text() == "sorted n-grams\n" for name in (alive, elsewhere))
        assert (tmp_path / "o3.binary").stat().st_size > 0
    finally:
        other.kill()
        other.wait()


def full_disk_wrapper(folder, scratch, size=64 * 1024):
    """A command prefix under which folder holds only size bytes.

    A real tmpfs of that size, seen only by the wrapped run (a private mount namespace), where
    the machine allows user namespaces; elsewhere an LD_PRELOAD library that fails writes there
    with ENOSPC once size bytes are written, as a full disk does.
    """
    mount = ["unshare", "--map-root-user", "--mount"]
    if subprocess.run([*mount, "true"], capture_output=True).returncode == 0:
        script = f'mount -t tmpfs -o size={size} tmpfs "$0" && exec "$@"'
        return [*mount, "sh", "-c", script, str(folder)]
    library = scratch / "full_disk.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(library), str(FULL_DISK_SOURCE), "-ldl"], check=True)
    return ["env", f"LD_PRELOAD={library}", f"FULL_DISK_DIR={folder}", f"FULL_DISK_BYTES={size}"]


def test_full_disk_in_lmplz_temp_folder_names_the_folder_and_rerun_finishes(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=3000)
    small_disk = tmp_path / "small-disk"
    small_disk.mkdir()
    config = {
        "corpus": {"source": str(corpus)},
        "orders": [3],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "lmplz": {"temp_dir": str(small_disk)},
        "gap": {"enabled": False},
    }
    work = tmp_path / "work"
    full = run_pipeline(work, config, wrapper=full_disk_wrapper(small_disk, tmp_path), check=False)
    assert full.returncode != 0
    assert f"disk space in its temporary folder {small_disk} while training the order-3 model" in full.stderr
    assert "lmplz.temp_dir" in full.stderr
    assert "No space left on device" in (work / "logs/train/o3.log").read_text()
    assert not (work / "results/models/o3").exists() or not any((work / "results/models/o3").iterdir())
    assert not any(small_disk.iterdir())

    # With room again, a plain rerun finishes.
    run_pipeline(work, config)
    assert (work / "results/tables/perplexity.tsv").exists()


def test_a_full_disk_while_query_writes_its_record_names_the_folder(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", seed=8, train_sentences=400, dev_sentences=60)
    config = {
        "corpus": {"source": str(corpus)},
        "orders": [3],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "gap": {"enabled": False},
    }
    work = tmp_path / "work"
    scores = work / "results/eval"
    scores.mkdir(parents=True)
    full = run_pipeline(work, config, wrapper=full_disk_wrapper(scores, tmp_path, size=512), check=False)
    said = full.stdout + full.stderr
    assert full.returncode != 0 and f"lmgap error in rule query: no space left writing in {scores.resolve()}/o3" in said
    assert "free space on that disk, then run the same command again" in said and "Traceback" not in said
    assert not list(scores.rglob("*.json"))
    run_pipeline(work, config)
    assert (work / "results/tables/perplexity.tsv").exists()


@pytest.mark.parametrize(
    "message, says",
    [
        ("build_binary: quota exceeded", "build_binary failed on the order-3 model"),
        ("No space left on device while writing", "build_binary ran out of disk space writing"),
    ],
)
def test_build_binary_failing_mid_stream_is_named_not_lmplz(tmp_path, kenlm_bin, message, says):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=2000)
    text = tmp_path / "train.txt"
    rebuild_split(corpus / "train", text)
    # Reads a little of the ARPA text, then fails: lmplz then dies of SIGPIPE.
    broken = tmp_path / "build_binary"
    broken.write_text(f"#!/bin/sh\nhead -c 100 > /dev/null\necho '{message}' >&2\nexit 3\n")
    broken.chmod(0o755)
    binary, tmpdir = tmp_path / "model.binary", tmp_path / "lmplz-tmp"
    with open(tmp_path / "train.log", "w") as log, pytest.raises(LmgapError) as err:
        inputs = {"lmplz": kenlm_bin / "lmplz", "build_binary": broken, "text": text}
        train(inputs, {"order": 3, "mem_mb": 1024}, {"probing": binary}, tmpdir, log)
    assert str(err.value).startswith(says)
    assert message in (tmp_path / "train.log").read_text()
    assert not binary.exists() and not list(tmp_path.glob(".model.binary.tmp-*")) and not tmpdir.exists()


def test_gap_words_not_in_utf8_stop_the_run_before_any_model_and_the_perplexity_path_takes_them(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=300, dev_sentences=30)
    expected = corpus / "dev-0/expected.tsv"
    lines = expected.read_bytes().split(b"\n")
    lines[2] = "café".encode("latin-1")
    expected.write_bytes(b"\n".join(lines))
    config = {"corpus": {"source": str(corpus)}, "orders": [3], "kenlm": {"bin_dir": str(kenlm_bin)}}
    done = run_pipeline(tmp_path / "work", config, check=False)
    assert done.returncode != 0
    # A local corpus is checked before the first job (a git source's by its fingerprint jobs).
    assert "dev-0/expected.tsv line 3 is not valid UTF-8 (" in done.stderr
    assert "Select jobs to execute" not in done.stderr
    assert f"iconv -f latin1 -t utf-8 {expected} > {expected}.new && mv {expected}.new {expected}" in done.stderr
    assert "gap.enabled: false" in done.stderr
    assert not (tmp_path / "work/results/models").exists()
    # Without the gap task the same corpus gives its perplexity tables.
    run_pipeline(tmp_path / "work", {**config, "gap": {"enabled": False}})
    assert (tmp_path / "work/results/tables/perplexity.tsv").exists()


def test_a_failed_gap_job_costs_neither_the_perplexity_tables_nor_the_other_models(tmp_path, kenlm_bin):
    corpus = demo_corpus(tmp_path / "corpus", train_sentences=300, dev_sentences=30)
    config = {
        "corpus": {"source": str(corpus)},
        "orders": [2, 3],
        "kenlm": {"bin_dir": str(kenlm_bin)},
        "lmplz": {"discount_fallback": True},
    }
    work = (tmp_path / "work").resolve()
    work.mkdir()
    (work / "config.yaml").write_text(yaml.safe_dump(config))
    run = subprocess.Popen(
        [SNAKEMAKE, "--snakefile", str(REPO / "Snakefile"), "--cores", "2"],
        cwd=work,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    # The candidate pass dies as the kernel's out-of-memory killer would kill it.
    deadline = time.monotonic() + 120
    while not (victim := running_in(work, "gap_candidates.py")):
        assert run.poll() is None and time.monotonic() < deadline, "the candidate pass never started"
        time.sleep(0.02)
    os.kill(victim[0], signal.SIGKILL)
    said, _ = run.communicate(timeout=300)
    assert run.returncode != 0 and "Error in rule gap_candidates" in said, said[-3000:]
    for table in ("perplexity", "cost", "comparison", "decades", "hardest"):
        assert (work / f"results/tables/{table}.tsv").exists(), table
    assert not (work / "results/tables/gap.tsv").exists()
    # The rerun does only the gap task.
    rerun = set(run_pipeline(work, None).jobs)
    assert {"gap_candidates", "gap_table"} <= rerun and not {"train", "query", "perplexity_table"} & rerun


def test_a_table_left_by_another_configuration_is_named_when_a_run_stops_short_of_it(tmp_path, kenlm_bin):
    tools, config, work = perplexity_run_with_own_tools(tmp_path, kenlm_bin)
    # Another configuration, whose training fails: the table of the first stays, and is named.
    broken_tool(tools, "lmplz", "echo broken >&2\nexit 1")
    failed = run_pipeline(work, {**config, "orders": [2]}, PERPLEXITY_TABLE, check=False)
    said = failed.stdout + failed.stderr
    assert failed.returncode != 0 and "Error in rule train" in said
    assert (
        "lmgap warning: results/tables/perplexity.tsv holds the rows of another configuration (o3), not this "
        "one's (o2): this run did not write it again" in said
    )
