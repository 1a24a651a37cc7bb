"""One pass over `query -v word -v sentence -v summary` (per line: `surface=id length log10prob` tokens,
then `Total: P OOV: N`): a split's sums, added as query adds them (docs/tables.md), and its documents'."""

import re
import subprocess
import time
from pathlib import Path

import numpy as np

from ..errors import LmgapError
from ..models import damaged_model_advice
from ..record import kenlm_perplexities
from .output import stderr_tail

LINE_END = re.compile(rb"Total: (\S+) OOV: (\d+)$")


class SplitScores:
    """Sums over one evaluated split, filled line by line from query's output."""

    def __init__(self, order):
        self.order = order
        self.sentences = 0
        self.tokens = 0
        self.oovs = 0
        self.log10_prob = 0.0
        self.log10_prob_oov = 0.0
        # matched_length[k]: in-vocabulary tokens whose longest matched n-gram has length k.
        self.matched_length = np.zeros(order + 1, dtype=np.int64)
        self.documents = []

    def add_line(self, line, number):
        """Add one line of query's output (a document); number counts from 1."""
        body, _, end = line.rstrip(b"\n").rpartition(b"\t")
        closing = LINE_END.match(end)
        # Tokens are `surface=id length log10prob`, tab-separated; surfaces hold no whitespace.
        items = body.replace(b"\t", b" ").split(b" ")
        try:
            if not closing or not body or len(items) % 3 or body.count(b"=") < len(items) // 3:
                raise ValueError
            lengths = np.array(list(map(int, items[1::3])), dtype=np.int64)
            # query prints each single-precision probability in its shortest exact form.
            probs = np.array(list(map(float, items[2::3])), dtype=np.float64).astype(np.float32)
        except ValueError:
            raise LmgapError(
                f"query's output line {number} is not in the `-v word -v sentence` form: {line[:200]!r}"
            ) from None
        count = len(items) // 3
        # KenLM gives every out-of-vocabulary word the id of <unk>, 0, printed after the
        # surface's last `=` without leading zeros.
        oov = np.array([token.endswith(b"=0") for token in items[0::3]], dtype=bool)
        # query adds a line up in single precision, token by token (accumulate is sequential).
        total = float(np.add.accumulate(probs)[-1])
        oovs = int(oov.sum())
        if total != float(np.float32(float(closing.group(1)))) or oovs != int(closing.group(2)):
            raise LmgapError(
                f"query's output line {number}: the tokens add up to {total} with {oovs} OOVs, "
                f"but query printed {closing.group(0).decode()}"
            )
        oov_sum = 0.0
        for prob in probs[oov].tolist():
            self.log10_prob_oov += prob
            oov_sum += prob
        self.sentences += 1
        self.tokens += count
        self.oovs += oovs
        self.log10_prob += total
        if lengths.max(initial=0) > self.order:
            raise LmgapError(f"query matched a {lengths.max()}-gram in an order-{self.order} model (line {number})")
        self.matched_length += np.bincount(lengths[~oov], minlength=self.order + 1)
        self.documents.append((number, count, oovs, total, oov_sum))

    def sums(self):
        """The sums every figure is computed from (see lmgap.record)."""
        return {
            "sentences": self.sentences,
            "tokens": self.tokens,
            "oovs": self.oovs,
            "log10_prob": self.log10_prob,
            "log10_prob_oov": self.log10_prob_oov,
            "matched_length": [int(n) for n in self.matched_length],
        }


# A line of query's summary: `Perplexity including OOVs:<TAB>13127.04`.
SUMMARY_LINE = re.compile(rb"[A-Za-z][^\t]*:\t[^\t]*\n?")


def score_output(lines, order):
    """SplitScores and the summary lines from an iterable of query's output lines (bytes); a line of neither
    kind (a query other than KenLM's, or its output damaged) is named where it is met."""
    scores = SplitScores(order)
    summary = []
    for number, line in enumerate(lines, start=1):
        if b"Total: " in line:
            scores.add_line(line, scores.sentences + 1)
        elif SUMMARY_LINE.fullmatch(line):
            summary.append(line.decode("utf-8", "replace"))
        else:
            raise LmgapError(
                f"query's output line {number} is neither a scored line (`-v word -v sentence`) nor one of its "
                f"summary's: {line[:200]!r}"
            )
    return scores, "".join(summary)


def check_against_summary(sums, printed):
    """Recompute KenLM's two perplexities from the sums; they must equal what query printed."""
    recomputed = kenlm_perplexities(sums)
    for key, value in recomputed.items():
        if value != printed[key]:
            raise LmgapError(
                f"the per-token sums give {key} = {value!r} but query printed {printed[key]!r}; "
                "the per-token output was misread"
            )
    for key in ("oovs", "tokens"):
        if sums[key] != printed[key]:
            raise LmgapError(f"the per-token output counts {sums[key]} {key} but query printed {printed[key]}")


def query(tool, model, text, order, log):
    """Score text with query, one pass over its per-token output; return (SplitScores, summary, the seconds
    until its first line: loading the model, which query does before it reads a line)."""
    log.flush()
    started = time.monotonic()
    with open(text, "rb") as stdin:
        process = subprocess.Popen(
            [str(tool), "-v", "word", "-v", "sentence", "-v", "summary", str(model)],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=log,
            bufsize=1 << 20,
        )
        try:
            process.stdout.peek(1)
            loaded = time.monotonic() - started
            scores, summary = score_output(process.stdout, order)
        finally:
            process.stdout.close()
            returncode = process.wait()
    if returncode and "Tokens:" in summary:
        # Its whole output read: the model loaded and was scored, so the tool is to blame, not the model.
        raise LmgapError(
            f"query exited with code {returncode} on {model} after printing its whole output, which KenLM's query "
            "does not: is kenlm.bin_dir's query KenLM's? Fix kenlm.bin_dir, or remove it to build KenLM's own"
        )
    if returncode:
        log.flush()
        tail = stderr_tail(Path(log.name).read_text(errors="replace"))
        raise LmgapError(
            f"query failed on {model} with exit code {returncode}; {damaged_model_advice(model)}. "
            f"See {log.name}:\n{tail}"
        )
    return scores, summary, loaded
