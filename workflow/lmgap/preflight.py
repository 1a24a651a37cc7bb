"""What the main process checks and says before the first job (onstart), at the end, and in the cheap
looks a parse takes at this folder (reading only: a dry run, a lint and a report parse too)."""

import base64
import csv
import datetime
import errno
import filecmp
import itertools
import json
import os
import re
import shlex
import shutil
import tempfile
import time
from collections import Counter
from pathlib import Path

from . import seals
from .atomic import atomic_open, atomic_path
from .commands import clear_the_way
from .errors import LmgapError
from .corpus.textrecord import TEXT, read_text_record, record_path
from .files import read_json, sha256
from .gap.gonito import flat


# Left while a run's results are of other settings than its config's and a plain run makes none of them again:
# after a run given --touch, or of the whole pipeline without some of Snakemake's records (behind_settings); and
# the settings a run started without some of those records had changed (note_unseen).
BEHIND = "results/.behind-settings"
UNSEEN = "results/.unseen-settings"


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
    """Each of these folders that exists, each folder in it and each file, can be written: Snakemake refuses
    write-protected outputs at the start with a long traceback, and meets an immutable folder's (root's
    chattr +i) only when a job's outputs are removed, with another. Looked at without writing."""
    for folder in map(Path, folders):
        for where, _, files in os.walk(folder):
            if not os.access(where, os.W_OK | os.X_OK):
                raise cannot_write(where, "Permission denied")
            for name in files:
                path = os.path.join(where, name)
                # (A link's target is not written: Snakemake replaces the link.)
                if not os.path.islink(path) and not os.access(path, os.W_OK):
                    raise cannot_write(where, f"{name} in it is write-protected")


def check_folders(folders):
    """Each of these folders the run writes in, and each folder above it, is a folder where it exists: a file in
    one's place fails Snakemake's planning with a raw NotADirectoryError."""
    for folder in map(Path, folders):
        for where in reversed([folder, *folder.parents[:-1]]):
            if where.exists() and not where.is_dir():
                raise LmgapError(f"{where} is a file where the run makes a folder: {clear_the_way(where)}")


def check_dates(places, now=None):
    """No file in places (files, and folders walked but for .git) is dated in the future: Snakemake fails each
    job whose output, touched as it ends, is older than an input, on every run until the date is mended. A
    second's grace: a job takes longer, and file times come from a clock that never leads."""
    now = time.time() if now is None else now
    ahead = []
    for place in map(Path, places):
        walked = os.walk(place) if place.is_dir() else [(place.parent, [], [place.name])]
        for where, folders, files in walked:
            folders[:] = [name for name in folders if name != ".git"]
            for name in files:
                path = Path(where, name)
                if path.is_file() and path.stat().st_mtime > now + 1:
                    ahead.append(path)
    if not ahead:
        return
    # (A clock set wrong dates every file written meanwhile: a find command then, not a list.)
    mend = (
        f"touch -c -- {' '.join(shlex.quote(str(path)) for path in ahead)}"
        if len(ahead) <= 5
        else f"find {' '.join(shlex.quote(str(Path(place).resolve())) for place in places)} -newermt now "
        "-exec touch -c -- {} +"
    )
    raise LmgapError(
        f"{len(ahead)} file{'s' if len(ahead) > 1 else ''} dated in the future ({ahead[0]}, "
        f"{datetime.datetime.fromtimestamp(ahead[0].stat().st_mtime):%Y-%m-%d %H:%M}{', …' if len(ahead) > 1 else ''}; "
        f"this machine's clock says {datetime.datetime.fromtimestamp(now):%Y-%m-%d %H:%M}): Snakemake fails every job "
        f"that reads one, as its output is older. Date {'them' if len(ahead) > 1 else 'it'} now, with {mend}, and run "
        "the same command again"
    )


