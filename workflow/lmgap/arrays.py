"""The .npz records of the pipeline's (lmgap.gap.candidate_sets, lmgap.gap.predict), read by one reader; apart
from lmgap.shapes, so that a job that reads only JSON records needs no numpy."""

import zipfile

import numpy as np

from .files import DamagedRecord


def read_arrays(path, names):
    """{name: array} of a .npz record of the pipeline's (lmgap.gap.candidate_sets, lmgap.gap.predict); a
    damaged one, or one without these arrays, is named, with the fix."""
    try:
        with np.load(path) as saved:
            return {name: saved[name] for name in names}
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        raise DamagedRecord(path, f"{type(err).__name__}: {err}") from None
