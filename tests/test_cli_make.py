"""The two commands of the quick start: ``make demo`` installs only the base
dependencies (no test tools, dask, browser or chess: they were 40% of a fresh demo's time),
``make test`` the dev extra; what ``make -n`` would run, on a venv that does not exist yet."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def planned(target: str, venv: Path) -> list[str]:
    out = subprocess.run(["make", "--no-print-directory", "-n", target, f"VENV={venv}", "SERVE=0"], cwd=ROOT,
                         capture_output=True,
                         text=True, check=True).stdout
    return [ln for ln in out.splitlines() if " venv" in ln or "pip install" in ln]


def test_demo_installs_only_the_base_dependencies(tmp_path):
    venv = tmp_path / "venv"
    assert planned("demo", venv) == [f"python3 -m venv {venv}",
                                     f"{venv}/bin/python -m pip install --quiet --disable-pip-version-check -e ."]


def test_test_installs_the_dev_extra(tmp_path):
    venv = tmp_path / "venv"
    assert planned("test", venv)[1] == f"{venv}/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'"


def test_test_runs_in_two_processes_a_file_each(tmp_path):
    out = subprocess.run(["make", "--no-print-directory", "-n", "test", f"VENV={tmp_path / 'venv'}"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == f"{tmp_path / 'venv'}/bin/python -m pytest -n 2 --dist loadfile"
