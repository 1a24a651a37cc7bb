"""A submission: the blend's out.tsv of each predicted split and a gonito.yaml saying what made
them, as gonito reads it; `lmgap submit` copies both into a clone of the challenge."""

import json
import re
import shutil
from pathlib import Path

import yaml

from ..commands import run_pipeline
from ..atomic import atomic_open, atomic_path, write_json
from ..corpus.rebuild import read_contexts
from ..errors import LmgapError
from ..files import DamagedRecord, committed_unchanged, count_text_lines, head_commit, read_json, sha256
from ..shapes import PROVENANCE, WEIGHTS, read_record

YAML = "gonito.yaml"
# Beside the submission, never copied: the sha256 of each predicted split's in.tsv.xz, from the
# run's record, for lmgap submit to check the clone's against, and of each file the run wrote.
INPUTS = "inputs.json"
# The splits the pipeline predicts (the schema's scored splits and test-A).
PREDICTABLE = ("dev-0", "dev-1", "test-A")
# Settings that say nothing of the submission: where the corpus and a user's neural model were
# read from (paths of this machine) and the bootstrap behind the comparison table.
NOT_PARAMS = re.compile(r"corpus\.source|comparison|neural\.[^.]+\.path")
# The params key that lists the predicted splits: lmgap submit copies those and no other folder.
SPLITS = "lmgap.splits"


def flat(settings, prefix="", leave_out=NOT_PARAMS):
    """{dotted key: value} of nested settings but those whose dotted key leave_out matches; lists stay values
    (gonito writes each as YAML)."""
    out = {}
    for key, value in settings.items():
        name = f"{prefix}{key}"
        if leave_out.fullmatch(name):
            continue
        if isinstance(value, dict) and value:
            out.update(flat(value, name + ".", leave_out))
        else:
            out[name] = value
    return out


def describe(provenance, weights):
    """(description, tags) of the blend: its members and what made them."""
    experiment, lmgap = provenance["experiment"], provenance["lmgap"]
    members = list(weights["weights"])
    ngrams = sorted({int(m[1]) for m in (re.match(r"both/o(\d+)\b", member) for member in members) if m})
    kinds = {name: entry.get("kind") for name, entry in (experiment.get("neural") or {}).items()}
    neural = sorted(name for name, kind in kinds.items() if kind != "cloze")
    cloze = sorted(name for name, kind in kinds.items() if kind == "cloze")
    # Each family in the blend: whether it is, its words in the description, its tags.
    present = [
        (ngrams, f"KenLM n-grams of orders {', '.join(map(str, ngrams))}", ["kenlm", "n-grams"]),
        (neural, f"neural models ({', '.join(neural)})", ["neural-network"]),
        (cloze, f"cloze models of both contexts trained for the gap ({', '.join(cloze)})", ["neural-network", "cloze"]),
        ("both/document" in members, "the words of each gap's own page (a cache)", ["document"]),
    ]
    families = [text for found, text, _ in present if found] + ["the context-free gap-word unigram"]
    found_tags = (tag for found, _, family_tags in present if found for tag in family_tags)
    tags = list(dict.fromkeys(["lmgap", "blend", *found_tags]))
    commit = ""
    if lmgap.get("commit"):
        # What is sent to the leaderboard says what the record says of the checkout.
        changes = " with uncommitted changes" if lmgap.get("uncommitted_changes") else ""
        commit = f" at git commit {lmgap['commit'][:12]}{changes}"
    description = (
        f"Blend of {'; '.join(families)}; weights by EM on {experiment['eval_splits'][0]}'s gaps "
        f"(cross-fitted there, all of them for test-A) (lmgap {lmgap['version']}{commit})"
    )
    return description, tags


def write_submission(outs, inputs, outputs):
    """Copy each split's out.tsv (outs: {split: path}) to {split}/out.tsv beside outputs' gonito.yaml and write
    that, its params the settings of inputs' provenance record and the blend's weights (one file)."""
    out_folder = Path(outputs["gonito"]).parent
    provenance, weights = read_record(inputs["provenance"], PROVENANCE), read_record(inputs["weights"][0], WEIGHTS)
    description, tags = describe(provenance, weights)
    params = flat(provenance["experiment"])
    params.update({f"weight.{name}": round(value, 6) for name, value in weights["weights"].items()})
    params[SPLITS] = ",".join(outs)
    params["lmgap.version"] = provenance["lmgap"]["version"]
    params["lmgap.code"] = provenance["lmgap"]["code"]
    if provenance["lmgap"].get("commit"):
        params["lmgap.commit"] = provenance["lmgap"]["commit"]
        params["lmgap.uncommitted_changes"] = bool(provenance["lmgap"].get("uncommitted_changes"))
    for split, path in outs.items():
        with atomic_path(out_folder / split / "out.tsv") as tmp:
            shutil.copyfile(path, tmp)
    with atomic_open(out_folder / YAML) as handle:
        yaml.safe_dump({"description": description, "tags": tags, "params": params}, handle, sort_keys=False)
    files = provenance["corpus"]["files"]
    record = {f"{split}/in.tsv.xz": files[f"{split}/in.tsv.xz"]["sha256"] for split in outs}
    record.update({name: sha256(out_folder / name) for name in [YAML, *(f"{split}/out.tsv" for split in outs)]})
    write_json(record, out_folder / INPUTS)


