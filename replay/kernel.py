"""Which kernel runs: the compiled modules (Cython, built at install) or the pure-Python reference.

The hot modules listed in :data:`MODULES` are plain, importable Python; ``setup.py`` compiles the
very same files with Cython in pure-Python mode when a C compiler is present at install
(``pip install -e .`` leaves ``<module>.<abi>.so`` beside each ``.py``) and records in
:data:`MANIFEST` the SHA-256 of every source it compiled (or why it compiled none). Python would
import a ``.so`` ahead of its ``.py``; :func:`install` (run by ``import replay``, before any of
these modules loads) makes a module load from its ``.py`` instead when

- ``PAIPU_KERNEL=python`` (the reference engine, forced: the differential test and
  ``make test-python`` use it),
- its ``.so`` is missing (no C compiler at install, or the build of that module failed), or
- its ``.py`` changed since the build (a stale ``.so`` never runs: ``make kernel``, and so ``make test``, rebuilds it).

``PAIPU_KERNEL=compiled`` makes any of the last two an :class:`ImportError` (CI tests the compiled
build and must not fall back silently). Unset or ``auto``: compiled where up to date.
:func:`describe` is the one line ``paipu --version`` prints (and ``make`` after each install).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any, Mapping

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = Path(__file__).with_name("_kernel_build.json")
"""Written by ``setup.py`` at build time (git-ignored): ``{"cython", "modules": {name: sha256},
"failed": {name: why}, "error": why-none-was-built}``."""

# The compiled set, declared in kernel_modules.txt beside this file (setup.py and the Makefile read it too).
MODULES: tuple[str, ...] = tuple(
    line.strip() for line in (Path(__file__).parent / "kernel_modules.txt").read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.startswith("#"))

CHOICES = ("auto", "compiled", "python")


class KernelChoiceError(ValueError):
    """``PAIPU_KERNEL`` names no kernel (the console command prints it as one line, exit 2)."""


class KernelNotBuiltError(ImportError):
    """``PAIPU_KERNEL=compiled`` but some module would run as Python (one line, exit 2)."""


def source(name: str) -> Path:
    """The ``.py`` of kernel module ``name``."""
    return ROOT.joinpath(*name.split(".")).with_suffix(".py")


def compiled_file(name: str) -> Path | None:
    """The built extension of ``name`` beside its source, or None."""
    src = source(name)
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        p = src.with_suffix(suffix)
        if p.exists():
            return p
    return None


def digest(path: Path) -> str:
    """SHA-256 (hex) of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


# Kernel modules whose compiled classes derive from another module's C classes (a `cimport` in their
# .pxd): built against that module's .pxd, and loadable only beside its compiled build.
CIMPORTS: dict[str, tuple[str, ...]] = {"replay.variants.guilin.state": ("replay.engine",),
                                         "replay.variants.yuanjiang_guihuzi.state": ("replay.engine",)}


def module_files(name: str) -> list[Path]:
    """The files kernel module ``name`` is compiled from: its ``.py``, then its own ``.pxd`` and
    those of the modules it cimports (:data:`CIMPORTS`), where they exist."""
    pxds = [p for p in (source(m).with_suffix(".pxd") for m in (name, *CIMPORTS.get(name, ()))) if p.exists()]
    return [source(name), *pxds]


