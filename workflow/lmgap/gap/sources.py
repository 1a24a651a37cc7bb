"""Where a gap's candidates come from, and which of those sources each context variant uses."""

import numpy as np

# Words the training text shows after a gap's two left words and after its last one, before its two
# right words and before its first one, and between its nearest left and right word.
CONTEXT_SOURCES = ("after2", "after1", "before2", "before1", "between")
# The words of the gap's own page, left and right of it: a page repeats names and topic words the
# training text may never show.
DOCUMENT_SOURCES = ("document_left", "document_right")
SOURCES = (*CONTEXT_SOURCES, "frequent", *DOCUMENT_SOURCES)
FLAG = {name: np.uint8(1 << bit) for bit, name in enumerate(SOURCES)}
# The contexts a variant predicts from, and the sources that show its evidence is specific.
VARIANTS = {
    "both": {"sources": SOURCES, "strong": ("after2", "before2", "between")},
    "left": {"sources": ("after2", "after1", "frequent", "document_left"), "strong": ("after2", "after1")},
}


def variant_mask(variant):
    """The flag bits of the sources a variant uses."""
    return np.bitwise_or.reduce([FLAG[name] for name in VARIANTS[variant]["sources"]])
