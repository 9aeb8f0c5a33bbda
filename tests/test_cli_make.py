"""The two commands of the quick start, as ``make -n`` plans them: ``make demo`` installs only the
base dependencies (no test tools, dask, browser or chess), through uv with pip behind it, ``make
test`` adds the dev extra's packages alone, and the kernel is compiled by its own rule only, so
``make test`` after ``make demo`` neither reinstalls the package nor builds the kernel a second time."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PIP = "-m pip install --quiet --disable-pip-version-check"


def plan(target: str, venv: Path) -> list[str]:
    out = subprocess.run(["make", "--no-print-directory", "-n", target, f"VENV={venv}", "SERVE=0"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def installs(lines: list[str]) -> list[str]:
    return [ln for ln in lines if " venv" in ln or "pip install" in ln or "build_ext" in ln]


def test_a_fresh_demo_installs_the_base_without_its_kernel_then_compiles_the_kernel_once(tmp_path):
    venv = tmp_path / "venv"

    def install(args: str) -> str:  # uv when pip could install it, else pip
        return f"{{ test -x {venv}/bin/uv && {venv}/bin/uv pip install --quiet --python {venv}/bin/python {args}; }} " \
               f"|| {venv}/bin/python {PIP} {args}"

    assert installs(plan("demo", venv)) == [
        f"python3 -m venv {venv}",
        f"{venv}/bin/python {PIP} uv || true",
        "export PAIPU_BUILD_KERNEL=0; " + install("-e ."),
        install('"Cython>=3.0" "setuptools>=69"'),
        f"{venv}/bin/python setup.py --quiet build_ext --inplace",
    ]


def test_test_after_demo_adds_the_dev_packages_only(tmp_path):
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").touch()
    later = time.time() + 60
    for stamp in (".installed-base", ".installed-kernel"):  # what the demo left
        (venv / stamp).touch()
        os.utime(venv / stamp, (later, later))
    steps = installs(plan("test", venv))
    assert not any(" -e " in s for s in steps)  # the package is not reinstalled
    assert sum("build_ext" in s for s in steps) <= 1  # make -n always plans the rebuild check's recipe
    dev = [s for s in plan("test", venv) if "--extra" in s][0]
    assert "-r pyproject.toml --extra dev;" in dev and "'optional-dependencies']['dev']" in dev


def test_test_runs_ruff_mypy_and_pytest_in_two_processes_a_file_each(tmp_path):
    lines = plan("test", tmp_path / "venv")
    assert lines[-3:] == [f"{tmp_path / 'venv'}/bin/ruff check replay ingest analytics dashboards paipu bench tests",
                          f"{tmp_path / 'venv'}/bin/mypy",
                          f"{tmp_path / 'venv'}/bin/python -m pytest -n 2 --dist loadfile --no-loadscope-reorder"]
