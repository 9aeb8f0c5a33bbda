"""``paipu dashboard`` and ``paipu audit``: plain typer command functions, registered as
sub-commands by ``paipu/cli.py`` (no Typer app here)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Optional

import typer
from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from dashboards import audit as audit_mod
from dashboards import data, labels, rules_doc
from replay.cards import Deck
from replay.record import terminal_text


def _t(s: str, style: str = "") -> Text:
    """Log text for the terminal: a rich ``Text`` (never read as markup) of
    :func:`~replay.record.terminal_text` (no escape sequence or bidi control reaches the terminal)."""
    return Text(terminal_text(s), style=style)

APP = Path(__file__).resolve().parent / "serve.py"  # app.py behind the Host check (dashboards/serve.py)
_RICH_COLOURS = {"red": "bold red", "green": "bold green", "black": "bold"}


def _warehouse(command: str, warehouse: Path) -> Path:
    """``--warehouse``, refused in the one line every command uses (:func:`ingest.cli.need_warehouse`)."""
    from ingest.cli import need_warehouse

    need_warehouse(command, warehouse)
    return warehouse.expanduser().resolve()


def dashboard_cmd(warehouse: Path = typer.Option(..., "--warehouse", help="warehouse folder written by `paipu ingest`"),
                  host: str = typer.Option("127.0.0.1", "--host",
                                           help="address to listen on (127.0.0.1: this machine only; 0.0.0.0: every interface)"),
                  port: int = typer.Option(8501, "--port", min=1, max=65535, help="port to listen on")) -> None:
    """Serve the Streamlit dashboard over WAREHOUSE on http://HOST:PORT (127.0.0.1:8501 by default).
    A request whose Host header names another server (DNS rebinding) gets 403: localhost,
    127.0.0.1 and HOST are answered (any IP address too when HOST is 0.0.0.0 or ::)."""
    import streamlit

    wh = _warehouse("dashboard", warehouse)
    if not hasattr(streamlit, "App"):  # the Host check is st.App middleware: never serve without it
        Console(stderr=True).print(_t(f"paipu dashboard needs Streamlit with st.App (installed: "
                                      f"{streamlit.__version__}); upgrade it: pip install -U streamlit", style="red"))
        raise typer.Exit(2)
    cmd = [sys.executable, "-m", "streamlit", "run", str(APP), "--server.headless", "true",
           "--server.address", host, "--server.port", str(port), "--browser.gatherUsageStats", "false",
           "--", "--warehouse", str(wh)]
    env = {**os.environ, "PAIPU_WAREHOUSE": str(wh)}
    Console(stderr=True).print(_t(f"paipu dashboard: http://{host}:{port}/ (warehouse {wh})"))
    if os.name == "posix":  # become the server, so Ctrl-C and kill reach it and leave no orphan
        os.execve(sys.executable, cmd, env)
    raise typer.Exit(subprocess.call(cmd, env=env))


def _cards(codes: Any, deck: Deck) -> Text:
    """Cards as coloured Chinese labels (red cards red)."""
    out = Text()
    for i, code in enumerate(codes or []):
        label, colour = labels.card_info(code, deck)
        if i:
            out.append(" ")
        out.append(terminal_text(label), style=_RICH_COLOURS.get(colour or "", "magenta"))
    return out if codes else _t("—", style="dim")


def _event(ev: dict[str, Any] | None, deck: Deck) -> tuple[Text, Text]:
    if ev is None:
        return _t("发牌 deal"), _t("")
    act = str(ev.get("act"))
    name = _t(f"{labels.ACTS.get(act, '')} {act}".strip())
    cards = Text()
    if ev.get("card") is not None:
        cards.append_text(_cards([ev["card"]], deck))
    if ev.get("cards"):
        cards.append(" + ")
        cards.append_text(_cards(ev["cards"], deck))
    if ev.get("from") is not None:
        cards.append(terminal_text(f" ← seat {ev['from']}"), style="dim")
    return name, cards


def audit_cmd(game_id: str, warehouse: Path = typer.Option(..., "--warehouse", help="warehouse folder"),
              as_of: Optional[str] = typer.Option(None, "--as-of", metavar="SNAPSHOT|TIME",
                                                  help="Read the warehouse as it was at this DuckLake snapshot id "
                                                       "or time (ISO 8601, UTC unless it has an offset); "
                                                       "`paipu snapshots` lists them.")) -> None:
    """Print GAME_ID's audit: verdict, every step with the acting seat's hand, claimed vs computed.
    With --as-of, what the warehouse held then (a game ingested later is not found)."""
    from ingest.warehouse import check_as_of, parse_as_of

    console = Console(highlight=False)
    wh = _warehouse("audit", warehouse)
    try:
        snap = parse_as_of(as_of) if as_of is not None else None
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--as-of") from None
    if snap is not None:
        try:
            check_as_of(wh, snap)
        except ValueError as e:
            raise typer.BadParameter(str(e), param_hint="--as-of") from None
    try:
        con = data.connect(wh, snapshot=snap)
    except Exception as e:  # no such snapshot, a time before the first one, not a DuckLake warehouse
        console.print(_t(f"--as-of {as_of}: {e}" if as_of is not None else str(e), style="red"))
        raise typer.Exit(1) from None
    if snap is not None:
        console.print(_t(f"as of {as_of}", style="dim"))
    row = data.find_game(con, game_id)
    if row is None:
        rej = data.find_rejects(con, game_id)
        if rej.height:
            console.print(_t(f"{game_id}: 入库时被拒收 rejected at ingest (not a decodable record)", style="yellow"))
            for r in rej.iter_rows(named=True):
                console.print(_t(f"  {r['source_file']}:{r['source_line']}  {labels.error_label(r['code'])} · "
                                   f"{rules_doc.rule_name(r['rule'])} · {r['message']}"))
                size = r.get("raw_bytes")
                console.print(_t(f"  原文 raw ({size if size is not None else '?'} bytes): {r.get('raw') or ''}",
                                   style="dim"))
        else:
            console.print(_t(f"未找到对局 game not found: {game_id}", style="red"))
        raise typer.Exit(1)
    seats = data.game_seats(con, game_id, row["variant"])
    a = audit_mod.build(row, seats)
    deck = labels.deck_for(row["variant"])

    console.print(_t(f"对局 game {game_id}", style="bold"))
    console.print(_t(f"{labels.zh(labels.VARIANTS, row['variant'])} · ruleset {row.get('ruleset_id')} · "
                       f"庄 dealer seat {row.get('dealer')} · {row.get('source_file')}:{row.get('source_line')}",
                       style="dim"))
    v = a["verdict"] or {}
    errors = [e for e in v.get("errors") or [] if e]
    if v.get("valid"):
        console.print(Panel(_t("有效 valid", style="bold green"), title="裁定 verdict", expand=False))
    else:
        body = Text("无效 invalid\n", style="bold red")
        for e in errors:
            where = "record" if e.get("step") is None else f"step {e['step']}"
            body.append(terminal_text(f"{labels.error_label(e.get('code'))} · {rules_doc.rule_name(e.get('rule'))} · "
                                      f"{where}") + "\n", style="red")
            body.append(terminal_text(f"  {e.get('message')}") + "\n")
        console.print(Panel(body, title="裁定 verdict", expand=False))
    if a["note"]:
        console.print(_t(a["note"], style="dim"))

    steps = a["steps"]
    if steps:
        first = steps[0]
        deal = Table(title="发牌 deal", show_lines=False)
        deal.add_column("座位 seat", overflow="fold")
        deal.add_column("手牌 hand", overflow="fold")
        for s in first.get("seats") or []:
            tag = " 庄" if s.get("seat") == row.get("dealer") else ""
            deal.add_row(_t(f"{s.get('seat')}{tag} {s.get('player') or ''}"),
                         _cards(labels.sort_cards(s.get("hand") or [], deck), deck))
        console.print(deal)
        t = Table(title="逐步 steps")
        for col in ("步 step", "座位 seat", "动作 act", "牌 cards", "行动者手牌 acting seat's hand", "牌墙 wall"):
            t.add_column(col, overflow="fold")
        err_idx = audit_mod.first_error_step(a)
        for i, snap in enumerate(steps[1:], start=1):
            ev = snap.get("event") or {}
            name, cards = _event(ev, deck)
            seat = next((s for s in snap.get("seats") or [] if s.get("seat") == ev.get("seat")), None)
            hand = _cards(labels.sort_cards(seat.get("hand") or [], deck), deck) if seat else _t("")
            t.add_row(_t(str(snap.get("step"))), _t(str(ev.get("seat"))), name, cards, hand,
                      _t(str(snap.get("wall_left"))),
                      style="on dark_red" if i == err_idx else None)
        console.print(t)
        if err_idx is not None:
            e = steps[err_idx].get("error") or (errors[0] if errors else {})
            console.print(_t(f"首个错误 first failing step {steps[err_idx]['step']}: "
                               f"{labels.error_label(e.get('code'))} · {rules_doc.rule_name(e.get('rule'))} · "
                               f"{e.get('message')}", style="bold red"))

    if a.get("explain"):  # the explanation compares term by term: no second table
        _print_explanation(console, a["explain"], deck)
        return

    t = Table(title="结算对比 claimed vs computed")
    for col in ("字段 field", "申报 claimed", "计算 computed", "一致 match"):
        t.add_column(col)
    for d in a["diff"]:
        mark = {True: "✓", False: "✗", None: "—"}[d["same"]]
        # _t(): values come from the log, never read as rich markup nor as terminal controls
        t.add_row(_t(labels.RESULT_FIELDS.get(d["field"], d["field"])),
                  _t(audit_mod.fmt_value(d["field"], d["claimed"], deck, d["claimed_present"])),
                  _t(audit_mod.fmt_value(d["field"], d["computed"], deck, d["computed_present"])), mark,
                  style="bold red" if d["same"] is False else None)
    if a["claimed"] is None:
        console.print(_t("记录没有申报结算 the record claims no result", style="dim"))
    console.print(t)


def _rule_line(line: str) -> str:
    """A rule line of the explanation as the audit page names it: the rule and the section of its
    doc (``坎 大 6 小 3 · §Winning shape and 胡``), the seed's number and the repository path taken off."""
    text, doc, section = rules_doc.split_line(line)
    return text if doc is None else f"{text} · {rules_doc.where(doc, section)}"