def option_values(argv, names):
    """The values a command line (argv) gives the last of its options named names, as `--name V1 V2` (the words up
    to the next option) or `--name=V`; None where it gives none of them."""
    found = None
    for number, argument in enumerate(argv):
        name, _, given = argument.partition("=")
        if name in names:
            following = itertools.takewhile(lambda word: not word.startswith("-"), argv[number + 1 :])
            found = [given] if given else list(following)
    return found


def until_warning(until, jobs, checkpoints, outputs):
    """The warning for a run given these --until rules of which no job ran, where a checkpoint's job was planned
    (jobs: planned_jobs' of its log): Snakemake looks past a checkpoint only once it has run, and --until stops
    there, so the rules that follow it never run. outputs: {rule: its output patterns}."""
    planned, text = jobs
    ran = set(re.findall(r"^(?:local)?(?:rule|checkpoint) (\w+):$", text, flags=re.M))
    stopped = [rule for rule in until if rule in outputs and rule not in ran]
    passed = [checkpoint for checkpoint in checkpoints if checkpoint in planned]
    if not (stopped and passed):
        return None
    targets = "; ".join(f"{rule} makes {', '.join(outputs[rule])}" for rule in stopped)
    return (
        f"--until {' '.join(until)}: no {' or '.join(stopped)} job ran. It follows a checkpoint ({', '.join(passed)}), "
        "which Snakemake looks past only once it has run, and --until stops there: give the files as targets "
        f"instead ({targets}), as docs/sweeping.md says"
    )


def given_config_files(argv):
    """The files a command line (argv) gives --configfile, in its order, where the parse can tell which: a path
    relative to where snakemake was started is not one relative to the run folder --directory moved to."""
    moved = option_values(argv, ("--directory", "-d")) is not None
    return [
        path
        for path in option_values(argv, ("--configfile", "--configfiles")) or []
        if not moved or Path(path).is_absolute()
    ]


def check_report_folder(argv):
    """The folder `--report FILE` (argv: the command line) writes into exists: Snakemake opens the file only
    once the whole report is built, and ends in a raw FileNotFoundError where it does not. FILE is relative to
    the run folder (--directory), where the parse runs."""
    values = option_values(argv, ("--report", "--report-html-path"))
    if values is None:
        return
    # (--report takes one word, Snakemake's report.html where it is given none.)
    given = values[0] if values else ""
    folder = Path(given).parent if given else Path(".")
    if given and Path(given).is_dir():
        raise LmgapError(
            f"--report {given} is a folder, where Snakemake writes the report as a file (and would fail once it "
            f"is built): give a file name, as --report {shlex.quote(str(Path(given) / 'report.html'))}"
        )
    if not folder.is_dir():
        raise LmgapError(
            f"--report {given}: its folder, {folder.resolve()}, does not exist (Snakemake would fail as it "
            f"writes the report, once it is built): make it with mkdir -p -- {shlex.quote(str(folder.resolve()))} "
            "and run the same command again"
        )


def check_records_writable(records=".snakemake"):
    """Snakemake keeps its records of the runs (metadata, locks, logs) in .snakemake/ and fails
    with a long traceback where it cannot write them; looked at without writing anything."""
    folder = Path(records) if Path(records).exists() else Path(".")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise cannot_write(folder, f"Snakemake keeps its records of the runs in {Path(records).resolve()}")


def _read_json(path):
    """A record's content, or None where it is missing or unreadable."""
    try:
        return read_json(path)
    except (OSError, ValueError):
        return None


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


def drop_superseded(paths, folder):
    """Remove from folder the copies set_aside moved there of the files among paths that are in place again (a
    run made them anew), and folder once it is empty."""
    for path in map(Path, paths):
        if path.is_file():
            (Path(folder) / path.name).unlink(missing_ok=True)
    try:
        Path(folder).rmdir()
    except OSError:
        return


