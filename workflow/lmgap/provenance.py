"""Record what a run used: the KenLM tools, the corpus manifest and the experiment's config."""

import hashlib
import json
import platform

from .atomic import atomic_open


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_provenance(out_path, manifest_path, tools, kenlm, experiment, snakemake_version):
    """One JSON file beside the tables; its content changes only when the inputs do."""
    with open(manifest_path) as handle:
        corpus = json.load(handle)
    record = {
        "experiment": experiment,
        "corpus": corpus,
        "kenlm": {**kenlm, "tools_sha256": {name: sha256(path) for name, path in sorted(tools.items())}},
        "snakemake": snakemake_version,
        "python": platform.python_version(),
    }
    with atomic_open(out_path) as out:
        json.dump(record, out, indent=2, sort_keys=True)
        out.write("\n")
