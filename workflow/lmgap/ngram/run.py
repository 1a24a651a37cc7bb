"""Run lmplz and build_binary, turning their failures into errors a user can act on."""

import contextlib
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from ..atomic import atomic_open, atomic_path, remove_stale_siblings, temporary_sibling
from ..errors import LmgapError
from ..shapes import VOCABULARY, read_record
from .output import arpa_header_counts, stderr_tail


def lmplz_command(lmplz, options, temp_prefix, text):
    """The lmplz argument list (options: order, mem_mb for -S, prune, discount_fallback, interpolate_unigrams,
    vocab_pad: its size), never a shell string; without --arpa the model goes to standard output."""
    cmd = [str(lmplz), "-o", str(options["order"]), "--skip_symbols", "-S", f"{int(options['mem_mb'])}M"]
    cmd += ["-T", str(temp_prefix)]
    if options.get("prune"):
        cmd += ["--prune", *(str(p) for p in options["prune"])]
    if options.get("discount_fallback"):
        cmd.append("--discount_fallback")
    if not options.get("interpolate_unigrams", True):
        cmd += ["--interpolate_unigrams", "0"]
    if options.get("vocab_pad"):
        cmd += ["--vocab_pad", str(int(options["vocab_pad"]))]
    return cmd + ["--text", str(text)]


def padded_size(vocabulary_path):
    """--vocab_pad's size for the run's vocabulary: V words and `</s>`. lmplz counts `</s>` and `<unk>` among
    its entries, so a model knowing k of V's words pads V - k - 1: with `<unk>`, one entry per unknown word."""
    return read_record(vocabulary_path, VOCABULARY)["words"] + 1


def temp_dir(config, model):
    """lmplz's -T folder for one model (each job works in a folder of its own beside it, see train);
    read from the config in the job, not a parameter: moving the folder must retrain no model."""
    root = config["lmplz"]["temp_dir"] or "results/tmp/lmplz"
    return Path(root) / model


def train(inputs, options, outputs, temp, log):
    """lmplz piped into build_binary, no multi-GB ARPA on disk (inputs: lmplz, build_binary, text; outputs: binary, arpa
    for a copy; temp: temp_dir's); ({order: n-grams}, {tool: usage}, words read, orders given fallback discounts)."""
    # The job's own folder, named by its host and process: another run, here or on another node
    # of a cluster, may share lmplz.temp_dir and train a model of the same name at the same time.
    # A killed job's folder on this host (its process gone) is removed, with the blocks it left.
    order, text, binary, arpa = options["order"], inputs["text"], outputs["binary"], outputs.get("arpa")
    host = f"{socket.gethostname()}-"
    remove_stale_siblings(temp, host)
    root, tmpdir = Path(temp).parent, temporary_sibling(temp, host)
    try:
        tmpdir.mkdir(parents=True)
    except OSError as err:
        raise LmgapError(
            f"cannot create lmplz's temporary folder {tmpdir}: {err.strerror}; set lmplz.temp_dir "
            "to a folder you can write to."
        ) from None
    lmplz_cmd = lmplz_command(inputs["lmplz"], options, f"{tmpdir}/", text)
    try:
        # The binary and the ARPA copy appear only when both tools succeed.
        with contextlib.ExitStack() as stack:
            binary_tmp = stack.enter_context(atomic_path(binary))
            copy = stack.enter_context(atomic_open(arpa, "wb")) if arpa else None
            # Their messages wait in the system's temporary folder, not in -T, which may be full.
            with tempfile.TemporaryFile("w+") as lmplz_err, tempfile.TemporaryFile("w+") as bb_err:
                # build_binary reads the ARPA from its standard input (it reads a pipe in one pass).
                bb_cmd = [str(inputs["build_binary"]), "/dev/stdin", str(binary_tmp)]
                # The commands as a person would type them, -S included, to rerun or audit a model.
                log.write(f"{shlex.join(lmplz_cmd)} | {shlex.join(bb_cmd)}\n")
                log.flush()
                trainer = MeasuredProcess(lmplz_cmd, stdout=subprocess.PIPE, stderr=lmplz_err)
                binariser = MeasuredProcess(bb_cmd, stdin=subprocess.PIPE, stdout=bb_err, stderr=subprocess.STDOUT)
                try:
                    counts = relay_arpa(trainer.process.stdout, binariser.process.stdin, copy)
                finally:
                    trainer.process.stdout.close()
                    binariser.process.stdin.close()
                    trainer.wait()
                    binariser.wait()
                for err in (lmplz_err, bb_err):
                    err.seek(0)
                lmplz_text, bb_text = lmplz_err.read(), bb_err.read()
            log.write(lmplz_text + bb_text)
            # lmplz killed by SIGPIPE only means build_binary stopped reading first.
            if trainer.returncode and trainer.returncode != -signal.SIGPIPE:
                raise LmgapError(explain_lmplz_failure(lmplz_text, trainer.returncode, options, text, root, log.name))
            if binariser.returncode or trainer.returncode or counts is None:
                if "No space left on device" in bb_text:
                    raise LmgapError(f"build_binary ran out of disk space writing {binary}; free space in its folder.")
                raise LmgapError(
                    f"build_binary failed on the order-{order} model; see {log.name}:\n{stderr_tail(bb_text)}"
                )
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    usage = {"lmplz": trainer.usage, "build_binary": binariser.usage}
    return counts, usage, unigram_tokens(lmplz_text), fallback_orders(lmplz_text)