def keep_edited(paths, folder="results/edited"):
    """Copy each of paths (tables, plots or submission files under results/ changed by hand, which their install
    job is about to replace) to the same place under folder, beside an earlier edit kept there (`perplexity.2.md`
    after `perplexity.md`); return the copies."""
    copies = []
    for path in map(Path, paths):
        copy = Path(folder) / path.relative_to("results")
        number = 1
        while copy.exists() and not (copy.is_file() and filecmp.cmp(copy, path, shallow=False)):
            number += 1
            copy = copy.with_name(f"{path.stem}.{number}{path.suffix}")
        copy.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(copy) as tmp:
            shutil.copy2(path, tmp)
        copies.append(str(copy))
    return copies


def planned_jobs(logs):
    """The jobs of each rule a run planned, from its logs (Snakemake's record of a run, which its onsuccess
    and onerror handlers are handed: a path or a list): the counts of each "Job stats" table they print (the
    largest, where a checkpoint made it print another); and the text read."""
    text = ""
    for path in [logs] if isinstance(logs, (str, os.PathLike)) else logs or []:
        try:
            text += Path(path).read_text(errors="replace")
        except OSError:
            continue
    planned = {}
    for block in re.finditer(r"^Job stats:\njob +count\n[- ]+\n((?:\S+ +\d+\n)+)", text, flags=re.M):
        for line in block.group(1).splitlines():
            rule, count = line.split()
            planned[rule] = max(planned.get(rule, 0), int(count))
    return planned, text


def killed_warning(logs):
    """The warning for the jobs a run's log (planned_jobs' logs) says were killed with SIGKILL, whose own
    process can say nothing: by hand, or, most often, by the kernel for want of memory."""
    text = planned_jobs(logs)[1]
    killed = sorted(set(re.findall(r"died with <Signals\.SIGKILL: 9>\.\n(?:\[[^\n]*\]\n)?Error in rule (\w+):", text)))
    if not killed:
        return None
    return (
        f"a job of {', '.join(killed)} was killed (SIGKILL), by hand or, most often, by the kernel for want of "
        "memory (`dmesg` says which): run fewer jobs at once (a smaller --resources mem_mb=N), lower "
        "memory.budget_mb to what is free, or stop other programs, then run the same command again"
    )


def unfinished_rules(logs):
    """The rules some of whose jobs a run planned (planned_jobs) and did not see finish, against the logs'
    "Finished jobid" lines. A table job that never started, a job it waits for having failed, is among them."""
    planned, text = planned_jobs(logs)
    finished = Counter(re.findall(r"^Finished jobid: \d+ \(Rule: (\w+)\)", text, flags=re.M))
    return {rule for rule, count in planned.items() if finished[rule] < count}


def behind_inputs(outputs, inputs):
    """Whether a job's outputs (all written) are older than one of its inputs, or one is missing: Snakemake runs
    the job again. None where an output is missing (its absence is named otherwise)."""
    if not all(os.path.isfile(path) for path in outputs):
        return None
    made = min(os.stat(path).st_mtime for path in outputs)
    return any(not os.path.exists(path) or os.stat(path).st_mtime > made for path in inputs)


def note_kept(kept, marker):
    """Write marker listing the tables, plots, submission files and run record kept from an earlier run (kept), or
    remove it when none is."""
    marker = Path(marker)
    if not kept:
        marker.unlink(missing_ok=True)
        return
    with atomic_open(marker) as out:
        out.write(
            "# Kept from an earlier run\n\nThese tables, plots, submission files and run record are an earlier "
            "run's: the last run was to write them again, and the job that makes them failed, was stopped or waited "
            "for a job that failed (the error is in that run's log, .snakemake/log/). Once what stopped it is fixed, "
            "the next run writes them, and this file goes.\n\n"
        )
        out.writelines(f"- {path}\n" for path in kept)


def corpus_warnings(record_path, source):
    """The last fetch's warnings (lmgap.corpus.fetch), if it fetched this source and none of its files
    is newer than its record (else the fetch runs again, and its record is the one to read)."""
    record = _read_json(record_path)
    if not record or record.get("source") != source:
        return []
    written = os.stat(record_path).st_mtime
    for name in record.get("files", []):
        path = Path(record["root"]) / name
        if not path.is_file() or path.stat().st_mtime > written:
            return []
    return record.get("warnings", [])


