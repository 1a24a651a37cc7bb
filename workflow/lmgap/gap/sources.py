"""Where a gap's candidates come from, and which of those sources each context variant uses."""

import numpy as np

CONTEXT_SOURCES = ("after2", "after1", "before2", "before1", "between")
SOURCES = (*CONTEXT_SOURCES, "frequent")
FLAG = {name: np.uint8(1 << bit) for bit, name in enumerate(SOURCES)}
# The contexts a variant predicts from, and the sources that show its evidence is specific.
VARIANTS = {
    "both": {"sources": SOURCES, "strong": ("after2", "before2", "between")},
    "left": {"sources": ("after2", "after1", "frequent"), "strong": ("after2", "after1")},
}


def variant_mask(variant):
    """The flag bits of the sources a variant uses."""
    mask = np.uint8(0)
    for name in VARIANTS[variant]["sources"]:
        mask |= FLAG[name]
    return mask
