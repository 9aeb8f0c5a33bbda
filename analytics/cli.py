"""``paipu report`` (registered by ``paipu/cli.py``): the warehouse's figures as rich tables."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

import polars as pl
import typer
from rich import box
from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from analytics import names
from analytics import queries as q
from ingest.views import connect
from ingest.warehouse import CatalogError
from replay.progress import Meter
from replay.record import terminal_text


def _fmt(v: Any, col: str) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if col.endswith(("_rate", "_share")) or col == "share":
            return f"{v:.1%}"
        return f"{v:.2f}"
    if isinstance(v, list):
        return " ".join(map(str, v))
    return str(v)


class FitTable(Table):
    """A table that, when its headers on one line do not fit the terminal, holds each figure's
    column to its least width (so the headers wrap at their words and every column stays):
    rich's own shrinking breaks words and drops the last columns."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.least: list[int | None] = []

    def __rich_console__(self, console: Any, options: Any) -> Any:
        wide = self.__rich_measure__(console, options).maximum > options.max_width
        for col, least in zip(self.columns, self.least):
            col.max_width = least if wide else None
        yield from super().__rich_console__(console, options)


def _table(title: str, df: pl.DataFrame, headers: dict[str, str]) -> Table:
    """A rich table of ``df`` with the Chinese-first column headers in ``headers``, readable at 80
    columns and in a pipe: no box edges (2 characters between columns, so headers wrap at their
    spaces, not inside a word), a figure never broken. ``t.df`` keeps the frame (for ``--json``)."""
    t = FitTable(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
             padding=(0, 1, 0, 0))  # with the box's blank divider: 2 characters between columns
    t.df = df  # type: ignore[attr-defined]
    # a cell may hold log text (a player id, a ruleset name): shown as text, never markup or escapes
    rows = [[terminal_text(_fmt(v, c)) for v, c in zip(row, df.columns)] for row in df.iter_rows()]
    for i, c in enumerate(df.columns):
        text = df.schema[c] == pl.String
        head = headers.get(c, c.replace("_", " "))  # an unnamed column wraps at its words too
        # at least its header's longest word and (figures) its widest value, so rich breaks neither
        least = max([cell_len(w) for w in head.split()] + ([] if text else [cell_len(r[i]) for r in rows]))
        t.add_column(head, justify="left" if text else "right", min_width=least)
        t.least.append(None if text else least)
    for r in rows:
        t.add_row(*map(Text, r))
    if df.height == 0:
        t.add_row(*(["—"] * len(df.columns)))
    return t


H = {
    "games": "局数 games", "valid": "有效 valid", "invalid": "无效 invalid", "rejects": "拒收 rejects",
    "read": "读入 read", "valid_rate": "有效率 valid rate", "code": "code", "rule": "rule", "n": "n",
    "error_code": "code", "error_rule": "rule", "seat": "座位 seat", "wins": "胡 wins",
    "win_rate": "胡率 win rate", "is_dealer": "庄家 dealer", "seat_games": "局数 seat-games",
    "draws": "荒庄 draws", "draw_rate": "荒庄率 draw rate", "hand_type": "番型 hand type",
    "share": "占比 share", "xing_count": "醒 xing", "variant": "玩法 variant", "mean_points": "平均胡 mean 胡",
    "mean_tuo": "平均舵 mean 舵", "mean_units": "平均分 mean units", "win_kind": "胡法 win kind",
    "player_id": "玩家 player", "won": "赢 won", "lost": "输 lost", "net": "净 net",
    "zimo_wins": "自摸 zimo", "zimo_share": "自摸率 zimo share", "dianpao": "点炮 dianpao",
    "dianpao_rate": "点炮率 dianpao rate", "total_score": "总分 total", "mean_score": "平均分 mean score",
    "ruleset_id": "规则 ruleset", "options": "选项 options",
}


def _named(df: pl.DataFrame, col: str, table: dict[str, str]) -> pl.DataFrame:
    """``col`` as ``中文 (id)`` from one of the tables of :mod:`analytics.names` (``plain`` = 平胡)."""
    if col not in df.columns or not df.height:
        return df
    return df.with_columns(pl.col(col).map_elements(lambda v: names.zh(table, v), return_dtype=pl.String))


