"""Record what a run used: the code, the KenLM tools, the corpus manifest and the experiment's
config."""

import platform
from importlib import metadata

from ..atomic import write_json
from ..files import head_commit, sha256, uncommitted_changes
from ..shapes import MANIFEST, read_record


def write_provenance(inputs, params, outputs, root, snakemake_version):
    """One JSON file beside the tables. params: experiment, kenlm (its build), lmgap (version, code digest), tools
    (the names of inputs' tools); root: the checkout of the workflow's code, whose git state it records."""
    tools = dict(zip(params["tools"], inputs["tools"]))
    # The commit of the checkout and whether its tracked files differ from it (None and None outside git).
    checkout = {"commit": head_commit(root), "uncommitted_changes": uncommitted_changes(root)}
    record = {
        "experiment": params["experiment"],
        "corpus": read_record(inputs["manifest"], MANIFEST),
        "lmgap": {**params["lmgap"], **checkout},
        "kenlm": {**params["kenlm"], "tools_sha256": {name: sha256(path) for name, path in sorted(tools.items())}},
        "snakemake": snakemake_version,
        "python": platform.python_version(),
        # What the neural models were trained and scored with.
        "packages": {name: _version(name) for name in ("torch", "transformers", "tokenizers")},
    }
    write_json(record, outputs["provenance"])


def _version(package):
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None
