"""``paipu review`` (registered by ``paipu/cli.py``) and the reviews the dashboards show: one seat of
one game against the expected-value bot (:mod:`replay.review`), read from a log file or from the
warehouse (the stored line as the ingest judged it, :func:`ingest.views.as_judged`, as the audit
reads it); and a player's last games reviewed, for the player's figure (docs/review.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NoReturn, Optional

import polars as pl
import typer
from rich.console import Console
from rich.text import Text

from analytics import names
from ingest.reader import read_lines
from ingest.views import as_judged
from replay.cards import Deck
from replay.record import terminal_text
from replay.review import DEFAULT_SEED, Decision, Review, ReviewError, review_line
from replay.words import MISSING, refuse


class GameNotFound(LookupError):
    """The game asked for is not where it was looked for (the message says where and why)."""


# --- where a game comes from ------------------------------------------------------------------

def _game_id(raw: bytes) -> str | None:
    try:
        obj = json.loads(raw)
    except (ValueError, RecursionError):
        return None
    gid = obj.get("game_id") if isinstance(obj, dict) else None
    return gid if isinstance(gid, str) else None


def file_game(path: Path, line: int | None = None, game_id: str | None = None) -> tuple[bytes, str]:
    """The line of one game in a paipu/1 file (``.jsonl``, ``.jsonl.gz``, ``.jsonl.zst``, read as
    ``paipu ingest`` reads it) and where it is (``FILE:LINE``): line ``line``, else the game
    ``game_id``, else the file's only game.

    :raises GameNotFound: no such line or game, a line the reader rejects, or several games and
        neither asked for.
    """
    shown = terminal_text(str(path))
    lines = []
    for ln in read_lines(path):
        if line is not None and ln.line_no != line:
            continue
        if ln.problem is not None:
            raise GameNotFound(f"{shown}:{ln.line_no}: {ln.problem.code} [{ln.problem.rule}]: {ln.problem.message}")
        if game_id is not None and _game_id(ln.raw) != game_id:
            continue
        lines.append(ln)
    if line is not None and not lines:
        raise GameNotFound(f"{shown}:{line}: no game on this line (blank, or past the file's end)")
    if game_id is not None and not lines:
        raise GameNotFound(f"{shown}: no game {terminal_text(game_id)!r} in this file")
    if not lines:
        raise GameNotFound(f"{shown}: no game in this file")
    if len(lines) > 1:
        what = f"{len(lines)} games named {terminal_text(game_id)!r}" if game_id is not None else f"{len(lines)} games"
        raise GameNotFound(f"{shown}: {what} (lines {', '.join(str(ln.line_no) for ln in lines[:5])}"
                           f"{', …' if len(lines) > 5 else ''}); pick one with {shown}:LINE")
    return lines[0].raw, f"{shown}:{lines[0].line_no}"


def warehouse_game(con: Any, game_id: str) -> tuple[bytes, str] | None:
    """The stored line of ``game_id`` as the ingest judged it (latest ingest wins) and where it was
    read from (``FILE:LINE``), or None when the warehouse has no such game."""
    cur = con.cursor()
    try:
        row = cur.execute("SELECT record_json, rules_json, source_file, source_line FROM games WHERE game_id = $gid "
                          "ORDER BY ingested_at DESC NULLS LAST LIMIT 1", {"gid": game_id}).fetchone()
    finally:
        cur.close()
    if row is None:
        return None
    raw = as_judged(row[0] or "", row[1]).encode("utf-8", "surrogatepass")
    return raw, f"{terminal_text(str(row[2]))}:{row[3]}"


def stored_review(con: Any, game_id: str, seat: int, seed: str = DEFAULT_SEED) -> Review | None:
    """``seat`` of the stored game ``game_id`` reviewed (:func:`warehouse_game`), None when the
    warehouse has no such game.

    :raises replay.review.ReviewError: the stored line is not a reviewable record, or no such seat.
    """
    got = warehouse_game(con, game_id)
    return None if got is None else review_line(got[0], seat, seed)


def split_line(game: str) -> tuple[Path, int | None] | None:
    """``FILE`` or ``FILE:LINE`` naming a file that exists, as (path, line), else None."""
    if Path(game).is_file():
        return Path(game), None
    head, sep, tail = game.rpartition(":")
    if sep and tail.isdigit() and Path(head).is_file():
        return Path(head), int(tail)
    return None


# --- a player's recent games ----------------------------------------------------------------

def latest_snapshot(con: Any) -> int | None:
    """The warehouse's latest DuckLake snapshot id (None for a plain-Parquet warehouse): with the
    player and the game count, the key under which a player's reviews stay the same."""
    cur = con.cursor()
    try:
        return cur.sql("SELECT max(snapshot_id) FROM lake.snapshots()").fetchone()[0]
    except Exception:  # no `lake` catalog attached: the layout before DuckLake
        return None
    finally:
        cur.close()


