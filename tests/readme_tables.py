"""The README's tables from `make demo`, written into it by `make readme` and checked by the tests.

Each such table sits in the README between two marks:

    <!-- make readme: perplexity.md, demo inputs 1f2e... -->
    ```
    | the table's rows, as results/tables/perplexity.md has them |
    ```
    <!-- make readme: end -->

`make readme` runs the demo and writes each marked table from the demo's file, stamped with a
digest of what decides it: the code of every job the README's tables come from (found in the
workflow's rule graph), the rules, the demo's settings (config.yaml's values and the Makefile's
demo command), the corpus generator and the pinned packages. Code is digested by its tokens,
comments aside, so a comment-only edit, or an edit to code no README table comes from (the
comparison table's, say), leaves the stamp as it is; any other edit to what the tables come from
makes the test fail until `make readme` shows what the code now makes.

The docs' tables of every table's columns are written from the columns' one declaration
(lmgap.report.table), between `<!-- make readme: the columns of perplexity.tsv -->` and the end
mark, by `--columns`, which `make readme` runs too.

    python tests/readme_tables.py TABLES_DIR [README]           write the tables in
    python tests/readme_tables.py --check TABLES_DIR [README]   compare, timing cells aside
    python tests/readme_tables.py --columns FILE...             write the column tables in
"""

import argparse
import hashlib
import io
import json
import re
import shlex
import subprocess
import sys
import tempfile
import tokenize
import tomllib
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "workflow"))
from lmgap.sourcecode import code_files  # noqa: E402

SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
# Columns whose cells are times, which no two runs share.
TIMING_COLUMNS = {"Time (s)"}
BLOCK = re.compile(
    r"<!-- make readme: (?P<table>[\w.-]+), demo inputs (?P<digest>[0-9a-f]+) -->\n```\n(?P<rows>.*?)```\n"
    r"<!-- make readme: end -->",
    re.S,
)


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


def with_columns(text):
    """The text with every marked column table written from its declaration."""
    tables = declared_tables()

    def fill(match):
        table = match["table"]
        return f"<!-- make readme: the columns of {table} -->\n{tables[table].docs_table()}<!-- make readme: end -->"

    return COLUMNS.sub(fill, text)


def demo_digest(root=REPO, rules=None):
    """sha256 over what decides the README's tables (see the module's text); rules: the rules they
    come from (table_rules, found again when not given)."""
    root = Path(root)
    rules = table_rules(root) if rules is None else rules
    workflow = root / "workflow"
    parts = [f"rule {rule}: {_code(code_files(workflow / 'scripts' / f'{rule}.py', workflow), root)}" for rule in rules]
    parts.append(_code([root / "Snakefile", *sorted((workflow / "rules").glob("*.smk"))], root))
    parts.append(json.dumps(yaml.safe_load((root / "config.yaml").read_text()), sort_keys=True))
    parts += [shlex.join(demo_command(root)), generator_command(root)]
    parts.append(_code([root / "benchmarks/generate_corpus.py"], root))
    for name in ("requirements.txt", "requirements-kenlm.txt"):
        parts += [line.split("#")[0].strip() for line in (root / name).read_text().splitlines()]
    with open(root / "pyproject.toml", "rb") as handle:
        parts.append(json.dumps(tomllib.load(handle)["project"], sort_keys=True))
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def table_rules(root=REPO):
    """The rules whose jobs the README's marked tables come from, in the demo's rule graph."""
    tables = [table for table, _, _ in blocks((Path(root) / "README.md").read_text())]
    command = demo_command(root)
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "config.yaml").write_bytes((Path(root) / "config.yaml").read_bytes())
        done = subprocess.run(
            [
                SNAKEMAKE,
                "--snakefile",
                str(Path(root) / "Snakefile"),
                "--directory",
                work,
                "--rulegraph",
                "dot",
                *command[command.index("--config") :],
                "--",
                *(f"results/tables/{table}" for table in tables),
            ],
            capture_output=True,
            text=True,
        )
    if done.returncode:
        raise SystemExit(f"snakemake could not draw the demo's rule graph:\n{done.stderr[-3000:]}")
    return sorted(set(re.findall(r'\[label = "(\w+)"', done.stdout)))


def demo_command(root=REPO):
    """The snakemake command line `make demo` runs, as arguments (its --cores as the README has it)."""
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", (Path(root) / "Makefile").read_text(), flags=re.M).group(1)
    command = " ".join(line.strip().rstrip("\\").strip() for line in recipe.splitlines())
    return shlex.split(command.replace("$(VENV)/bin/", "").replace("$(CORES)", "8"))


def generator_command(root=REPO):
    """The command that writes the demo's corpus, as the Makefile gives it."""
    return re.search(r"^\t.*generate_corpus\.py.*$", (Path(root) / "Makefile").read_text(), flags=re.M).group(0).strip()


def _code(paths, root):
    """The files' names and tokens, comments and blank lines aside (what they run)."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(f"{Path(path).relative_to(root)}\0".encode())
        for token in tokenize.tokenize(io.BytesIO(Path(path).read_bytes()).readline):
            if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.ENCODING):
                digest.update(f"{token.type} {token.string}\0".encode())
    return digest.hexdigest()


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
        return (
            f"<!-- make readme: {match['table']}, demo inputs {digest} -->\n```\n{rows}```\n<!-- make readme: end -->"
        )

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
        found = differences(readme, args.tables)
        print("\n".join(found) or f"every table {args.readme} shows is the one in {args.tables}")
        return 1 if found else 0
    Path(args.readme).write_text(write(readme, args.tables, demo_digest()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