def changed_params(given, folder):
    """(setting, value) of each of the settings given (nested: a config) that the params of the submission in
    folder record otherwise: the config was changed since the run that made it (a comment changes nothing;
    compared as the run records them, through JSON: a tuple is a list)."""
    try:
        params = yaml.safe_load((Path(folder) / YAML).read_text())["params"]
    except (OSError, yaml.YAMLError, TypeError, KeyError):
        return []
    if not isinstance(given, dict) or not isinstance(params, dict):
        return []
    given = json.loads(json.dumps(given))
    return [(key, value) for key, value in flat(given).items() if key in params and params[key] != value]


def submitted_splits(folder):
    """The splits whose out.tsv a submission folder's gonito.yaml names, once that is the file the run wrote
    (a folder left by an earlier config is not the submission's), and the submission's record (inputs.json)."""
    folder = Path(folder)
    if not (folder / YAML).is_file():
        run = run_folder(folder)
        raise LmgapError(
            f"{folder.resolve()} holds no {YAML}: run lmgap submit in the folder the pipeline ran in, or "
            "give --submission its results/submission" + (f"; a run writes it ({run_pipeline(run)})" if run else "")
        )
    written = read_inputs(folder)
    check_as_written(folder, [Path(YAML)], written)
    with open(folder / YAML) as handle:
        return str(yaml.safe_load(handle)["params"][SPLITS]).split(","), written


def copy_into(folder, clone):
    """Copy a submission into a clone of the challenge, once its files are as the run wrote them and
    the clone's splits the ones it predicted, losing nothing of the clone's; returns the files copied."""
    folder, clone = Path(folder), Path(clone)
    if not clone.is_dir():
        raise LmgapError(
            f"{clone} is no folder{' (it does not exist)' if not clone.exists() else ''}: give the folder of a clone "
            "of the challenge (git clone git://gonito.net/challenging-america-word-gap-prediction)"
        )
    if head_commit(clone) is None:
        # (A folder of a clone, its dev-0/ say: the clone's top is meant, where it holds a split of the challenge.)
        top = next((above for above in clone.resolve().parents if (above / ".git").exists()), None)
        if top is not None and any(top.glob("dev-*/in.tsv.xz")):
            raise LmgapError(
                f"{clone} is a folder inside the git repository at {top}, not its top: give {top}, the clone's own "
                "folder; nothing was copied"
            )
        # (gonito takes a submission as a git push: a plain folder, the run's own corpus among them, is no place.)
        raise LmgapError(
            f"{clone} is no git repository with a commit: give the folder of a clone of the challenge (git clone "
            "git://gonito.net/challenging-america-word-gap-prediction), from which gonito takes a submission as a "
            "git push; nothing was copied"
        )
    splits, record = submitted_splits(folder)
    files = [Path(YAML), *(Path(split) / "out.tsv" for split in splits)]
    # gonito scores the challenge's dev-* and test-* splits (train/ is its training data).
    scored = sorted(p.parent.name for p in clone.glob("*/in.tsv.xz") if p.parent.name.startswith(("dev-", "test-")))
    for wanted in scored:
        if wanted not in PREDICTABLE:
            raise LmgapError(
                f"{clone} has {wanted}/in.tsv.xz, a split the pipeline does not predict (it predicts "
                f"{', '.join(PREDICTABLE)}): give a clone of this challenge, or remove {wanted}/ if it is "
                "not the challenge's"
            )
        if wanted not in splits:
            setting = "corpus.test_a: true" if wanted == "test-A" else f"{wanted} among eval_splits"
            raise LmgapError(
                f"{clone} has {wanted}/in.tsv.xz but the submission has no {wanted}/out.tsv: gonito "
                f"scores every split of the challenge; set {setting} in config.yaml and rerun the pipeline"
            )
    check_as_written(folder, files[1:], record)
    for split in splits:
        if not (clone / split / "in.tsv.xz").is_file():
            raise LmgapError(
                f"{clone} has no {split}/in.tsv.xz: give the folder of a clone of the challenge "
                f"(git clone git://gonito.net/challenging-america-word-gap-prediction)"
            )
        with open(folder / split / "out.tsv", "rb") as handle:
            lines = count_text_lines(handle)
        expected = sum(len(block) for block in read_contexts(clone / split))
        if lines != expected:
            raise LmgapError(
                f"{folder / split / 'out.tsv'} has {lines:,} lines but {clone / split}/in.tsv.xz has {expected:,}: "
                "the submission was made on another version of the corpus; point corpus.source at this "
                "clone and rerun the pipeline"
            )
    check_predicted_inputs(folder, record, clone, splits)
    check_nothing_of_the_clone_s_own_is_lost(folder, clone, files)
    for relative in files:
        with atomic_path(clone / relative) as tmp:
            shutil.copyfile(folder / relative, tmp)
    if (clone / ".git").is_dir():
        write_json({str(relative): sha256(clone / relative) for relative in files}, clone / COPIED)
    return files