def player_reviews(con: Any, player: str, n: int = 20, variant: str | None = None,
                   seed: str = DEFAULT_SEED) -> pl.DataFrame:
    """The player's last ``n`` games (valid, outside tuning experiments; of ``variant`` when given),
    each reviewed at the player's seat, oldest first: game_id, started_at, variant, seat, decisions,
    matches, match_rate, ev_lost, valued, error_step (where a game's log broke a rule: the review
    stopped there). A pure function of the warehouse's contents and the arguments."""
    from analytics import queries as q

    cur = con.cursor()
    try:
        rows = cur.execute(f"""
            SELECT g.game_id, g.started_at, g.variant, s.seat, g.record_json, g.rules_json
            FROM games g JOIN seats s ON s.game_id = g.game_id AND s.variant = g.variant
            WHERE s.player_id = $player AND g.valid AND {q.no_experiment(con, 'games', 'g')}
              AND ($variant IS NULL OR g.variant = $variant)
            ORDER BY g.started_at DESC NULLS LAST, g.ingested_at DESC, g.game_id DESC LIMIT $n""",
                           {"player": player, "variant": variant, "n": int(n)}).fetchall()
    finally:
        cur.close()
    out = []
    for gid, started, v, seat, line, rules in reversed(rows):
        r = review_line(as_judged(line or "", rules), int(seat), seed)
        out.append({"game_id": gid, "started_at": started, "variant": v, "seat": int(seat),
                    "decisions": len(r.decisions), "matches": r.matches, "match_rate": r.match_rate,
                    "ev_lost": r.ev_lost, "valued": r.valued, "error_step": (r.error or {}).get("step")})
    schema = {"game_id": pl.String, "started_at": pl.Datetime(time_zone="UTC"), "variant": pl.String,
              "seat": pl.Int64, "decisions": pl.Int64, "matches": pl.Int64, "match_rate": pl.Float64,
              "ev_lost": pl.Float64, "valued": pl.Int64, "error_step": pl.Int64}
    return pl.DataFrame(out, schema=schema, orient="row") if out else pl.DataFrame(schema=schema)


# --- words ------------------------------------------------------------------------------------

def event_text(ev: dict[str, Any], deck: Deck) -> str:
    """A choice in words: ``出牌 小一``, ``吃 小三 (小一 小二)``, ``过`` (cards as the deck names them)."""
    def card(c: str) -> str:
        try:
            return deck.label(deck.index(c))
        except Exception:
            return str(c)
    act = str(ev.get("act"))
    out = names.ACTS.get(act, act)
    if ev.get("card") is not None:
        out += " " + card(ev["card"])
    if ev.get("cards"):
        out += " (" + " ".join(card(c) for c in ev["cards"]) + ")"
    for g in ev.get("bi") or []:
        out += " 比 (" + " ".join(card(c) for c in g) + ")"
    return out


def _short(s: str, n: int = 40) -> str:
    """A log's id or name in a sentence: its first ``n`` characters (the table and --json keep it whole)."""
    return s if len(s) <= n else s[:n - 1] + "…"


