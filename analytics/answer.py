"""What ``paipu tune`` and ``paipu rescore`` print first: the answer to "does B change who wins, and
what does a game pay?" in one sentence, computed from the comparison rows the table under it prints
(:func:`analytics.queries.compare`, :func:`analytics.rescore.compare`: ``diff`` = A − B with its 95%
interval), and that table at 80 columns.

Who wins: each seat's win rate under A and B, A − B with its interval and whether the interval
excludes 0 (a change) or holds it (no clear change); ``paipu rescore`` replays the same actions, so
there it is the games whose winner differs (none, for a scoring-only option) and each player's
units under A and B. What a game pays: the units of a game (荒庄 = 0) under A and B, the change and
its share of A, A − B with its interval. ``--json`` carries the same answer as fields
(:meth:`Answer.to_json`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import polars as pl
from rich import box
from rich.cells import cell_len
from rich.table import Table
from rich.text import Text

from analytics import names
from analytics.cli import FitTable
from analytics.queries import TOO_FEW
from replay.record import terminal_text

_SEAT = re.compile(r"seat(\d+)_win$")


@dataclass
class Answer:
    """The sentence and the figures it was made from (``who_wins``, ``units_per_game``, ``players``)."""

    text: str
    who_wins: dict[str, Any]
    units_per_game: dict[str, Any] | None
    players: dict[str, Any] | None = field(default=None)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text, "who_wins": self.who_wins, "units_per_game": self.units_per_game}
        if self.players is not None:
            out["players"] = self.players
        return out


def _row(df: pl.DataFrame, metric: str) -> dict[str, Any] | None:
    got = df.filter(pl.col("metric") == metric)
    return got.row(0, named=True) if got.height else None


def _excludes_zero(r: dict[str, Any]) -> bool:
    return r["lo"] is not None and r["hi"] is not None and (r["lo"] > 0 or r["hi"] < 0)


def _signed(v: float, digits: int) -> str:
    """``v`` with its sign and ``digits`` decimals; what rounds to 0 is ``+0.0`` (never ``-0.0``)."""
    text = f"{v:+.{digits}f}"
    return f"{0.0:+.{digits}f}" if float(text) == 0 else text


def _pp(v: float) -> str:
    return _signed(v * 100, 1)


def _units(v: float) -> str:
    return _signed(v, 2)


def _change(r: dict[str, Any], fmt: Any, unit: str = "") -> str:
    """``A − B`` and its interval as the table prints them: ``-0.75 [-0.89, -0.61]``."""
    if r["lo"] is None or r["hi"] is None:
        return f"{fmt(r['diff'])}{unit}"
    return f"{fmt(r['diff'])}{unit} [{fmt(r['lo'])}, {fmt(r['hi'])}]"


def _figure(r: dict[str, Any]) -> dict[str, Any]:
    return {"a": r["a"], "b": r["b"], "diff": r["diff"], "lo": r["lo"], "hi": r["hi"], "n": r["n_a"],
            "excludes_zero": _excludes_zero(r), "note": r["note"]}


def who_wins_by_seat(df: pl.DataFrame) -> tuple[str, dict[str, Any]]:
    """Who wins under A and B, seat by seat (the ``seat<k>_win`` rows of a paired comparison)."""
    rows = sorted(((int(m.group(1)), r) for r in df.iter_rows(named=True) if (m := _SEAT.match(r["metric"]))),
                  key=lambda kr: kr[0])
    seats = [{"seat": k, **_figure(r)} for k, r in rows]
    data: dict[str, Any] = {"changed": None, "seats": seats}
    if not rows:
        return "no deal both rulesets settled, so nothing tells who wins", data
    if all(r["n_differ"] == 0 for _, r in rows):  # paired: a fact, however few the deals
        data["changed"] = False
        return "who wins does not change (each deal has the same winner under A and B)", data

    def part(k: int, r: dict[str, Any], said: bool = True) -> str:
        if r["n_differ"] == 0:
            return f"seat {k} alike in every deal"
        return f"seat {k} {_change(r, _pp, ' pp')}" + ("" if not said else " excludes 0" if _excludes_zero(r)
                                                      else " holds 0")

    by_seat = ", ".join(part(k, r) for k, r in rows)
    if any(r["note"] == "too_few" for _, r in rows):
        return f"too few deals (under {TOO_FEW}) to tell who wins (A − B win rate by seat: {by_seat})", data
    moved = [(k, r) for k, r in rows if r["note"] == "differs"]
    data["changed"] = bool(moved)
    if not moved:
        return ("no clear change in who wins (A − B win rate by seat: "
                + ", ".join(part(k, r, said=False) for k, r in rows)
                + "; every interval holds 0)"), data
    said = " and ".join(f"seat {k} wins {'more' if r['b'] > r['a'] else 'less'} often under B, "
                        f"{r['b']:.1%} of deals against {r['a']:.1%}" for k, r in moved)
    return f"who wins changes: {said} (A − B win rate by seat: {by_seat})", data


def units_per_game(df: pl.DataFrame, unit: str) -> tuple[str, dict[str, Any] | None]:
    """What a game pays under A and B (the ``units_per_game`` row; 荒庄 = 0)."""
    r = _row(df, "units_per_game")
    if r is None or r["a"] is None or r["b"] is None:
        return "", None
    a, b = r["a"], r["b"]
    share = (b - a) / abs(a) if a else None
    data = {**_figure(r), "b_minus_a": b - a, "share_of_a": share}
    if r["n_differ"] == 0:
        return f"each game pays the same under A and B ({a:.2f} units)", data
    both = f"{b:.2f} units under B against {a:.2f} under A (A − B {_change(r, _units)}"
    if r["note"] == "too_few":
        return f"too few {unit}s (under {TOO_FEW}) to tell what a game pays: {both})", data
    if r["note"] != "differs":
        return f"no clear change in what a game pays: {both}, holds 0)", data
    how = f" (≈ {abs(share):.0%})" if share is not None else ""
    return (f"each game pays {abs(b - a):.2f} units{how} {'more' if b > a else 'less'} under B: "
            f"{b:.2f} against {a:.2f} under A (A − B {_change(r, _units)}, excludes 0)"), data


def tune_answer(df: pl.DataFrame, deals: int) -> Answer:
    """``paipu tune``'s sentence: who wins seat by seat, then what a game pays."""
    who, who_data = who_wins_by_seat(df)
    pays, pays_data = units_per_game(df, "deal")
    return Answer(f"Over {deals} paired deals, B against A: {who}" + (f"; {pays}." if pays else "."),
                  who_data, pays_data)


