"""A record of each text the pipeline writes under results/text/ (a split rebuilt, a training sample): its
size, lines and digest, written beside it (results/text/dev-0.json for dev-0.txt) by the job that writes the
text, and checked by every job that reads one. A text changed after it was written (cut by hand, say) then
stops each job that would trust it, naming the file and the fix, where it would otherwise be read as it is:
Snakemake takes a newer file for a newer result."""

import hashlib
import os
import re
from pathlib import Path

from .. import seals
from ..atomic import write_json
from ..errors import LmgapError
from ..files import DamagedRecord
from ..shapes import TEXT_RECORD, read_record

# The texts the pipeline writes: a split's and its samples', never vocabulary.json or a years table.
TEXT = re.compile(r"(^|/)results/text/[^/]+\.txt$")


def record_path(text):
    return Path(text).with_suffix(".json")


def write_text_record(text):
    """The record of a text just written: its bytes, lines and sha256."""
    digest, lines = hashlib.sha256(), 0
    with open(text, "rb") as handle:
        while block := handle.read(1 << 24):
            digest.update(block)
            lines += block.count(b"\n")
    write_json({"bytes": os.path.getsize(text), "lines": lines, "sha256": digest.hexdigest()}, record_path(text))


def read_text_record(text):
    """The record of a text; a damaged one, or one changed since its job wrote it (its seal), is named with the
    text, which its fix deletes too (Snakemake does not write again a record deleted alone while what was
    made from its text stands)."""
    try:
        changed = seals.fault(record_path(text), unsealed=True)
        if changed:
            raise changed
        return read_record(record_path(text), TEXT_RECORD)
    except DamagedRecord as err:
        raise DamagedRecord(record_path(text), err.why, also=text) from None


def check_texts(paths):
    """Refuse a text of ours among paths (a job's inputs) whose size is not its record's: a stat, not a
    read, so that every job may check the 836 MB training text. Texts without a record (written before
    records were) are taken as they are."""
    for path in map(str, paths):
        record = record_path(path)
        if not TEXT.search(path) or not record.is_file():
            continue
        written = read_text_record(path)["bytes"]
        size = os.path.getsize(path)
        if size != written:
            raise LmgapError(
                f"{path} is {size:,} bytes, but the job that wrote it wrote {written:,} ({record}): it was "
                f"changed since. Delete {path} and run the pipeline again: it writes the text anew from the "
                "corpus, and what was made from it follows."
            )