def _w(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def summary(r: Review, deck: Deck) -> str:
    """The review in one sentence (the costliest decisions named with their gap)."""
    unit = names.units_unit(r.variant)
    who = f"Seat {r.seat} ({_short(r.player)}) of {_short(r.game_id)} ({names.VARIANTS.get(r.variant, r.variant)})"
    if not r.decisions:
        return f"{who} made no decision the bot reviews (a discard among two kinds or more, an optional claim)."
    cost = r.costliest()
    lost = "; costliest: " + "; ".join(
        f"step {d.step} played {event_text(d.played, deck)}, the bot {event_text(d.bot, deck)} ({_w(d.gap)})"
        for d in cost) if cost else ""
    return (f"{who} chose as the ev bot at {r.matches} of {len(r.decisions)} decisions ({r.match_rate:.0%}) "
            f"and gave up {r.ev_lost:.3f} {unit} of W{lost}.")


def decisions_frame(r: Review, deck: Deck) -> pl.DataFrame:
    """One row per decision, in words: step, decision, played, bot, w_played, w_bot, gap, match."""
    def kind(d: Decision) -> str:
        if d.kind == "discard":
            return "出牌 discard"
        return f"叫牌 claim {deck.label(deck.index(d.card))}" if d.card else "叫牌 claim"
    return pl.DataFrame({
        "step": [d.step for d in r.decisions], "decision": [kind(d) for d in r.decisions],
        "played": [event_text(d.played, deck) for d in r.decisions],
        "bot": [event_text(d.bot, deck) for d in r.decisions],
        "w_played": [d.played_w for d in r.decisions], "w_bot": [d.bot_w for d in r.decisions],
        "gap": [d.gap for d in r.decisions], "match": ["✓" if d.match else "✗" for d in r.decisions],
    }, schema={"step": pl.Int64, "decision": pl.String, "played": pl.String, "bot": pl.String, "w_played": pl.Float64,
               "w_bot": pl.Float64, "gap": pl.Float64, "match": pl.String})


# --- the command ------------------------------------------------------------------------------

def _fail(message: str, code: int) -> NoReturn:
    Console(stderr=True, highlight=False).print(Text(f"paipu review: {terminal_text(message)}", style="red"), soft_wrap=True)
    raise typer.Exit(code)


def review_cmd(
    game: str = typer.Argument(..., help="A paipu/1 log file holding one game, FILE:LINE, or a game id of the "
                               "warehouse (with --warehouse)."),
    seat: int = typer.Option(..., "--seat", help="The seat to review (0-based, spec §2)."),
    game_id: Optional[str] = typer.Option(None, "--game", metavar="GAME_ID", help="Pick this game from a file "
                                          "of several."),
    warehouse: Optional[Path] = typer.Option(None, "--warehouse", help="Warehouse folder written by `paipu ingest`: "
                                             "GAME is a game id stored there."),
    bot_seed: str = typer.Option(DEFAULT_SEED, "--bot-seed", metavar="TEXT", help="The bot's random stream (its "
                                 "heuristic's tie-breaks); `paipu simulate` gives seat S of game I the stream I:S:SEED."),
    as_json: bool = typer.Option(False, "--json", help="Print the review as one JSON object."),
) -> None:
    """Review one seat of one game against the expected-value bot: at every discard and every optional claim,
    the bot's choice from that seat's view, the choice played, and the gap between their W (the bot's value of
    the hand a choice leaves, in the game's score units). A one-sentence summary (match rate, W lost, the
    costliest decisions), then the decisions. docs/review.md says what the bot does not model.

    Exit status 0 when reviewed; 2 for a usage error (no such file, line, game, seat or warehouse folder, a
    line that is not a game record); 1 when the warehouse cannot be read.
    """
    import shlex

    where = split_line(game)
    try:
        if where is not None:
            path, line = where
            raw, src = file_game(path, line, game_id)
            explains = f"paipu validate {shlex.quote(str(path))} --json"
        elif warehouse is not None:
            raw, src = _stored(warehouse, game_id or game)
            explains = f"paipu audit {shlex.quote(game_id or game)} --warehouse {shlex.quote(str(warehouse))}"
        elif game_id is not None:
            refuse("review", "file", game, MISSING)
        else:
            refuse("review", "file", game, f"{MISSING} (to review a game stored in a warehouse, give --warehouse DIR)")
        r = review_line(raw, seat, bot_seed)
    except GameNotFound as e:
        _fail(str(e), 2)
    except ReviewError as e:
        _fail(f"{src}: {e}", 2)
    deck = _deck(r.variant)
    if as_json:
        typer.echo(json.dumps({"source": src, "units": names.units_unit(r.variant), **r.to_json()}, ensure_ascii=False))
        return
    _print(r, src, deck, Console(highlight=False), explains)


def _stored(warehouse: Path, game_id: str) -> tuple[bytes, str]:
    from ingest.cli import need_warehouse
    from ingest.views import connect

    need_warehouse("review", warehouse)
    try:
        con = connect(warehouse)
    except (FileNotFoundError, ValueError) as e:  # no such folder, or a path the views refuse
        raise typer.BadParameter(str(e), param_hint="--warehouse") from None
    except (RuntimeError, OSError) as e:  # its catalog cannot be opened (ingest.warehouse.CatalogError)
        _fail(f"{warehouse}: {e}", 1)
    try:
        got = warehouse_game(con, game_id)
    finally:
        con.close()
    if got is None:
        raise GameNotFound(f"{terminal_text(str(warehouse))}: no game {terminal_text(game_id)!r} stored")
    return got


def _deck(variant: str) -> Deck:
    from replay import variants

    return variants.get(variant).deck


def _print(r: Review, src: str, deck: Deck, console: Console, explains: str = "") -> None:
    """The review as text; ``explains``: the command that says why a disputed settlement is wrong."""
    from analytics.cli import _table

    p = lambda s: console.print(Text(terminal_text(s)), soft_wrap=True)  # noqa: E731 - log text is never markup
    p(summary(r, deck))
    p(f"{src} · ruleset {r.ruleset_id} · W in {names.units_unit(r.variant)}, the bot's value of the hand a choice "
      f"leaves; {r.valued} of {len(r.decisions)} decisions had a ready hand in reach")
    if r.error is not None:
        e = r.error
        p(f"the log breaks a rule at step {e['step']}: {e['code']} [{e['rule']}] {e['message']} — reviewed up to there")
    if r.dispute is not None:
        p(f"the server's settlement is disputed: {r.dispute['message']}" + (f" (`{explains}` says why)" if explains else ""))
    if r.decisions:
        console.print(_table("决策 decisions", decisions_frame(r, deck),
                             {"step": "步 step", "decision": "决策 decision", "played": "打出 played",
                              "bot": "ev bot", "w_played": "W played", "w_bot": "W bot", "gap": "差 gap",
                              "match": "同 same"}))