def module_digest(name: str) -> str:
    """What the build records for kernel module ``name`` and import compares: SHA-256 (hex) of its
    ``.py``, or, when it or a module it cimports has a ``.pxd`` (C declarations), of the ``.py``
    and every such ``.pxd``."""
    files = module_files(name)
    if len(files) == 1:
        return digest(files[0])
    h = hashlib.sha256()
    for p in files:
        h.update(p.name.encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def _manifest() -> dict[str, Any]:
    try:
        return json.loads(MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


class _Status:
    """What :func:`install` decided: ``mode``, per module ``compiled`` or the reason it is not."""

    def __init__(self) -> None:
        self.mode = "auto"
        self.manifest: dict[str, Any] = {}
        self.why: dict[str, str] = {}  # module -> why it runs as Python (absent: compiled)
        self.stale: set[str] = set()  # of those, the ones built but out of date (make kernel rebuilds them)


STATUS = _Status()


class _SourceFirst(importlib.abc.MetaPathFinder):
    """Loads the named kernel modules from their ``.py`` (a plain source loader), whatever is
    built beside them."""

    def __init__(self, names: set[str]) -> None:
        self.names = names

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname not in self.names:
            return None
        return importlib.util.spec_from_file_location(fullname, source(fullname))


def install(env: Mapping[str, str] | None = None) -> _Status:
    """Decide each kernel module's implementation (see the module doc) and put the finder in place.
    Idempotent; run by ``import replay`` before any kernel module is imported.

    :raises KernelChoiceError: ``PAIPU_KERNEL`` is none of :data:`CHOICES` (a ``ValueError``).
    :raises KernelNotBuiltError: ``PAIPU_KERNEL=compiled`` and some module is not built or is
        stale (an ``ImportError``).
    """
    env_: Mapping[str, str] = os.environ if env is None else env
    mode = (env_.get("PAIPU_KERNEL") or "auto").strip().lower()
    if mode not in CHOICES:
        raise KernelChoiceError(f"PAIPU_KERNEL={mode!r}: choose one of {', '.join(CHOICES)}")
    man = _manifest()
    built = man.get("modules", {})
    why: dict[str, str] = {}
    stale: set[str] = set()
    for name in MODULES:
        if mode == "python":
            why[name] = "PAIPU_KERNEL=python"
        elif compiled_file(name) is None:
            why[name] = (man.get("failed", {}).get(name) or man.get("error")
                         or ("its extension was built but is gone (make kernel rebuilds it)" if name in built
                             else "not built (no C compiler at install, or installed without the build)"))
            if name in built:
                stale.add(name)
        elif not man:
            stale.add(name)
            why[name] = f"the build manifest {MANIFEST.relative_to(ROOT)} is missing or unreadable (make kernel rebuilds it)"
        elif name not in built:
            stale.add(name)
            why[name] = "its extension is not in the build manifest (make kernel rebuilds it)"
        elif built[name] != module_digest(name):
            stale.add(name)
            files = module_files(name)
            what = (f"{files[0].relative_to(ROOT)}" if len(files) == 1 else
                    "its sources (" + ", ".join(str(p.relative_to(ROOT)) for p in files) + ")")
            why[name] = f"{what} changed since the build (make kernel rebuilds it)"
    for name, bases in CIMPORTS.items():  # a compiled class cannot derive from a class run as Python
        base = next((b for b in bases if b in why), None)
        if base is not None and name not in why:
            why[name] = f"it derives from {base}'s compiled classes, and {base} runs as Python"
    if mode == "compiled" and why:
        name = next(iter(why))
        raise KernelNotBuiltError(f"PAIPU_KERNEL=compiled but {len(why)} kernel module(s) would run as Python, "
                          f"e.g. {name}: {why[name]}")
    STATUS.mode, STATUS.manifest, STATUS.why, STATUS.stale = mode, man, why, stale
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _SourceFirst)]
    if why:
        sys.meta_path.insert(0, _SourceFirst(set(why)))
    return STATUS


def loaded() -> dict[str, bool]:
    """Per kernel module already imported: True when its compiled extension runs."""
    out = {}
    for name in MODULES:
        mod = sys.modules.get(name)
        if mod is not None:
            out[name] = not str(getattr(mod, "__file__", "")).endswith(".py")
    return out


def compiled() -> bool:
    """True when every kernel module runs compiled."""
    return not STATUS.why


def describe() -> str:
    """One line: which kernel runs and why (``paipu --version``; ``make`` prints it after installing)."""
    n = len(MODULES)
    why = STATUS.why
    cy = STATUS.manifest.get("cython")
    if not why:
        return f"kernel: compiled (Cython {cy}, {n} modules)"
    reasons = sorted(set(why.values()))
    if len(why) == n:
        return f"kernel: pure Python ({reasons[0] if len(reasons) == 1 else '; '.join(reasons)})"
    by_reason: dict[str, list[str]] = {}
    for m, r in sorted(why.items()):
        by_reason.setdefault(r, []).append(m)
    return (f"kernel: compiled (Cython {cy}) but {len(why)} of {n} modules pure Python: "
            + "; ".join(f"{', '.join(ms)}: {r}" for r, ms in by_reason.items()))

