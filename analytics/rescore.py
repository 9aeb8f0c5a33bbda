"""``paipu rescore``: re-settle the warehouse's logged games under ruleset B.

For a **scoring** option (``RuleOption.kind``: the same actions stay legal and the game unfolds the
same, only the settlement changes) the games already played are the exact sample: each valid game's
raw line (``games.record_json``) is replayed by the one engine (:func:`replay.replayer.replay_record`)
twice — as logged (arm A) and with B's values written into its ``rules`` (arm B) — and the two
settlements are compared game by game. Nothing here scores a hand: the B settlement is exactly what
``paipu validate`` computes for the same game re-labelled with B. A **play** option is refused (the
logged actions would not be what players do, or not even legal, under it): ``paipu tune`` plays it.

B is a set of overrides on each game's own rules (``--b zimo_pay=triple``: every game as logged,
with 自摸 paid triple). A is the game as logged, replayed by this engine (not the stored row, which
an older engine may have written). Games of tuning experiments are left out (they are simulated).

Figures (per game, then the paired difference A − B: mean ± 1.96·sd/√n, :func:`analytics.stats.paired`):
units per game and of a win, each seat's and the dealer's score, the score variance (mean square of
the seats' scores: they sum to 0), the share of a win's units from bonuses and each breakdown term,
the hand-type mix, 醒 and 精 counts, and the biggest loss of a game (its mean paired, its
quantiles per arm).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

import msgspec
import polars as pl
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ingest.views import as_judged
from replay.progress import Meter
from replay.record import terminal_text
from replay.workers import process_pool

CHUNK = 200
"""Games per worker task."""


class PlayChanging(ValueError):
    """B sets an option that is not ``scoring``: re-settling logged games under it is not exact."""


def check_overrides(variant: str, overrides: Mapping[str, Any]) -> None:
    """Refuse B when it names a ``play`` option.

    :raises PlayChanging: with a message naming the options and pointing to ``paipu tune``.
    :raises ValueError: B is empty.
    """
    from replay import variants
    from replay.options import play_changing

    if not overrides:
        raise ValueError("--b names no option: nothing to re-score")
    bad = play_changing(overrides, variants.get(variant).options)
    if bad:
        scoring = [o.name for o in variants.get(variant).options if o.kind == "scoring"]
        raise PlayChanging(
            f"{', '.join(bad)} of {variant} changes play (the logged actions are not what would be played, or "
            f"not legal, under it): re-scoring logs cannot answer it — use `paipu tune --variant {variant} "
            f"--b {','.join(f'{k}={overrides[k]}' for k in bad)}` (duplicate play). Scoring-only options of "
            f"{variant}: {', '.join(scoring) or 'none'}")


def relabel(raw: bytes | str, overrides: Mapping[str, Any]) -> bytes:
    """The record line with ``overrides`` written over its ``rules`` (everything else as logged).

    :raises ValueError: the line is not a JSON object.
    """
    obj = msgspec.json.decode(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)
    if not isinstance(obj, dict):
        raise ValueError("a record line is a JSON object")
    obj["rules"] = {**(obj.get("rules") or {}), **overrides}
    return msgspec.json.encode(obj)


@dataclass
class Pair:
    """One game under A (as logged) and B: each side's ``computed`` settlement and facts (None when
    the engine refused that side; ``error`` is then its first error as ``code rule: message``), and
    the players by seat (the record's ``seats``)."""

    game_id: str
    dealer: int
    a: dict[str, Any] | None
    b: dict[str, Any] | None
    error: str | None = None
    side: str | None = None
    seats: list[str] = field(default_factory=list)


def _settle(raw: bytes) -> tuple[dict[str, Any] | None, str | None]:
    from replay.replayer import replay_line

    out = replay_line(raw)
    errs = [e for e in out.verdict.errors if e.code != "result_mismatch"]
    if errs or out.verdict.computed is None:
        e = errs[0] if errs else None
        return None, f"{e.code} {e.rule} at step {e.step}: {e.message}" if e else "no settlement"
    return {**out.verdict.computed, "win_kind": (out.facts or {}).get("win_kind")}, None


def rescore_line(raw: bytes | str, overrides: Mapping[str, Any]) -> Pair:
    """Replay one logged game as logged and re-labelled with ``overrides`` (never raises for bad
    content: a refused side is ``None`` with the reason in ``error``)."""
    raw_b = raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw
    try:
        obj = msgspec.json.decode(raw_b)
        gid, dealer = str(obj.get("game_id")), int(obj.get("dealer") or 0)
        seats = [str(s) for s in obj.get("seats") or []]
    except (msgspec.DecodeError, AttributeError, TypeError, ValueError):
        return Pair("?", 0, None, None, "bad_json: the stored line does not decode", "a")
    a, err = _settle(raw_b)
    if a is None:
        return Pair(gid, dealer, None, None, err, "a", seats)
    b, err = _settle(relabel(raw_b, overrides))
    return Pair(gid, dealer, a, b, err, "b" if err else None, seats)


def _chunk(args: tuple[list[str], dict[str, Any]]) -> list[Pair]:
    lines, overrides = args
    return [rescore_line(ln, overrides) for ln in lines]


# --- figures ----------------------------------------------------------------------------------

def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def figures(c: dict[str, Any], dealer: int) -> dict[str, float | None]:
    """One settlement's figures (None where a figure does not apply: e.g. a win's units in a 荒庄).

    Keys: ``units_per_game`` (荒庄 = 0), ``units``, ``points`` (of a win), ``seat<k>_score``,
    ``dealer_score``, ``score_sq`` (mean square of the seats' scores), ``big_loss`` (the largest
    amount one seat lost, ≥ 0), ``bonus_share`` (1 − base/units of a win whose breakdown sums to its
    units; base = ``tuo`` or ``hu_fen``, as the warehouse's figure), ``term:<key>`` (each breakdown
    term of a win), ``hand_type:<t>`` / ``hand_type:plain`` (0/1 of a win), ``xing_count``,
    ``xing_hit``, ``jing_count`` (of a win, where the variant has them), ``zimo`` (0/1 of a win).
    """
    win = c.get("outcome") == "win"
    scores = [int(s) for s in c.get("scores") or []]
    f: dict[str, float | None] = {
        "units_per_game": (_num(c.get("units")) or 0.0) if win else (0.0 if c.get("outcome") == "draw" else None),
        "units": _num(c.get("units")) if win else None,
        "points": _num(c.get("points")) if win else None,
        "zimo": float(c.get("win_kind") == "zimo") if win else None,
    }
    if scores:
        for k, s in enumerate(scores):
            f[f"seat{k}_score"] = float(s)
        f["dealer_score"] = float(scores[dealer]) if 0 <= dealer < len(scores) else None
        f["score_sq"] = sum(s * s for s in scores) / len(scores)
        f["big_loss"] = float(max(0, -min(scores)))
    bd = c.get("breakdown") if win else None
    if isinstance(bd, dict):
        parts = {k: _num(v) for k, v in bd.items()}
        for k, v in parts.items():
            f[f"term:{k}"] = v
        base = parts.get("tuo", parts.get("hu_fen"))
        units = _num(c.get("units"))
        if base is not None and units and units > 0 and sum(v for v in parts.values() if v is not None) == units:
            f["bonus_share"] = 1 - base / units
    if win:
        types = list(c.get("hand_types") or [])
        for t in types:
            f[f"hand_type:{t}"] = 1.0
        f["hand_type:plain"] = float(not types)
        xing, jing = c.get("xing"), c.get("jing")
        if isinstance(xing, dict) and _num(xing.get("count")) is not None:
            f["xing_count"] = float(xing["count"])
            f["xing_hit"] = float(xing["count"] > 0)
        if isinstance(jing, dict) and _num(jing.get("count")) is not None:
            f["jing_count"] = float(jing["count"])
    return f


_FIXED: list[tuple[str, str, str, str]] = [
    ("units_per_game", "score", "每局分 units per game (荒庄 = 0)", "mean"),
    ("units", "score", "舵/分 units of a win", "mean"),
    ("points", "score", "胡/息 points of a win", "mean"),
    ("dealer_score", "seat", "庄家得分 dealer's score", "mean"),
    *[(f"seat{k}_score", "seat", f"座位{k}得分 seat {k}'s score", "mean") for k in range(4)],
    ("score_sq", "spread", "分数方差 score variance (mean square of the seats' scores)", "mean"),
    ("big_loss", "loss", "最大输分 biggest loss of a game", "mean"),
    ("bonus_share", "bonus", "奖励占比 share of units from bonuses", "share"),
    ("zimo", "wins", "自摸占胡 self-drawn share of wins", "rate"),
    ("xing_count", "xing", "醒数 xing matched per win", "mean"),
    ("xing_hit", "xing", "中醒率 wins with 醒 ≥ 1", "rate"),
    ("jing_count", "jing", "精数 jing per win", "mean"),
]
SECTIONS = {"score": "胡与分 Points and units", "seat": "座位与庄家 Seats and dealer", "spread": "分数方差 Score spread",
            "loss": "最大输分 Biggest losses", "bonus": "奖励 Bonuses and breakdown terms", "wins": "胡牌 Wins",
            "xing": "醒 Xing", "jing": "精 Jing", "hand_type": "牌型 Hand-type mix"}
QUANTILES = (0.5, 0.9, 0.99, 1.0)
"""Quantiles of the biggest-loss distribution shown per arm."""

_COLUMNS = {"metric": pl.String, "section": pl.String, "label": pl.String, "kind": pl.String, "n_a": pl.Int64,
            "n_b": pl.Int64, "a": pl.Float64, "b": pl.Float64, "sd_a": pl.Float64, "sd_b": pl.Float64,
            "diff": pl.Float64, "lo": pl.Float64, "hi": pl.Float64, "a_lo": pl.Float64, "a_hi": pl.Float64,
            "b_lo": pl.Float64, "b_hi": pl.Float64, "n_differ": pl.Int64, "paired": pl.Boolean, "note": pl.String}


def _sd(xs: list[float]) -> float | None:
    if len(xs) < 2:
        return None
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _quantile(xs: list[float], q: float) -> float | None:
    """The ``q`` quantile (nearest rank: a value some game had)."""
    if not xs:
        return None
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def compare(pairs: Iterable[Pair]) -> pl.DataFrame:
    """The paired figures of A against B over the pairs both sides settled, in the columns of
    :func:`analytics.queries.compare` (``diff`` = A − B, ``lo``/``hi`` its 95% interval, ``paired``
    True, ``note`` ``too_few`` / ``identical`` / ``differs`` / ``unclear``), then the biggest-loss
    quantiles per arm (section ``loss``, no interval: quantiles of two distributions)."""
    from analytics import queries as q
    from analytics import stats

    both = [(p, figures(p.a, p.dealer), figures(p.b, p.dealer)) for p in pairs if p.a is not None and p.b is not None]
    types = {k for _, fa, fb in both for k in (*fa, *fb) if k.startswith("hand_type:")}
    per: dict[str, list[tuple[float, float]]] = {}
    losses: tuple[list[float], list[float]] = ([], [])
    for p, fa, fb in both:
        if p.a["outcome"] == "win" and p.b["outcome"] == "win":  # type: ignore[index]
            for t in types:  # the mix is over every win: a type the win lacks counts 0
                fa.setdefault(t, 0.0)
                fb.setdefault(t, 0.0)
        for k in fa.keys() | fb.keys():
            va, vb = fa.get(k), fb.get(k)
            if va is not None and vb is not None:
                per.setdefault(k, []).append((va, vb))
        if fa.get("big_loss") is not None and fb.get("big_loss") is not None:
            losses[0].append(fa["big_loss"])  # type: ignore[arg-type]
            losses[1].append(fb["big_loss"])  # type: ignore[arg-type]
    info = {k: (sec, label, kind) for k, sec, label, kind in _FIXED}
    order = {k: i for i, (k, *_r) in enumerate(_FIXED)}
    rows = []
    for k, xs in per.items():
        if k.startswith("hand_type:"):
            sec, label, kind = "hand_type", k.split(":", 1)[1], "rate"
        elif k.startswith("term:"):
            sec, label, kind = "bonus", f"分项 breakdown term {k.split(':', 1)[1]}", "mean"
        else:
            sec, label, kind = info[k]
        a = [x for x, _ in xs]
        b = [y for _, y in xs]
        d = [x - y for x, y in xs]
        n = len(xs)
        ma, mb = sum(a) / n, sum(b) / n
        sa, sb = _sd(a), _sd(b)
        if kind == "rate":
            ia, ib = stats.rate(round(sum(a)), n), stats.rate(round(sum(b)), n)
        else:
            ia, ib = stats.mean(ma, sa, n), stats.mean(mb, sb, n)
        diff = stats.paired(sum(d) / n, _sd(d), n)
        n_differ = sum(1 for x in d if x != 0)
        note = ("too_few" if n < q.TOO_FEW else "identical" if n_differ == 0
                else "differs" if diff.excludes_zero else "unclear")
        rows.append({"metric": k, "section": sec, "label": label, "kind": kind, "n_a": n, "n_b": n, "a": ma, "b": mb,
                     "sd_a": sa, "sd_b": sb, "diff": diff.est, "lo": diff.lo, "hi": diff.hi, "a_lo": ia.lo,
                     "a_hi": ia.hi, "b_lo": ib.lo, "b_hi": ib.hi, "n_differ": n_differ, "paired": True, "note": note,
                     "_order": order.get(k, len(order) + (0 if sec == "bonus" else 1)), "_share": max(ma, mb)})
    n = len(losses[0])
    for qu in QUANTILES if n else ():
        qa, qb = _quantile(losses[0], qu), _quantile(losses[1], qu)
        name = "max" if qu == 1.0 else f"p{round(qu * 100)}"
        rows.append({"metric": f"big_loss_{name}", "section": "loss", "label": f"最大输分 biggest loss, {name}",
                     "kind": "mean", "n_a": n, "n_b": n, "a": qa, "b": qb, "sd_a": None, "sd_b": None,
                     "diff": None if qa is None or qb is None else qa - qb, "lo": None, "hi": None, "a_lo": None,
                     "a_hi": None, "b_lo": None, "b_hi": None, "n_differ": None, "paired": False,
                     "note": "too_few" if n < q.TOO_FEW else ("identical" if qa == qb else "differs"),
                     "_order": order["big_loss"], "_share": -qu})
    df = pl.DataFrame(rows, schema={**_COLUMNS, "_order": pl.Int64, "_share": pl.Float64}, orient="row")
    return df.sort(["_order", "_share", "metric"], descending=[False, True, False]).drop("_order", "_share")


def by_player(pairs: Iterable[Pair]) -> list[dict[str, Any]]:
    """Each player's units under A and B over the games both sides settled, most gained under B
    first: ``player``, ``games``, ``a`` and ``b`` (the sums of the player's ``scores``), ``gain``
    (B − A), ``gain_per_game`` with its 95% interval ``lo``/``hi`` (paired by game)."""
    from analytics import stats

    per: dict[str, list[tuple[float, float]]] = {}
    for p in pairs:
        if p.a is None or p.b is None:
            continue
        sa, sb = p.a.get("scores") or [], p.b.get("scores") or []
        for seat, player in enumerate(p.seats):
            if seat < len(sa) and seat < len(sb):
                per.setdefault(player, []).append((float(sa[seat]), float(sb[seat])))
    rows = []
    for player, xs in per.items():
        n = len(xs)
        gains = [b - a for a, b in xs]
        mean = sum(gains) / n
        iv = stats.paired(mean, _sd(gains), n)
        rows.append({"player": player, "games": n, "a": sum(a for a, _ in xs), "b": sum(b for _, b in xs),
                     "gain": sum(gains), "gain_per_game": mean, "lo": iv.lo, "hi": iv.hi})
    return sorted(rows, key=lambda r: (-r["gain"], r["player"]))


def winner_changed(pairs: Iterable[Pair]) -> int:
    """Games both sides settled whose outcome or winner differs between A and B."""
    return sum(1 for p in pairs if p.a is not None and p.b is not None
               and (p.a.get("outcome"), p.a.get("winner")) != (p.b.get("outcome"), p.b.get("winner")))


# --- the warehouse ----------------------------------------------------------------------------

def load(con: Any, variant: str, *, ruleset: str | None = None, since: date | None = None,
         until: date | None = None, players: int | None = None, limit: int | None = None,
         rules: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
    """``(ruleset_id, line)`` (``games.record_json`` :func:`as_judged`) of the warehouse's valid games of
    ``variant`` outside experiments, filtered by ``ruleset`` (a ruleset_id), ``since``/``until`` (UTC dates of
    ``started_at``, both inclusive; a game without ``started_at`` is left out when either is set)
    and ``players`` (seats at the table); in ``game_id`` order. ``limit``: only the latest that many
    (by ``started_at``, then ``game_id``). ``rules`` (``--rules``): the rules of a record without its
    own instead of those it was stored under — and the invalid games are taken too (valid, maybe, under them)."""
    from analytics import queries as q

    conds = ["variant = $variant", "TRUE" if rules is not None else "valid", q.no_experiment(con, "games")]
    p: dict[str, Any] = {"variant": variant}
    if ruleset is not None:
        conds.append("ruleset_id = $ruleset")
        p["ruleset"] = ruleset
    if since is not None:
        conds.append("started_at >= $since")
        p["since"] = f"{since.isoformat()} 00:00:00+00"
    if until is not None:
        conds.append("started_at < $until::TIMESTAMPTZ + INTERVAL 1 DAY")
        p["until"] = f"{until.isoformat()} 00:00:00+00"
    if players is not None:
        conds.append("n_seats = $players")
        p["players"] = players
    cur = con.cursor()
    try:
        sql = f"SELECT ruleset_id, record_json, game_id, rules_json FROM games WHERE {' AND '.join(conds)}"
        if limit is not None:
            sql = f"SELECT * FROM ({sql} ORDER BY started_at DESC NULLS LAST, game_id DESC LIMIT {int(limit)})"
        got = cur.execute(f"{sql} ORDER BY game_id", p).fetchall()
        if rules is not None:
            return [(r[0], as_judged(r[1], json.dumps(rules))) for r in got]
        return [(r[0], as_judged(r[1], r[3])) for r in got]
    finally:
        cur.close()


@dataclass
class RescoreResult:
    """What :func:`run` did: B's overrides, the games taken, the pairs' comparison, the games the
    engine refused on either side (``refused``: ``(game_id, side, reason)``; a refusal under B means a
    kind declaration is wrong, and is shown), the games per logged ruleset_id, and every
    :class:`Pair` (game order)."""

    variant: str
    overrides: dict[str, Any]
    games: int
    comparison: pl.DataFrame
    refused: list[tuple[str, str, str]] = field(default_factory=list)
    rulesets: dict[str, int] = field(default_factory=dict)
    pairs: list[Pair] = field(default_factory=list, repr=False)
    rules: dict[str, Any] | None = None  # --rules: the rules of the records without their own
    ruleset_options: dict[str, str] = field(default_factory=dict)
    """Each logged ruleset_id's options that differ from the defaults (:func:`analytics.cli.ruleset_options`)."""

    @property
    def paired(self) -> int:
        return self.games - len(self.refused)

    def players(self) -> list[dict[str, Any]]:
        """Each player's units under A and B (:func:`by_player`)."""
        return by_player(self.pairs)

    def answer(self) -> Any:
        """The one-sentence answer and its fields (:func:`analytics.answer.rescore_answer`)."""
        from analytics.answer import rescore_answer

        return rescore_answer(self.comparison, self.paired, winner_changed(self.pairs), self.players())

    def row(self, metric: str) -> dict[str, Any]:
        """The comparison row of ``metric``."""
        df = self.comparison.filter(pl.col("metric") == metric)
        if not df.height:
            raise KeyError(metric)
        return df.row(0, named=True)


def rescore(lines: list[str], variant: str, overrides: Mapping[str, Any], *, workers: int = 1,
            meter: Meter | None = None) -> RescoreResult:
    """Re-settle ``lines`` (raw records of ``variant``) under ``overrides`` and compare.

    :raises PlayChanging: an override of a ``play`` option.
    """
    check_overrides(variant, overrides)
    chunks = [(lines[i:i + CHUNK], dict(overrides)) for i in range(0, len(lines), CHUNK)]
    pairs: list[Pair] = []
    with contextlib.ExitStack() as stack:
        if workers <= 1 or len(chunks) <= 1:
            done: Any = map(_chunk, chunks)
        else:
            done = stack.enter_context(process_pool(min(workers, len(chunks)))).map(_chunk, chunks)
        for part in done:
            pairs += part
            if meter is not None:
                meter.advance(len(part))
    refused = [(p.game_id, p.side or "?", p.error or "") for p in pairs if p.a is None or p.b is None]
    return RescoreResult(variant, dict(overrides), len(pairs), compare(pairs), refused, pairs=pairs)


def run(warehouse: Path, variant: str, b: str, *, ruleset: str | None = None, since: date | None = None,
        until: date | None = None, players: int | None = None, workers: int = 0,
        console: Console | None = None, rules: str | None = None) -> RescoreResult:
    """Load the warehouse's games (:func:`load`) and :func:`rescore` them under ``b`` (``OPT=VAL[,…]``).

    :raises ValueError: unknown or unimplemented variant, an option or value not allowed, empty B.
    :raises PlayChanging: B names a ``play`` option.
    :raises FileNotFoundError: no warehouse folder.
    """
    import os

    from analytics.cli import ruleset_options
    from ingest.views import connect
    from replay import variants
    from replay.options import parse_overrides

    spec = variants.VARIANTS.get(variant)
    if spec is None or not spec.implemented:
        known = ", ".join(v.id for v in variants.VARIANTS.values() if v.implemented)
        raise ValueError(f"variant {variant!r} is not implemented (implemented: {known})")
    overrides = parse_overrides(b, spec.options)
    check_overrides(variant, overrides)
    defaults = parse_overrides(rules, spec.options) if rules is not None else None
    con = connect(warehouse)
    try:
        rows = load(con, variant, ruleset=ruleset, since=since, until=until, players=players, rules=defaults)
        options = ruleset_options(con)
    finally:
        con.close()
    lines = [line for _, line in rows]
    rulesets = dict(Counter(rid for rid, _ in rows))
    with Meter(f"rescore {variant}", len(lines), "games", console=console, enabled=console is not None) as meter:
        res = rescore(lines, variant, overrides, workers=workers or os.cpu_count() or 1, meter=meter)
    res.rulesets = rulesets
    res.rules = defaults
    res.ruleset_options = {rid: text for rid, text in options.items() if rid in rulesets}
    return res


def warehouse_figures(con: Any, variant: str, overrides: tuple[tuple[str, Any], ...], ruleset: str | None = None,
                      limit: int | None = None, workers: int = 1) -> tuple[pl.DataFrame, dict[str, Any]]:
    """:func:`rescore` of the warehouse's games for the Rule tuning page (``con``: its root
    connection; ``overrides`` as sorted items, a cache key).

    :returns: (comparison, facts): ``games``, ``paired``, ``refused`` (the first 5), ``players``
        (distinct logged players of the games), ``rulesets`` (games per logged ruleset_id),
        ``answer`` (``paipu rescore``'s sentence).
    :raises PlayChanging: an override of a ``play`` option.
    """
    rows = load(con, variant, ruleset=ruleset, limit=limit)
    res = rescore([ln for _, ln in rows], variant, dict(overrides), workers=workers)
    seats = {s for ln in (r[1] for r in rows) for s in (json.loads(ln).get("seats") or [])}
    return res.comparison, {"games": res.games, "paired": res.paired, "refused": res.refused[:5],
                            "players": len(seats), "rulesets": dict(Counter(rid for rid, _ in rows)),
                            "answer": res.answer().text}


# --- printing ---------------------------------------------------------------------------------

def print_result(res: RescoreResult, console: Console, hand_types: int = 8, players: int = 5) -> None:
    """The answer in one sentence (:func:`analytics.answer.rescore_answer`), A and B, the logged
    rulesets, the comparison as an 80-column table (A as logged, B re-settled, A − B with its 95%
    interval), then the ``players`` players who gain most and those who lose most under B."""
    from analytics.answer import comparison_table
    from replay.words import overrides_text

    taken = "stored games" if res.rules is not None else "valid games"
    console.print(Text(res.answer().text, style="bold"))
    a = ("each game's own rules, else --rules " + overrides_text(res.rules) if res.rules is not None
         else "each game's rules as ingested")
    console.print(Text(f"A: {a}; B: the same with {overrides_text(res.overrides)}. Same actions, same "
                       "players: the difference comes from the settlement alone."))
    by = ", ".join(f"{rid} ({res.ruleset_options.get(rid, '?')}) {n}"
                   for rid, n in sorted(res.rulesets.items(), key=lambda x: -x[1]))
    console.print(Text(f"rescore · {res.variant} · {res.paired} logged games re-settled (of {res.games} {taken})"
                       + (f"; by ruleset: {by}" if by else "")))
    if res.comparison.height:
        console.print(comparison_table("A − B, paired by game: the mean of the per-game differences ± 1.96·sd/√n "
                                       "(rates in percentage points)", res.comparison, "game", hand_types))
    _print_players(res.players(), console, players)
    for gid, side, why in res.refused[:5]:
        console.print(Text(terminal_text(f"refused under {side.upper()}: {gid}: {why}"), style="red"))
    if len(res.refused) > 5:
        console.print(Text(f"… {len(res.refused) - 5} more refused", style="red"))


def _print_players(rows: list[dict[str, Any]], console: Console, top: int) -> None:
    """The ``top`` players who gain most under B and the ``top`` who lose most (every player: --json)."""
    from rich import box

    up = [r for r in rows if r["gain"] > 0][:top]
    down = [r for r in rows if r["gain"] < 0][-top:]
    still = len(rows) - len(up) - len(down)
    t = Table(title=f"玩家 players: units over their games, most gained under B first ({len(rows)} players; every "
                    "one in --json)", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    t.add_column("玩家 player", overflow="fold")
    for head in ("games", "A", "B", "B − A"):
        t.add_column(head, justify="right", no_wrap=True)

    def add(r: dict[str, Any]) -> None:
        t.add_row(Text(terminal_text(r["player"])), str(r["games"]), _amount(r["a"]), _amount(r["b"]),
                  _amount(r["gain"], signed=True), style="bold" if r["lo"] is not None and (r["lo"] > 0 or r["hi"] < 0)
                  else None)

    for r in up:
        add(r)
    if still:
        t.add_row(Text(f"… {still} more player" + ("" if still == 1 else "s")
                       + (", between these in B − A" if up and down else "")), "", "", "", "")
    for r in down:
        add(r)
    if rows:
        console.print(t)


def _amount(v: float, signed: bool = False) -> str:
    """Units as a whole number when they are one (``+15``), else with 2 decimals."""
    if float(v).is_integer():
        return f"{v:+,.0f}" if signed else f"{v:,.0f}"
    return f"{v:+,.2f}" if signed else f"{v:,.2f}"


def to_json(res: RescoreResult) -> dict[str, Any]:
    """The result as JSON-ready data: the answer's fields, every player (:func:`by_player`), and
    ``figures`` (the comparison's rows)."""
    return {"variant": res.variant, "answer": res.answer().to_json(), "b": res.overrides, "games": res.games, "paired": res.paired,
            "rulesets": res.rulesets,
            "ruleset_options": res.ruleset_options,
            "rules": res.rules, "refused": [list(r) for r in res.refused], "players": res.players(),
            "figures": res.comparison.to_dicts()}


def _date(s: Optional[str], hint: str) -> date | None:
    if not s:
        return None
    try:
        return date.fromisoformat(s)
    except ValueError:
        raise typer.BadParameter(f"{s!r} is not a date (YYYY-MM-DD)", param_hint=hint) from None


def rescore_cmd(
    warehouse: Path = typer.Option(..., "--warehouse", help="Warehouse folder written by `paipu ingest`."),
    variant: str = typer.Option(..., "--variant", help="variant id (spec §7), e.g. guilin"),
    b: str = typer.Option(..., "--b", help="ruleset B: OPT=VAL[,OPT=VAL…] over each game's rules (scoring options only)"),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", help="only games of this ruleset_id"),
    since: Optional[str] = typer.Option(None, "--since", help="only games started on or after this UTC date (YYYY-MM-DD)"),
    until: Optional[str] = typer.Option(None, "--until", help="only games started on or before this UTC date (YYYY-MM-DD)"),
    players: Optional[int] = typer.Option(None, "--players", min=2, help="only games with this many seats"),
    workers: int = typer.Option(0, "--workers", help="processes (0 = all cores)"),
    as_json: bool = typer.Option(False, "--json", help="print the result as JSON instead of a table"),
    rules: Optional[str] = typer.Option(None, "--rules", metavar="OPT=VAL[,OPT=VAL…]",
                                        help="rules of the games whose record carries none, instead of those they "
                                             "were ingested under (their invalid games are then taken too)"),
) -> None:
    """Re-settle the warehouse's valid logged games under ruleset B (scoring-only options: the same
    actions, replayed by the one engine). Prints first the answer in one sentence (does any game's
    winner change, what a game pays, who gains and who loses most), then the paired differences
    A − B with 95% intervals and the players who gain and lose most (every player in --json).

    Exit status 2 on a usage error (unknown variant or option, a play-changing option: use `paipu tune`);
    1 when the warehouse cannot be read (its catalog cannot be opened).
    """
    from ingest.cli import need_warehouse
    from replay.words import need_variant

    console = Console(highlight=False)
    d0, d1 = _date(since, "--since"), _date(until, "--until")
    need_warehouse("rescore", warehouse, games=True)
    need_variant("rescore", variant)
    try:
        res = run(warehouse, variant, b, ruleset=ruleset, since=d0, until=d1, players=players, workers=workers,
                  console=None if as_json else Console(stderr=True), rules=rules)
    except ValueError as e:
        Console(stderr=True, highlight=False).print(Text(f"paipu rescore: {e}", style="red"), soft_wrap=True)
        raise typer.Exit(2) from None
    except (RuntimeError, OSError) as e:  # the warehouse's catalog cannot be opened, a disk error
        Console(stderr=True, highlight=False).print(Text(f"paipu rescore failed: {terminal_text(str(e))}", style="red"), soft_wrap=True)
        raise typer.Exit(1) from None
    if as_json:
        print(json.dumps(to_json(res), ensure_ascii=False, indent=1))
    else:
        print_result(res, console)
