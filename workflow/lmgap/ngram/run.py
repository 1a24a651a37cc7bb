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

from ..atomic import atomic_path, remove_stale_siblings, temporary_sibling
from ..errors import LmgapError
from ..shapes import VOCABULARY, read_record
from .formats import PROBING, parse_format
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


def build_binary_command(build_binary, binary, target, sort_mb, temp_prefix, source="/dev/stdin"):
    """build_binary's argument list for a format's model read from source, standard input unless given (a trie
    sorts in -S sort_mb through -T temp_prefix; without -S it would take 80% of the machine's memory)."""
    fmt = parse_format(binary)
    if fmt.structure == PROBING:
        return [str(build_binary), *fmt.flags(), str(source), str(target)]
    sort = ["-S", f"{int(sort_mb)}M", "-T", str(temp_prefix)]
    return [str(build_binary), *fmt.flags(), *sort, "trie", str(source), str(target)]


def train(inputs, options, binaries, temp, log, arpa=None, together=True):
    """lmplz piped into a build_binary per format (inputs: lmplz, build_binary, text; options: lmplz_command's
    and sort_mb, a trie's -S; binaries: {format: path}; arpa: a path for a copy of the ARPA text, or None;
    temp: temp_dir's). Together, every format reads lmplz's stream at once and no ARPA text touches the disk;
    otherwise the first does, and the others are built one after another from a copy of the ARPA text in the
    job's temporary folder (lmgap.ngram.memory.builds_together). Returns ({order: n-grams}, {tool: usage},
    words read, orders given fallback discounts), build_binary's usage as {format: usage}."""
    # The job's own folder, named by its host and process: another run, here or on another node
    # of a cluster, may share lmplz.temp_dir and train a model of the same name at the same time.
    # A killed job's folder on this host (its process gone) is removed, with the blocks it left.
    host = f"{socket.gethostname()}-"
    remove_stale_siblings(temp, host)
    tmpdir = temporary_sibling(temp, host)
    try:
        tmpdir.mkdir(parents=True)
    except OSError as err:
        raise LmgapError(
            f"cannot create lmplz's temporary folder {tmpdir}: {err.strerror}; set lmplz.temp_dir "
            "to a folder you can write to."
        ) from None
    streamed = list(binaries) if together else list(binaries)[:1]
    try:
        # The binaries and the ARPA copy appear only when every tool succeeds.
        with contextlib.ExitStack() as stack:
            targets = {binary: stack.enter_context(atomic_path(path)) for binary, path in binaries.items()}
            copy = stack.enter_context(atomic_path(arpa)) if arpa else None
            if copy is None and len(streamed) < len(binaries):
                copy = tmpdir / "model.arpa"
            job = _Job(inputs, options, targets, tmpdir, log)
            counts, lmplz_text = job.stream(streamed, copy)
            for binary in binaries:
                if binary not in streamed:
                    job.build(binary, copy)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    usage = {"lmplz": job.lmplz_usage, "build_binary": job.usage}
    return counts, usage, unigram_tokens(lmplz_text), fallback_orders(lmplz_text)


