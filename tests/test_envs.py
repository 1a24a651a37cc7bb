"""The conda environments of envs/, for `--sdm conda`, checked as far as a machine without conda's
channels can: each parses, pins the versions uv.lock and requirements-kenlm.txt pin,
and provides every package that the steps using it import, lmgap among them, found by reading the
steps' code."""

import ast
import re
import subprocess
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
# The pip line of an env that installs the pipeline's package from the repository: conda hands an
# env's pip section to pip as a requirements file, run in the env file's folder.
LMGAP_LINE = "-e .."


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
                if requirement == LMGAP_LINE:
                    packages["lmgap"] = None
                    continue
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
                if top not in sys.stdlib_module_names and top not in PROVIDED:
                    outside.add(top)
    return outside


@pytest.mark.parametrize("path", sorted(ENVS.glob("*.yaml")), ids=lambda p: p.name)
def test_each_env_parses_and_pins_what_the_requirements_pin(path):
    versions = pinned()
    packages = env_packages(path)
    assert packages["python"] == "3.11"
    # lmgap is the repository itself, installed from where it is at whatever version it has.
    assert "lmgap" in packages
    for name, version in packages.items():
        if name == "lmgap":
            continue
        pip_name = {v: k for k, v in PACKAGE_OF.items()}.get(name, name)
        pin = versions.get(name) or versions.get(pip_name) or versions.get(name.replace("-base", ""))
        if pin:
            # conda pins major.minor (its builds), pip the full version: they must agree, and a
            # package the requirements pin is pinned here too.
            assert version, (path.name, name, "unpinned", pin)
            assert pin == version or pin.startswith(version + "."), (path.name, name, version, pin)


def lacking(envs):
    """[(rule, env file, module)] of each module a step imports that its env lacks; envs: {file name:
    its packages}."""
    return [
        (rule, env, module)
        for rule, env, script in steps()
        for module in sorted(imported_packages(REPO / "workflow/scripts" / script))
        if PACKAGE_OF.get(module, module) not in envs[env]
    ]


def every_env():
    return {path.name: env_packages(path) for path in sorted(ENVS.glob("*.yaml"))}


def test_every_step_finds_what_it_imports_in_its_env():
    checked = steps()
    assert len(checked) >= 20 and {rule for rule, _, _ in checked} >= {"train", "query", "gap_logprobs", "plots"}
    assert lacking(every_env()) == []


def test_an_env_without_the_pipeline_s_package_fails_the_check():
    envs = every_env()
    for env in ("python.yaml", "neural.yaml"):
        envs[env].pop("lmgap")
    found = lacking(envs)
    assert ("plots", "python.yaml", "lmgap") in found and ("gap_cloze", "neural.yaml", "lmgap") in found
    assert {module for _, _, module in found} == {"lmgap"}


def test_pip_run_as_conda_runs_it_installs_the_env_s_lmgap_from_this_repository(tmp_path):
    # What conda does with an env's pip section, short of fetching: pip reads it as a requirements
    # file, in the env file's folder (Snakemake hands conda the env file where it lies).
    requirements = tmp_path / "requirements.txt"
    requirements.write_text(f"{LMGAP_LINE}\n")
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-build-isolation", "--no-index"]
    done = subprocess.run([*command, "-r", str(requirements)], cwd=ENVS, capture_output=True, text=True)
    assert "Would install lmgap-" in done.stdout, done.stdout + done.stderr


def test_the_import_reader_sees_imports_inside_functions():
    # predict.py imports kenlm inside its functions; a reader that missed it would pass anything.
    assert "kenlm" in imported_packages(REPO / "workflow/scripts/gap_logprobs.py")
    # lmgap.gap.candidates imports pandas inside a function; gap_table.py reaches numpy and mmh3
    # through the lmgap modules it imports.
    assert "pandas" in imported_packages(REPO / "workflow/scripts/gap_candidates.py")
    assert {"numpy", "mmh3"} <= imported_packages(REPO / "workflow/scripts/gap_table.py")