def other_models_warning(table_path, models):
    """A table whose rows are of other models than the config's (models: the names its rows
    should have): a run that stopped before writing it again left an earlier configuration's."""
    try:
        with open(table_path, newline="") as handle:
            found = {row["model"] for row in csv.DictReader(handle, delimiter="\t")}
    except (OSError, KeyError, csv.Error):
        return None
    if found == set(models):
        return None
    return (
        f"{table_path} holds the rows of another configuration ({', '.join(sorted(found)) or 'none'}), not "
        f"this one's ({', '.join(sorted(models))}): this run did not write it again; see what stopped it"
    )


def _not_in_place(path, staged):
    """How a table or plot in place (path) differs from the copy its job staged: None (the same, or one of them
    missing, or the staged copy not the one its job wrote: refused before any job, by onstart's seal check);
    "edited", changed since its install job wrote it (by hand, or damaged: its seal says so); else
    "uninstalled", as its install job wrote it or without a seal (the earlier copy Snakemake puts back when an
    install job fails or is stopped, the job having removed the seal as it began): the newer copy not in place."""
    path, staged = Path(path), Path(staged)
    if not (path.is_file() and staged.is_file()) or filecmp.cmp(path, staged, shallow=False):
        return None
    if seals.seal_path(path).is_file() and seals.fault(path):
        return "edited"
    return None if seals.fault(staged, unsealed=not seals.SEALS.is_dir()) else "uninstalled"


def compare_installed(installed):
    """(edited, uninstalled) of installed ({table or plot: the copy its job staged}), as _not_in_place tells them."""
    found = {path: _not_in_place(path, staged) for path, staged in installed.items()}
    return [str(path) for path, how in found.items() if how == "edited"], [
        str(path) for path, how in found.items() if how == "uninstalled"
    ]


def install_staged(installed):
    """Put in place each staged copy of installed ({table or plot: the copy its job staged}) not in place, as its
    job wrote it (its seal holds). A run stopped as an install job ran can leave Snakemake's record of that job as
    done, with the earlier copy put back: the job would never run again. Returns (those put in place, {each one
    that could not be, a disk full: the error})."""
    done, failed = [], {}
    for path, staged in installed.items():
        # (_not_in_place holds the staged copy to its seal; with the seals gone as a whole, none is known to be its
        # job's, and none is put in place.)
        if not (seals.SEALS.is_dir() and _not_in_place(path, staged) == "uninstalled"):
            continue
        try:
            with atomic_path(path) as tmp:
                shutil.copyfile(staged, tmp)
            seals.seal([path])
        except OSError as err:
            failed[str(path)] = err
            continue
        done.append(str(path))
    return done, failed


def not_placed_warning(failed, installs):
    """The warning for the newer copies install_staged could not put in place ({path: its OSError}); installs: the
    jobs that put them in place. Snakemake, which puts the earlier copy back when such a job fails, records the
    job's input as the one it was given: only a --forcerun runs it again."""
    if not failed:
        return None
    errors = list(failed.values())
    folders = ", ".join(sorted({str(Path(path).parent.resolve()) for path in failed}))
    full = any(err.errno in (errno.ENOSPC, errno.EDQUOT) for err in errors)
    return (
        f"{', '.join(sorted(failed))}: an earlier run's, kept; the newer copy their job staged could not be put in "
        f"place ({errors[0].strerror}, in {folders}): "
        + ("free space on that disk" if full else "make that folder writable")
        + f", then run the same command again with --forcerun {' '.join(installs)}"
    )