class _Job:
    """A train job's tools: lmplz streaming into build_binaries, and build_binary reading a file; each one's
    command in the log, its messages in the log once it ends, its failure an LmgapError that says why."""

    def __init__(self, inputs, options, targets, tmpdir, log):
        self.inputs, self.options, self.targets, self.tmpdir, self.log = inputs, options, targets, tmpdir, log
        self.usage, self.lmplz_usage = {}, None

    def _command(self, binary, source="/dev/stdin"):
        sort_mb, prefix = self.options.get("sort_mb", 0), f"{self.tmpdir}/{binary}-"
        return build_binary_command(self.inputs["build_binary"], binary, self.targets[binary], sort_mb, prefix, source)

    def stream(self, streamed, copy):
        """lmplz into the streamed formats' build_binary (and copy, a path, when given); (counts, lmplz's messages)."""
        lmplz_cmd = lmplz_command(self.inputs["lmplz"], self.options, f"{self.tmpdir}/", self.inputs["text"])
        commands = {binary: self._command(binary) for binary in streamed}
        # The commands as a person would type them, -S included, to rerun or audit a model.
        sinks = [f">({shlex.join(cmd)})" for cmd in commands.values()] + ([shlex.quote(str(copy))] if copy else [])
        piped = shlex.join(commands[streamed[0]]) if len(sinks) == 1 else f"tee {' '.join(sinks)} > /dev/null"
        self.log.write(f"{shlex.join(lmplz_cmd)} | {piped}\n")
        self.log.flush()
        # Their messages wait in the system's temporary folder, not in -T, which may be full.
        with contextlib.ExitStack() as stack:
            lmplz_err = stack.enter_context(tempfile.TemporaryFile("w+"))
            errs = {binary: stack.enter_context(tempfile.TemporaryFile("w+")) for binary in streamed}
            sink = stack.enter_context(open(copy, "wb")) if copy else None
            trainer = MeasuredProcess(lmplz_cmd, stdout=subprocess.PIPE, stderr=lmplz_err)
            binarisers = {
                binary: MeasuredProcess(cmd, stdin=subprocess.PIPE, stdout=errs[binary], stderr=subprocess.STDOUT)
                for binary, cmd in commands.items()
            }
            stopped = None
            try:
                counts = relay_arpa(trainer.process.stdout, [b.process.stdin for b in binarisers.values()], sink)
            except StoppedReading as err:
                # The others then fail on the ARPA text cut short: the one that stopped first is to blame.
                counts, stopped = None, err.sink
            finally:
                trainer.process.stdout.close()
                for binariser in binarisers.values():
                    binariser.process.stdin.close()
                trainer.wait()
                for binariser in binarisers.values():
                    binariser.wait()
            lmplz_err.seek(0)
            lmplz_text = lmplz_err.read()
            texts = {}
            for binary, err in errs.items():
                err.seek(0)
                texts[binary] = err.read()
        self.log.write(lmplz_text + "".join(texts.values()))
        self.lmplz_usage = trainer.usage
        # lmplz killed by SIGPIPE only means a build_binary stopped reading first.
        if trainer.returncode and trainer.returncode != -signal.SIGPIPE:
            raise LmgapError(
                explain_lmplz_failure(
                    lmplz_text, trainer.returncode, self.options, self.inputs["text"], self.tmpdir.parent, self.log.name
                )
            )
        for binary, binariser in sorted(binarisers.items(), key=lambda item: item[1].process.stdin is not stopped):
            self._check(binary, binariser, texts[binary], trainer.returncode or counts is None)
        return counts, lmplz_text

    def build(self, binary, source):
        """build_binary of one format from the ARPA text in source."""
        cmd = self._command(binary, source)
        self.log.write(f"{shlex.join(cmd)}\n")
        self.log.flush()
        with tempfile.TemporaryFile("w+") as err:
            binariser = MeasuredProcess(cmd, stdout=err, stderr=subprocess.STDOUT)
            binariser.wait()
            err.seek(0)
            text = err.read()
        self.log.write(text)
        self._check(binary, binariser, text)

    def _check(self, binary, binariser, text, failed=False):
        self.usage[binary] = binariser.usage
        if not (binariser.returncode or failed):
            return
        if "No space left on device" in text:
            raise LmgapError(
                f"build_binary ran out of disk space writing the {binary} model or its temporary files in "
                f"{self.tmpdir}; free space there (lmplz.temp_dir sets the second)."
            )
        raise LmgapError(
            f"build_binary failed on the order-{self.options['order']} model in {binary}; see {self.log.name}:\n"
            f"{stderr_tail(text)}"
        )


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


class StoppedReading(Exception):
    """A build_binary stopped reading the ARPA text (sink: its stdin): its exit code and message tell why."""

    def __init__(self, sink):
        super().__init__(sink)
        self.sink = sink


def relay_arpa(source, sinks, copy=None, chunk=1 << 20):
    """Pass lmplz's ARPA output on to each build_binary (sinks), spliced inside the kernel after the header when
    one alone wants it (no copy, one format); the header's n-gram counts, None if the stream ends first;
    StoppedReading where a sink stops reading."""
    head = b""
    while b"-grams:" not in head and (block := os.read(source.fileno(), chunk)):
        head += block
    counts = arpa_header_counts(head)
    for sink in sinks:
        _write_all(sink, head)
    if copy:
        copy.write(head)
    if copy or len(sinks) > 1:
        while block := os.read(source.fileno(), chunk):
            for sink in sinks:
                _write_all(sink, block)
            if copy:
                copy.write(block)
    else:
        try:
            while os.splice(source.fileno(), sinks[0].fileno(), chunk):
                pass
        except BrokenPipeError:
            raise StoppedReading(sinks[0]) from None
    return counts


def _write_all(sink, data):
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(sink.fileno(), view) :]
    except BrokenPipeError:
        raise StoppedReading(sink) from None


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
