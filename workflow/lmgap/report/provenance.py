"""Record what a run used: the code, the KenLM tools, the corpus manifest and the experiment's
config."""

import platform
from importlib import metadata

from ..atomic import write_json
from ..files import head_commit, read_json, sha256, uncommitted_changes


def write_provenance(out_path, manifest_path, tools, settings, versions):
    """One JSON file beside the tables. settings: the experiment, KenLM's build and lmgap's code (version, digest);
    versions: the checkout's git state (see checkout) and Snakemake's version, read by the job."""
    corpus = read_json(manifest_path)
    kenlm = settings["kenlm"]
    record = {
        "experiment": settings["experiment"],
        "corpus": corpus,
        "lmgap": {**settings["lmgap"], **versions["checkout"]},
        "kenlm": {**kenlm, "tools_sha256": {name: sha256(path) for name, path in sorted(tools.items())}},
        "snakemake": versions["snakemake"],
        "python": platform.python_version(),
        # What the neural models were trained and scored with.
        "packages": {name: _version(name) for name in ("torch", "transformers", "tokenizers")},
    }
    write_json(record, out_path)


def checkout(root):
    """The git commit of the checkout at root and whether its tracked files differ from it (None
    and None outside a git checkout)."""
    return {"commit": head_commit(root), "uncommitted_changes": uncommitted_changes(root)}


def _version(package):
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None