def check_texts_unchanged(folder):
    """Refuse a text of ours (each .txt in folder with its record beside: lmgap.corpus.textrecord) changed
    since its job wrote it, before any job reads it (the jobs themselves check sizes only). A text newer
    than its record is read and held to the record's sha256; one merely touched or copied passes."""
    for text in sorted(Path(folder).glob("*.txt")):
        record = record_path(text)
        if not record.is_file():
            continue
        if text.is_dir():
            raise LmgapError(
                f"{text} is a folder where its job wrote a text: {clear_the_way(text)}; then run the same command "
                "again: the job that next needs it writes it anew from the corpus"
            )
        if text.stat().st_mtime <= record.stat().st_mtime:
            continue
        written = read_text_record(text)
        if sha256(text) == written["sha256"]:
            continue
        size = text.stat().st_size
        how = f"{size:,} bytes where it wrote {written['bytes']:,}" if size != written["bytes"] else "other bytes"
        raise LmgapError(
            f"{text} is not the text its job wrote ({how}; {record} holds its size and sha256): it was changed "
            f"since. Delete {text} and run the pipeline again: the job that next needs it writes it anew from "
            "the corpus."
        )


# Where the corpus lies, which is no result's setting.
CORPUS_PLACE = re.compile(r"corpus\.source")


def changed_settings(provenance_path, experiment):
    """The settings (flat keys) of experiment that differ from those the results were made with
    (provenance_path's experiment); none where it holds no record."""
    recorded = _read_json(provenance_path)
    if not isinstance(recorded, dict) or not isinstance(recorded.get("experiment"), dict):
        return []
    # (Through JSON, as the record was written, so that only a change of value differs.)
    now = flat(json.loads(json.dumps(experiment)), leave_out=CORPUS_PLACE)
    then = flat(recorded["experiment"], leave_out=CORPUS_PLACE)
    return sorted(key for key in now.keys() | then.keys() if now.get(key) != then.get(key))


def earlier_train_split(provenance_path, experiment):
    """The train_split the results were trained on (provenance_path's), where it is not experiment's; else None."""
    if "train_split" not in changed_settings(provenance_path, experiment):
        return None
    return _read_json(provenance_path)["experiment"].get("train_split")


def kept_split(then):
    """Where the tables, plots and submission of the results of train_split then are kept as a run of another
    starts (keep_edited's folder)."""
    return f"results/kept/train_split-{then}"


def train_split_warning(provenance_path, experiment):
    """The warning for a train_split other than the one the results were trained on: unlike the settings a sweep
    varies (orders, pruning, fractions, formats: a folder of their own each), it changes every model, the
    vocabulary and the gap task's fits, which are trained again in place of the earlier ones."""
    then = earlier_train_split(provenance_path, experiment)
    if then is None:
        return None
    return (
        f"train_split is {experiment['train_split']}, where the results in results/ were trained on {then} "
        f"({provenance_path}): every model, the vocabulary and the gap task's fits are trained again in their "
        f"place, and setting {then} back trains them again. A run copies the tables, plots and submission of {then} "
        f"to {kept_split(then)}/ as it starts; to keep the rest, copy results/ aside first (or run this config in a "
        "folder of its own, with --directory)"
    )


def unseen_changes(provenance_path, experiment, metadata=".snakemake/metadata", marker=None):
    """The settings that differ from those the results were made with (provenance_path's experiment), where
    Snakemake's records of the runs are gone, all of them or some (a sealed result without its record): it
    compares a job's params with those records, and without them reruns nothing for a changed setting (only for
    files added or changed). Once a run has rewritten provenance_path, the settings note_unseen kept in marker
    as that run started: its results without records are still of those settings' earlier values."""
    unrecorded = unrecorded_results(metadata)
    lost = _lost(unrecorded)
    if not lost:
        return None
    changed = changed_settings(provenance_path, experiment)
    if changed:
        return (
            f"Snakemake's records of the runs (.snakemake/metadata/) are gone ({lost}), so it sees no change of "
            f"settings since the results were made ({', '.join(changed)} differ from {provenance_path}'s): a result "
            "none of whose files changed stays the earlier settings'. If this run does nothing, or says so as it "
            "ends, run with --forceall"
        )
    earlier = Path(marker).read_text().split() if marker and Path(marker).is_file() else []
    if not earlier:
        return None
    unrecorded = sorted(unrecorded or [], key=lambda path: (path.parts[:2] != ("results", "tables"), path))
    named = f" ({few(unrecorded)})" if unrecorded else ""
    return (
        f"results whose records (.snakemake/metadata/) are gone{named} were made with other values of "
        f"{', '.join(earlier)} than this config's: a run since saw no change for them, and left them as they were, "
        "so the tables may mix both. Run with --forceall to make every result this config's"
    )