def _print_explanation(console: Console, ex: dict[str, Any], deck: Deck) -> None:
    """The dispute explanation (:func:`dashboards.audit.explanation`): the split, the worked sums,
    term by term, and where claim and engine part. Values from the log are rich ``Text``."""
    x = audit_mod.explanation(ex, deck)
    variant = ex.get("variant")
    pu, uu = labels.points_unit(variant), labels.units_unit(variant)
    console.print(_t(f"结算争议 why the settlement is disputed — the engine judges step {ex['step']} "
                       f"(seat {ex['seat']}'s 胡) as in replay", style="bold"))
    if x["refused"]:
        console.print(_t(f"引擎不认这个胡 the engine refuses the claimed 胡 · {rules_doc.rule_name(x['rule'])}: "
                         f"{x['refused']}", style="bold red"))
    if x["groups"]:
        t = Table(title=f"计算的胡牌拆分 computed split ({pu} per group, rule line)")
        for col in ("种类 kind", "牌 cards", pu, "来自 from", "规则 rule"):
            t.add_column(col, overflow="fold")
        for g in x["groups"]:
            t.add_row(_t(g["kind"]), _t(g["cards"]), _t(str(g["points"])), _t(g["from"]), _t(_rule_line(g["rule"])))
        console.print(t)
    if x["points_sum"]:
        console.print(_t(f"{pu}: {x['points_sum']}  (申报 claimed {ex['points']['claimed']})"))
    if x["units_sum"]:
        console.print(_t(f"{uu} 计算 computed: {x['units_sum']}"))
    if x["claimed_units"]:
        console.print(_t(f"{uu} 申报 claimed:  {x['claimed_units']}"))
    t = Table(title="逐项对比 term by term")
    for col in ("项 term", "计算 computed", "申报 claimed", "一致 match"):
        t.add_column(col, overflow="fold")
    for r in x["terms"]:
        t.add_row(_t(r["term"]), _t(r["computed"]), _t(r["claimed"]),
                  {True: "✓", False: "✗", None: "—"}[r["same"]], style="bold red" if r["same"] is False else None)
    console.print(t)
    if x["part"]:
        console.print(_t(f"不符之处 where they part: {x['part']}", style="bold red"))
