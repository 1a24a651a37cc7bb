"""What the main process checks and says around a run: before the first job (Snakemake's
onstart), at its end, and the few cheap looks a parse in the main process takes at this folder
(reading, never writing: a parse also runs for a dry run, a lint and a report)."""

import importlib.util
import json
import os
import tempfile
from pathlib import Path

from .errors import LmgapError, in_origin
from .processes import is_snakemake_main, process

# What `neural:` needs in the environment the jobs run in, and how to install it.
NEURAL_MODULES = ("torch", "transformers", "tokenizers")
NEURAL_INSTALL = "make setup-neural (or .venv/bin/pip install -e '.[neural]')"


def cannot_write(folder, why):
    """The error for a folder the run must write in and cannot."""
    return LmgapError(
        f"cannot write to {Path(folder).resolve()} ({why}): run the pipeline in a folder you can "
        "write to (--directory), or make that one writable."
    )


def check_writable(folders):
    """Each folder exists or can be made, and takes a file."""
    for folder in folders:
        try:
            Path(folder).mkdir(parents=True, exist_ok=True)
            tempfile.TemporaryFile(dir=folder).close()
        except OSError as err:
            raise cannot_write(folder, err.strerror) from None


def check_outputs_writable(folders):
    """Each of these folders that exists, and each file in it, can be written: Snakemake refuses
    write-protected outputs at the start with a long traceback. Looked at without writing."""
    for folder in map(Path, folders):
        if not folder.is_dir():
            continue
        if not os.access(folder, os.W_OK | os.X_OK):
            raise cannot_write(folder, "Permission denied")
        for path in folder.iterdir():
            if path.is_file() and not os.access(path, os.W_OK):
                raise cannot_write(folder, f"{path.name} in it is write-protected")


def check_records_writable(records=".snakemake"):
    """Snakemake keeps its records of the runs (metadata, locks, logs) in .snakemake/ and fails
    with a long traceback where it cannot write them; looked at without writing anything."""
    folder = Path(records) if Path(records).exists() else Path(".")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise cannot_write(folder, f"Snakemake keeps its records of the runs in {Path(records).resolve()}")


def _read_json(path):
    """A record's content, or None where it is missing or unreadable."""
    try:
        with open(path) as handle:
            return json.load(handle)
    except (OSError, ValueError):
        return None


def check_neural_stack(names):
    """The neural models' packages are importable, or the command that installs them."""
    missing = [module for module in NEURAL_MODULES if importlib.util.find_spec(module) is None]
    if names and missing:
        raise LmgapError(
            f"neural: {in_origin('neural')} asks for {', '.join(names)}, but {', '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not installed (make run leaves the neural "
            f"stack out): install it with {NEURAL_INSTALL}, or set neural: {{}}"
        )


def set_aside(paths, folder):
    """Move the files among paths that exist into folder (replacing what an earlier move left
    there); return their names."""
    moved = []
    for path in map(Path, paths):
        if path.is_file():
            Path(folder).mkdir(parents=True, exist_ok=True)
            path.replace(Path(folder) / path.name)
            moved.append(path.name)
    return moved


def corpus_warnings(record_path):
    """What the last fetch found accepted but likely a mistake (see lmgap.corpus.fetch)."""
    return (_read_json(record_path) or {}).get("warnings", [])


def stale_tables_warning(provenance_path, manifest_path):
    """The tables were computed from other corpus files than the manifest now lists."""
    provenance, manifest = _read_json(provenance_path), _read_json(manifest_path)
    try:
        used, current = provenance["corpus"]["files"], manifest["files"]
    except (TypeError, KeyError):
        return None
    changed = sorted(
        name
        for name in set(used) | set(current)
        if used.get(name, {}).get("sha256") != current.get(name, {}).get("sha256")
    )
    if not changed:
        return None
    return (
        f"the tables in results/ were computed from corpus files that differ from those "
        f"{manifest_path} lists now ({', '.join(changed)}): run the pipeline to bring them up "
        "to date"
    )


def settings_changed(provenance_path, settings):
    """The experiment's settings that differ from those the provenance record's run used (none
    to compare with when a run stopped before writing its record)."""
    used = (_read_json(provenance_path) or {}).get("experiment")
    if used is None:
        return []
    # Compared as the record holds them: through JSON.
    now = json.loads(json.dumps(settings))
    return sorted(key for key in now.keys() | used.keys() if now.get(key) != used.get(key))


def run_processes(folder):
    """The processes of Snakemake runs in folder, other than this process and those that started
    it: ({pid: command} of each run's processes, the pids of live main processes). A run's
    processes are Snakemake started there and the scripts of its jobs, and all their
    descendants wherever they work (lmplz, a git fetch, a build)."""
    folder = os.path.realpath(folder)
    processes = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            found = process(int(entry))
            if found:
                processes[int(entry)] = found
    ours, pid = set(), os.getpid()
    while pid in processes and pid not in ours:
        ours.add(pid)
        pid = processes[pid][0]
    seeds = {
        pid for pid, (_, argv, cwd) in processes.items()
        if pid not in ours and cwd == folder and _is_snakemake(argv)
    }
    run, grown = set(seeds), True
    while grown:
        children = {pid for pid, (parent, _, _) in processes.items() if parent in run} - run - ours
        run |= children
        grown = bool(children)
    # Paths inside the folder as the user sees them from there.
    commands = {pid: " ".join(processes[pid][1]).replace(folder + "/", "")[:160] for pid in run}
    mains = sorted(pid for pid in seeds if processes[pid][0] not in run and is_snakemake_main(processes[pid][1]))
    return commands, mains


def _is_snakemake(argv):
    """Snakemake itself, or the script of one of its jobs (kept under .snakemake/scripts/)."""
    return is_snakemake_main(argv) or any("/.snakemake/scripts/" in arg or arg.startswith(".snakemake/scripts/") for arg in argv)


def locked_folder_message(commands, mains, unlocking):
    """What to do about a locked folder in which the processes of a run still work."""
    listed = "; ".join(f"{pid}: {command}" for pid, command in sorted(commands.items()))
    if mains:
        return (
            f"this folder is locked by a run still in progress (Snakemake's pid "
            f"{', '.join(map(str, mains))}; {listed}): wait for it to finish"
            + ("; --unlock is for a lock no live run holds." if unlocking else ".")
        )
    pids = " ".join(str(pid) for pid in sorted(commands))
    action = "Unlocking now would let a new run" if unlocking else "--unlock would let a new run"
    return (
        f"this folder is locked, and processes of another run still work in it ({listed}). "
        f"{action} write the same files beside them. Wait for them to finish, or stop them "
        f"(kill {pids}); then snakemake --unlock, and the same command again."
    )
