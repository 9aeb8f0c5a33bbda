"""The compiled kernel against the pure-Python reference, and how the kernel is chosen.

The differential test runs tests/kernel_dump.py twice, with ``PAIPU_KERNEL=python`` and
``PAIPU_KERNEL=compiled``, and requires byte-identical output: every simulated game, verdict,
facts, audit table, warehouse row and 桂林 scorer answer on a corpus of every variant (simulated
games, each option value, the golden logs, tampered copies, bad input). It is skipped only where
no compiled kernel was built (no C compiler at install) — unless this run itself asks for the
compiled kernel (``PAIPU_KERNEL=compiled``, as .ci/run does), then a missing build fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from replay import kernel

ROOT = Path(__file__).resolve().parents[1]
N = len(kernel.MODULES)  # the modules of replay/kernel_modules.txt, as the messages count them


def _built() -> bool:
    """Every kernel module has an up-to-date build (what ``PAIPU_KERNEL=compiled`` requires)."""
    saved = list(sys.meta_path)
    try:
        return not kernel.install({"PAIPU_KERNEL": "auto"}).why
    finally:
        kernel.install()
        sys.meta_path[:] = saved


def test_compiled_and_python_kernels_answer_byte_for_byte(tmp_path: Path) -> None:
    if not _built():
        if os.environ.get("PAIPU_KERNEL") == "compiled":
            pytest.fail("PAIPU_KERNEL=compiled but the compiled kernel is not built: " + kernel.describe())
        pytest.skip("the compiled kernel is not built, or not for these sources, here (" + kernel.describe() + ")")
    runs = {}
    for mode in ("python", "compiled"):
        out = tmp_path / f"{mode}.txt"
        env = {**os.environ, "PAIPU_KERNEL": mode, "PYTHONHASHSEED": "0"}
        runs[mode] = (out, subprocess.Popen([sys.executable, str(ROOT / "tests" / "kernel_dump.py"), str(out)],
                                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    said = {}
    for mode, (_, p) in runs.items():
        stdout, stderr = p.communicate(timeout=1800)
        assert p.returncode == 0, f"{mode}: {stderr.decode()[-2000:]}"
        said[mode] = stdout.decode().strip()
    assert said["python"] == "kernel: pure Python (PAIPU_KERNEL=python)"
    assert said["compiled"].startswith("kernel: compiled (Cython "), said["compiled"]
    ref, got = (runs[m][0].read_bytes().splitlines() for m in ("python", "compiled"))
    assert len(ref) > 5000  # the corpus is there: lines, verdicts, rows and hands
    for i, (a, b) in enumerate(zip(ref, got)):
        if a != b:
            where = next((x for x in reversed(ref[:i + 1]) if x.startswith(b"line ")), b"(rows or hands)")
            pytest.fail(f"output line {i} differs, in {where[:160]!r}:\n python:   {a[:400]!r}\n compiled: {b[:400]!r}")
    assert len(ref) == len(got)


def test_kernel_choice_and_its_reasons(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    saved = list(sys.meta_path)
    try:
        with pytest.raises(kernel.KernelChoiceError, match="PAIPU_KERNEL='fast'"):
            kernel.install({"PAIPU_KERNEL": "fast"})
        st = kernel.install({"PAIPU_KERNEL": "python"})
        assert set(st.why) == set(kernel.MODULES)
        assert kernel.describe() == "kernel: pure Python (PAIPU_KERNEL=python)"
        assert isinstance(sys.meta_path[0], kernel._SourceFirst)
        # a build of every module but one, whose source changed since: that one runs as Python
        so = tmp_path / "x.so"
        so.write_bytes(b"")
        monkeypatch.setattr(kernel, "compiled_file", lambda name: so)
        stale = "replay.split"
        monkeypatch.setattr(kernel, "_manifest", lambda: {"cython": "3.0", "modules": {
            m: ("0" * 64 if m == stale else kernel.module_digest(m)) for m in kernel.MODULES}})
        st = kernel.install({})
        assert st.why == {stale: "replay/split.py changed since the build (make kernel rebuilds it)"}
        assert st.stale == {stale}
        assert kernel.describe() == (f"kernel: compiled (Cython 3.0) but 1 of {N} modules pure Python: replay.split: "
                                     "replay/split.py changed since the build (make kernel rebuilds it)")
        with pytest.raises(kernel.KernelNotBuiltError, match="PAIPU_KERNEL=compiled but 1 kernel module"):
            kernel.install({"PAIPU_KERNEL": "compiled"})
        # the engine stale: the 桂林 state, whose compiled class derives from the engine's, runs as Python too
        monkeypatch.setattr(kernel, "_manifest", lambda: {"cython": "3.0", "modules": {
            m: ("0" * 64 if m == "replay.engine" else kernel.module_digest(m)) for m in kernel.MODULES}})
        derived = "it derives from replay.engine's compiled classes, and replay.engine runs as Python"
        engine = "its sources (replay/engine.py, replay/engine.pxd) changed since the build (make kernel rebuilds it)"
        assert kernel.install({}).why == {
            "replay.engine": engine, "replay.variants.guilin.state": derived, "replay.variants.yuanjiang_guihuzi.state": derived}
        assert kernel.describe() == (f"kernel: compiled (Cython 3.0) but 3 of {N} modules pure Python: replay.engine: "
                                     f"{engine}; replay.variants.guilin.state, replay.variants.yuanjiang_guihuzi.state: {derived}")
        # an extension the build made, gone since; a manifest missing or unreadable
        monkeypatch.setattr(kernel, "compiled_file", lambda name: None if name == stale else so)
        assert kernel.install({}).why[stale] == "its extension was built but is gone (make kernel rebuilds it)"
        monkeypatch.setattr(kernel, "compiled_file", lambda name: so)
        monkeypatch.setattr(kernel, "_manifest", lambda: {})
        assert set(kernel.install({}).why.values()) == {
            "the build manifest replay/_kernel_build.json is missing or unreadable (make kernel rebuilds it)"}
        # a module's digest covers the .pxd files it is compiled against: its own and the engine's
        assert kernel.module_digest("replay.split") == kernel.digest(kernel.source("replay.split"))
        assert kernel.module_digest("replay.variants.guilin.state") != kernel.digest(kernel.source("replay.variants.guilin.state"))
        monkeypatch.setattr(kernel, "_manifest", lambda: {"cython": "3.0", "modules": {
            m: kernel.module_digest(m) for m in kernel.MODULES}})
        assert not kernel.install({}).why
        assert kernel.describe() == f"kernel: compiled (Cython 3.0, {N} modules)"
        assert not any(isinstance(f, kernel._SourceFirst) for f in sys.meta_path)
        # no build at all: the manifest says why
        monkeypatch.setattr(kernel, "compiled_file", lambda name: None)
        monkeypatch.setattr(kernel, "_manifest", lambda: {"error": "no C compiler worked at install (x)"})
        kernel.install({})
        assert kernel.describe() == "kernel: pure Python (no C compiler worked at install (x))"
    finally:
        monkeypatch.undo()
        kernel.install()
        sys.meta_path[:] = saved


def test_version_says_which_kernel_runs() -> None:
    from paipu.cli import app

    r = CliRunner().invoke(app, ["--version"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("paipu ") and f"; {kernel.describe()}" in r.output


def test_a_module_forced_to_python_loads_its_source() -> None:
    code = ("import replay.split, replay.variants.guilin.state as s, replay.kernel as k; "
            "print(replay.split.__file__.endswith('split.py'), s.__file__.endswith('state.py'), k.loaded()['replay.split'])")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PAIPU_KERNEL": "python"},
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["True", "True", "False"]


def test_a_kernel_module_runs_as_python_where_cython_is_not_installed() -> None:
    # A plain `pip install` builds the kernel in an isolated environment and leaves no Cython behind:
    # the scorer, written in Cython's pure-Python mode, then imports replay/_cython.py (no-op
    # decorators) and answers as with Cython's own shadow module (the bench corpus's checksum, the
    # one tests/test_guilin_scoring.py pins).
    code = ("import sys, importlib.abc\n"
            "class NoCython(importlib.abc.MetaPathFinder):\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in ('cython', 'Cython'):\n"
            "            raise ImportError(name)\n"
            "sys.meta_path.insert(0, NoCython())\n"
            "from bench.hands import _digest, build_hands\n"
            "from replay.variants.guilin import _kernel as k\n"
            "print(k.cython.__name__, _digest([k.packed_best_split(*h) for h in build_hands(4000, 3)])[0])\n")
    p = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env={**os.environ, "PAIPU_KERNEL": "python"},
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["replay._cython", "a6f7bb023259d77e"]


def test_a_bad_kernel_choice_is_one_line_not_a_traceback() -> None:
    p = subprocess.run([sys.executable, "-m", "paipu.cli", "--version"], cwd=ROOT, capture_output=True, text=True,
                       env={**os.environ, "PAIPU_KERNEL": "fast"})
    assert p.returncode == 2
    assert p.stderr == "paipu: PAIPU_KERNEL='fast': choose one of auto, compiled, python\n"


def test_commands_say_when_a_built_module_is_stale(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from paipu import cli

    monkeypatch.setattr(kernel.STATUS, "why", {"replay.split": "replay/split.py changed since the build (make kernel rebuilds it)"})
    monkeypatch.setattr(kernel.STATUS, "stale", {"replay.split"})
    monkeypatch.setattr(kernel.STATUS, "mode", "auto")
    cli._say_stale_kernel()
    assert capsys.readouterr().err == (f"paipu: 1 of {N} kernel modules run as pure Python, their build being stale "
                                       "(replay.split): `make kernel` rebuilds them\n")
    monkeypatch.setattr(kernel.STATUS, "why", {m: "not built (no C compiler at install, or installed without the build)"
                                               for m in kernel.MODULES})
    monkeypatch.setattr(kernel.STATUS, "stale", set())
    cli._say_stale_kernel()  # no compiler: nothing to rebuild, nothing said
    assert capsys.readouterr().err == ""


def test_a_yuanjiang_hand_shape_pickled_on_one_kernel_loads_on_the_other(tmp_path: Path) -> None:
    # HandShape is a cclass compiled: Cython's own pickle named the compiled layout (the fresh-user
    # check); now the hand alone, on both kernels. 一一二三 waits on 一 (一一一 + 二三), 二 (一二三 + 一二),
    # 三 (一二三 + 一三) and 四 (二三四 + 一一): groups and exactly one 门子 (003 §名词解析 ⑧).
    code = ("import pickle, sys\n"
            "from replay.variants.yuanjiang_guihuzi._kernel import HandShape\n"
            "if sys.argv[1] == 'dump':\n"
            "    s = HandShape([2, 1, 1] + [0] * 17); s.wins(0, True)\n"
            "    open(sys.argv[2], 'wb').write(pickle.dumps(s))\n"
            "else:\n"
            "    s = pickle.loads(open(sys.argv[2], 'rb').read())\n"
            "    print(type(s).__module__, s.n, [w for w in range(20) if s.wins(w, True)])\n")
    got = {}
    for dump, load in (("compiled", "python"), ("python", "auto")):
        f = tmp_path / f"{dump}.pkl"
        for step, mode in (("dump", dump), ("load", load)):
            p = subprocess.run([sys.executable, "-c", code, step, str(f)], cwd=ROOT, capture_output=True, text=True,
                               env={**os.environ, "PAIPU_KERNEL": mode}, timeout=120)
            assert p.returncode == 0, p.stderr
        got[dump] = p.stdout
    assert got["compiled"] == got["python"]
    assert got["python"] == "replay.variants.yuanjiang_guihuzi._kernel 4 [0, 1, 2, 3]\n"