def fallback_orders(lmplz_text):
    """The orders (1 for unigrams) whose discounts lmplz could not estimate and took from
    --discount_fallback instead (its `Substituting fallback discounts for order K` lines, K from 0)."""
    return sorted(
        int(k) + 1 for k in re.findall(r"^Substituting fallback discounts for order (\d+):", lmplz_text, re.M)
    )


def unigram_tokens(lmplz_text):
    """The words lmplz read (its `Unigram tokens N types M` line; `</s>` not counted)."""
    match = re.search(r"^Unigram tokens (\d+) types \d+$", lmplz_text, re.M)
    if not match:
        raise LmgapError(f"lmplz did not say how many words it read:\n{stderr_tail(lmplz_text)}")
    return int(match.group(1))


class MeasuredProcess:
    """A child process whose wall time, CPU time and peak memory are measured when it ends."""

    def __init__(self, cmd, **kwargs):
        self.started = time.monotonic()
        self.process = subprocess.Popen(cmd, **kwargs)
        self.returncode = self.usage = None

    def wait(self):
        _, status, rusage = os.wait4(self.process.pid, 0)
        # wait4 reaped the child; tell Popen so that it never waits again.
        self.process.returncode = self.returncode = os.waitstatus_to_exitcode(status)
        self.usage = {
            "seconds": time.monotonic() - self.started,
            "cpu_seconds": rusage.ru_utime + rusage.ru_stime,
            "peak_rss_mb": rusage.ru_maxrss / 1024,
        }


def relay_arpa(source, sink, copy=None, chunk=1 << 20):
    """Pass lmplz's ARPA output on to build_binary, spliced inside the kernel after the header unless
    copy (a file) wants it too; the header's n-gram counts, None if the stream ends first."""
    head = b""
    while b"-grams:" not in head and (block := os.read(source.fileno(), chunk)):
        head += block
    counts = arpa_header_counts(head)
    try:
        _write_all(sink.fileno(), head)
        if copy:
            copy.write(head)
            while block := os.read(source.fileno(), chunk):
                _write_all(sink.fileno(), block)
                copy.write(block)
        else:
            while os.splice(source.fileno(), sink.fileno(), chunk):
                pass
    except BrokenPipeError:
        # build_binary stopped reading: its exit code and message tell why.
        return None
    return counts


def _write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def explain_lmplz_failure(stderr, returncode, options, text, tmpdir, log_name):
    """Say what went wrong in lmplz and which setting fixes it (options: order and mem_mb, its -S)."""
    order, mem_mb = options["order"], options["mem_mb"]
    if "BadDiscountException" in stderr:
        return (
            f"lmplz could not estimate modified Kneser-Ney discounts for the order-{order} model "
            f"on {text}: the training text is too small or too repetitive. Set "
            "lmplz.discount_fallback: true to pass --discount_fallback."
        )
    if "No space left on device" in stderr:
        return (
            f"lmplz ran out of disk space in its temporary folder {tmpdir} while training the "
            f"order-{order} model; free space there, or point lmplz.temp_dir at a "
            "disk with room."
        )
    if "exceeds total memory" in stderr:
        return (
            f"lmplz needs more memory than -S {mem_mb}M, what the job's reservation leaves it beside "
            f"the order-{order} model, just to hold its vocabulary table; raise memory.budget_mb."
        )
    if "bad_alloc" in stderr or "Cannot allocate memory" in stderr or returncode == -9:
        return (
            f"lmplz ran out of memory (or was killed) training the order-{order} model with "
            f"-S {mem_mb}M: this machine could not give it what it reserved. Run fewer "
            "jobs at once (a smaller --resources mem_mb=N), lower memory.budget_mb to what is free, "
            "or stop other programs."
        )
    return f"lmplz failed on the order-{order} model; see {log_name}:\n{stderr_tail(stderr)}"
