"""The candidates' scores a model gave, as one file keeps them (the two arrays of predict.py)."""

import numpy as np

from ..atomic import atomic_path


def save_scores(path, left, right):
    with atomic_path(path) as tmp:
        with open(tmp, "wb") as handle:
            np.savez(handle, left=left, right=right)


def load_scores(path):
    with np.load(path) as data:
        return data["left"], data["right"]
