"""The harness's own set-up: what a machine without SLURM is told."""

import subprocess
from types import SimpleNamespace

import one_node_slurm
import pytest
from one_node_slurm import SlurmNotInstalled, ensure_slurm


def test_a_machine_without_slurm_where_the_user_is_not_root_is_told_how_to_install_it(monkeypatch):
    monkeypatch.setattr(one_node_slurm.shutil, "which", lambda tool, path=None: None)
    monkeypatch.setattr(one_node_slurm.os, "geteuid", lambda: 1000)
    with pytest.raises(SlurmNotInstalled, match="sudo apt-get install slurm-wlm munge"):
        ensure_slurm()


def test_a_machine_without_slurm_whose_package_source_fails_says_what_apt_get_said(monkeypatch):
    calls = []

    def apt_get(command, **options):
        calls.append(command)
        return SimpleNamespace(returncode=100, stderr="E: Unable to locate package slurm-wlm\n")

    monkeypatch.setattr(one_node_slurm.shutil, "which", lambda tool, path=None: None)
    monkeypatch.setattr(one_node_slurm.os, "geteuid", lambda: 0)
    monkeypatch.setattr(subprocess, "run", apt_get)
    with pytest.raises(SlurmNotInstalled, match="Unable to locate package slurm-wlm"):
        ensure_slurm()
    # It tried again once the package lists were brought up to date.
    assert [command[:2] for command in calls] == [["apt-get", "install"], ["apt-get", "update"], ["apt-get", "install"]]
