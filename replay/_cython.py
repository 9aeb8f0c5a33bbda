"""What ``import cython`` gives a kernel module run as plain Python where Cython is not installed.

The kernel modules (``replay.kernel.MODULES``) are written in Cython's pure-Python mode: a
compiled build reads their ``@cython.cfunc`` / ``@cython.locals`` / ``@cython.returns``
decorators as C types at compile time and never imports ``cython`` at run time; run as Python
they ``import cython`` and get Cython's shadow module, or this one where Cython is absent (a
plain ``pip install`` builds in an isolated environment and leaves no Cython behind). Every name
here does nothing at call time — decorators return their function, types are placeholders — so
the module behaves the same with either (bench/README.md measures both).

Only the names the kernel modules use are here; a module that needs another adds it here.
"""

from __future__ import annotations

from typing import Any, Callable

compiled = False

# C types, as placeholders: @cython.locals / @cython.returns only name them.
int = longlong = ulonglong = bint = Py_ssize_t = object  # noqa: A001  # Cython's spelling


def _same(f: Callable[..., Any]) -> Callable[..., Any]:
    return f


cfunc = ccall = inline = cclass = _same


def locals(**_types: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:  # noqa: A001
    """``@cython.locals(x=cython.int, ...)``: C types of a function's locals (none in Python)."""
    return _same


def returns(_type: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``@cython.returns(t)``: a ``cfunc``'s C return type."""
    return _same


def exceptval(*_a: Any, **_k: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``@cython.exceptval(...)``: how a ``cfunc`` with a C return type reports an exception."""
    return _same




def declare(_type: Any, value: Any = None, **_how: Any) -> Any:
    """``x = cython.declare(cython.int, v)``: a C-typed variable (module level here), or in a
    ``cclass`` body an attribute (``visibility="readonly"``); its value."""
    return value


def freelist(_n: object) -> Callable[[Any], Any]:
    """``@cython.freelist(n)``: a ``cclass`` keeps ``n`` freed instances for reuse (a speed measure)."""
    return _same


def no_gc(cls: type) -> type:
    """``@cython.no_gc``: a ``cclass`` the cyclic garbage collector does not track."""
    return cls
