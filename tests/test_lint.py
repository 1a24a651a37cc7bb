"""The workflow stays clean for Snakemake's linter, snakefmt and ruff."""

import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

BIN = Path(sys.executable).parent


@pytest.mark.pipeline
def test_snakemake_lint_finds_nothing():
    done = subprocess.run([str(BIN / "snakemake"), "--lint"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Congratulations, your workflow is in a good condition!" in done.stdout + done.stderr


def test_snakefmt_would_change_nothing():
    done = subprocess.run([str(BIN / "snakefmt"), "--check", "."], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_finds_nothing_and_would_change_nothing():
    for check in (["check", "."], ["format", "--check", "."]):
        done = subprocess.run([str(BIN / "ruff"), *check], cwd=REPO, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr
