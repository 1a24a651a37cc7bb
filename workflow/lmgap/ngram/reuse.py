"""A model trained with --discount_fallback is the model trained without it whenever lmplz could
estimate its discounts: the option only fills in the orders lmplz cannot estimate. So turning
lmplz.discount_fallback on or off need not train again a model whose twin (the same model under
the other setting) is on disk, was trained by the same code from the same text with the same
tools, and needed no fallback discounts: a symbolic link to its files stands in for it."""

import hashlib
import json
import os
from pathlib import Path

from ..atomic import atomic_path, write_json
from ..models import model_name


def training_identity(text, tools, code, options):
    """What a model's bytes depend on besides --discount_fallback: its training text and KenLM's
    tools as files (path, size, modification time), the code that trains (a digest), its options."""

    def stat(path):
        info = os.stat(path)
        return [str(path), info.st_size, info.st_mtime_ns]

    digest = hashlib.sha256(b"".join(Path(path).read_bytes() for path in code)).hexdigest()
    return {
        "text": stat(text),
        "tools": [stat(tool) for tool in tools],
        "code": digest,
        "order": options["order"],
        "prune": list(options["prune"]),
        "train_fraction": options["train_fraction"],
    }


def twin_folder(options, folder):
    """The folder of the same model under the other lmplz.discount_fallback setting, beside this
    model's folder."""
    name = model_name(options["order"], options["prune"], not options["discount_fallback"], options["train_fraction"])
    return Path(folder).parent / name


def reusable(twin, identity, arpa_wanted):
    """The twin's counts record when its files can stand for this model's, else None."""
    files = [twin / "model.binary", twin / "ngram_counts.json", twin / "usage.json"]
    if arpa_wanted:
        files.append(twin / "model.arpa")
    # A twin that is itself a link (to this model's own folder, say) does not qualify.
    if not all(path.is_file() and not path.is_symlink() for path in files):
        return None
    try:
        counts = _read_json(twin / "ngram_counts.json")
    except ValueError:
        return None
    # Records from before the identity was kept, with fallback discounts, or whose binary is not
    # the size it was written at (damaged) do not qualify.
    if counts.get("trained_from") != identity or counts.get("fallback_discounts") != []:
        return None
    if counts.get("binary_bytes") != (twin / "model.binary").stat().st_size:
        return None
    return counts


def reuse(twin, counts, outputs, log):
    """Point this model's binary and ARPA file at the twin's, and write its records with a note of
    where they came from. Symbolic links, relative, not hard ones: Snakemake touches a finished
    job's outputs, and through a hard link it would make the twin's look new, so that switching
    back would redo every job downstream of the twin."""
    for name in ("binary", "arpa"):
        if outputs.get(name):
            target = Path(outputs[name])
            with atomic_path(target) as tmp:
                os.symlink(os.path.relpath(twin / target.name, target.parent), tmp)
    write_json(counts, outputs["counts"])
    usage = _read_json(twin / "usage.json")
    usage["reused_from"] = str(twin)
    write_json(usage, outputs["usage"])
    log.write(
        f"Reused {twin}/: trained by the same code from the same text with the same tools, and lmplz "
        "estimated every order's discounts, so --discount_fallback changes none of its bytes.\n"
    )


def _read_json(path):
    with open(path) as handle:
        return json.load(handle)


def rebuild_advice(binary):
    """How to train a damaged model again: delete its folder, and the twin's when it links there
    (else the twin's damaged file would be linked again)."""
    binary = Path(binary)
    folders = [binary.parent]
    if binary.is_symlink():
        folders.append(Path(os.path.normpath(binary.parent / os.readlink(binary))).parent)
    listed = " and ".join(f"{folder}/" for folder in folders)
    return f"if the file is damaged, delete {listed} and run the pipeline again"