def print_report(con: Any, console: Console, variant: str | None = None, ruleset: str | None = None,
                 players: int = 20) -> None:
    """Print every figure of ``analytics.queries`` for the given filters (``players``: rows of
    the per-player tables). Without ``variant`` the counts cover the warehouse and every other
    figure is printed once per variant (most played first): 胡, 息 and 個子, seat win rates of 3-
    and 4-seat tables, and players' records of different games never mix."""
    f = {"variant": variant, "ruleset": ruleset}
    options = ruleset_options(con)
    shown = {**f, "ruleset": None if ruleset is None else f"{ruleset} ({options.get(ruleset, 'not in this warehouse')})"}
    scope = ", ".join(f"{k} = {v}" for k, v in shown.items() if v is not None) or "all games"
    console.print(f"[bold]paipu report[/bold] — {escape(terminal_text(scope))}; play figures over valid games, one variant at a time",
                  highlight=False)
    console.print(_table("总览 overview", q.overview(con, **f), H))
    rj = q.rejects_by_code(con, variant)
    if rj.height:
        console.print(_table("拒收 rejects by code", rj, H))
    er = q.errors_by_code(con, **f)
    if er.height:
        console.print(_table("无效 invalid games by first error", er, H))
    if variant is not None:
        _variant_report(con, console, variant, ruleset, players)
        return
    vr = q.variants_and_rulesets(con)
    vr = vr.with_columns(pl.col("ruleset_id").replace_strict(options, default="—", return_dtype=pl.String)
                         .alias("options")).select("variant", "ruleset_id", "options", "games")
    console.print(_table("玩法与规则 variants and rulesets", _named(vr, "variant", names.VARIANTS), H))
    order = vr.group_by("variant").agg(pl.col("games").sum()).sort(["games", "variant"], descending=[True, False])
    vs = [v for v in order["variant"].to_list() if v is not None]
    with Meter("report", len(vs), "variants") as meter:  # on stderr: the report itself stays clean
        for v in vs:
            _variant_report(con, console, v, ruleset, players)
            meter.advance()


def ruleset_options(con: Any) -> dict[str, str]:
    """Each ruleset id of the warehouse's games with the options that differ from its variant's
    defaults, as ``--rules`` text (:func:`replay.words.options_text`; ``defaults`` when none does)."""
    from replay.words import options_text

    cur = con.cursor()
    try:
        got = cur.sql("SELECT ruleset_id, any_value(variant), any_value(rules_json) FROM games "
                      "WHERE ruleset_id IS NOT NULL AND rules_json IS NOT NULL GROUP BY ruleset_id").fetchall()
    finally:
        cur.close()
    return {rid: options_text(json.loads(text), variant) for rid, variant, text in got}


def _variant_report(con: Any, console: Console, variant: str, ruleset: str | None, players: int) -> None:
    """The play figures of one variant (see :func:`print_report`)."""
    f = {"variant": variant, "ruleset": ruleset}
    if not q.overview(con, **f)["games"].item():
        return
    console.print(f"\n[bold]== {names.zh(names.VARIANTS, variant)} ==[/bold]", highlight=False)
    console.print(_table("胡率 win rate by seat", q.win_rate_by_seat(con, **f), H))
    dealer = q.win_rate_by_dealer(con, **f).with_columns(
        pl.when(pl.col("is_dealer")).then(pl.lit("庄 dealer")).otherwise(pl.lit("闲 non-dealer")).alias("is_dealer"))
    console.print(_table("胡率 win rate, 庄家 vs 闲家 (闲: per seat)", dealer, H))
    console.print(_table("荒庄 draw rate", q.draw_rate(con, **f), H))
    console.print(_table("胡法 win kind (自摸 / 点炮 / flip)",
                         q.win_kind_mix(con, **f).with_columns(pl.col("win_kind").replace(names.WIN_KINDS)), H))
    console.print(_table("番型 hand types (plain = 平胡)", _named(q.hand_type_freq(con, **f), "hand_type",
                                                                  names.HAND_TYPES), H))
    if variant in ("guilin", "zipai"):
        console.print(_table("醒 xing count", q.xing_distribution(con, **f), H))
    pu, uu = names.points_unit(variant), names.units_unit(variant)
    means, title = q.mean_points(con, **f).drop("variant"), f"{pu} / 舵 / {uu} means per win"
    if names.units_are_points(variant):  # 沅江 (spec §8: points = units): the mean just before them
        means, title = means.drop("mean_units"), f"{pu} / 舵 means per win"
    console.print(_table(title, means,
                         {**H, "mean_points": f"平均{pu} mean {pu}", "mean_units": f"平均{uu} mean units"}))
    _family_sections(con, console, variant, ruleset)
    console.print(_table(f"玩家 players (top {players} by games)", q.player_stats(con, **f, limit=players), H))
    console.print(_table(f"输赢 score flow (top {players} by net)", q.score_flow(con, **f, limit=players), H))


