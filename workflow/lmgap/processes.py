"""What /proc says of a process: its parent, command line and working folder, and whether it is
Snakemake itself (Linux; elsewhere nothing is found)."""

import os


def process(pid):
    """(parent pid, argv, working folder) of a process, or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            parent = int(handle.read().rsplit(")", 1)[1].split()[1])
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            argv = [arg.decode(errors="replace") for arg in handle.read().split(b"\0") if arg]
        cwd = os.path.realpath(f"/proc/{pid}/cwd")
    except (OSError, ValueError, IndexError):
        return None
    return parent, argv, cwd


def is_snakemake_main(argv):
    """Snakemake itself (its console script, or python -m snakemake), not a job's script."""
    return bool(argv) and (
        os.path.basename(argv[0]) == "snakemake"
        or (len(argv) > 1 and os.path.basename(argv[1]) == "snakemake")
        or argv[1:3] == ["-m", "snakemake"]
    )
