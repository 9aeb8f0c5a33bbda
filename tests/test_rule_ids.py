"""One rule-id convention (docs/architecture.md §Rule ids): a verdict's ``rule`` is
``<variant>.<id>`` — the record's variant id, so zipai's reads ``zipai.hu`` and 五精's
``wujing_huapai.zhao`` — or ``paipu.<id>`` for the record and the log format itself; every id is
defined in a rules doc's id table (docs/rules/<variant>.md, the family's doc, docs/rules/paipu.md),
which the Rules page serves.

The ids are collected from the source, where they are raised: the ``rule`` argument of
``GameState.fail`` (a bare id gets the variant's prefix there), of ``RuleViolation`` and of an
``Option`` (its rule is what a refused or skipped claim names), read through the names and
f-strings that build it; and every ``"paipu.<id>"`` literal of ingest (its rejects). Mutated games
check that the collection misses nothing the engine raised.
"""

from __future__ import annotations

import ast
import copy
import itertools
import json
import random
import re
from pathlib import Path

import msgspec
import pytest

from dashboards import rules_doc
from ingest.mutate import KINDS
from replay import variants
from replay.replayer import replay_line
from replay.simulator import simulate

ROOT = Path(__file__).resolve().parent.parent
IMPLEMENTED = {v.id: v for v in variants.VARIANTS.values() if v.implemented}
CONVENTION = re.compile(rf"^(paipu|{'|'.join(IMPLEMENTED)})\.[a-z][a-z0-9_]*$")

SITES = {"fail": 1, "RuleViolation": 1, "Option": 5}
"""Calls that name a rule, and the position of their ``rule`` argument."""
PREFIXED = {"fail", "Option"}
"""Calls whose bare id is emitted as ``<variant>.<id>`` (``GameState.fail``; an option's rule is
raised through it)."""
VARIANT_EXPRS = {"self.variant", "variant", "spec.id"}
"""What stands for the variant's id in an f-string (a state's, a 花牌 state's argument, the
replayer's spec)."""

DYNAMIC: dict[tuple[str, str], frozenset[str]] = {
    # the act of the event refused, under the guard of each site: ev.act in ("hu", "zha", "kai_fan")
    # in the discard phase, ("dui", "zhao") in a claim window
    ("replay/variants/huapai/state.py", "ev.act"): frozenset({"hu", "zha", "kai_fan", "dui", "zhao"}),
    # ev.act in ("dui", "kai_mao", "chi")
    ("replay/variants/shangdaren/state.py", "ev.act"): frozenset({"dui", "kai_mao", "chi"}),
    # ev.act in ("peng", "zhao", "hua")
    ("replay/variants/tongcheng_gezi/state.py", "ev.act"): frozenset({"peng", "zhao", "hua"}),
    # ev.act in ("wai", "liu", "piao")
    ("replay/variants/yuanjiang_guihuzi/state.py", "ev.act"): frozenset({"wai", "liu", "piao"}),
    # the 门子 bans: the reasons stored by chi_closed / menzi_closed.setdefault
    ("replay/variants/yuanjiang_guihuzi/state.py", "self.chi_closed[s].get(c)"): frozenset({"chi_own_discard", "guo_chi"}),
    ("replay/variants/yuanjiang_guihuzi/state.py", "self.menzi_closed[ev.seat].get((card, own))"):
        frozenset({"chi_own_discard", "guo_chi"}),
}
"""Rule arguments read from the event or the state, with the ids they can take (file, expression)."""

UNDOCUMENTED: dict[str, str] = {
    "shangdaren.players": "the state's own guard of option players; the replayer refuses such a record first, "
                          "record-level, with paipu.players, so no verdict names it",
    "tongcheng_gezi.players": "as shangdaren.players",
}
"""Ids the engine can raise that no rules doc defines, and why."""


def _variants_of(path: Path) -> list[str]:
    """The variants whose state a file serves: a variant folder's, by the state its specs declare
    (guilin's serves zipai too, huapai's the three 花牌); a core file, every variant."""
    parts = path.relative_to(ROOT).parts
    if parts[:2] != ("replay", "variants") or len(parts) < 4:
        return sorted(IMPLEMENTED)
    module = f"replay.variants.{parts[2]}.state"
    return sorted(v for v, s in IMPLEMENTED.items() if s.state.target.partition(":")[0] == module)


