"""Every table's columns, each defined once in one sentence that names it, and the README and the
report built from those sentences."""

import re

import hand_recipe
import pytest
import readme_tables

from conftest import REPO, read_table
from lmgap.report import cost, documents, gap, perplexity


# The README and the pages it links.
DOCS = (REPO / "README.md").read_text() + "".join(path.read_text() for path in sorted((REPO / "docs").glob("*.md")))
# Every table the pipeline writes, by its file, and the definitions of its columns.
TABLES = {name: table.definitions for name, table in readme_tables.declared_tables().items()}
# How a definition names the quantity a part of a column's name stands for, where the sentence
# does not spell the part itself; parts with no entry must appear as they are.
SPELLED = {
    "incl": r"includ",
    "excl": r"exclud|left out",
    "oovs": r"OOV",
    "oov": r"OOV",
    "ln": r"natural",
    "ngrams": r"n-gram|k-gram",
    "prob": r"log10 P|probab",
    "rss": r"resident",
    "mb": r"\bMB\b",
    "eval": r"scor",
    "ci": r"interval",
    "top1": r"top-1",
    "top10": r"top-10",
    "query": r"scoring",
    "k": r"\bk\b",
    "hashed": r"hash",
    "bits": r"\bbits\b",
}
# Parts that say nothing of the quantity.
GLUE = {"per", "in"}


def named_parts(column):
    """The parts of a column's name its definition must name."""
    return [part for part in column.split("_") if part not in GLUE]


def missing_parts(column, sentence):
    return [
        part
        for part in named_parts(column)
        if not re.search(SPELLED.get(part, re.escape(part)), sentence, re.IGNORECASE)
    ]


@pytest.mark.parametrize("table", TABLES)
def test_every_definition_names_its_own_column_quantity(table):
    definitions = TABLES[table]
    for column, sentence in definitions.items():
        assert not missing_parts(column, sentence), (table, column, sentence)
    # One sentence per column: none is another column's.
    assert len(set(definitions.values())) == len(definitions), table


def test_a_definition_copied_from_a_neighbour_is_caught():
    # The mutation the check exists for: gap.md once printed LogLossHashed's definition under
    # LikelihoodHashed, Top-1's under Top-10, and under p0 (mean) "words listed per line".
    definitions = gap.TABLE.definitions
    assert missing_parts("likelihood_hashed", definitions["log_loss_hashed"]) == ["likelihood"]
    assert missing_parts("top10_accuracy", definitions["top1_accuracy"]) == ["top10"]
    assert missing_parts("p0_mean", "words listed per line") == ["p0", "mean"]


def defined(definitions, column):
    """The column's definition, `hit_ratio_3` by `hit_ratio_k`'s."""
    return definitions.get(column) or definitions.get(re.sub(r"_\d+$", "_k", column))


@pytest.mark.pipeline
def test_every_column_the_tables_have_is_defined_and_nothing_else(demo_run):
    work = demo_run / "work"
    for table, definitions in TABLES.items():
        columns = list(read_table(work, table)[0])
        assert all(defined(definitions, column) for column in columns), table
        generic = {re.sub(r"_\d+$", "_k", column) for column in columns}
        # A binary format's columns are written only in a run of several formats (tests/pipeline/test_settings.py).
        optional = {c.name for c in readme_tables.declared_tables()[table].columns if c.optional}
        assert set(definitions) - optional <= set(columns) | generic, table
        assert not optional & set(columns), table


def test_the_docs_column_tables_are_the_tables_declarations():
    # Each table's once, whole: `make readme` writes them, and a declaration edited since fails here.
    marked = [match["table"] for match in readme_tables.COLUMNS.finditer(DOCS)]
    assert sorted(marked) == sorted(TABLES)
    for path in [REPO / "README.md", *(REPO / "docs").glob("*.md")]:
        assert readme_tables.with_columns(path.read_text()) == path.read_text(), path.name
    # By hand, one row as the docs show it.
    assert "| `oov_rate` | the OOV rate, `oovs / tokens` (One Billion Word benchmark convention" in DOCS


@pytest.mark.pipeline
def test_the_markdown_notes_show_each_headline_with_its_own_sentence(demo_run):
    tables = demo_run / "work/results/tables"
    # By hand, the mutation the declaration guards against: gap.md once printed LogLossHashed's
    # definition under LikelihoodHashed.
    assert (
        "- **LikelihoodHashed** (`likelihood_hashed`): GEval's LikelihoodHashed, exp(-`log_loss_hashed`): "
        "the geometric mean probability of the gap words' buckets.\n"
    ) in (tables / "gap.md").read_text()
    for table in (perplexity.TABLE, gap.TABLE, cost.TABLE, documents.DECADES_TABLE, documents.HARDEST_TABLE):
        note = (tables / table.file.replace(".tsv", ".md")).read_text()
        # A binary format's columns, absent from a run of KenLM's default format, are noted where a run has them
        # (tests/pipeline/test_settings.py).
        shown = [column for column in table.shown_columns() if column.noted and not column.optional]
        assert len(shown) >= 5, table.file
        for column in shown:
            headline = column.headline.rstrip(":")
            assert f"- **{headline}** (`{column.name}`): {column.definition}." in note, (table.file, column.name)


@pytest.mark.pipeline
def test_the_report_captions_carry_the_definitions(demo_run):
    html = (demo_run / "work/results/report.html").read_text()
    # Each column's name, as the caption's reStructuredText renders a literal.
    for definitions in TABLES.values():
        for name in definitions:
            assert f">{name}</tt>" in html, name


def test_the_readme_recipe_is_the_one_the_tests_run():
    assert f"perl -ne '{hand_recipe.perl_program(8)}'" in DOCS
