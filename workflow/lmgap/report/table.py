"""A table's columns declared once (name, definition, Markdown form), and from them its .tsv, its Markdown
table and note, the report's caption and the docs' table of definitions."""

import csv
import io
import re
from dataclasses import dataclass
from typing import Callable

import pandas as pd

from ..atomic import atomic_open

# A cell of a figure a row lacks (a neural model's n-grams) in the Markdown table.
MISSING = "—"


@dataclass(frozen=True)
class Column:
    """A column of a table, in the .tsv and (with a headline) in the Markdown table."""

    name: str  # as the .tsv heads it; `_k` stands for every order k (hit_ratio_3 is hit_ratio_k's)
    definition: str  # one sentence
    headline: str | None = None  # the Markdown header, ending in `:` when right-aligned
    form: str | Callable | None = None  # the value's Markdown cell: a format or a function; a dash if missing
    cell: Callable | None = None  # the Markdown cell made from the whole row, instead
    integer: bool = False  # written as an integer though a missing value makes it a float
    noted: bool = True  # the Markdown note defines it
    per_split: bool = False  # a Markdown column for each scored split
    optional: bool = False  # written only when the table's writer asks for it (a binary format's figures)

    def markdown_cell(self, row):
        """The Markdown cell of a row (a {column: value} dict)."""
        if self.cell:
            return self.cell(row)
        value = row[self.name]
        if self.form is None:
            return str(value)
        if pd.isna(value):
            return MISSING
        return self.form(value) if callable(self.form) else self.form.format(value)


def tsv_cell(value, integer=False):
    """Exact text: integers plainly, floats as their shortest round-tripping repr, flags as
    `true`/`false`, a missing value as an empty cell; reruns give identical bytes."""
    if pd.isna(value):
        return ""
    # A numpy scalar (a bool_, int64 or float64 a job computed) as the Python value it holds.
    value = value.item() if hasattr(value, "item") else value
    if isinstance(value, bool):
        return "true" if value else "false"
    if integer:
        return str(int(value))
    if isinstance(value, float):
        return repr(float(value))
    return str(value)


@dataclass(frozen=True)
class Table:
    """A table's columns, in the .tsv's order, and how its Markdown table shows them."""

    file: str  # the .tsv's name
    columns: tuple[Column, ...]
    shown: tuple[str, ...] = ()  # the Markdown columns in their order, when not the headlined ones in the .tsv's
    every_definition: bool = False  # the note defines every column by name

    @property
    def definitions(self):
        return {column.name: column.definition for column in self.columns}

    def column(self, name):
        """The column of a name, hit_ratio_3 by hit_ratio_k."""
        named = {column.name: column for column in self.columns}
        return named.get(name) or named[re.sub(r"_\d+$", "_k", name)]

    def shown_columns(self, written=None):
        """The Markdown table's columns, in its order; of the optional ones only those written (names)."""
        shown = [self.column(name) for name in self.shown] or [c for c in self.columns if c.headline]
        return [c for c in shown if not c.optional or written is None or c.name in written]

    def caption(self):
        """The definitions for the report's caption, in reStructuredText: (name, sentence) pairs."""
        return [(f"``{name}``", text.replace("`", "``")) for name, text in self.definitions.items()]

    def frame(self, records, columns=None, optional=False):
        """The table's frame of dict records, in their order; columns: the .tsv's, when not the
        declared ones; optional: whether the optional columns are written (left out, a table keeps the
        bytes it had before they existed). A column declared integer keeps whole numbers where some
        are missing."""
        names = [name for name in columns or self.definitions if optional or not self.column(name).optional]
        frame = pd.DataFrame(records, columns=names)
        for name in frame.columns:
            if self.column(name).integer:
                frame[name] = frame[name].astype("Int64")
        return frame

    def tsv(self, frame):
        """The .tsv's text; a cell holding a quote or a tab is quoted as the csv module (and
        pandas) quote it, so that a program reads back what the cell holds."""
        text = io.StringIO()
        writer = csv.writer(text, delimiter="\t", lineterminator="\n")
        writer.writerow(frame.columns)
        integers = [self.column(name).integer for name in frame.columns]
        for row in frame.itertuples(index=False):
            writer.writerow(tsv_cell(value, integer) for value, integer in zip(row, integers))
        return text.getvalue()

    def markdown(self, rows, title, opening=None, extra=()):
        """The titled table for people, with a note: its opening (`Definitions (every figure is in
        `{file}`):` unless given), a line defining each column, then the extra lines."""
        shown = self.shown_columns(set(rows.columns))
        header, cells = _layout(shown, rows.to_dict("records"))
        if self.every_definition:
            lines = [f"- `{name}`: {text}." for name, text in self.definitions.items()]
        else:
            lines = [f"- **{c.headline.rstrip(':')}** (`{c.name}`): {c.definition}." for c in shown if c.noted]
        opening = opening or f"Definitions (every figure is in `{self.file}`):"
        # Headers ending in `:` are right-aligned.
        rule = ["---:" if name.endswith(":") else "---" for name in header]
        table = ["| " + " | ".join(name.rstrip(":") for name in header) + " |", "|" + "|".join(rule) + "|"]
        table += ["| " + " | ".join(str(cell).replace("|", "\\|") for cell in row) + " |" for row in cells]
        return "\n".join([title, "", *table, "", opening, "", *lines, *extra, ""])

    def write(self, rows, outputs, markdown):
        """rows' .tsv and markdown's text (the Markdown table) to outputs' tsv and md."""
        with atomic_open(outputs["tsv"], newline="") as handle:
            handle.write(self.tsv(rows))
        with atomic_open(outputs["md"]) as handle:
            handle.write(markdown)


def _layout(shown, records):
    """The Markdown header and rows: a row per record, or with per-split columns a row per model, the block
    of them repeated for each split in its first one's place (headlines prefixed by the split when several)."""
    if not any(column.per_split for column in shown):
        return [c.headline for c in shown], [[c.markdown_cell(row) for c in shown] for row in records]
    splits = list(dict.fromkeys(row["split"] for row in records))
    models = {}
    for row in records:
        models.setdefault(row["model"], {})[row["split"]] = row
    first = next(i for i, column in enumerate(shown) if column.per_split)
    block = [column for column in shown if column.per_split]
    rest = [column for column in shown[first:] if not column.per_split]
    header = [c.headline for c in shown[:first]]
    header += [f"{split} {c.headline}" if len(splits) > 1 else c.headline for split in splits for c in block]
    header += [c.headline for c in rest]
    rows = []
    for by_split in models.values():
        one = next(iter(by_split.values()))
        cells = [c.markdown_cell(one) for c in shown[:first]]
        cells += [column.markdown_cell(by_split[split]) for split in splits for column in block]
        rows.append(cells + [c.markdown_cell(one) for c in rest])
    return header, rows
