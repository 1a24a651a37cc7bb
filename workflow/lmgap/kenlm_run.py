"""Run lmplz, build_binary and query, turning their failures into errors a user can act on."""

import shutil
import subprocess
from pathlib import Path

from .atomic import atomic_path
from .errors import LmgapError


def lmplz_command(lmplz, order, mem_mb, temp_prefix, text, arpa, prune=(), discount_fallback=False):
    """The lmplz argument list: never a shell string, so no config value is interpreted."""
    cmd = [str(lmplz), "-o", str(order), "--skip_symbols", "-S", f"{int(mem_mb)}M", "-T", str(temp_prefix)]
    if prune:
        cmd += ["--prune", *(str(p) for p in prune)]
    if discount_fallback:
        cmd.append("--discount_fallback")
    return cmd + ["--text", str(text), "--arpa", str(arpa)]


def _stderr_tail(stderr, lines=5):
    return "\n".join(stderr.strip().splitlines()[-lines:])


def train(lmplz, order, mem_mb, tmpdir, text, arpa, log, prune=(), discount_fallback=False):
    """Train an ARPA model with lmplz; the ARPA file appears only when lmplz succeeded."""
    tmpdir = Path(tmpdir)
    # A killed run leaves lmplz's temporary files behind; this job's folder is its own.
    shutil.rmtree(tmpdir, ignore_errors=True)
    tmpdir.mkdir(parents=True)
    try:
        with atomic_path(arpa) as tmp:
            cmd = lmplz_command(lmplz, order, mem_mb, f"{tmpdir}/", text, tmp, prune, discount_fallback)
            log.flush()
            done = subprocess.run(cmd, stdout=log, stderr=subprocess.PIPE, text=True)
            log.write(done.stderr)
            if done.returncode:
                raise LmgapError(explain_lmplz_failure(done.stderr, order, text, mem_mb, tmpdir, log.name))
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def explain_lmplz_failure(stderr, order, text, mem_mb, tmpdir, log_name):
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
            "where it writes the ARPA file); free space there."
        )
    if "bad_alloc" in stderr or "Cannot allocate memory" in stderr:
        return (
            f"lmplz ran out of memory training the order-{order} model with -S {mem_mb}M, its share "
            "of the memory budget; raise memory.budget_mb in config.yaml, or train fewer orders at once."
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


def query(tool, model, text, log):
    """Score text with query and return its printed summary."""
    with open(text, "rb") as stdin:
        done = subprocess.run(
            [str(tool), "-v", "summary", str(model)], stdin=stdin, capture_output=True, text=True
        )
    log.write(done.stderr)
    if done.returncode:
        raise LmgapError(f"query failed on {model}; see {log.name}:\n{_stderr_tail(done.stderr)}")
    return done.stdout