def _family_sections(con: Any, console: Console, variant: str | None, ruleset: str | None) -> None:
    """The families' own figures, printed only where the warehouse has such games: 精 (花牌, 上大人),
    個子 (通城個子牌), 定庄 breaks (沅江鬼胡子)."""
    from analytics import family

    if variant in (None, "sanjing_huapai", "wujing_huapai", "shuangbiegan_huapai", "shangdaren"):
        zj = family.zhu_jing(con, variant, ruleset)
        if zj.height:
            console.print(_table("主精 main jing per ruleset", zj, H))
            console.print(_table("精 per win: 花/素, 胡 from 精 vs the rest, 承包 bao rate, 對 per seat",
                                 family.jing_per_win(con, variant, ruleset), H))
    if variant in (None, "tongcheng_gezi"):
        gz = family.gezi_summary(con, ruleset)
        if gz.height:
            console.print(_table("個子 gezi: 3 vs 4 players", gz, H))
    if variant in (None, "yuanjiang_guihuzi"):
        breaks = family.dingzhuang_breaks(con)
        cur = con.cursor()  # keep the cursor alive while its result is read
        n = cur.sql("SELECT count(*) FROM games WHERE variant = 'yuanjiang_guihuzi'").fetchall()[0][0]
        if n:
            console.print(f"定庄 dealer succession (沅江鬼胡子): {len(breaks)} break(s) across tables"
                          + ("" if not breaks else ": " + "; ".join(breaks[:5])), highlight=False)


def report_cmd(
    warehouse: Path = typer.Option(..., "--warehouse", help="Warehouse folder written by `paipu ingest`."),
    variant: Optional[str] = typer.Option(None, "--variant", help="Only this variant id (e.g. guilin)."),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", help="Only this ruleset_id."),
    players: int = typer.Option(20, "--players", help="Rows of the per-player tables."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as one JSON object: its tables (title "
                                 "and rows, unformatted) and lines of text, in order."),
) -> None:
    """Print the warehouse report: 胡率 win rate, 荒庄 draw rate, 自摸 / 点炮, 番型, 醒, 胡, 舵, players.

    Exit status 2 when the warehouse folder does not exist or holds no warehouse, or the variant is
    unknown; 1 when its catalog cannot be opened.
    """
    from ingest.cli import need_warehouse
    from replay.words import need_variant

    need_warehouse("report", warehouse, games=True)
    if variant is not None:
        need_variant("report", variant)
    try:
        con = connect(warehouse)
    except ValueError as e:
        raise typer.BadParameter(str(e), param_hint="--warehouse") from None
    except CatalogError as e:
        Console(stderr=True, highlight=False).print(Text(f"paipu report: {terminal_text(str(e))}", style="red"), soft_wrap=True)
        raise typer.Exit(1) from None
    try:
        if as_json:
            sink = _Collect()
            print_report(con, sink, variant, ruleset, players)  # type: ignore[arg-type]
            typer.echo(json.dumps({"report": sink.items}, ensure_ascii=False, default=str))
        else:
            print_report(con, Console(), variant, ruleset, players)
    finally:  # a data file damaged in place: paipu.cli.Command says so in one line
        con.close()


class _Collect:
    """The console :func:`print_report` prints to for ``--json``: each table as its title and its
    frame's rows (``_table`` keeps the frame), each line of text without its markup."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def print(self, obj: Any = "", *args: Any, **kwargs: Any) -> None:
        df = getattr(obj, "df", None)
        if df is not None:
            self.items.append({"title": str(obj.title), "rows": df.to_dicts()})
        elif isinstance(obj, str) and obj.strip():
            self.items.append({"text": Text.from_markup(obj).plain.strip()})
