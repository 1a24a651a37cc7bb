"""The README's tables from `make demo`, written into it by `make readme` and checked against a
new demo run by `make readme-check` (which CI runs).

Each such table sits in the README between two marks:

    <!-- make readme: perplexity.md -->
    ```
    | the table's rows, as results/tables/perplexity.md has them |
    ```
    <!-- make readme: end -->

`make readme` runs the demo and writes each marked table from the demo's file; `make
readme-check` runs the demo and compares, timing cells aside, so that an edit which moves a demo
figure fails CI until the README shows it, and any other edit needs no README commit.

The rows of the demo's neural models and of the blend, which mixes them, follow the CPU's float
kernels (torch's vector width and MKL's code path): the same bytes on one kind of machine, another
second decimal on another. `make readme` writes which kind wrote them between
`<!-- make readme: machine -->` and the end mark; on that kind they are compared exactly, on
another within KERNEL_SHARE of each figure, and the check says so.

The docs' tables of every table's columns are written from the columns' one declaration
(lmgap.report.table), between `<!-- make readme: the columns of perplexity.tsv -->` and the end
mark, by `--columns`, which `make readme` runs too.

    python tests/readme_tables.py TABLES_DIR [README]           write the tables in
    python tests/readme_tables.py --check TABLES_DIR [README]   compare, timing cells aside
    python tests/readme_tables.py --columns FILE...             write the column tables in
"""

import argparse
import json
import os
import re
import shlex
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Columns whose cells are times, which no two runs share.
TIMING_COLUMNS = {"Time (s)"}
BLOCK = re.compile(
    r"<!-- make readme: (?P<table>[\w.-]+) -->\n```\n(?P<rows>.*?)```\n"
    r"<!-- make readme: end -->",
    re.S,
)


MACHINE = re.compile(r"<!-- make readme: machine -->(?P<machine>.*?)<!-- make readme: end -->")
# Pinning the kernels (ATEN_CPU_CAPABILITY=default, MKL_CBWR=COMPATIBLE) doubled the demo model's
# training time (docs/decisions.md), so the check allows what another CPU moves: measured, at most
# 3% of a figure (a gap or two of 331 in a Top-1 share), and 0.3% of a perplexity.
KERNEL_SHARE = 0.05


COLUMNS = re.compile(
    r"<!-- make readme: the columns of (?P<table>[\w.]+) -->\n(?P<rows>.*?)<!-- make readme: end -->", re.S
)


def declared_tables():
    """Every table the pipeline writes, by its file name."""
    from lmgap.report import comparison, cost, documents, gap, perplexity

    tables = (
        perplexity.TABLE,
        cost.TABLE,
        comparison.TABLE,
        gap.TABLE,
        documents.DECADES_TABLE,
        documents.HARDEST_TABLE,
    )
    return {table.file: table for table in tables}


def docs_table(table):
    """A table's definitions as the docs' Markdown table of its columns."""
    rows = [f"| `{name}` | {text} |" for name, text in table.definitions.items()]
    return "\n".join(["| column | meaning |", "|---|---|", *rows]) + "\n"


def with_columns(text):
    """The text with every marked column table written from its declaration."""
    tables = declared_tables()

    def fill(match):
        table = match["table"]
        return f"<!-- make readme: the columns of {table} -->\n{docs_table(tables[table])}<!-- make readme: end -->"

    return COLUMNS.sub(fill, text)


def demo_command(root=REPO):
    """The snakemake command line `make demo` runs, as arguments (its --cores as the README has it)."""
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", (Path(root) / "Makefile").read_text(), flags=re.M).group(1)
    command = " ".join(line.strip().rstrip("\\").strip() for line in recipe.splitlines())
    return shlex.split(command.replace("$(VENV)/bin/", "").replace("$(CORES)", "8"))


def kernel_models(root=REPO):
    """The rows whose figures follow the CPU's kernels: the demo's neural models and the blend."""
    command = demo_command(root)
    neural = next(arg.split("=", 1)[1] for arg in command if arg.startswith("neural="))
    return set(json.loads(neural)) | {"blend"}


def machine():
    """This machine's kind as the float kernels see it: the CPU's vendor, the widest vector
    instructions torch dispatches to, the cores (a job's threads) and torch's version."""
    from importlib.metadata import PackageNotFoundError, version

    cpuinfo = Path("/proc/cpuinfo")
    info = cpuinfo.read_text() if cpuinfo.is_file() else ""
    vendor = re.search(r"^vendor_id\s*:\s*(\S+)", info, flags=re.M)
    flags = re.search(r"^flags\s*:(.*)$", info, flags=re.M)
    flags = set(flags.group(1).split()) if flags else set()
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags:
        vector = "AVX512"
    else:
        vector = "AVX2" if {"avx2", "fma"} <= flags else "no AVX2"
    try:
        torch = f"torch {version('torch')}"
    except PackageNotFoundError:
        torch = "no torch"
    return f"{vendor.group(1) if vendor else 'unknown CPU'}, {vector}, {os.cpu_count()} cores, {torch}"