def few(paths, shown=3):
    """Paths named, the first few of them and how many more."""
    more = f" and {len(paths) - shown:,} more" if len(paths) > shown else ""
    return ", ".join(str(path) for path in paths[:shown]) + more


def note_unseen(provenance_path, experiment, metadata, marker):
    """As a run starts, keep in marker the settings unseen_changes names (its run rewrites provenance_path, and
    Snakemake still reruns nothing for them); once every result has its record again (a --forceall), remove it."""
    marker = Path(marker)
    changed = changed_settings(provenance_path, experiment) if records_lost(metadata) else None
    try:
        if changed is None:
            marker.unlink(missing_ok=True)
        elif changed:
            kept = marker.read_text().split() if marker.is_file() else []
            with atomic_open(marker) as out:
                out.write("".join(f"{key}\n" for key in sorted(set(kept) | set(changed))))
    except OSError:
        # (A folder made in its place, a full disk: the marker only serves a later warning.)
        return


def rerun_triggers_warning(argv, provenance_path, experiment):
    """The warning for a command line (argv) whose --rerun-triggers leave params out, where the config's settings
    differ from those the results were made with: Snakemake then reruns nothing for them."""
    triggers = option_values(argv, ("--rerun-triggers",)) or []
    changed = changed_settings(provenance_path, experiment) if triggers and "params" not in triggers else []
    if not changed:
        return None
    return (
        f"--rerun-triggers {' '.join(triggers)} leaves params out, so Snakemake reruns nothing for a changed "
        f"setting ({', '.join(changed)} differ from {provenance_path}'s): add params to --rerun-triggers (or "
        "leave the option out), or run with --forceall"
    )


def records_lost(metadata):
    """Which of Snakemake's records of the runs are gone: "all", "some of them" (a sealed result without its
    record), or None. A result Snakemake marks incomplete (.snakemake/incomplete/, beside metadata: a run stopped
    as its job ended, before Snakemake recorded it) is not one: the next run makes it again."""
    return _lost(unrecorded_results(metadata))


def _lost(unrecorded):
    """records_lost's answer from unrecorded_results'."""
    if unrecorded is None:
        return "all"
    return "some of them" if unrecorded else None


def unrecorded_results(metadata):
    """The results the pipeline sealed of which Snakemake keeps no record in metadata (incomplete ones aside, as
    records_lost), or None where it keeps none at all."""
    recorded = recorded_outputs(metadata)
    if not recorded:
        return None
    recorded |= recorded_outputs(Path(metadata).parent / "incomplete")
    return [path for path in seals.sealed_files() if str(path) not in recorded]


def recorded_outputs(metadata):
    """The outputs Snakemake keeps a record of in metadata: each record is named by its output's path in URL-safe
    base64, a long name cut into folders."""
    outputs = set()
    for path in Path(metadata).rglob("*"):
        if path.is_file():
            try:
                outputs.add(base64.urlsafe_b64decode(str(path.relative_to(metadata)).replace("/", "")).decode())
            except (ValueError, UnicodeDecodeError):
                continue
    return outputs


