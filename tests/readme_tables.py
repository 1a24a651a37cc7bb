"""The README's tables from `make demo`, written into it by `make readme` and checked by the tests.

Each such table sits in the README between two marks:

    <!-- make readme: perplexity.md, demo inputs 1f2e... -->
    ```
    | the table's rows, as results/tables/perplexity.md has them |
    ```
    <!-- make readme: end -->

`make readme` runs the demo and writes each marked table from the demo's file, with a digest of
every file that decides what the demo computes (the code, the config, the corpus generator, the
pinned packages). A README whose digest is not the current one is behind the code: the test says
so, and `make readme` brings it up to date.

    python tests/readme_tables.py TABLES_DIR [README]           write the tables in
    python tests/readme_tables.py --check TABLES_DIR [README]   compare, timing cells aside
"""

import argparse
import hashlib
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# What the demo's tables depend on, besides the packages' code that the pins name.
DEMO_INPUTS = [
    "Snakefile", "config.yaml", "Makefile", "pyproject.toml", "requirements.txt", "requirements-kenlm.txt",
    "profiles/default", "envs", "workflow", "benchmarks/generate_corpus.py",
]
# Columns whose cells are times, which no two runs share.
TIMING_COLUMNS = {"Time (s)"}
BLOCK = re.compile(
    r"<!-- make readme: (?P<table>[\w.-]+), demo inputs (?P<digest>[0-9a-f]+) -->\n```\n(?P<rows>.*?)```\n"
    r"<!-- make readme: end -->",
    re.S,
)


def demo_digest(root=REPO):
    """sha256 over the paths and bytes of every file the demo's results depend on."""
    digest = hashlib.sha256()
    for name in DEMO_INPUTS:
        path = root / name
        files = [path] if path.is_file() else sorted(
            Path(folder) / file
            for folder, folders, names in os.walk(path)
            for file in names
            if not file.startswith(".") and not file.endswith(".pyc")
        )
        for file in files:
            if "__pycache__" in file.parts:
                continue
            digest.update(str(file.relative_to(root)).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def blocks(readme):
    """The README's marked tables: [(table file name, recorded digest, rows as text)]."""
    return [(m["table"], m["digest"], m["rows"]) for m in BLOCK.finditer(readme)]


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


def write(readme, tables, digest):
    """The README with every marked table taken from the tables folder, stamped with digest."""

    def fill(match):
        rows = table_rows(Path(tables) / match["table"])
        return f"<!-- make readme: {match['table']}, demo inputs {digest} -->\n```\n{rows}```\n<!-- make readme: end -->"

    return BLOCK.sub(fill, readme)


def untimed(rows):
    """A table's cells by row, the timing columns' cells left out."""
    cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in rows.splitlines()]
    keep = [i for i, name in enumerate(cells[0]) if name not in TIMING_COLUMNS]
    return [[row[i] for i in keep if i < len(row)] for row in cells]


def differences(readme, tables):
    """Where the README's marked tables differ from the tables folder's, timing cells aside."""
    found = []
    for table, _, rows in blocks(readme):
        shown, made = untimed(rows), untimed(table_rows(Path(tables) / table))
        if shown != made:
            found.append(f"{table}: the README shows\n{rows}the demo wrote\n{table_rows(Path(tables) / table)}")
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    parser.add_argument("tables", help="the demo's results/tables folder")
    parser.add_argument("readme", nargs="?", default=REPO / "README.md")
    args = parser.parse_args(argv)
    if not Path(args.readme).is_file():
        raise SystemExit(f"{args.readme} does not exist: give the README to write into")
    readme = Path(args.readme).read_text()
    if not blocks(readme):
        raise SystemExit(f"{args.readme} marks no table for make readme")
    if args.check:
        found = differences(readme, args.tables)
        print("\n".join(found) or f"every table {args.readme} shows is the one in {args.tables}")
        return 1 if found else 0
    Path(args.readme).write_text(write(readme, args.tables, demo_digest()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