def _amount(v: float) -> str:
    return f"{v:+.0f}" if float(v).is_integer() else f"{v:+.2f}"


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


def rescore_answer(df: pl.DataFrame, games: int, winner_changed: int, players: list[dict[str, Any]]) -> Answer:
    """``paipu rescore``'s sentence: whether any game's winner moved (the same actions are replayed),
    what a game pays, and the players whose units move most (``players``: :func:`analytics.rescore.by_player`)."""
    if not games:
        return Answer("No logged games to re-settle: none of this variant is valid, outside tuning experiments and "
                      "within the filters given.", {"changed": None, "games": 0, "winner_changed": 0}, None,
                      {"gainers": 0, "losers": 0, "players": 0})
    if winner_changed:
        who = f"the winner differs in {winner_changed} of the {_games(games)}"
    else:
        who = "who wins does not change (each game has the same winner under A and B: the same actions)"
    pays, pays_data = units_per_game(df, "game")
    up = [p for p in players if p["gain"] > 0]
    down = sorted((p for p in players if p["gain"] < 0), key=lambda p: (p["gain"], p["player"]))
    if up or down:
        said = []
        if up:
            p = up[0]
            said.append(f"{terminal_text(p['player'])} gains most under B ({_amount(p['gain'])} units over "
                        f"{_games(p['games'])})")
        if down:
            p = down[0]
            said.append(f"{terminal_text(p['player'])} loses most ({_amount(p['gain'])} over {p['games']})")
        who_gains = " and ".join(said)
    else:
        who_gains = "no player's units change" if players else ""
    text = f"Over {games} logged game{'' if games == 1 else 's'}, B against A: {who}" + "".join(f"; {s}" for s in (pays, who_gains) if s) + "."
    return Answer(text, {"changed": bool(winner_changed), "games": games, "winner_changed": winner_changed},
                  pays_data, {"gainers": len(up), "losers": len(down), "players": len(players)})


# --- the table -------------------------------------------------------------------------------

_NOTE = {"differs": "differs", "unclear": "unclear", "too_few": "too few", "identical": ""}
"""The verdict column: ``differs`` when the interval excludes 0; alike in every pair is said in
the A − B cell itself."""


def _cell(v: float | None, kind: str, diff: bool = False) -> str:
    if v is None:
        return "—"
    if kind in ("rate", "share"):
        return _pp(v) if diff else f"{v * 100:.1f}%"
    return _units(v) if diff else f"{v:.2f}"


def _label(r: dict[str, Any]) -> str:
    """A figure's name without its parenthesis (the sentence and the docs say what it holds)."""
    if r["section"] == "hand_type":
        return f"牌型 {names.zh(names.HAND_TYPES, r['label'])}"
    return r["label"].split(" (")[0]


def comparison_table(title: str, df: pl.DataFrame, unit: str, hand_types: int = 8) -> Table:
    """The comparison as a table that fits 80 columns: figure, n, A, B, A − B [95%] (rates in
    percentage points), verdict; no box (as ``paipu report``); the first ``hand_types`` hand types."""
    t = FitTable(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
                 padding=(0, 1, 0, 0))
    rows: list[tuple[Text, list[str], str, str | None]] = []
    shown = 0
    for r in df.iter_rows(named=True):
        if r["section"] == "hand_type":
            if shown >= hand_types:
                continue
            shown += 1
        kind = r["kind"]
        alike = r["n_differ"] == 0  # paired, every pair equal: a fact, however few the pairs
        if alike:
            change = f"alike in every {unit}"
        elif r["diff"] is None:
            change = "—"
        elif r["lo"] is None or r["hi"] is None:
            change = _cell(r["diff"], kind, diff=True)
        else:
            change = (f"{_cell(r['diff'], kind, True)} [{_cell(r['lo'], kind, True)}, "
                      f"{_cell(r['hi'], kind, True)}]")
        style = "bold" if r["note"] == "differs" else ("dim" if r["note"] == "too_few" and not alike else None)
        rows.append((Text(terminal_text(_label(r))), [str(r["n_a"]), _cell(r["a"], kind), _cell(r["b"], kind), change],
                     "" if alike else _NOTE.get(r["note"], r["note"]), style))
    heads = ["n", "A", "B", "A − B [95%]"]
    t.add_column("指标 figure", justify="left", overflow="fold")
    t.least.append(None)
    for i, head in enumerate(heads):
        least = max([cell_len(w) for w in head.split()] + [cell_len(cells[i]) for _, cells, _, _ in rows])
        t.add_column(head, justify="right", min_width=least)
        t.least.append(least)
    t.add_column("", justify="left", min_width=7)
    t.least.append(7)
    for label, cells, note, style in rows:
        t.add_row(label, *cells, note, style=style)
    return t
