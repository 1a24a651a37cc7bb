"""A job's files by key (the tables, the blend, the submission). Its rule hands it flat named input lists,
each expanded over keys (a model; a model and a split; a gap system and a split; a blend member), and in its
params those keys in the same order: the script joins its records by the keys and reads no file it was
not handed."""

from .errors import LmgapError


def split_keyed(files):
    """({kind: [path]}, {kind: [key]}) of {kind: {key: path}}: a rule's named inputs and the keys its
    params give them (a key of several parts a list)."""
    inputs = {kind: list(paths.values()) for kind, paths in files.items()}
    keys = {kind: [list(key) if isinstance(key, tuple) else key for key in paths] for kind, paths in files.items()}
    return inputs, keys


def join_keyed(inputs, keys):
    """{kind: {key: path}} of a job's named input lists (snakemake.input) and the keys its params give
    them (a key of several parts a tuple)."""
    joined = {}
    for kind, names in keys.items():
        paths = list(inputs[kind])
        if len(paths) != len(names):
            # The rule's inputs and params disagree: a fault of the workflow, not of the user's data.
            raise LmgapError(f"the job was handed {len(paths)} {kind} files for {len(names)} keys")
        joined[kind] = {tuple(name) if isinstance(name, list) else name: path for name, path in zip(names, paths)}
    return joined