def behind_settings(provenance_path, experiment, marker, whole=None, touched=False):
    """Results of other settings than experiment, where provenance_path's record says so: after a run of the
    whole pipeline (whole: it planned a job of all), Snakemake's records of some runs are gone (a job run since
    .snakemake/ was deleted wrote records of its own, so unseen_changes is silent) and it saw no changed
    setting, or the run was given --touch (touched), which records the jobs as run with the config's settings:
    marker is left, saying which, and every parse (whole None) warns until the results are this config's;
    after a run limited to targets (whole False), the rest is as it was."""
    marker = Path(marker)
    changed = changed_settings(provenance_path, experiment)
    if not changed:
        marker.unlink(missing_ok=True)
        return None
    settings = (
        f"{provenance_path} says the results were made with other settings than this config's ({', '.join(changed)})"
    )
    if whole is False:
        return (
            f"{settings}: this run, limited to its targets, left the results that depend on them as they were: run "
            "the pipeline without targets to bring them up to date"
        )
    if whole:
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text("".join(f"{key}\n" for key in [TOUCHED] * touched + changed))
    elif not marker.is_file():
        return None
    if TOUCHED in marker.read_text().splitlines():
        why = (
            ": a run given --touch marked them up to date without making them again, and Snakemake now records "
            "them as made with this config"
        )
    else:
        why = (
            ", and a run of the whole pipeline did not make them again: Snakemake's records of those runs "
            "(.snakemake/metadata/) are gone, and without them it sees no changed setting"
        )
    return f"{settings}{why}. Run with --forceall to make every result this config's"


# The first line of behind_settings' marker after a run given --touch.
TOUCHED = "# --touch"


def given_touch(logs):
    """Whether the run whose logs these are was given --touch (-t): the command line its log records."""
    command = re.search(r"^\s*Command: (.*)$", planned_jobs(logs)[1], flags=re.M)
    return bool(command) and bool({"--touch", "-t"} & set(command.group(1).split()))


def folders_in_place(paths):
    """The warning for folders where the run puts tables, plots or submission files (paths): no install job
    runs again for them while Snakemake's record calls it done."""
    found = [path for path in paths if Path(path).is_dir()]
    if not found:
        return None
    return "; ".join(f"{path} is a folder where the run puts a file: {clear_the_way(path)}" for path in found) + (
        "; then run the pipeline again to put the run's copy there"
    )


def edited_warning(edited):
    """The warning for tables and plots changed since a run put them in place (see compare_installed)."""
    if not edited:
        return None
    them = "them" if len(edited) > 1 else "it"
    return (
        f"{', '.join(edited)}: changed since the run that wrote {them} (by hand?), which Snakemake does not see, "
        f"so the figures are not the run's. Delete {them} and run again to put the run's copy back (no job is "
        "repeated); a run that writes them anew keeps yours under results/edited/"
    )


def damaged_warnings(installed_folders):
    """A warning per file under results/ whose size is not the one its job wrote, before any job meets it: a dry
    run plans the jobs as if it were whole. (Tables and plots in place: edited_warning.)"""
    for path, size, written in seals.sizes_changed(leave_out=[Path(folder) for folder in installed_folders]):
        if size is None:
            yield f"{path} is a folder where its job wrote a file: {clear_the_way(path)}; a run writes the file anew"
            continue
        # A text's record is written with the text, which deleting the record alone would leave in place.
        text = Path(path).with_suffix(".txt")
        also = f" and {text}" if record_path(text) == Path(path) and TEXT.search(str(text)) and text.is_file() else ""
        yield (
            f"{path} is damaged ({seals.resized(size, written)}): a job that reads it will refuse it; delete "
            f"it{also}, and a run writes {'them' if also else 'it'} anew where a job needs it"
        )


def stale_tables_warning(provenance_path, fetch_path):
    """The tables were computed from other corpus files than the last fetch found: a run stopped, or was
    limited to targets (a score, one table), after the corpus changed. The fetch record, not the manifest:
    a target that needs the corpus brings the fetch up to date, and not always the manifest."""
    provenance, fetched = _read_json(provenance_path), _read_json(fetch_path)
    try:
        used, current = provenance["corpus"]["files"], fetched["described"]
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
        f"{fetch_path} lists now ({', '.join(changed)}): run the pipeline to bring them up "
        "to date"
    )
