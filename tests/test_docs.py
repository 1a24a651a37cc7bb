"""What the README and the report say agrees with the code that makes the tables."""

import hand_recipe
import yaml

from conftest import REPO, read_table, run_pipeline
from lmgap.comparison import DEFINITIONS as COMPARISON_COLUMNS
from lmgap.gap.table import GAP_COLUMNS
from lmgap.tables import COLUMNS, meaning

README = (REPO / "README.md").read_text()


def rendered(columns):
    return [f"| {', '.join(f'`{name}`' for name in names)} | {text} |" for names, text in columns]


def test_the_readme_column_tables_are_the_tables_definitions():
    for columns in (COLUMNS, GAP_COLUMNS, COMPARISON_COLUMNS):
        rows = rendered(columns)
        start = README.index(rows[0])
        assert README[start:].split("\n\n")[0].splitlines() == rows


def test_every_column_the_tables_have_is_defined(demo_run):
    work = demo_run / "work"
    for column in read_table(work)[0]:
        assert meaning(column)
    for columns, table in ((GAP_COLUMNS, "gap.tsv"), (COMPARISON_COLUMNS, "comparison.tsv")):
        assert set(read_table(work, table)[0]) == {name for names, _ in columns for name in names}


def test_the_report_captions_carry_the_definitions(demo_run):
    work = demo_run / "work"
    run_pipeline(work, yaml.safe_load((work / "config.yaml").read_text()), "--report", "results/report.html")
    html = (work / "results/report.html").read_text()
    # Each column's name, as the caption's reStructuredText renders a literal.
    for names, _ in COLUMNS + GAP_COLUMNS + COMPARISON_COLUMNS:
        for name in names:
            assert f">{name}</tt>" in html, name


def test_the_readme_recipe_is_the_one_the_tests_run():
    assert f"perl -ne '{hand_recipe.perl_program(8)}'" in README
