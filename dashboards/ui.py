"""Streamlit glue shared by the pages: where the warehouse is, the one cached DuckDB connection,
cached query results, the sidebar filters, charts and card tiles.

Caching (stack.md): one hardened root connection per warehouse layout via ``st.cache_resource``
(shared by every session; each query takes its own cursor in ``dashboards.data``), and small
aggregated frames via ``st.cache_data`` with a TTL so a new ingest shows up within a minute.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import altair as alt
import duckdb
import polars as pl
import streamlit as st

from analytics import queries as aq
from analytics import rescore
from analytics.stats import Interval
from dashboards import audit as audit_mod
from dashboards import collusion, data, fairness, labels, players, search
from ingest.warehouse import CatalogError, MissingDataFiles

TTL = 60  # seconds a query result may be stale after an ingest


def warehouse_arg(argv: list[str] | None = None) -> str | None:
    """The warehouse directory: ``--warehouse DIR`` after ``streamlit run app.py --``, else the
    ``PAIPU_WAREHOUSE`` environment variable, else None."""
    parser = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    parser.add_argument("--warehouse")
    try:
        ns, _ = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    except (argparse.ArgumentError, SystemExit):
        ns = argparse.Namespace(warehouse=None)
    return ns.warehouse or os.environ.get("PAIPU_WAREHOUSE") or None


@st.cache_resource(max_entries=4, show_spinner=False)
def _root(warehouse: str, lay: tuple[bool, ...]) -> duckdb.DuckDBPyConnection:
    # keyed on the layout too: views over tables that had no files yet are empty stand-ins
    return data.connect(warehouse)


class Ctx:
    """The warehouse this session looks at: ``path`` (absolute str), ``layout`` (tables with
    files), and ``problem`` (a message when there is nothing to query)."""

    def __init__(self) -> None:
        arg = warehouse_arg()
        self.path: str = ""
        self.layout: tuple[bool, ...] = tuple(False for _ in data.TABLES)
        self.problem: str | None = None
        if not arg:
            self.problem = ("未设置数据仓库 No warehouse given: start with `paipu dashboard --warehouse DIR` "
                            "or set `PAIPU_WAREHOUSE`.")
            return
        p = Path(arg).expanduser().resolve()
        self.path = str(p)
        if not p.is_dir():
            self.problem = f"数据仓库不存在 The warehouse folder does not exist: `{p}`"
            return
        try:
            self.layout = data.layout(p)
        except MissingDataFiles as e:  # a lost disk, a manual clean-up, a partial copy
            self.problem = (f"数据文件缺失 {len(e.lost)} data file{'s' if len(e.lost) > 1 else ''} of the warehouse "
                            f"{'are' if len(e.lost) > 1 else 'is'} missing or damaged: {labels.text(e.lost[0].path)} "
                            f"({e.lost[0].table}, {e.lost[0].state()}). Run {labels.text(f'paipu check --warehouse {p} --repair')} "
                            "to drop the rows they held and name the sources to ingest again, then reload.")
        except CatalogError as e:  # a damaged catalog.sqlite, an unreachable PostgreSQL
            self.problem = f"数据仓库的目录打不开 The warehouse's catalog cannot be opened: {labels.text(e)}"

    @property
    def has_games(self) -> bool:
        """True when the ``games`` table has files."""
        return self.layout[list(data.TABLES).index("games")]

    @property
    def empty(self) -> bool:
        """True when no table has a file."""
        return not any(self.layout)

    def con(self) -> duckdb.DuckDBPyConnection:
        """The shared root connection (callers' queries take cursors from it)."""
        return _root(self.path, self.layout)


_RUN_CTX = "_paipu_ctx"


def begin_run() -> Ctx:
    """The warehouse as this run of the app finds it, checked once (its files, which tables hold
    rows) and kept in the session for :func:`ctx`. The entry script calls it first on every run."""
    c = st.session_state[_RUN_CTX] = Ctx()
    return c


def ctx() -> Ctx:
    """This run's :class:`Ctx` (:func:`begin_run`); a page run without the entry script checks anew."""
    c = st.session_state.get(_RUN_CTX)
    return c if isinstance(c, Ctx) else Ctx()


def require_warehouse(c: Ctx) -> None:
    """Stop the page with a friendly message when there is no warehouse or it is empty."""
    if c.problem:
        st.info(c.problem)
        st.stop()
    if c.empty:
        st.info("数据仓库是空的 The warehouse is empty — nothing ingested yet. Run "
                "`paipu ingest LOGS... --warehouse DIR`, then reload.")
        st.caption(f"warehouse: `{c.path}`")
        st.stop()


def unreadable(c: Ctx, e: Exception) -> None:
    """The page's end when a warehouse file cannot be read (damaged in place): what DuckDB said and
    the command that names the damaged files and drops them, as ``paipu`` says it."""
    from replay.words import first_line

    st.error(f"数据仓库读不出来 The warehouse cannot be read: {labels.text(first_line(e).rstrip('.'))}. Run "
             f"{labels.text(f'paipu check --warehouse {c.path} --repair')} to name the damaged files, drop the rows "
             "they held and name the sources to ingest again, then reload.")


# --- cached queries (arguments are the cache key; the connection comes from _root) ----------

@st.cache_data(ttl=TTL, max_entries=16, show_spinner=False)
def choices(wh: str, lay: tuple[bool, ...]) -> pl.DataFrame:
    """The sidebar's scope choices (see :func:`dashboards.data.scope_choices`)."""
    return data.scope_choices(_root(wh, lay))


@st.cache_data(ttl=TTL, max_entries=128, show_spinner=False)
def query(wh: str, lay: tuple[bool, ...], name: str, f: data.Filters, *args: Any) -> Any:
    """Result of ``dashboards.data.<name>(con, f, *args)`` for the overview and hand-type pages."""
    allowed = {"summary", "rejects_by_code", "errors_by_code", "win_rate_by_seat", "win_rate_by_role",
               "win_kinds", "hand_type_counts", "value_counts", "invalid_games", "timeline"}
    if name not in allowed:
        raise ValueError(name)
    return getattr(data, name)(_root(wh, lay), f, *args)


@st.cache_data(ttl=TTL, max_entries=32, show_spinner=False)
def game_audit(wh: str, lay: tuple[bool, ...], game_id: str) -> dict[str, Any] | None:
    """``{"row", "seats", "audit"}`` of one game, or ``{"rejects": frame}`` / None when not a game."""
    con = _root(wh, lay)
    row = data.find_game(con, game_id)
    if row is None:
        rej = data.find_rejects(con, game_id)
        return {"rejects": rej} if rej.height else None
    seats = data.game_seats(con, game_id, row["variant"])
    return {"row": row, "seats": seats, "audit": audit_mod.build(row, seats)}


# Query functions the pages may call through :func:`call` (name -> function(con, *args)).
_CALLS: dict[str, Any] = {
    "players.find_players": players.find_players, "players.player_summary": players.player_summary,
    "players.recent_games": players.recent_games, "players.hand_types": players.hand_types,
    "players.xing": players.xing, "players.xing_counts": players.xing_counts,
    "players.opponents": players.opponents, "players.extremes": players.extremes,
    "players.leaderboard": players.leaderboard, "players.player_rulesets": players.player_rulesets,
    "players.rank": players.rank, "players.player_variants": players.player_variants,
    "collusion.pairs_together": collusion.pairs_together, "collusion.one_way_flows": collusion.one_way_flows,
    "fairness.segment_counts": fairness.segment_counts, "fairness.first_cards": fairness.first_cards,
    "fairness.xing_first_cards": fairness.xing_first_cards, "fairness.dealer_advantage": fairness.dealer_advantage,
    "search.games": search.games, "search.rejects": search.rejects, "search.choices": search.choices,
    "data.partitions": data.partitions, "data.engine_versions": data.engine_versions,
    "data.last_ingested": data.last_ingested, "data.reject_examples": data.reject_examples,
    "tune.experiment_arms": aq.experiment_arms, "tune.ruleset_games": aq.ruleset_games,
    "tune.compare": aq.compare, "tune.arm_sizes": aq.arm_sizes,
    "tune.rescore": rescore.warehouse_figures, "tune.play": lambda con, exp: _tune().play_changes(con, exp),
}


def _tune() -> Any:
    """analytics.tune (imported on first use: it brings the command's typer and rich)."""
    from analytics import tune

    return tune


@st.cache_data(ttl=TTL, max_entries=256, max_size=64 << 20, show_spinner=False)
def call(wh: str, lay: tuple[bool, ...], name: str, *args: Any) -> Any:
    """Cached result of the query function registered as ``name`` in :data:`_CALLS`, called
    with the shared root connection and ``args`` (filters, ids: all hashable, all bound)."""
    return _resolve(name)(_root(wh, lay), *args)


# Modules whose public query functions pages may call as "<module>.<function>" without being
# listed in _CALLS (project code only; the names come from page code, never from users).
_MODULES = {"players": "dashboards.players", "collusion": "dashboards.collusion", "fairness": "dashboards.fairness",
            "search": "dashboards.search", "data": "dashboards.data", "queries": "analytics.queries",
            "family": "analytics.family"}


def _resolve(name: str) -> Any:
    """The query function called ``name``: an entry of :data:`_CALLS`, or a public function of a
    module of :data:`_MODULES` (``"family.zhu_jing"``).

    :raises ValueError: any other name.
    """
    fn = _CALLS.get(name)
    if fn is not None:
        return fn
    mod_name, _, fn_name = name.partition(".")
    if mod_name in _MODULES and fn_name.isidentifier() and not fn_name.startswith("_"):
        import importlib

        mod = importlib.import_module(_MODULES[mod_name])
        fn = getattr(mod, fn_name, None)
        if callable(fn) and getattr(fn, "__module__", None) == mod.__name__:
            return fn
    raise ValueError(f"not a dashboard query: {name!r}")


# --- links between pages ----------------------------------------------------------------------

PAGE_FILES = {"overview": "screens/overview.py", "hand-types": "screens/hand-types.py", "families": "screens/families.py",
              "tuning": "screens/tuning.py", "fairness": "screens/fairness.py",
              "collusion": "screens/collusion.py", "player": "screens/player.py",
              "leaderboard": "screens/leaderboard.py", "audit": "screens/audit.py",
              "conformance": "screens/conformance.py", "session": "screens/session.py", "rules": "screens/rules.py"}
"""url_path -> page script (as registered in app.py)."""


def url(page: str, **params: Any) -> str:
    """A relative link to ``page`` (a url_path of :data:`PAGE_FILES`) with query parameters: it
    resolves against the app's own address, base path included."""
    from urllib.parse import urlencode

    if page not in PAGE_FILES:
        raise ValueError(page)
    q = urlencode({k: str(v) for k, v in params.items() if v not in (None, "")})
    return page + ("?" + q if q else "")


def player_url(player: str, variant: str | None = None, **params: Any) -> str:
    """A link to the Player page of ``player`` in ``variant`` (without one the page opens on the
    variant the player played most: :func:`page_scope`); the player id comes last, so a link
    column shows it with ``display_text=r"player=(.*)$"``."""
    return url("player", variant=variant, **params, player=player)


def page_scope(page: str, c: Ctx) -> None:
    """A link that names a player (Player page), a table (Session page) or a game (Game audit) but
    no variant opens on that player's most played variant (outside experiments), the table's own or
    the game's own (and its seat count), not on the most played variant of the warehouse: the URL
    gets that ``variant`` before the sidebar reads it."""
    if qp("variant") or c.problem or not c.has_games:
        return
    if page == "audit" and qp("game", 128):
        row = call(c.path, c.layout, "data.find_game", qp("game", 128))
        if row is not None and row.get("variant"):
            st.query_params["variant"] = str(row["variant"])
            if row.get("n_seats"):
                st.query_params["seats"] = str(row["n_seats"])
    elif page == "player" and qp("player"):
        where = call(c.path, c.layout, "players.player_variants", qp("player"))
        if where.height:
            st.query_params["variant"] = str(where["variant"][0])
    elif page == "session" and qp("table", 200):
        rows = call(c.path, c.layout, "queries.table_session", qp("table", 200))
        if rows.height:
            st.query_params["variant"] = str(rows["variant"][0])


def link(page: str, label: str, icon: str | None = None, **params: Any) -> None:
    """``st.page_link`` to another page carrying ``params`` as query parameters."""
    st.page_link(PAGE_FILES[page], label=label, icon=icon,
                 query_params={k: str(v) for k, v in params.items() if v not in (None, "")})


def qp(name: str, max_len: int = 128) -> str:
    """A query parameter as a stripped string ("" when absent), cut to ``max_len`` characters
    (values only ever reach SQL as bound parameters)."""
    v = st.query_params.get(name, "")
    return str(v).strip()[:max_len]


def qp_int(name: str, default: int, lo: int, hi: int) -> int:
    """An integer query parameter clamped to [lo, hi]; ``default`` when absent or not a number."""
    try:
        return min(max(int(qp(name, 12)), lo), hi)
    except ValueError:
        return default


def synced_select(label: str, options: list[Any], param: str, *, key: str, format_func: Any = str,
                  default: Any = None, help: str | None = None, label_visibility: str = "visible") -> Any:
    """A selectbox whose value follows the query parameter ``param`` both ways: a deep link
    selects the option, picking an option rewrites the URL. A parameter that is not one of the
    ``options`` (a stale or hand-made link) falls back to ``default`` (or the first option) and
    is reported with a caption, never used."""
    ss = st.session_state
    want = qp(param)
    if not options:
        return None
    mark = f"_{key}_qp"
    if key not in ss or ss.get(mark) != want or ss[key] not in options:
        ss[key] = want if want in options else (default if default in options else options[0])
        ss[mark] = want
        if want and want not in options:
            st.caption(f":material/warning: 链接里的 {param} 不存在 the link's `{param}` is not one of the choices: "
                       f"{lit(want[:60])} — showing the default.")

    def _sync() -> None:
        st.query_params[param] = str(ss[key])
        ss[mark] = str(ss[key])

    return st.selectbox(label, options, key=key, format_func=format_func, on_change=_sync, help=help,
                        label_visibility=label_visibility)


def synced_text(label: str, param: str, *, key: str, max_chars: int = 128, placeholder: str = "",
                help: str | None = None) -> str:
    """A text input whose value follows the query parameter ``param`` both ways (empty removes
    the parameter). The value is only ever used as a bound parameter."""
    ss = st.session_state
    want = qp(param, max_chars)
    mark = f"_{key}_qp"
    if ss.get(mark) != want:
        ss[key] = want
        ss[mark] = want

    def _sync() -> None:
        v = str(ss.get(key) or "").strip()[:max_chars]
        if v:
            st.query_params[param] = v
        else:
            st.query_params.pop(param, None)
        ss[mark] = v

    st.text_input(label, key=key, max_chars=max_chars, placeholder=placeholder, on_change=_sync, help=help)
    return str(ss.get(key) or "").strip()[:max_chars]


# --- figures with their intervals -------------------------------------------------------------

def fmt(x: float | None, kind: str = "rate", signed: bool = False) -> str:
    """A rate/share as ``12.3%`` (``+1.2 pp`` when signed), a mean as ``5.20`` (``+0.40``)."""
    if x is None:
        return "—"
    if kind in ("rate", "share"):
        return f"{x * 100:+.1f} pp" if signed else f"{x * 100:.1f}%"
    return f"{x:+.2f}" if signed else f"{x:.2f}"


def ci(iv: Interval | tuple[float | None, float | None], kind: str = "rate", signed: bool = False) -> str:
    """``[lo, hi]`` of a 95% interval in the units of :func:`fmt`."""
    lo, hi = (iv.lo, iv.hi) if isinstance(iv, Interval) else iv
    if lo is None or hi is None:
        return "—"
    if kind in ("rate", "share"):
        return (f"[{lo * 100:+.1f}, {hi * 100:+.1f}] pp" if signed else f"[{lo * 100:.1f}%, {hi * 100:.1f}%]")
    return f"[{lo:+.2f}, {hi:+.2f}]" if signed else f"[{lo:.2f}, {hi:.2f}]"


def percentile(p: float | None) -> str:
    """A percent rank (0..1) as ``第 88 百分位 88th pct`` (``—`` for None)."""
    if p is None:
        return "—"
    k = round(100 * p)
    return f"第 {k} 百分位 {k}{_ordinal(k)} pct"


def _ordinal(k: int) -> str:
    """The English ordinal suffix of ``k``: 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st, 41st."""
    if k % 100 in (11, 12, 13):
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")


# --- sidebar: one variant at a time, every filter in the URL --------------------------------------

SCOPE_PARAMS = ("variant", "seats", "ruleset", "from", "to", "valid", "experiments")
"""Query parameters of the sidebar (shared by every page: a copied link shows the same scope)."""


def _variant_rows(ch: pl.DataFrame, variant: str) -> pl.DataFrame:
    return ch.filter(pl.col("variant") == variant)


def _url_in(param: str, key: str, parse: Any, ok: Any) -> None:
    """Take ``param`` from the URL into ``st.session_state[key]`` when the URL carries a value the
    session has not seen (a deep link, a pasted link, back/forward); a value that is not one of the
    choices is reported and ignored. No value in the URL (another page was opened): keep the
    session's (it is written back into the URL by :func:`_url_out`)."""
    ss = st.session_state
    raw = qp(param, 400)
    mark = f"_{key}_url"
    if raw and ss.get(mark) != raw:
        try:
            v = parse(raw)
        except ValueError:
            v = None
        if v is not None and ok(v):
            ss[key] = v
        else:
            st.caption(f":material/warning: 链接里的 {param} 不可用 the link's `{param}` is not one of the choices: "
                       f"{lit(raw[:60])} — showing the default.")
    ss[mark] = raw


def _url_out(param: str, key: str, show: Any, default: Any = None) -> None:
    """Write ``st.session_state[key]`` into the URL as ``param`` (removed at its default)."""
    ss = st.session_state
    v = ss.get(key)
    text = "" if v is None or v == default else show(v)
    if text:
        st.query_params[param] = text
    else:
        st.query_params.pop(param, None)
    ss[f"_{key}_url"] = text


def _reset_scope() -> None:
    """A new variant: its own rulesets, seat counts and dates (the old ones mean nothing there)."""
    ss = st.session_state
    for key in ("f_seats", "f_rulesets", "f_dates"):
        ss.pop(key, None)
    for param in ("seats", "ruleset", "from", "to"):
        st.query_params.pop(param, None)


def _day(text: str) -> Any:
    from datetime import date

    return date.fromisoformat(text.strip()[:10])


def sidebar(c: Ctx) -> None:
    """Filters shared by every page, rendered from the entry script so they persist across pages:
    one variant (the most played by default: figures of different variants are never mixed), its
    seat count where it has several, rulesets, a date range, the valid-only and experiment switches.
    Every one follows the URL both ways (:data:`SCOPE_PARAMS`)."""
    ss = st.session_state
    with st.sidebar:
        if c.problem or not c.has_games:
            return
        ch = choices(c.path, c.layout)
        played = ch.group_by("variant", maintain_order=True).agg(pl.col("played").sum(), pl.col("games").sum())
        variants = played["variant"].to_list()
        if not variants:
            return
        count = dict(zip(variants, played["played"].to_list()))
        _url_in("variant", "f_variant", str, lambda v: v in variants)
        if ss.get("f_variant") not in variants:
            ss["f_variant"] = variants[0]
        st.selectbox("玩法 variant", variants, key="f_variant", on_change=_reset_scope,
                     format_func=lambda v: f"{labels.name(labels.VARIANTS, v)} ({v}) · {count.get(v, 0):,} 局",
                     help="每页只看一个玩法：不同玩法的胡、息、個子不可相加 — one variant at a time: 胡, 息 and 個子 "
                          "of different games never add up. 默认对局最多的玩法 the most played is the default.")
        rows = _variant_rows(ch, ss["f_variant"])
        seat_counts = sorted({int(n) for n in rows["n_seats"].to_list() if n is not None})
        if len(seat_counts) > 1:
            by_seats = rows.group_by("n_seats").agg(pl.col("played").sum()).sort("played", descending=True)
            _url_in("seats", "f_seats", int, lambda v: v in seat_counts)
            if ss.get("f_seats") not in seat_counts:
                ss["f_seats"] = int(by_seats["n_seats"][0])
            st.radio("人数 players", seat_counts, key="f_seats", horizontal=True, format_func=lambda n: f"{n} 人",
                     help="3 人与 4 人的座位胡率不可并列 — seat win rates of 3- and 4-player tables are not comparable")
            rows = rows.filter(pl.col("n_seats") == ss["f_seats"])
        else:
            ss.pop("f_seats", None)
        rulesets = rows["ruleset_id"].to_list()
        _url_in("ruleset", "f_rulesets", lambda t: [r for r in t.split(",") if r],
                lambda v: bool(v) and all(r in rulesets for r in v))
        ss["f_rulesets"] = [r for r in ss.get("f_rulesets") or [] if r in rulesets]
        st.multiselect("规则集 ruleset", rulesets, key="f_rulesets", placeholder="全部 all",
                       format_func=lambda r: f"{r} · {int(rows.filter(pl.col('ruleset_id') == r)['games'][0]):,} 局")
        lo, hi = rows["first"].min(), rows["last"].max()
        if lo is not None and hi is not None:
            def _range(text: str) -> Any:
                a, _, b = text.partition("..")
                return (_day(a) if a else lo, _day(b) if b else hi)
            for param, i in (("from", 0), ("to", 1)):
                raw = qp(param, 10)
                if raw and ss.get(f"_f_dates_{param}_url") != raw:
                    try:
                        d = _day(raw)
                    except ValueError:
                        d = None
                    cur = list(ss.get("f_dates") or (lo, hi))
                    if d is not None:
                        cur[i] = min(max(d, lo), hi)
                        ss["f_dates"] = (cur[0], cur[1])
                    else:
                        st.caption(f":material/warning: 链接里的 {param} 不是日期 the link's `{param}` is not a "
                                   f"YYYY-MM-DD date: {lit(raw)}")
                ss[f"_f_dates_{param}_url"] = raw
            got = ss.get("f_dates")
            if not (isinstance(got, (tuple, list)) and len(got) == 2 and all(got)) or got[0] < lo or got[1] > hi:
                ss["f_dates"] = (lo, hi)
            st.date_input("日期 dates (UTC)", key="f_dates", min_value=lo, max_value=hi, format="YYYY-MM-DD",
                          help="对局开始的日期（含首尾）— the days the games started, both ends included")
            d = ss.get("f_dates")
            full = (lo, hi)
            picked = tuple(d) if isinstance(d, (tuple, list)) and len(d) == 2 else full
            for param, i in (("from", 0), ("to", 1)):
                v = picked[i] if picked != full and picked[i] != full[i] else None
                if v is None:
                    st.query_params.pop(param, None)
                else:
                    st.query_params[param] = v.isoformat()
                ss[f"_f_dates_{param}_url"] = "" if v is None else v.isoformat()
        _url_in("valid", "f_valid", lambda t: t != "0", lambda v: True)
        st.toggle("只计有效对局 valid games only", value=True, key="f_valid",
                  help="胡率、牌型等统计只用裁定有效的对局 — statistics use valid games only")
        _url_in("experiments", "f_experiments", lambda t: t == "1", lambda v: True)
        st.toggle("包含调参实验 include tuning experiments", value=False, key="f_experiments",
                  help="`paipu tune` 把同一批牌局按两套规则各打一遍；默认不计入，以免重复 — "
                       "tuning experiments play the same deals twice, so they are left out by default")
        _url_out("variant", "f_variant", str)
        _url_out("seats", "f_seats", str)
        _url_out("ruleset", "f_rulesets", lambda v: ",".join(v), default=[])
        _url_out("valid", "f_valid", lambda v: "1" if v else "0", default=True)
        _url_out("experiments", "f_experiments", lambda v: "1" if v else "0", default=False)
        st.caption(f"warehouse: `{c.path}`")


def page() -> tuple[Ctx, data.Filters]:
    """Start a page: stop with a friendly message when there is no warehouse or it is empty; else
    the page's :class:`Ctx` and the sidebar's filters (the scope said under the title when the
    warehouse has games)."""
    c = ctx()
    require_warehouse(c)
    f = filters()
    if c.has_games:
        scope_caption(f)
    return c, f


def games_page() -> tuple[Ctx, data.Filters]:
    """Start a page that needs games: :func:`page`, stopped with a friendly message when the
    warehouse holds only rejected lines."""
    c, f = page()
    if not c.has_games:
        st.info("没有对局 No games yet — only rejected lines.")
        st.stop()
    return c, f


def filters() -> data.Filters:
    """The sidebar's current filters. Every page sees one variant; where it has several seat counts,
    the rulesets of the chosen one (a ruleset fixes the seat count)."""
    ss = st.session_state
    c = ctx()
    variant = ss.get("f_variant")
    rulesets = tuple(ss.get("f_rulesets") or ())
    if variant and not rulesets and ss.get("f_seats") is not None and c.has_games:
        ch = choices(c.path, c.layout)
        rulesets = tuple(ch.filter((pl.col("variant") == variant) & (pl.col("n_seats") == ss["f_seats"]))["ruleset_id"])
    d = ss.get("f_dates")
    day_from = day_to = None
    if isinstance(d, (tuple, list)) and len(d) == 2 and c.has_games and variant:
        rows = _variant_rows(choices(c.path, c.layout), variant)
        lo, hi = rows["first"].min(), rows["last"].max()
        day_from = d[0] if lo is not None and d[0] > lo else None
        day_to = d[1] if hi is not None and d[1] < hi else None
    return data.Filters((variant,) if variant else (), rulesets, bool(ss.get("f_valid", True)),
                        bool(ss.get("f_experiments", False)), day_from, day_to)


def scope_caption(f: data.Filters) -> None:
    """Say what the page's figures are over: variant, seat count, rulesets, dates, valid-only."""
    ss = st.session_state
    parts = [labels.zh(labels.VARIANTS, f.variants[0]) if f.variants else "全部玩法 every variant"]
    if ss.get("f_seats") is not None:
        parts.append(f"{ss['f_seats']} 人 players")
    picked = ss.get("f_rulesets") or []
    parts.append("规则集 " + ", ".join(picked) if picked else "全部规则集 every ruleset")
    if f.dated:
        parts.append(f"{f.day_from or '…'} – {f.day_to or '…'} (UTC)")
    parts.append("有效对局 valid games" if f.valid_only else "全部对局 valid and invalid")
    if f.experiments:
        parts.append("含调参实验 experiments included")
    st.caption("范围 scope: " + " · ".join(parts) + " — 侧栏可改 change it in the sidebar")


# --- rendering helpers ----------------------------------------------------------------------

lit = labels.text
"""Log text for Markdown, shown literally (:func:`dashboards.labels.text`): in text, alerts, labels,
and in every cell of an ``st.table``, which Streamlit reads as Markdown too."""


def cards(codes: Any, deck: Any, empty: str = "—") -> None:
    """Cards as tiles (escaped HTML in one HTML block: codes come from logs)."""
    st.markdown(f"<div>{labels.cards_html(codes, deck, empty)}</div>", unsafe_allow_html=True)


def hbar(df: pl.DataFrame, cat: str, val: str, *, cat_title: str, val_title: str,
         fmt: str = "d", text: str | None = None) -> alt.Chart:
    """Horizontal bars (categories on the y axis read well at phone width), value printed at the end."""
    # no y title: the section heading names the categories, and a vertical CJK title wastes phone width;
    # the order is the frame's, given explicitly: with sort=None Vega kept the previous data's order
    # when a filter changed the rows in place
    y = alt.Y(f"{cat}:N", title=None, sort=df[cat].to_list(),
              axis=alt.Axis(labelAngle=0, labelLimit=220, labelOverlap=False))
    x = alt.X(f"{val}:Q", title=val_title, axis=alt.Axis(labelAngle=0, format=fmt))
    base = alt.Chart(df).encode(y=y, x=x, tooltip=[alt.Tooltip(f"{cat}:N", title=cat_title),
                                                   alt.Tooltip(f"{val}:Q", title=val_title, format=fmt)])
    bars = base.mark_bar(color="#b23a2e")
    label_text = alt.Text(f"{text}:N") if text else alt.Text(f"{val}:Q", format=fmt)
    label = base.mark_text(align="left", dx=3).encode(text=label_text)
    return (bars + label).properties(height=max(90, 40 * df.height + 50))


def vbar(df: pl.DataFrame, x: str, y: str, *, x_title: str, y_title: str, binned: int | None = None) -> alt.Chart:
    """Vertical bars of a distribution (``binned``: bin width for a wide numeric range)."""
    if binned:
        xenc = alt.X(f"{x}:Q", bin=alt.Bin(step=binned), title=x_title, axis=alt.Axis(labelAngle=0))
        yenc = alt.Y(f"sum({y}):Q", title=y_title, axis=alt.Axis(labelAngle=0, titleAngle=0, titleAlign="left",
                                                                   titleAnchor="end", titleY=-8))
    else:
        xenc = alt.X(f"{x}:O", title=x_title, axis=alt.Axis(labelAngle=0))
        yenc = alt.Y(f"{y}:Q", title=y_title, axis=alt.Axis(labelAngle=0, titleAngle=0, titleAlign="left",
                                                             titleAnchor="end", titleY=-8))
    return alt.Chart(df).mark_bar(color="#2e5e8c").encode(x=xenc, y=yenc, tooltip=[x, y]).properties(height=240)


def chart(c: alt.Chart | alt.LayerChart) -> None:
    """Show an altair chart at the container's width and the chart's own height (Streamlit ignores
    the height inside the spec, which squeezed the bars into one band)."""
    h = c.height if isinstance(c.height, int) else "content"
    st.altair_chart(c, width="stretch", height=h)
