"""Every gap's candidate words and the sources that proposed them, as the candidate pass
(candidates.py) writes them and the scorers and predictions read them."""

import numpy as np

from ..atomic import atomic_open
from ..arrays import read_arrays


class CandidateSets:
    """Every gap's candidate words (bytes) and source flags, as one file stores them."""

    def __init__(self, words, offsets, ids, flags):
        self.words, self.offsets, self.ids, self.flags = words, offsets, ids, flags

    def __len__(self):
        return len(self.offsets) - 1

    def of(self, gap):
        """(word ids, flags) of one gap (from 0); ids index self.words."""
        start, end = self.offsets[gap], self.offsets[gap + 1]
        return self.ids[start:end], self.flags[start:end]

    def subset(self, start, stop):
        """The candidate sets of gaps start to stop - 1 (from 0), with a vocabulary of just their words."""
        begin, end = self.offsets[start], self.offsets[stop]
        used, local = np.unique(self.ids[begin:end], return_inverse=True)
        offsets, words = self.offsets[start : stop + 1] - begin, [self.words[w] for w in used.tolist()]
        return CandidateSets(words, offsets, local.astype(np.int32), self.flags[begin:end])

    def save(self, path):
        """One .npz file; the words are joined by newlines, which no token holds."""
        with atomic_open(path, "wb") as handle:
            np.savez(
                handle,
                offsets=self.offsets,
                ids=self.ids,
                flags=self.flags,
                words=np.frombuffer(b"\n".join(self.words), dtype=np.uint8),
            )

    @classmethod
    def load(cls, path):
        data = read_arrays(path, ("words", "offsets", "ids", "flags"))
        words = data["words"].tobytes().split(b"\n") if len(data["words"]) else []
        return cls(words, data["offsets"], data["ids"], data["flags"])
