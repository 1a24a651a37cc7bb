"""What a saved model's folder tells without loading it: its weights' size and parameters."""

import json
import math
import struct
from pathlib import Path

WEIGHTS = ("*.safetensors", "*.bin", "*.pt")


def model_folder(model):
    """The folder of a job's `model` input: the folder itself (a model trained here, one directory), or
    the one holding a user's saved model's files (listed each, so that a changed file rescores)."""
    paths = [model] if isinstance(model, str) else list(model)
    if len(paths) == 1 and Path(paths[0]).is_dir():
        return str(paths[0])
    return str(Path(paths[0]).parent)


def weights_bytes(folder):
    """Bytes of the weight files in a model folder."""
    return sum(path.stat().st_size for pattern in WEIGHTS for path in Path(folder).glob(pattern))


def parameter_count(folder):
    """Parameters stored in the folder's safetensors files (each tensor's shape is in the file's
    JSON header; tied weights are stored once), or None when it has none."""
    files = sorted(Path(folder).glob("*.safetensors"))
    if not files:
        return None
    total = 0
    for path in files:
        with open(path, "rb") as handle:
            (size,) = struct.unpack("<Q", handle.read(8))
            header = json.loads(handle.read(size))
        total += sum(math.prod(entry["shape"]) for key, entry in header.items() if key != "__metadata__")
    return total