class _File:
    """One source file's rule sites, with what its names are assigned."""

    def __init__(self, path: Path) -> None:
        self.rel = str(path.relative_to(ROOT))
        self.tree = ast.parse(path.read_text(encoding="utf-8"))
        self.variants = _variants_of(path)
        self.parent = {c: n for n in ast.walk(self.tree) for c in ast.iter_child_nodes(n)}
        top = [m for st in self.tree.body if not isinstance(st, (ast.FunctionDef, ast.ClassDef)) for m in ast.walk(st)]
        self.module = self._assigns(top)
        self.attrs = {k: v for k, v in self._assigns(ast.walk(self.tree)).items() if k.startswith("self.")}

    @staticmethod
    def seg(node: ast.AST) -> str:
        return ast.unparse(node)

    def _assigns(self, nodes) -> dict[str, list[tuple[ast.expr, int | None]]]:
        """name → (value, index into it or None) for each assignment among ``nodes``; a loop over a
        literal tuple assigns each element."""
        out: dict[str, list[tuple[ast.expr, int | None]]] = {}
        for n in nodes:
            if isinstance(n, ast.Assign):
                for t in n.targets:
                    if isinstance(t, ast.Tuple):
                        for i, a in enumerate(t.elts):
                            out.setdefault(self.seg(a), []).append((n.value, i))
                    else:
                        out.setdefault(self.seg(t), []).append((n.value, None))
            elif isinstance(n, ast.comprehension) and isinstance(n.iter, ast.Tuple):
                out.setdefault(self.seg(n.target), []).extend((e, None) for e in n.iter.elts)
        return out

    def resolve(self, e: ast.expr, local: dict, index: int | None = None, depth: int = 0) -> set[str]:
        """The strings ``e`` can hold (its element ``index`` when it is a tuple).
        :raises LookupError: an expression the collector cannot read (add it to DYNAMIC)."""
        text = self.seg(e)
        if index is None and (self.rel, text) in DYNAMIC:
            return set(DYNAMIC[(self.rel, text)])
        if isinstance(e, ast.Constant) and e.value is None:
            return set()
        if index is not None and isinstance(e, ast.Tuple):
            return self.resolve(e.elts[index], local, None, depth)
        if index is not None and isinstance(e, ast.GeneratorExp):  # a, b = (f"{V}.{x}" for x in ...)
            return self.resolve(e.elt, local, None, depth)
        if index is None:
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                return {e.value}
            if isinstance(e, ast.IfExp):
                return self.resolve(e.body, local, None, depth) | self.resolve(e.orelse, local, None, depth)
            if isinstance(e, ast.JoinedStr):
                parts = []
                for p in e.values:
                    if isinstance(p, ast.Constant):
                        parts.append({str(p.value)})
                    else:
                        assert isinstance(p, ast.FormattedValue)
                        inner = self.seg(p.value)
                        parts.append(set(self.variants) if inner in VARIANT_EXPRS else self.resolve(p.value, local, None, depth))
                return {"".join(x) for x in itertools.product(*parts)}
            if isinstance(e, ast.Attribute) and e.attr == "rule":
                return set()  # an Option's rule: collected where the Option is made
        for table in (local, self.attrs, self.module):
            if text in table and depth < 6:
                return set().union(*(self.resolve(v, local, i if index is None else index, depth + 1)
                                     for v, i in table[text]))
        raise LookupError(f"{self.rel}:{getattr(e, 'lineno', '?')}: cannot read the rule `{text}`")

    def sites(self):
        """``(call name, rule argument, its function's assignments, line)`` of every rule site; the
        prefixing inside ``GameState.fail`` itself is no site."""
        for n in ast.walk(self.tree):
            if not isinstance(n, ast.Call):
                continue
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)
            if name not in SITES:
                continue
            arg = n.args[SITES[name]] if len(n.args) > SITES[name] else \
                next((k.value for k in n.keywords if k.arg == "rule"), None)
            f: ast.AST = n
            while f in self.parent and not isinstance(f, ast.FunctionDef):
                f = self.parent[f]
            if arg is None or (isinstance(f, ast.FunctionDef) and f.name == "fail" and self.rel == "replay/engine.py"):
                continue
            local = self._assigns(ast.walk(f)) if isinstance(f, ast.FunctionDef) else {}
            yield name, arg, local, n.lineno


