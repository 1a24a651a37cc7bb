"""The set-up a fresh machine runs: public pins only, the neural stack only where it is needed,
and a clear word when a neural job runs without it."""

import re
import shlex
import subprocess
import tomllib
from types import SimpleNamespace

import pytest

from conftest import REPO, requirements
from lmgap.scriptio import run


def planned(target):
    """The commands `make TARGET` runs on a machine where nothing is set up yet (make -n -B)."""
    done = subprocess.run(["make", "-n", "-B", target], cwd=REPO, capture_output=True, text=True, check=True)
    return done.stdout.replace("\\\n", " ")


def test_make_run_installs_no_neural_stack_and_make_test_and_demo_do():
    extra = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]["neural"]
    assert not any(pin in planned("run") for pin in extra)
    for target in ("test", "demo"):
        assert f"pip install --quiet -c requirements.txt {' '.join(map(shlex.quote, extra))}" in planned(target), target


def test_the_set_up_s_kenlm_module_is_never_taken_from_pip_s_cache():
    # A cached wheel of the same version may have been built for another maximum order (the
    # pipeline's builds for higher orders also prove the order they built: tests/ngram/test_build.py).
    kenlm_lines = [line for line in planned("run").splitlines() if "requirements-kenlm.txt" in line]
    assert kenlm_lines and all("--no-cache-dir" in line for line in kenlm_lines)


def test_every_pin_is_a_public_release():
    # A local version label (2.13.0+cpu) names a build the public index does not serve; a pin
    # without one accepts such a build where pip finds it.
    pins = requirements()
    assert "torch==2.13.0" in pins and any(pin.startswith("uv==") for pin in pins)
    for pin in pins:
        assert re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.]*( --hash=sha256:[0-9a-f]{64})?", pin), pin


def test_a_neural_job_without_its_packages_names_the_install_command(tmp_path, capsys):
    job = SimpleNamespace(log=[str(tmp_path / "job.log")], rule="train_tokenizer")

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
