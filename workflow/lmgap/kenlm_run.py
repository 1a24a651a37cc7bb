"""Run lmplz, build_binary and query, turning their failures into errors a user can act on."""

import shutil
import subprocess
from pathlib import Path

from .atomic import atomic_path
from .errors import LmgapError
from .scoring import score_output


def lmplz_command(lmplz, order, mem_mb, temp_prefix, text, arpa, prune=(), discount_fallback=False):
    """The lmplz argument list: never a shell string, so no config value is interpreted."""
    cmd = [str(lmplz), "-o", str(order), "--skip_symbols", "-S", f"{int(mem_mb)}M", "-T", str(temp_prefix)]
    if prune:
        cmd += ["--prune", *(str(p) for p in prune)]
    if discount_fallback:
        cmd.append("--discount_fallback")
    return cmd + ["--text", str(text), "--arpa", str(arpa)]


def temp_dir(config, model):
    """lmplz's -T folder for one model: its own, so a rerun can clear what a killed run left.

    Read from the config in the job, not passed as a parameter: moving the folder changes no
    model and must not retrain any.
    """
    root = config["lmplz"]["temp_dir"] or "results/tmp/lmplz"
    return Path(root) / model


def _stderr_tail(stderr, lines=5):
    return "\n".join(stderr.strip().splitlines()[-lines:])


def train(lmplz, order, mem_mb, tmpdir, text, arpa, log, prune=(), discount_fallback=False):
    """Train an ARPA model with lmplz; the ARPA file appears only when lmplz succeeded."""
    tmpdir = Path(tmpdir)
    # A killed run leaves lmplz's temporary files behind; this job's folder is its own.
    shutil.rmtree(tmpdir, ignore_errors=True)
    try:
        tmpdir.mkdir(parents=True)
    except OSError as err:
        raise LmgapError(
            f"cannot create lmplz's temporary folder {tmpdir}: {err.strerror}; set lmplz.temp_dir "
            "in config.yaml to a folder you can write to."
        ) from None
    try:
        with atomic_path(arpa) as tmp:
            cmd = lmplz_command(lmplz, order, mem_mb, f"{tmpdir}/", text, tmp, prune, discount_fallback)
            log.flush()
            done = subprocess.run(cmd, stdout=log, stderr=subprocess.PIPE, text=True)
            log.write(done.stderr)
            if done.returncode:
                raise LmgapError(explain_lmplz_failure(done.stderr, done.returncode, order, text, mem_mb, tmpdir, log.name))
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def explain_lmplz_failure(stderr, returncode, order, text, mem_mb, tmpdir, log_name):
    """Say what went wrong in lmplz and which setting fixes it."""
    if "BadDiscountException" in stderr:
        return (
            f"lmplz could not estimate modified Kneser-Ney discounts for the order-{order} model "
            f"on {text}: the training text is too small or too repetitive. Set "
            "lmplz.discount_fallback: true in config.yaml to pass --discount_fallback."
        )
    if "No space left on device" in stderr:
        return (
            f"lmplz ran out of disk space in its temporary folder {tmpdir} (or in results/models/, "
            f"where it writes the ARPA file) while training the order-{order} model; free space "
            "there, or point lmplz.temp_dir in config.yaml at a disk with room."
        )
    if "exceeds total memory" in stderr:
        return (
            f"lmplz needs more memory than -S {mem_mb}M, the order-{order} model's share of the "
            "memory budget, just to hold its vocabulary table; raise memory.budget_mb in "
            "config.yaml (or --resources mem_mb=N), or run fewer jobs at once with --cores."
        )
    if "bad_alloc" in stderr or "Cannot allocate memory" in stderr or returncode == -9:
        return (
            f"lmplz ran out of memory (or was killed) training the order-{order} model with "
            f"-S {mem_mb}M, its share of the memory budget: the budget is more than this machine "
            "can give now. Lower memory.budget_mb in config.yaml (or --resources mem_mb=N) to "
            "what is free, or stop other programs."
        )
    return f"lmplz failed on the order-{order} model; see {log_name}:\n{_stderr_tail(stderr)}"


def build_binary(tool, arpa, binary, log):
    """Convert an ARPA model to KenLM's binary format."""
    log.flush()
    with atomic_path(binary) as tmp:
        done = subprocess.run([str(tool), str(arpa), str(tmp)], stdout=log, stderr=subprocess.PIPE, text=True)
        log.write(done.stderr)
        if done.returncode:
            raise LmgapError(f"build_binary failed on {arpa}; see {log.name}:\n{_stderr_tail(done.stderr)}")


def query(tool, model, text, order, log):
    """Score text with query, one pass over its per-token output; return (SplitScores, summary)."""
    log.flush()
    with open(text, "rb") as stdin:
        process = subprocess.Popen(
            [str(tool), "-v", "word", "-v", "sentence", "-v", "summary", str(model)],
            stdin=stdin, stdout=subprocess.PIPE, stderr=log, bufsize=1 << 20,
        )
        try:
            scores, summary = score_output(process.stdout, order)
        finally:
            process.stdout.close()
            returncode = process.wait()
    if returncode:
        log.flush()
        tail = _stderr_tail(Path(log.name).read_text(errors="replace"))
        raise LmgapError(f"query failed on {model} with exit code {returncode}; see {log.name}:\n{tail}")
    return scores, summary
