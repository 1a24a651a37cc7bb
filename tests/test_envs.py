"""The conda environments of envs/, for `--sdm conda`, checked as far as a machine without conda's
channels can: each parses, pins the versions uv.lock and requirements-kenlm.txt pin,
and provides every package that the steps using it import, found by reading the steps' code."""

import ast
import re
import sys

import pytest
import yaml

from conftest import REPO, locked, pins, rule_blocks
from lmgap.sourcecode import code_files

ENVS = REPO / "envs"
# Import names whose package is called otherwise, in conda or on PyPI.
PACKAGE_OF = {"yaml": "pyyaml", "matplotlib": "matplotlib-base", "torch": "pytorch"}
# Provided to every step by Snakemake itself (it puts its own package on the script's path).
PROVIDED = {"snakemake"}


def pinned():
    """{package: version} of uv.lock, requirements-kenlm.txt and the Makefile's uv pin, names
    lower-cased."""
    found = {package["name"].lower(): package["version"] for package in locked()}
    for line in pins():
        name, version = re.match(r"([A-Za-z0-9_.-]+)==(\S+)", line).groups()
        found[name.lower()] = version
    assert {"snakemake", "kenlm", "torch", "pandas"} <= set(found)
    return found


def env_packages(path):
    """{package: version or None} of an env file: conda dependencies and its pip section."""
    packages = {}
    for entry in yaml.safe_load(path.read_text())["dependencies"]:
        if isinstance(entry, dict):
            for requirement in entry["pip"]:
                name, _, version = requirement.partition("==")
                packages[name.lower()] = version or None
        else:
            name, _, version = entry.partition("=")
            packages[name.lower()] = version or None
    return packages


def steps():
    """[(rule, env file, script)] of every rule that has both, read from the rules' files."""
    found = []
    for name, body in rule_blocks().items():
        env = re.search(r'conda:\s*"\.\./\.\./envs/([\w-]+\.yaml)"', body)
        script = re.search(r'script:\s*"\.\./scripts/(\w+\.py)"', body)
        if env and script:
            found.append((name, env.group(1), script.group(1)))
    return found


def imported_packages(script):
    """Top-level names of the third-party modules a script imports, directly or through lmgap."""
    outside = set()
    for path in code_files(script):
        for node in ast.walk(ast.parse(path.read_bytes())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module]
            else:
                continue
            for top in (name.split(".")[0] for name in names):
                if top != "lmgap" and top not in sys.stdlib_module_names and top not in PROVIDED:
                    outside.add(top)
    return outside


@pytest.mark.parametrize("path", sorted(ENVS.glob("*.yaml")), ids=lambda p: p.name)
def test_each_env_parses_and_pins_what_the_requirements_pin(path):
    versions = pinned()
    packages = env_packages(path)
    assert packages["python"] == "3.11"
    for name, version in packages.items():
        pip_name = {v: k for k, v in PACKAGE_OF.items()}.get(name, name)
        pin = versions.get(name) or versions.get(pip_name) or versions.get(name.replace("-base", ""))
        if pin:
            # conda pins major.minor (its builds), pip the full version: they must agree, and a
            # package the requirements pin is pinned here too.
            assert version, (path.name, name, "unpinned", pin)
            assert pin == version or pin.startswith(version + "."), (path.name, name, version, pin)


def test_every_step_finds_what_it_imports_in_its_env():
    checked = steps()
    assert len(checked) >= 20 and {rule for rule, _, _ in checked} >= {"train", "query", "gap_logprobs", "plots"}
    for rule, env, script in checked:
        packages = env_packages(ENVS / env)
        for module in imported_packages(REPO / "workflow/scripts" / script):
            assert PACKAGE_OF.get(module, module) in packages, f"rule {rule} imports {module}; envs/{env} lacks it"


def test_the_import_reader_sees_imports_inside_functions():
    # predict.py imports kenlm inside its functions; a reader that missed it would pass anything.
    assert "kenlm" in imported_packages(REPO / "workflow/scripts/gap_logprobs.py")
    # lmgap.gap.candidates imports pandas inside a function; gap_table.py reaches numpy and mmh3
    # through the lmgap modules it imports.
    assert "pandas" in imported_packages(REPO / "workflow/scripts/gap_candidates.py")
    assert {"numpy", "mmh3"} <= imported_packages(REPO / "workflow/scripts/gap_table.py")