def written_on(readme):
    """The machine the README's kernel-bound rows were written on, or None."""
    found = MACHINE.search(readme)
    return found["machine"] if found else None


def blocks(readme):
    """The README's marked tables: [(table file name, rows as text)]."""
    return [(m["table"], m["rows"]) for m in BLOCK.finditer(readme)]


def table_rows(path):
    """The first Markdown table of a table file: its header, rule and rows, as text."""
    if not Path(path).is_file():
        raise SystemExit(f"{path} does not exist: run `make demo` first (`make readme` runs it)")
    lines = Path(path).read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("|")), None)
    if start is None:
        raise SystemExit(f"{path} holds no Markdown table")
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("|")), len(lines))
    return "\n".join(lines[start:end]) + "\n"


def write(readme, tables):
    """The README with every marked table taken from the tables folder."""

    def fill(match):
        rows = table_rows(Path(tables) / match["table"])
        return f"<!-- make readme: {match['table']} -->\n```\n{rows}```\n<!-- make readme: end -->"

    mark = f"<!-- make readme: machine -->{machine()}<!-- make readme: end -->"
    return MACHINE.sub(lambda _: mark, BLOCK.sub(fill, readme))


def untimed(rows):
    """A table's cells by row, the timing columns' cells left out."""
    cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in rows.splitlines()]
    keep = [i for i, name in enumerate(cells[0]) if name not in TIMING_COLUMNS]
    return [[row[i] for i in keep if i < len(row)] for row in cells]


def number(cell):
    """A cell's figure (1,234 and 12.5% as 1234 and 12.5), or None."""
    try:
        return float(cell.replace(",", "").removesuffix("%"))
    except ValueError:
        return None


def near(shown, made):
    """Whether two cells agree within KERNEL_SHARE of the larger figure (other cells: exactly)."""
    a, b = number(shown), number(made)
    if a is None or b is None:
        return shown == made
    return abs(a - b) <= KERNEL_SHARE * max(abs(a), abs(b))


def agree(shown, made, loose):
    """Whether two untimed tables agree: exactly, except the cells of rows whose Model is in loose."""
    if len(shown) != len(made) or shown[:2] != made[:2]:
        return False
    model = shown[0].index("Model") if "Model" in shown[0] else None
    for old, new in zip(shown[2:], made[2:]):
        if model is not None and old[model] in loose and len(old) == len(new):
            if not all(near(a, b) for a, b in zip(old, new)):
                return False
        elif old != new:
            return False
    return True


def differences(readme, tables, loose=frozenset()):
    """Where the README's marked tables differ from the tables folder's, timing cells aside, and the
    rows whose Model is in loose held within KERNEL_SHARE."""
    found = []
    for table, rows in blocks(readme):
        shown, made = untimed(rows), untimed(table_rows(Path(tables) / table))
        if not agree(shown, made, loose):
            found.append(f"{table}: the README shows\n{rows}the demo wrote\n{table_rows(Path(tables) / table)}")
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("--columns", nargs="+", type=Path, help="write the column tables into these files")
    parser.add_argument("tables", nargs="?", help="the demo's results/tables folder")
    parser.add_argument("readme", nargs="?", default=REPO / "README.md")
    args = parser.parse_args(argv)
    if args.columns:
        for path in args.columns:
            text = path.read_text()
            written = with_columns(text)
            if written != text:
                path.write_text(written)
        return 0
    if not args.tables:
        parser.error("give the demo's results/tables folder")
    if not Path(args.readme).is_file():
        raise SystemExit(f"{args.readme} does not exist: give the README to write into")
    readme = Path(args.readme).read_text()
    if not blocks(readme):
        raise SystemExit(f"{args.readme} marks no table for make readme")
    if args.check:
        here, wrote = machine(), written_on(readme)
        loose = frozenset() if here == wrote else kernel_models()
        found = differences(readme, args.tables, loose)
        if loose:
            print(
                f"The rows of {', '.join(sorted(loose))} were written on {wrote or 'an unnamed machine'}; "
                f"this one is {here}: they are held within {KERNEL_SHARE:.0%} of each figure, "
                "as their float kernels differ, and every other row exactly."
            )
        print("\n".join(found) or f"every table {args.readme} shows is the one in {args.tables}")
        return 1 if found else 0
    Path(args.readme).write_text(write(readme, args.tables))
    return 0


if __name__ == "__main__":
    sys.exit(main())
