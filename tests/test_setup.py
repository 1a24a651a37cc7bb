"""The set-up a fresh machine runs: uv.lock's public pins only, the neural stack only where it is needed,
and a clear word when a neural job runs without it."""

import ast
import re
import shlex
import subprocess
import sys
import tomllib
from types import SimpleNamespace

import pytest

from conftest import REPO, locked, pins
from lmgap.scriptio import run


def planned(target):
    """The commands `make TARGET` runs on a machine where nothing is set up yet (make -n -B)."""
    done = subprocess.run(["make", "-n", "-B", target], cwd=REPO, capture_output=True, text=True, check=True)
    return done.stdout.replace("\\\n", " ")


def test_make_help_lists_every_target_with_what_it_does():
    phony = re.search(r"^\.PHONY: (.*)$", (REPO / "Makefile").read_text(), re.MULTILINE)[1].split()
    listed = subprocess.run(["make", "-s", "help"], cwd=REPO, capture_output=True, text=True, check=True).stdout
    described = dict(line.split(None, 1) for line in listed.splitlines())
    assert sorted(described) == sorted(phony) and all(len(text) > 5 for text in described.values())


def test_make_run_installs_no_neural_stack_and_make_test_and_demo_do():
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["neural"]
    assert not any(requirement in planned("run") for requirement in extra)
    for target in ("test", "demo"):
        made = planned(target)
        assert "uv export --quiet --locked --extra neural" in made, target
        assert f"pip install --quiet -c .venv/neural-pins.txt {' '.join(map(shlex.quote, extra))}" in made, target


def test_the_set_up_installs_uv_lock_s_pins_and_refuses_a_lock_behind_pyproject():
    for target in ("run", "test"):
        assert "uv sync --quiet --locked --inexact" in planned(target), target
    # Every requirement of pyproject.toml is locked: the package's own entry lists them.
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    own = next(package for package in locked() if package["name"] == "lmgap")
    declared = {re.match(r"[A-Za-z0-9_.-]+", r).group().lower() for r in project["project"]["dependencies"]}
    assert declared == {entry["name"].lower() for entry in own["metadata"]["requires-dist"] if "marker" not in entry}


def test_the_package_declares_every_module_it_imports():
    # `pip install .` alone gives a package whose modules import: every third-party module that
    # workflow/lmgap imports is a declared dependency, or the neural extra's (KenLM's module, built
    # by the set-up from requirements-kenlm.txt, apart).
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    requirements = [*project["dependencies"], *project["optional-dependencies"]["neural"]]
    declared = {re.match(r"[A-Za-z0-9_.-]+", r).group().lower().replace("-", "_") for r in requirements}
    distribution = {"yaml": "pyyaml", "kenlm": None}
    imported = set()
    for path in (REPO / "workflow/lmgap").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_bytes())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module]
            imported |= {name.split(".")[0] for name in names}
    outside = {m for m in imported if m not in sys.stdlib_module_names and m != "lmgap"}
    assert {"pandas", "numpy", "torch", "kenlm"} <= outside
    needed = {distribution.get(module, module) for module in outside} - {None}
    assert needed <= declared, needed - declared


def test_the_set_up_s_kenlm_module_is_never_taken_from_pip_s_cache():
    # A cached wheel of the same version may have been built for another maximum order (the
    # pipeline's builds for higher orders also prove the order they built: tests/ngram/test_build.py).
    kenlm_lines = [line for line in planned("run").splitlines() if "requirements-kenlm.txt" in line]
    assert kenlm_lines and all("--no-cache-dir" in line for line in kenlm_lines)


def test_every_pin_is_a_public_release():
    # A local version label (2.13.0+cpu) names a build the public index does not serve; a pin
    # without one accepts such a build where pip finds it.
    packages = {package["name"]: package for package in locked()}
    assert packages["torch"]["version"] == "2.13.0" and packages["lmgap"]["source"] == {"editable": "."}
    for name, package in packages.items():
        if name != "lmgap":
            assert package["source"] == {"registry": "https://pypi.org/simple"}, name
            assert re.fullmatch(r"[0-9][0-9A-Za-z.]*", package["version"]), name
    assert any(pin.startswith("uv==") for pin in pins())
    for pin in pins():
        assert re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.]*( --hash=sha256:[0-9a-f]{64})?", pin), pin


def test_a_neural_job_without_its_packages_names_the_install_command(tmp_path, capsys):
    job = SimpleNamespace(log=[str(tmp_path / "job.log")], rule="train_tokenizer", input=[], output=[])

    def needs_torch(log):
        import torch_is_not_installed_here  # noqa: F401

    with pytest.raises(ModuleNotFoundError):
        run(job, needs_torch)

    def needs_tokenizers(log):
        raise ModuleNotFoundError("No module named 'tokenizers'", name="tokenizers")

    with pytest.raises(SystemExit):
        run(job, needs_tokenizers)
    said = capsys.readouterr().err
    assert "lmgap error in rule train_tokenizer: tokenizers is not installed" in said
    assert "make setup-neural" in said and "pip install -e '.[neural]'" in said and "set neural: {}" in said
