"""The code a job runs, found from its script's imports, and every rule declaring it."""

import re

from conftest import REPO, rule_blocks
from lmgap.sourcecode import code_files, files_digest, package_code, script_code


def write(root, files):
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_script_s_code_is_every_module_it_reaches_by_any_form_of_import(tmp_path):
    write(
        tmp_path,
        {
            "scripts/job.py": "import sys\nfrom lmgap.b import run\n\ndef late():\n    import lmgap.e.f\n",
            "lmgap/__init__.py": "",
            # A package's modules reached by name, relatively, from the package itself, two levels up.
            "lmgap/b/__init__.py": "from . import c\n",
            "lmgap/b/run.py": "from .c import value\nfrom ..d import other\n",
            "lmgap/b/c.py": "value = 1\n",
            "lmgap/d.py": "other = 2\n",
            "lmgap/e/__init__.py": "",
            "lmgap/e/f.py": "import os\n",
            "lmgap/unused.py": "x = 1\n",
        },
    )
    found = {path.relative_to(tmp_path).as_posix() for path in code_files(tmp_path / "scripts/job.py", tmp_path)}
    assert found == {
        "scripts/job.py",
        "lmgap/__init__.py",
        "lmgap/b/__init__.py",
        "lmgap/b/run.py",
        "lmgap/b/c.py",
        "lmgap/d.py",
        "lmgap/e/__init__.py",
        "lmgap/e/f.py",
    }
    before = script_code("job", tmp_path)
    # Another module's edit, or a touch, changes nothing; an edit to a module reached does.
    (tmp_path / "lmgap/unused.py").write_text("x = 2\n")
    (tmp_path / "lmgap/d.py").touch()
    assert script_code("job", tmp_path) == before
    (tmp_path / "lmgap/d.py").write_text("other = 3\n")
    assert script_code("job", tmp_path) != before


def test_imports_across_lines_and_lines_of_text_that_read_like_imports_are_found_as_python_reads_them(tmp_path):
    write(
        tmp_path,
        {
            # A docstring line that starts like an import and is none, then an import continued
            # with a backslash: the whole file is read as Python reads it.
            "scripts/job.py": '"""Run it.\nimport this, then that.\n"""\nfrom lmgap.a import \\\n    x\n',
            # Names in parentheses over several lines, and a string that only mentions lmgap.c.
            "lmgap/a.py": 'from lmgap.b import (\n    y,\n    z,\n)\n\nx = "import lmgap.c"\n',
            "lmgap/__init__.py": "",
            # A module named before a backslash, and an import after a colon and after a semicolon.
            "lmgap/b.py": "from lmgap.d \\\n    import w\nif w: import lmgap.e\ny = z = 1; import lmgap.f\n",
            "lmgap/c.py": "",
            **{f"lmgap/{name}.py": "w = 1\n" for name in "def"},
        },
    )
    found = {path.relative_to(tmp_path).as_posix() for path in code_files(tmp_path / "scripts/job.py", tmp_path)}
    assert found == {"scripts/job.py", "lmgap/__init__.py", *(f"lmgap/{name}.py" for name in "abdef")}


def test_a_digest_names_files_relative_to_the_workflow_so_a_copy_has_the_same(tmp_path):
    for root in (tmp_path / "one", tmp_path / "two/deeper"):
        write(root, {"scripts/job.py": "import lmgap.a\n", "lmgap/__init__.py": "", "lmgap/a.py": "x = 1\n"})
    assert script_code("job", tmp_path / "one") == script_code("job", tmp_path / "two/deeper")
    paths = code_files(tmp_path / "one/scripts/job.py", tmp_path / "one")
    assert files_digest(paths, tmp_path / "one") != files_digest(paths[:-1], tmp_path / "one")


def test_every_rule_passes_the_code_of_its_own_script():
    rules = rule_blocks()
    assert len(rules) > 25
    for name, body in rules.items():
        assert re.search(rf'script:\n\s+"\.\./scripts/{name}\.py"', body), f"rule {name} runs another script"
        assert f'code=script_code("{name}"),' in body, f"rule {name} does not pass its script's code"
    assert re.search(
        r"^rerun-triggers: \[mtime, params, input, software-env\]$",
        (REPO / "profiles/default/config.yaml").read_text(),
        re.M,
    )


def test_the_record_s_digest_covers_the_rules_scripts_and_package(tmp_path):
    write(tmp_path, {"rules/a.smk": "rule a:\n", "scripts/a.py": "", "lmgap/__init__.py": "", "other.txt": ""})
    before = package_code(tmp_path)
    for name in ("rules/a.smk", "scripts/a.py", "lmgap/__init__.py"):
        (tmp_path / name).write_text((tmp_path / name).read_text() + "\n# edited\n")
        assert package_code(tmp_path) != before, name
        before = package_code(tmp_path)
    (tmp_path / "other.txt").write_text("not code")
    assert package_code(tmp_path) == before
