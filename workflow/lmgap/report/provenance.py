"""Record what a run used: the KenLM tools, the corpus manifest and the experiment's config."""

import json
import platform
from importlib import metadata

from ..atomic import write_json
from ..files import sha256


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
        # What the neural models were trained and scored with.
        "packages": {name: _version(name) for name in ("torch", "transformers", "tokenizers")},
    }
    write_json(record, out_path)


def _version(package):
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None
