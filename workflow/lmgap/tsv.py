"""The TSV records the pipeline writes and reads again, their columns checked by one reader: a record cut
short, emptied, stripped of a column, holding a cell of another type or fewer rows than the file it
pairs with is named with its file and the fix, never met as a traceback (JSON records: lmgap.shapes)."""

import io

from .files import DamagedRecord, read_table_record

# Snakemake's benchmark files: the columns the cost table reads.
BENCHMARK = ("s", "cpu_time", "max_rss")
# A gap prediction's per-line scores (lmgap.gap.evaluate) and a neural model's loss curve (lmgap.neural.steps).
LINES = ("line", "log_probability")
LOSS = ("step", "loss_nats", "learning_rate", "seconds")


def read_tsv(path, columns, *, exact=True, integers=(), missing=(), text=(), rows=None, pair=None, empty=False):
    """A TSV of the pipeline's as a pandas frame: these columns (exactly, in order, or among others), each
    cell a number (a whole one in the integers columns; NA, Snakemake's word for none, only in the missing
    ones; any text but none in the text ones), and, given rows, that many rows, as pair (the file it goes
    with) has; rows at all unless empty (a table that may have none); a damaged one is named, with the fix."""
    import pandas as pd

    def read(path):
        # A row of more fields than the header would become pandas' index, and one of fewer its NaNs.
        with open(path, encoding="utf-8") as handle:
            content = handle.read()
        header, *lines = content.split("\n")[:-1]
        fields = header.count("\t") + 1
        for number, row in enumerate(lines, start=1):
            if (has := row.count("\t") + 1) != fields:
                raise DamagedRecord(path, f"row {number} has {has} fields where its header has {fields}")
        # The text read once, for the check above and the frame.
        frame = pd.read_csv(io.StringIO(content), sep="\t", dtype=str, keep_default_na=False)
        found = list(frame.columns)
        if (found != list(columns)) if exact else not set(columns) <= set(found):
            raise DamagedRecord(path, f"its columns are {', '.join(found) or 'none'}, not {', '.join(columns)}")
        if frame.empty and not empty:
            raise DamagedRecord(path, "it has no rows")
        for column in columns:
            cells = frame[column].str.strip()
            if column in text:
                if (cells == "").any():
                    raise DamagedRecord(path, f"row {int((cells == '').idxmax()) + 1}'s {column} is empty")
                continue
            numbers = pd.to_numeric(cells.where(cells != "NA"), errors="coerce")
            bad = numbers.isna() & ~((cells == "NA") & (column in missing))
            if column in integers:
                bad |= numbers.notna() & (numbers % 1 != 0)
            if bad.any():
                row = int(bad.idxmax())
                kind = "a whole number" if column in integers else "a number"
                raise DamagedRecord(path, f"row {row + 1}'s {column} is {cells[row]!r}, not {kind}")
            frame[column] = numbers.astype("int64") if column in integers else numbers
        return frame

    frame = read_table_record(path, read)
    if rows is not None and len(frame) != rows:
        raise DamagedRecord(path, f"it has {len(frame):,} rows where {pair} has {rows:,}")
    return frame