def collect() -> dict[str, set[str]]:
    """Every rule id the engine and the ingest can emit → the places (``file:line``) that raise it."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / "replay").rglob("*.py")):
        f = _File(path)
        for name, arg, local, line in f.sites():
            for r in f.resolve(arg, local):
                bare = "." not in r and name in PREFIXED
                for rid in ([f"{v}.{r}" for v in f.variants] if bare else [r]):
                    out.setdefault(rid, set()).add(f"{f.rel}:{line}")
    for path in sorted((ROOT / "ingest").rglob("*.py")):
        f = _File(path)
        for n in ast.walk(f.tree):
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and re.fullmatch(r"paipu\.[a-z_0-9]+", n.value):
                out.setdefault(n.value, set()).add(f"{f.rel}:{n.lineno}")
    return out


@pytest.fixture(scope="module")
def ids() -> dict[str, set[str]]:
    return collect()


def test_the_collector_reads_every_form(ids):
    # a bare id, prefixed with the one variant its state serves, or with each variant it serves
    assert any(site.startswith("replay/variants/shangdaren/state.py:") for site in ids["shangdaren.mao"])
    assert {"guilin.kan_locked", "zipai.kan_locked", "guilin.dian_pao_bu_zhun_hu", "zipai.dian_pao_bu_zhun_hu"} <= set(ids)
    # f"{variant}.zhao" (a 花牌 state's argument) and f"{V}.{a}" for a in (...) (沅江's claims)
    assert {f"{v}.zhao" for v in ("sanjing_huapai", "wujing_huapai", "shuangbiegan_huapai")} <= set(ids)
    assert {"yuanjiang_guihuzi.liu", "yuanjiang_guihuzi.piao", "yuanjiang_guihuzi.wai"} <= set(ids)
    # an IfExp (guilin's 胡 option: fang_pao_bi_hu when forced) and an f-string over one (上大人's replacement)
    assert {"guilin.fang_pao_bi_hu", "zipai.fang_pao_bi_hu", "shangdaren.kai_mao"} <= set(ids)
    # the act of the event and the 门子 bans (DYNAMIC), the replayer's f"{spec.id}.deal"
    assert {"yuanjiang_guihuzi.guo_chi", "yuanjiang_guihuzi.chi_own_discard", "tongcheng_gezi.hua"} <= set(ids)
    assert {f"{v}.deal" for v in IMPLEMENTED} <= set(ids)
    # the format's own ids: the replayer's, the engine's and the ingest's rejects (docs/rules/paipu.md)
    assert {i for i in ids if i.startswith("paipu.")} == {
        "paipu.json", "paipu.json_depth", "paipu.duplicate_key", "paipu.utf8", "paipu.io", "paipu.compression", "paipu.symlink",
        "paipu.line_size", "paipu.schema", "paipu.int_range", "paipu.variant", "paipu.rules", "paipu.seats",
        "paipu.players", "paipu.dealer", "paipu.deal", "paipu.cards", "paipu.deck", "paipu.shuffle", "paipu.acts",
        "paipu.duplicate_game", "paipu.engine", "paipu.rows", "paipu.event", "paipu.seat", "paipu.turn",
        "paipu.pass", "paipu.priority", "paipu.from", "paipu.wall", "paipu.end", "paipu.result"}


def test_every_rule_id_follows_the_convention(ids):
    assert not sorted(i for i in ids if not CONVENTION.match(i)), "not <variant>.<id> or paipu.<id>"
    assert "core.turn" not in ids and "huapai.zhao" not in ids  # the base state's and the family's names never show


def test_every_rule_id_is_in_a_rules_doc(ids):
    missing = sorted(i for i in ids if rules_doc.rule(i) is None and i not in UNDOCUMENTED)
    assert not missing, f"rule ids no docs/rules table defines: {missing}"
    assert not sorted(set(UNDOCUMENTED) - set(ids)), "an exception for an id the engine no longer raises"
    # the family's doc defines the ids of the variants that run its engine
    assert rules_doc.rule("zipai.dealt_four").doc == "guilin" and rules_doc.rule("wujing_huapai.deal").doc == "huapai"


def _errors_of_mutations(variant: str) -> set[str]:
    """The rule of every error of one mutation of each kind, on two simulated games."""
    spec = variants.get(variant)
    out = set()
    for rec in simulate(variant, 2, 11):
        original = msgspec.to_builtins(rec)
        for kind, mutate in KINDS.items():
            got = mutate(copy.deepcopy(original), spec, random.Random(f"{variant}:{original['game_id']}:{kind}"))
            if got is not None:
                out |= {e.rule for e in replay_line(json.dumps(got[1], ensure_ascii=False).encode()).verdict.errors}
    return out


@pytest.mark.parametrize("variant", sorted(IMPLEMENTED))
def test_the_collection_holds_what_mutated_games_raise(ids, variant):
    raised = _errors_of_mutations(variant)
    # the mutations reach the engine's refusals: a swapped hand is dealt the wrong count, a seat acts out of turn
    assert {"paipu.result", "paipu.deck", f"{variant}.deal", f"{variant}.turn"} <= raised
    assert not sorted(raised - set(ids))
