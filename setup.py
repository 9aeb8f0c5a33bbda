"""Build of the compiled kernel; everything else about the package is in pyproject.toml.

The modules of ``replay.kernel.MODULES`` are compiled by Cython in pure-Python mode (the same
``.py`` stays the importable reference) when a C compiler works; any failure — no compiler, a
module that does not build — leaves that module pure Python, says so in one line, and never
fails the install. ``PAIPU_BUILD_KERNEL=0`` skips the build. What was built, from which source
(SHA-256), is written to ``replay/_kernel_build.json``; ``replay.kernel`` reads it at import and
runs a module's ``.py`` whenever its ``.so`` is missing or its source's digest is not the one
recorded. The digests are read before Cython translates, and a module's C is retranslated whenever
its digest changed (not only when its ``.py`` is newer).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "replay" / "_kernel_build.json"
CYTHON_DIR = HERE / "build" / "cython"
_DIGESTS: dict[str, str] = {}
"""Per module, its ``module_digest`` read before Cython translated it: what the manifest records. A
source saved during the build is then newer than its record, so it runs as Python until rebuilt,
never the other way round (a build of the new text recorded as the old)."""


def kernel_modules() -> tuple[str, ...]:
    """The kernel's modules: the lines of replay/kernel_modules.txt (``replay.kernel.MODULES``)."""
    lines = (HERE / "replay" / "kernel_modules.txt").read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def _kernel():  # type: ignore[no-untyped-def]
    """replay/kernel.py, loaded by path (only the standard library; the package is not importable
    at build time): its ``module_digest`` is what the build records."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_paipu_kernel", HERE / "replay" / "kernel.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def _source(name: str) -> Path:
    return HERE.joinpath(*name.split(".")).with_suffix(".py")


def _c_file(name: str) -> Path:
    """Where Cython writes the C of kernel module ``name`` (``build_dir`` below)."""
    return CYTHON_DIR / _source(name).relative_to(HERE).with_suffix(".c")


def _write_manifest(modules: dict[str, str], failed: dict[str, str], error: str | None, cython: str | None) -> None:
    MANIFEST.write_text(json.dumps({"cython": cython, "modules": modules, "failed": failed, "error": error},
                                   indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _say(msg: str) -> None:
    print(f"paipu kernel: {msg}", file=sys.stderr, flush=True)


class OptionalBuildExt(build_ext):
    """``build_ext`` that never fails the install: a module that does not compile stays Python."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if not self.parallel:
            self.parallel = min(4, os.cpu_count() or 1)

    def run(self) -> None:
        self.failed: dict[str, str] = {}
        self.digests = {ext.name: _DIGESTS[ext.name] for ext in self.extensions}  # read by extensions()
        try:
            super().run()
        except Exception as e:  # no compiler at all (setuptools raises before any module)
            why = f"no C compiler worked at install ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"
            _write_manifest({}, {}, why, _cython_version())
            _say(f"pure Python — {why}")
            return
        ok = {n: d for n, d in self.digests.items() if n not in self.failed}
        _write_manifest(ok, self.failed, None, _cython_version())
        if self.failed and not ok:
            _say(f"pure Python — no module compiled (e.g. {next(iter(self.failed.values()))})")
        elif self.failed:
            _say(f"{len(self.failed)} of {len(self.digests)} modules stay pure Python: {', '.join(sorted(self.failed))}")

    def copy_extensions_to_source(self) -> None:  # editable install: only what was built
        every = self.extensions
        self.extensions = [e for e in every if e.name not in self.failed]
        try:
            super().copy_extensions_to_source()
        finally:
            self.extensions = every

    def get_outputs(self) -> list[str]:  # a wheel lists only what was built
        every = self.extensions
        self.extensions = [e for e in every if e.name not in getattr(self, "failed", {})]
        try:
            return super().get_outputs()
        finally:
            self.extensions = every

    def build_extension(self, ext) -> None:  # type: ignore[no-untyped-def]
        try:
            super().build_extension(ext)
        except Exception as e:
            self.failed[ext.name] = f"did not compile at install ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"


def _cython_version() -> str | None:
    try:
        import Cython

        return Cython.__version__
    except ImportError:
        return None


def extensions() -> list:
    """The kernel's extensions, or none (pure Python) when the build is skipped or Cython is missing."""
    if os.environ.get("PAIPU_BUILD_KERNEL", "1") == "0":
        _write_manifest({}, {}, "not built (PAIPU_BUILD_KERNEL=0 at install)", None)
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        _write_manifest({}, {}, "not built (Cython was not installed at build time)", None)
        _say("pure Python — Cython is not installed")
        return []
    from setuptools import Extension

    names = kernel_modules()
    exts = [Extension(name, [str(_source(name).relative_to(HERE))], extra_compile_args=["-O2", "-g0"])
            for name in names]
    kernel = _kernel()
    for name in names:
        _DIGESTS[name] = d = kernel.module_digest(name)
        c = _c_file(name)
        stamp = c.with_suffix(".sha256")
        if not stamp.exists() or stamp.read_text(encoding="utf-8") != d:
            # Cython retranslates by file times only: a source put back with an old mtime would keep
            # the C of the text it replaced. The C is kept only beside the digest it was made from.
            c.unlink(missing_ok=True)
            stamp.unlink(missing_ok=True)
    try:
        out = cythonize(exts, build_dir=str(CYTHON_DIR.relative_to(HERE)), quiet=True, nthreads=min(4, os.cpu_count() or 1),
                         compiler_directives={"language_level": 3, "annotation_typing": False,
                                              "emit_code_comments": False})
        for name in names:
            c = _c_file(name)
            if c.exists():
                c.with_suffix(".sha256").write_text(_DIGESTS[name], encoding="utf-8")
        return out
    except Exception as e:  # a Cython error: every module stays Python
        why = f"Cython could not translate the kernel ({type(e).__name__}: {e})"
        _write_manifest({}, {}, why, _cython_version())
        _say(f"pure Python — {why}")
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
