"""The stages run one way (docs/architecture.md): replay → ingest → analytics → dashboards → paipu.
A module may import its own stage and earlier ones, never a later one — at the top of a file or inside
a function, absolute or relative, by ``import``, ``from … import`` or by name through importlib."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STAGES = ("replay", "ingest", "analytics", "dashboards", "paipu")

NAMED_AS_DATA: dict[tuple[str, str], str] = {}
"""A later stage's module named as data, not imported: (module, name) → why."""

_IMPORTERS = {"import_module", "__import__"}


def modules(root: Path) -> dict[str, Path]:
    """Every module of the stages under ``root`` by dotted name."""
    out = {}
    for stage in STAGES:
        for path in sorted((root / stage).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute module of a ``from`` import (``level`` dots before ``name``)."""
    if not level:
        return name or ""
    base = (module if is_package else module.rpartition(".")[0]).split(".")
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, *([name] if name else [])])


def _literal_prefix(arg: ast.expr) -> str | None:
    """The text of a string argument, or its leading literal part for an f-string."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        return arg.value
    if isinstance(arg, ast.JoinedStr) and arg.values and isinstance(arg.values[0], ast.Constant):
        return str(arg.values[0].value)
    return None


def references(module: str, is_package: bool, source: str, known: set[str]) -> list[tuple[int, str, str]]:
    """(line, module named, how) for every import in ``source``, function bodies included: ``import``
    (``import``, ``from … import``, relative forms resolved), ``by name`` (importlib.import_module,
    ``__import__``) and ``data`` (a string that is exactly the name of a module in ``known``)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, "import") for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((node.lineno, _resolve(module, is_package, node.level, node.module), "import"))
        elif isinstance(node, ast.Call) and node.args:
            f = node.func
            called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
            text = _literal_prefix(node.args[0]) if called in _IMPORTERS else None
            if text:
                out.append((node.lineno, text, "by name"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in known:
            out.append((node.lineno, node.value, "data"))
    return out


def upward(root: Path) -> list[tuple[str, int, str, str]]:
    """(module, line, module named, how) for every reference to a later stage under ``root``."""
    mods = modules(root)
    found = []
    for mod, path in mods.items():
        rank = STAGES.index(mod.split(".")[0])
        for line, target, how in references(mod, path.name == "__init__.py", path.read_text(encoding="utf-8"),
                                            set(mods)):
            top = target.split(".")[0]
            if top in STAGES and STAGES.index(top) > rank:
                found.append((mod, line, target, how))
    return sorted(found)


def test_no_module_reaches_a_later_stage():
    mods = modules(ROOT)
    bad = [f"{mods[mod].relative_to(ROOT)}:{line} ({how} {target}): "
           f"{mods[mod].read_text(encoding='utf-8').splitlines()[line - 1].strip()}"
           for mod, line, target, how in upward(ROOT) if not (how == "data" and (mod, target) in NAMED_AS_DATA)]
    assert not bad, "later stages reached:\n" + "\n".join(bad)


def test_what_is_named_as_data_is_exactly_the_allowed_list():
    named = {(mod, target) for mod, _, target, how in upward(ROOT) if how == "data"}
    assert named == set(NAMED_AS_DATA)


def test_a_planted_upward_import_fails_in_every_form(tmp_path):
    (tmp_path / "replay" / "sub").mkdir(parents=True)
    for stage in STAGES[1:]:
        (tmp_path / stage).mkdir()
        (tmp_path / stage / "__init__.py").write_text("")
    (tmp_path / "ingest" / "rows.py").write_text("")
    (tmp_path / "replay" / "__init__.py").write_text("")
    (tmp_path / "replay" / "sub" / "__init__.py").write_text("from . import low\nfrom .low import x\n")
    (tmp_path / "replay" / "sub" / "low.py").write_text("from .. import sub\nx = 1\n")
    (tmp_path / "replay" / "planted.py").write_text(
        "import importlib\n"
        "import typing\n"
        "if typing.TYPE_CHECKING:\n"
        "    import ingest.rows\n"
        "def f():\n"
        "    from analytics import names\n"
        "    import dashboards.labels as labels\n"
        "    return importlib.import_module('paipu.cli'), __import__(f'dashboards.{names}')\n"
        "class C:\n"
        "    def g(self):\n"
        "        from ingest.rows import judge_line\n"
        "MODULES = ('replay.sub', 'ingest.rows', 'see ingest.rows')\n")
    found = {(line, target, how) for mod, line, target, how in upward(tmp_path) if mod == "replay.planted"}
    assert found == {(4, "ingest.rows", "import"), (6, "analytics", "import"), (7, "dashboards.labels", "import"),
                     (8, "paipu.cli", "by name"), (8, "dashboards.", "by name"), (11, "ingest.rows", "import"),
                     (12, "ingest.rows", "data")}
    assert [m for m, *_ in upward(tmp_path)] == ["replay.planted"] * 7  # relative imports stay in their stage
    assert references("replay.sub", True, "from . import low\nfrom .low import x", set()) == [
        (1, "replay.sub", "import"), (2, "replay.sub.low", "import")]
    assert references("replay.sub.low", False, "from .. import sub", set()) == [(1, "replay", "import")]
