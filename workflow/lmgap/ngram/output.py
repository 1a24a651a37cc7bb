"""Read what KenLM's tools print: query's summary, an ARPA header's counts, the last lines of a
tool's messages."""

from ..errors import LmgapError

SUMMARY_FIELDS = {
    "Perplexity including OOVs": ("perplexity_including_oovs", float),
    "Perplexity excluding OOVs": ("perplexity_excluding_oovs", float),
    "OOVs": ("oovs", int),
    "Tokens": ("tokens", int),
}


def parse_summary(output):
    """The four summary figures of query's output, as numbers exactly as printed."""
    metrics = {}
    for line in output.splitlines():
        label, sep, value = line.rpartition(":\t")
        # Without -v summary, query prints the last sentence's words on the same line.
        field = SUMMARY_FIELDS.get(label.rpartition("\t")[2])
        if sep and field:
            key, kind = field
            metrics[key] = kind(value.strip())
    missing = [key for key, _ in SUMMARY_FIELDS.values() if key not in metrics]
    if missing:
        raise LmgapError(f"query printed no {', '.join(missing)}; its output was:\n{output[-500:]}")
    return metrics


def arpa_header_counts(head):
    """{order: count} from the `\\data\\` header at the start of an ARPA text (bytes), or None."""
    counts = {}
    for line in head.split(b"\n"):
        line = line.strip()
        if line.startswith(b"ngram ") and b"=" in line:
            order, _, count = line[6:].partition(b"=")
            counts[int(order)] = int(count)
        elif line.endswith(b"-grams:"):
            break
    return counts or None


def stderr_tail(stderr, lines=5):
    """The last lines of a tool's messages, for an error that quotes them."""
    return "\n".join(stderr.strip().splitlines()[-lines:])
