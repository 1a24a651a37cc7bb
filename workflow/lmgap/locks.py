"""Clear the lock a killed Snakemake run leaves behind, when no run is alive in this folder."""

import os
from pathlib import Path


def snakemake_alive_here(workdir, skip):
    """True if a process other than those in skip runs Snakemake with workdir as its folder."""
    workdir = os.path.realpath(workdir)
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in skip:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read()
            if b"snakemake" in cmdline and os.path.realpath(f"/proc/{entry}/cwd") == workdir:
                return True
        except OSError:
            continue
    return False


def clear_stale_locks(workdir="."):
    """Remove .snakemake/locks after a kill; return True if there were stale locks."""
    locks = Path(workdir) / ".snakemake" / "locks"
    held = [path for path in locks.glob("*") if path.is_file()] if locks.is_dir() else []
    if not held or snakemake_alive_here(workdir, skip={os.getpid(), os.getppid()}):
        return False
    for path in held:
        path.unlink(missing_ok=True)
    return True