def run_folder(submission):
    """The run folder of a submission folder (RUN/results/submission), where it is one (RUN holds a config.yaml);
    else None."""
    run = Path(submission).resolve().parent.parent
    is_run = Path(submission).resolve() == run / "results/submission" and (run / "config.yaml").is_file()
    return run if is_run else None


def write_anew(folder, delete=False):
    """How a submission folder is written anew: its run again, where it is a run folder's results/submission (and
    deleted first, where delete); else, from the run that made it."""
    run = run_folder(folder)
    if run is None:
        return (
            f"give --submission the results/submission of the run that made it ({Path(folder).resolve()} is no run "
            "folder's results/submission, which a run writes anew)"
        )
    first = f"delete {folder} and " if delete else ""
    return f"{first}run the pipeline again ({run_pipeline(run)}) to write the submission anew"


def read_inputs(folder):
    """The submission's record (inputs.json): the sha256 of each file the run wrote and of each split's
    in.tsv.xz it predicted."""
    if not (folder / INPUTS).is_file():
        raise LmgapError(f"{folder} has no {INPUTS}, the record of the inputs it predicted: {write_anew(folder)}")
    try:
        written = read_json(folder / INPUTS)
    except DamagedRecord as err:
        raise damaged_inputs(folder, err.why) from None
    if not isinstance(written, dict) or not all(isinstance(value, str) for value in written.values()):
        raise damaged_inputs(folder, "not a record of sha256 sums")
    return written


def recorded(folder, written, name):
    """The sha256 the submission's record gives name; a record without it is damaged."""
    if name not in written:
        raise damaged_inputs(folder, f"it has no sha256 of {name}")
    return written[name]


def damaged_inputs(folder, why):
    return LmgapError(f"{folder / INPUTS} is damaged ({why}): {write_anew(folder, delete=True)}; nothing was copied")


def check_as_written(folder, files, written):
    """Each file to copy is the one the run wrote, by sha256 (not cut short, edited or damaged since): the
    submission's record, written."""
    for relative in files:
        found = sha256(folder / relative) if (folder / relative).is_file() else "none: the file is missing"
        if found != recorded(folder, written, str(relative)):
            raise LmgapError(
                f"{folder / relative} is not the file the run wrote (sha256 {found}, the run's record: "
                f"{written[str(relative)]}): {write_anew(folder, delete=True)}; nothing was copied"
            )


def check_predicted_inputs(folder, predicted, clone, splits):
    """Each split's in.tsv.xz in the clone is the one the run predicted (folder's record, predicted)."""
    for split in splits:
        name = f"{split}/in.tsv.xz"
        found = sha256(clone / name)
        if found != recorded(folder, predicted, name):
            raise LmgapError(
                f"{clone / name} is not the {name} the submission predicted (sha256 {found}, the run's "
                f"record: {predicted[name]}): point corpus.source at this clone and rerun the "
                "pipeline; nothing was copied"
            )


# What the last lmgap submit copied into a clone, by sha256: inside its .git/, which git keeps out of
# the work tree, so that a copy never committed (a submission sent again after a new run) is known as ours.
COPIED = Path(".git/lmgap-submitted.json")


def copied_by_lmgap(clone, relative):
    """Whether a clone's file is as the last lmgap submit copied it there."""
    try:
        copied = read_json(clone / COPIED)
    except (OSError, ValueError):
        return False
    return isinstance(copied, dict) and copied.get(str(relative)) == sha256(clone / relative)


def check_nothing_of_the_clone_s_own_is_lost(folder, clone, files):
    """A file the copy would replace is the submission's already, committed in the clone's git (which keeps
    it), or as an earlier lmgap submit copied it: anything else is work of the user's own."""
    for relative in files:
        target = clone / relative
        if target.is_dir():
            raise LmgapError(
                f"{target} is a folder, where the copy writes a file: move it away, then run lmgap submit "
                "again; nothing was copied"
            )
        if not target.is_file() or target.read_bytes() == (folder / relative).read_bytes():
            continue
        if not committed_unchanged(clone, relative) and not copied_by_lmgap(clone, relative):
            raise LmgapError(
                f"{target} holds changes that are not committed in a git repository, which the copy "
                "would lose: commit it or move it away, then run lmgap submit again; nothing was copied"
            )
