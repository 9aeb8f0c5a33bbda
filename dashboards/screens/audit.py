"""对局审计 Game audit: one game's verdict and, for a disputed settlement, what it changes in plain
words; the board at every step (←/→ or the arrow keys step through it, ``?step=`` follows), as the
auditor sees it or as one seat saw it; why a disputed settlement differs (the engine's split group by
group with the card another seat gave, the worked sum, the term that differs, each rule named and
linked to the Rules page), the whole action list, and claimed vs computed result; rejected lines
opened raw. The decision review (docs/review.md, off by default) sets one seat's every decision beside
the expected-value bot's, the one at the step viewed said above the board and marked in its table.

Deep links: ``/audit?game=ID&step=N&seat=S&review=R`` (``seat``: that seat's view; ``review``: the
decision review of seat R); a rejected line
``/audit?file=PATH&line=N`` (PATH as stored, or its end from a folder on when it names one file); ``&as_of=SNAPSHOT`` (a DuckLake snapshot id or a time) shows the game as
the warehouse held it then. Ids and paths are only ever bound query parameters. The game's
header links its table's session (``/session?table=…``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import polars as pl
import streamlit as st

from dashboards import audit as audit_mod
from dashboards import labels, rules_doc, search, ui

st.title("对局审计 Game audit")
c = ui.ctx()
ui.require_warehouse(c)
ss = st.session_state
if c.has_games:
    ui.scope_caption(ui.filters())  # the invalid list and the search are of this scope; any game id opens

game = str(st.query_params.get("game", "")).strip()


def _open(gid: str) -> None:
    """Point the page (and its URL) at another game, from the first step."""
    gid = gid.strip()
    if gid:
        st.query_params["game"] = gid
    else:
        st.query_params.pop("game", None)
    st.query_params.pop("step", None)


def _on_search() -> None:
    _open(ss.get("audit_search") or "")


def _on_pick() -> None:
    if ss.get("audit_pick"):
        _open(ss["audit_pick"])


def reject_panel(r: dict) -> None:
    """One rejected line as stored: where, why, and the bytes kept (shown literally)."""
    st.subheader("拒收的行 Rejected line " + ui.lit(f"{r['source_file']}:{r['source_line']}"))
    st.error(f"{labels.error_label(r.get('code'))} · 规则 rule {ui.lit(r.get('rule') or '—')}"
             + (f" · 第 {r['step']} 步 step {r['step']}" if r.get("step") is not None else "")
             + f"\n\n{ui.lit(r.get('message') or '')}", icon=":material/block:")
    size = r.get("raw_bytes")
    kept = len((r.get("raw") or "").encode("utf-8", "surrogatepass"))
    info = [f"保存 kept {kept:,} / {size:,} 字节 bytes" if isinstance(size, int) else f"保存 kept {kept:,} 字节 bytes"]
    if r.get("game_id"):
        info.append("对局编号 game id " + ui.lit(r["game_id"]))
    if r.get("claimed_variant"):
        info.append("申报玩法 claimed variant " + ui.lit(r["claimed_variant"]))
    if r.get("raw_sha256"):
        info.append("sha256 " + ui.lit(str(r["raw_sha256"])[:16] + "…"))
    st.caption(" · ".join(info))
    st.code(r.get("raw") or "", language=None, wrap_lines=True)  # a code block: the bytes as text, nothing rendered


def _open_reject() -> None:
    sel = ss.get("audit_rejects") or {}
    rows = (sel.get("selection") or {}).get("rows") or []
    table = ss.get("_audit_rejects_rows") or []
    if rows and rows[0] < len(table):
        f_, n_ = table[rows[0]]
        st.query_params["file"] = f_
        st.query_params["line"] = str(n_)


# --- finding a game: its id, an invalid one, or a search (?q=&player=&with=&table=&date=&code=&hand=) ---
_SEARCH = ("q", "player", "with", "table", "date", "code", "hand")
searching = any(ui.qp(k) for k in _SEARCH)
with st.expander("打开对局或搜索 Open a game or search", icon=":material/search:",
                 expanded=searching or not game):
    # keep the search box showing the game of the URL (deep links, picks)
    if ss.get("_audit_qp") != game:
        ss["audit_search"] = game
        ss["_audit_qp"] = game
    st.text_input("对局编号 Game id", key="audit_search", on_change=_on_search, max_chars=200,
                  placeholder="例如 e.g. example-guilin-1")

    invalid = ui.query(c.path, c.layout, "invalid_games", ui.filters()) if c.has_games else None
    if invalid is not None and invalid.height:
        meta = {r["game_id"]: r for r in invalid.iter_rows(named=True)}

        def _fmt(gid: str) -> str:
            if not gid:
                return "— 选择 pick —"
            r = meta[gid]
            step = "" if r["error_step"] is None else f" · 第 {r['error_step']} 步 step {r['error_step']}"
            return f"{gid} · {labels.error_label(r['error_code'])}{step}"

        st.selectbox(f"或选择无效对局 Or pick an invalid game ({invalid.height})", ["", *meta], key="audit_pick",
                     format_func=_fmt, on_change=_on_pick)

    st.markdown("**搜索对局 Search games**")
    sc = ui.call(c.path, c.layout, "search.choices")
    cols = st.columns(2)
    with cols[0]:
        s_text = ui.synced_text("编号包含 id contains", "q", key="s_q", placeholder="例如 e.g. sim-guilin")
        s_player = ui.synced_text("玩家 player", "player", key="s_player", placeholder="p001")
        s_table = ui.synced_text("牌桌 table", "table", key="s_table", placeholder="table_id")
    with cols[1]:
        s_date = ui.synced_text("日期 date (UTC, YYYY-MM-DD)", "date", key="s_date", max_chars=10,
                                placeholder="2026-11-29")
        s_with = ui.synced_text("同桌玩家 with player", "with", key="s_with", placeholder="p002",
                                help="两位玩家都在座的对局 games where both players sat")
        s_code = ui.synced_select("错误代码 error code", ["", *sc["codes"]], "code", key="s_code",
                                  format_func=lambda v: "全部 any" if not v else labels.error_label(v))
    s_hand = ui.synced_select("牌型 hand type", ["", *sc["hand_types"]], "hand", key="s_hand",
                              format_func=lambda v: "全部 any" if not v else labels.hand_type(v))
    day = search.parse_day(s_date)
    if s_date and day is None:
        st.warning("日期格式应为 YYYY-MM-DD The date must be YYYY-MM-DD: " + ui.lit(s_date))
    query = search.Search(text=s_text, player=s_player, with_player=s_with, table=s_table, day=day,
                          code=s_code or "", hand_type=s_hand or "")
    if not query.empty and not (s_date and day is None):
        found_games = ui.call(c.path, c.layout, "search.games", ui.filters(), query, 200)
        found_rej = ui.call(c.path, c.layout, "search.rejects", ui.filters(), query, 200)
        st.caption(f"找到 found {found_games.height}{'+' if found_games.height == 200 else ''} 局 games"
                   + (f" · {found_rej.height} 行拒收 rejected lines" if found_rej.height else "")
                   + " · 侧栏筛选也适用 the sidebar's variant/ruleset filters apply")
        if found_games.height:
            st.dataframe(found_games.with_columns(
                pl.col("game_id").map_elements(lambda g: ui.url("audit", game=g), return_dtype=pl.String),
                pl.col("started_at").cast(pl.String).str.slice(0, 16),
                pl.col("hand_types").list.eval(pl.element().map_elements(labels.hand_type, return_dtype=pl.String))
                .list.join(" "),
            ).select(pl.col("game_id").alias("对局 game"), pl.col("started_at").alias("开始 started"),
                     pl.col("players").alias("玩家 players"),
                     pl.col("error_code").fill_null("✓ valid").alias("裁定 verdict"), pl.col("outcome").alias("结果"),
                     pl.col("hand_types").alias("牌型 hand types"), pl.col("points").alias("胡/息"),
                     pl.col("table_id").alias("牌桌 table")),
                hide_index=True, column_config={
                    "对局 game": st.column_config.LinkColumn(display_text=r"game=(.*)$", width=170),
                    "玩家 players": st.column_config.TextColumn(width=180),
                    "裁定 verdict": st.column_config.TextColumn(width=90), "结果": st.column_config.TextColumn(width=50),
                    "牌型 hand types": st.column_config.TextColumn(width=110),
                    "胡/息": st.column_config.NumberColumn(width=50), "开始 started": st.column_config.TextColumn(width=125),
                    "牌桌 table": st.column_config.TextColumn(width=100)})
        if found_rej.height:
            st.markdown("**拒收的行 Rejected lines** — 点选一行查看原文 pick a row to open the line as stored")
            ss["_audit_rejects_rows"] = list(zip(found_rej["source_file"].to_list(), found_rej["source_line"].to_list()))
            st.dataframe(found_rej.with_columns(pl.col("code").map_elements(labels.error_label, return_dtype=pl.String))
                         .select(pl.col("source_file").alias("文件 file"), pl.col("source_line").alias("行 line"),
                                 pl.col("game_id").alias("对局 game"),
                                 pl.col("code").alias("原因 code"), pl.col("message").alias("说明 message"),
                                 pl.col("raw").str.slice(0, 80).alias("原文 raw (start)")),
                         hide_index=True, on_select=_open_reject, selection_mode="single-row", key="audit_rejects",
                         column_config={"说明 message": st.column_config.TextColumn(width="medium"),
                                        "原文 raw (start)": st.column_config.TextColumn(width="medium")})
        if not found_games.height and not found_rej.height:
            st.info("没有符合条件的对局 No game matches.")

rej_file, rej_line = ui.qp("file", 1000), ui.qp_int("line", 0, 0, 1 << 40)
if rej_file and rej_line:
    r = ui.call(c.path, c.layout, "data.reject_line", rej_file, rej_line)
    files = [] if r is not None else ui.call(c.path, c.layout, "data.reject_files", rej_file, rej_line)
    if len(files) > 1:
        st.warning(f"这个路径对应 {len(files)} 个文件 {ui.lit(rej_file)} names {len(files)} stored files with a rejected "
                   f"line {rej_line}; give more of the path: " + ", ".join(ui.lit(f) for f in files[:10]))
    elif r is None:
        st.warning("没有这一拒收行 No such rejected line: " + ui.lit(f"{rej_file}:{rej_line}"))
    else:
        reject_panel(r)

if not game:
    if not (rej_file and rej_line):
        st.info("输入对局编号，从无效对局中选择，或搜索 Enter a game id, pick an invalid game, or search.")
    st.stop()

# spec §2: ids are 1–128 chars; a longer one cannot exist, so it never reaches the cache or DuckDB
as_of = str(st.query_params.get("as_of", "")).strip()  # ?as_of=SNAPSHOT|TIME: the warehouse as it was then
as_of_snap = None
if as_of:
    from dashboards import data
    from ingest.warehouse import check_as_of, parse_as_of

    try:
        as_of_snap = parse_as_of(as_of)
        check_as_of(c.path, as_of_snap)
        con = data.connect(c.path, snapshot=as_of_snap)
    except Exception as e:  # not a snapshot id or a time, no such snapshot, or not a DuckLake warehouse
        st.warning("无法读取该快照 Cannot read the warehouse as of " + ui.lit(as_of) + ": " + ui.lit(str(e)[:300]))
        st.stop()
    st.caption("快照 As of " + ui.lit(as_of) + " (`paipu snapshots` lists them)")
    row = data.find_game(con, game) if len(game) <= 128 else None
    found = None if row is None else {"row": row, "seats": (seats := data.game_seats(con, game, row["variant"])),
                                      "audit": audit_mod.build(row, seats)}
    con.close()
else:
    found = ui.game_audit(c.path, c.layout, game) if len(game) <= 128 else None
if found is None:
    st.warning("未找到对局 Game not found: " + ui.lit(game[:200]))
    st.stop()
if "rejects" in found:
    st.warning("此编号的行在入库时被拒收 This game id's line was rejected at ingest (not a decodable record).")
    for r in found["rejects"].iter_rows(named=True):
        reject_panel(r)
    st.stop()

row, a = found["row"], found["audit"]
deck = labels.deck_for(row["variant"])
dealer = row.get("dealer")
record = a["record"]


def rule_ref(rid: object) -> str:
    """A rule as a player reads it: its id, the name its rules doc gives it, and a link to that row
    of the doc on the Rules page (an id no doc defines is shown as it came)."""
    named = rules_doc.rule_name(rid, ui.lit)
    if not rid or rules_doc.rule(str(rid)) is None:
        return named
    return f"{named} ([规则文档 rules doc]({ui.url('rules', rule=rid)}))"


def rule_line(line: str) -> str:
    """A rule line of the explanation for a Markdown cell: the rule itself and a link to the section of
    the rules doc it comes from (the seed's file number and the repository path taken off)."""
    text, doc, section = rules_doc.split_line(line)
    if doc is None:
        return text
    return f"{text} · [{rules_doc.where(doc, section)}]({ui.url('rules', doc=doc, section=section)})"


st.subheader("对局 Game " + ui.lit(game))
info = [labels.zh(labels.VARIANTS, row["variant"]), "规则集 ruleset " + ui.lit(row.get("ruleset_id") or "—")]
if dealer is not None:
    info.append(f"庄 dealer: 座位 seat {dealer}")
if row.get("n_actions") is not None:
    info.append(f"{row['n_actions']} 步 actions")
if row.get("source_file"):
    info.append("来源 source " + ui.lit(f"{row['source_file']}:{row.get('source_line')}"))
st.caption(" · ".join(info))
if row.get("table_id"):
    ui.link("session", f"牌桌 table {ui.lit(row['table_id'])}"
            + (f" · 第 {row['round']} 局 round {row['round']}" if row.get("round") is not None else "")
            + " — 整场 the whole session", icon=":material/table_restaurant:",
            variant=row["variant"], table=row["table_id"])

# --- the dispute in plain words, first (replay/explain.py: the engine's own 胡 on the game's position) ---
ex = a.get("explain")
if ex:
    said = audit_mod.dispute_summary(ex, record, ui.lit)
    if said:
        st.warning(f"**结算有误 The settlement is wrong** — {said} [怎么算的 How it is worked out ↓](#dispute)",
                   icon=":material/gavel:")

# --- verdict ---
v = a["verdict"] or {}
errors = [e for e in v.get("errors") or [] if e]
if v.get("valid"):
    st.success("有效 valid — 回放通过全部规则检查 replay passed every rule check", icon=":material/check_circle:")
else:
    e = errors[0] if errors else {}
    where = "记录级 record-level" if e.get("step") is None else f"第 {e['step']} 步 step {e['step']}"
    st.error(f"无效 invalid — {labels.error_label(e.get('code'))} · {rule_ref(e.get('rule'))} · "
             f"{where}\n\n{ui.lit(e.get('message') or '')}", icon=":material/cancel:")
    n_err = row.get("n_errors") or len(errors)
    if len(errors) > 1 or n_err > 1:
        with st.expander(f"全部错误 All errors ({max(n_err, len(errors))})"):
            st.dataframe(pd.DataFrame(errors), hide_index=True)
if a["note"]:
    st.caption(":material/info: " + ui.lit(a["note"]))
if a.get("stored_differs"):
    stored = labels.error_label(row.get("error_code")) if not row.get("valid") else "有效 valid"
    st.warning(f"入库时的裁定不同 The verdict stored at ingest differs (engine {ui.lit(row.get('engine_version'))}: "
               f"{stored}); 上面是当前引擎的裁定 shown above is today's engine.")
if len(a["steps"]) <= 1 and any(e.get("step") is None for e in errors):
    st.caption("记录级错误，未逐步回放 Record-level error: replay did not start; only the deal is shown.")


# --- the board, step by step: right under the verdict, so a ?step= link opens on it ---
def seat_panel(seat: dict, acting: object, viewer: int | None) -> str:
    """One seat at the step as an HTML block (log text escaped): its hand (or, in another seat's
    view, only how many cards it holds), melds, discards and legal options."""
    sid = seat.get("seat")
    tags = [f"<b>座位 seat {labels.html_text(sid)}</b>"]
    if seat.get("player"):
        tags.append(f"<code>{labels.html_text(seat['player'])}</code>")
    if sid == dealer:
        tags.append("庄 dealer")
    if sid == acting:
        tags.append('<b style="color:#b23a2e">▶ 行动 acting</b>')
    if viewer is not None and sid == viewer:
        tags.append('<b style="color:#2e5e8c">◉ 视角 this view</b>')
    if seat.get("hidden"):
        n = seat.get("hand_count", 0)
        hand_html = (f"<div><small>手牌 hand ({n}) — 这个视角看不到 not visible from this seat</small><br>"
                     + ('<span style="letter-spacing:2px;color:#8a8470">' + "▮" * n + "</span>" if n else "—")
                     + "</div>")
    else:
        hand = labels.sort_cards(seat.get("hand") or [], deck)
        hand_html = f"<div><small>手牌 hand ({len(hand)})</small><br>{labels.cards_html(hand, deck)}</div>"
    melds = "".join(
        f'<div>{labels.html_text(labels.group_kind(m.get("kind"), row["variant"]))} '
        f'{labels.cards_html(m.get("cards"), deck)}'
        + (f' <small>{labels.html_text(m["points"])} {labels.points_unit(row["variant"])}</small>'
           if m.get("points") is not None else "")
        + "</div>" for m in seat.get("melds") or []) or "<br>—"
    groups = labels.group_options(seat.get("options") or [], deck)
    opt_html = "<br>".join(
        f"<b>{labels.html_text(act)}</b>" + (": " + labels.html_text("、".join(items)) if items else "")
        for act, items in groups) or "—"
    border = "#b23a2e" if sid == acting else "#d8d2c0"
    return (f'<div style="border-left:4px solid {border};padding:.2em .6em;margin:.4em 0">'
            f'<div>{" · ".join(tags)}</div>{hand_html}'
            f'<div><small>牌桌 melds</small>{melds}</div>'
            f'<div><small>弃牌 discards</small><br>{labels.cards_html(seat.get("discards"), deck)}</div>'
            + ("" if seat.get("hidden") else f'<div><small>可选 options</small><br>{opt_html}</div>')
            + "</div>")


def review_controls(n_seats: int, viewer: int | None, step: int) -> Any:
    """The decision review's toggle and seat (``?review=SEAT`` keeps it open on that seat; by default
    the seat of the view, else the winner, else seat 0) and, when it is on, the seat's decision at
    ``step`` in one line. Returns the seat's ``replay.review.Review``, or None (off, or not reviewable:
    said in a plain message)."""
    winner = (a["computed"] or {}).get("winner", row.get("winner"))
    default = viewer if viewer is not None else winner if isinstance(winner, int) and 0 <= winner < n_seats else 0
    want = ui.qp("review", 8)
    seat = int(want) if want.isdigit() and int(want) < n_seats else None
    mark = "_audit_review_qp"
    if ss.get(mark) != (game, want) or "audit_review" not in ss:  # a deep link, or another game
        ss["audit_review"] = bool(want)
        ss["audit_review_seat"] = default if seat is None else seat
        ss[mark] = (game, want)

    def _toggled() -> None:
        if ss.get("audit_review"):
            ss["audit_review_seat"] = default
            st.query_params["review"] = str(default)
        else:
            st.query_params.pop("review", None)
        ss[mark] = (game, ui.qp("review", 8))

    def _seat() -> None:
        st.query_params["review"] = str(ss["audit_review_seat"])
        ss[mark] = (game, str(ss["audit_review_seat"]))

    cols = st.columns([1.2, 2.4], vertical_alignment="center")
    on = cols[0].toggle("决策复盘 decision review", key="audit_review", on_change=_toggled,
                        help="这一座的每个决策（出牌、可选的吃碰）与期望值机器人相比 — each decision of one seat (a discard, "
                             "an optional claim) beside the expected-value bot's choice from the same view (docs/review.md)")
    if not on:
        return None
    cols[1].selectbox("复盘座位 seat reviewed", list(range(n_seats)), key="audit_review_seat", on_change=_seat,
                      label_visibility="collapsed",
                      format_func=lambda v: f"复盘 review: 座位 seat {v} "
                      + (labels.plain(names[v])[:24] if v < len(names) else ""))
    if want and seat is None:
        st.caption(f":material/warning: 链接里的 review 不是这局的座位 the link's `review` is not a seat of this game: "
                   f"{ui.lit(want)} — reviewing seat {ss['audit_review_seat']}.")
    from dashboards import review as dr
    from replay.review import ReviewError

    try:
        got = dr.game_review(c.path, as_of_snap if as_of else dr.snapshot(c), game, int(ss["audit_review_seat"]))
    except ReviewError as e:
        st.info("这局不能复盘 This game cannot be reviewed: " + ui.lit(str(e)[:300]))
        return None
    if got is None:
        st.info("数据仓库里没有这局 The warehouse holds no such game to review.")
        return None
    said = dr.at_step(got, step)
    if said:
        st.info(said + " · [复盘表 the review ↓](#review)", icon=":material/psychology:")
    else:
        later = [d.step for d in got.decisions if d.step > step]
        st.caption(f"第 {step} 步不是座位 {got.seat} 的决策 Step {step} is no decision of seat {got.seat}"
                   + (f" · 下一个 next: 第 {later[0]} 步 step {later[0]}" if later else "")
                   + " · [复盘表 the review ↓](#review)")
    return got


steps = a["steps"]
viewer: int | None = None
if steps:
    st.subheader("逐步回放 Step by step", anchor="board")
    by_step = {s["step"]: s for s in steps}
    lo, hi = steps[0]["step"], steps[-1]["step"]
    err_idx = audit_mod.first_error_step(a)
    err_step = steps[err_idx]["step"] if err_idx is not None else None
    key, mark = f"audit_step::{game}", f"_audit_step_url::{game}"
    url_step = ui.qp("step", 12)
    if key not in ss or (url_step and url_step != ss.get(mark)):  # a deep link, or a link opened in this session
        try:
            want = int(url_step)
        except ValueError:
            want = err_step if err_step is not None else lo
        ss[key] = min(max(want, lo), hi)

    def _shift(d: int) -> None:
        ss[key] = min(max(ss[key] + d, lo), hi)

    def _to_error() -> None:
        if err_step is not None:
            ss[key] = err_step

    def _jump() -> None:
        sel = ss.get(f"audit_actions::{game}") or {}
        rows = (sel.get("selection") or {}).get("rows") or []
        if rows:
            ss[key] = min(max(int(acts[rows[0]]["step"]), lo), hi)

    names = record.get("seats") if isinstance(record, dict) and isinstance(record.get("seats"), list) else []
    n_seats = len(steps[0].get("seats") or []) or len(names)
    views = ["", *(str(i) for i in range(n_seats))]
    nav = st.columns([1, 1, 1.2, 2.4], vertical_alignment="bottom")
    if hi > lo:
        nav[0].button("◀ 上一步 prev", key="audit_prev", on_click=_shift, args=(-1,), width="stretch",
                      disabled=ss[key] <= lo, shortcut="Left", help="上一步 previous step (←)")
        nav[1].button("下一步 next ▶", key="audit_next", on_click=_shift, args=(1,), width="stretch",
                      disabled=ss[key] >= hi, shortcut="Right", help="下一步 next step (→)")
        nav[2].button("⚠ 首个错误 first error", key="audit_first_error", on_click=_to_error, width="stretch",
                      disabled=err_step is None)
    with nav[3]:
        picked = ui.synced_select(
            "视角 view", views, "seat", key="audit_seat", label_visibility="collapsed",
            format_func=lambda v: "视角 view: 全部手牌 every hand (auditor)" if v == "" else
            f"视角 view: 座位 seat {v} " + (labels.plain(names[int(v)])[:24] if int(v) < len(names) else "") + " 看到的 sees",
            help="一个座位当时能看到的：自己的手牌，所有人的牌桌和弃牌；别人的手牌只显示张数 — what one seat could see "
                 "then: its own hand, every meld and discard; the other hands only as a count")
    viewer = int(picked) if picked else None
    view_extra = st.container()  # the decision review's toggle and its line at this step (filled below)
    if hi > lo:
        st.slider("步骤 step (-1 = 发牌后 after the deal)", lo, hi, key=key, label_visibility="collapsed",
                  help="步骤 step; -1 = 发牌后 after the deal")
    step = ss[key]
    st.query_params["step"] = str(step)
    ss[mark] = str(step)
    raw_snap = by_step.get(step) or max((s for s in steps if s["step"] <= step), key=lambda s: s["step"])
    snap = audit_mod.seat_view(raw_snap, viewer, deck)
    with view_extra:
        review = review_controls(n_seats, viewer, step)

    ev = snap.get("event")
    if ev is None:
        head = "**发牌后 After the deal**"
        ev_html = ""
    else:
        act = ev.get("act")
        name = labels.ACTS.get(str(act))
        head = (f"**第 {snap['step']} 步 step {snap['step']}** · 座位 seat {ui.lit(ev.get('seat'))} · "
                + (f"**{name}** " if name else "") + ui.lit(act))
        parts = []
        if ev.get("card") is not None:
            parts.append(labels.cards_html([ev["card"]], deck))
        elif act == "draw" and viewer is not None:
            parts.append("<small>(这个视角看不到摸到的牌 the card drawn is not visible from this seat)</small>")
        if ev.get("cards"):
            parts.append("＋ " + labels.cards_html(ev["cards"], deck))
        for g in ev.get("bi") or []:
            parts.append("比 bi " + labels.cards_html(g, deck))
        if ev.get("from") is not None:
            parts.append(f"来自 from seat {labels.html_text(ev['from'])}")
        if ev.get("tail"):
            parts.append("牌底 from the tail")
        ev_html = " ".join(parts)
    tail = f" · 牌墙剩余 wall left **{snap.get('wall_left')}**"  # the engine's numbers and words
    if snap.get("turn") is not None:
        tail += f" · 轮到 turn: seat {snap['turn']}"
    if snap.get("phase"):
        tail += f" · 阶段 phase {snap['phase']}"
    st.markdown(head + tail)
    if ev_html:  # one HTML block: Markdown never reads the card codes in it
        st.markdown(f"<div>{ev_html}</div>", unsafe_allow_html=True)
    if snap.get("error") or (snap["step"] == err_step and errors):
        e = snap.get("error") or errors[0]
        st.error(f"此步违规 This step fails: {labels.error_label(e.get('code'))} · {rule_ref(e.get('rule'))}"
                 f"\n\n{ui.lit(e.get('message') or '')}")

    last = snap["step"] == steps[-1]["step"]
    comp = a["computed"] or {}
    if last and isinstance(comp.get("xing"), dict) and comp["xing"].get("cards") is not None:
        st.markdown(f'<div><small>醒 xing card(s) turned — {labels.html_text(comp["xing"].get("count"))} 醒 '
                    f'matched</small><br>{labels.cards_html(comp["xing"].get("cards"), deck)}</div>',
                    unsafe_allow_html=True)
    if last and isinstance(comp.get("jing"), dict) and "main" in comp["jing"]:
        main = comp["jing"].get("main")
        st.markdown(f'<div><small>主精 main jing (the 精 the winner holds most of; {labels.html_text(comp["jing"].get("count"))} '
                    f'精 cards held)</small><br>{labels.cards_html([main] if main else [], deck, "— 无 none")}</div>',
                    unsafe_allow_html=True)
    st.caption(("下面的座位是发牌后的状态 The seats below are shown after the deal (before step 0)." if ev is None else
                f"下面的座位是第 {snap['step']} 步之后的状态（该步已执行）— the seats below are shown after step "
                f"{snap['step']} (its event applied); 可选 options are what each seat may do next.")
               + ("" if viewer is None else f" 座位 {viewer} 的视角 Seat {viewer}'s view: the other hands and the "
                  "wall's order are hidden."))

    acting = ev.get("seat") if ev else None
    for seat in snap.get("seats") or []:
        st.markdown(seat_panel(seat, acting, viewer), unsafe_allow_html=True)
    rest = None if snap.get("wall_hidden") else audit_mod.wall_after(record, snap["step"], snap.get("wall_left"))
    if rest is not None:
        st.markdown(f'<div><small>牌墙余牌 rest of the wall ({len(rest)}, 下一张在前 next card first)</small><br>'
                    f'{labels.cards_html(rest, deck, "— 空 empty")}</div>', unsafe_allow_html=True)

    if review is not None:
        from dashboards import review as dr

        st.subheader(f"决策复盘 Decision review · 座位 seat {review.seat}", anchor="review")
        dr.render_review(review, step)

    acts = audit_mod.action_rows(record, deck, row["variant"], viewer)
    if acts:
        with st.expander(f"全部动作 All actions ({len(acts)}) — 点选一行跳到该步 pick a row to jump to its step",
                         expanded=True):
            cur = ss[key]
            st.dataframe(pd.DataFrame([{
                " ": "▶" if r["step"] == cur else ("⚠" if r["step"] == err_step else ""),
                "步 step": r["step"], "座位 seat": r["seat"], "玩家 player": r["player"], "动作 act": r["act"],
                "牌 cards": r["cards"]} for r in acts]), hide_index=True, height=260, on_select=_jump,
                selection_mode="single-row", key=f"audit_actions::{game}",
                column_config={" ": st.column_config.TextColumn(width=30), "步 step": st.column_config.NumberColumn(width=60),
                               "座位 seat": st.column_config.NumberColumn(width=60)})

# --- why the settlement is disputed, worked out ---
if ex:
    x = audit_mod.explanation(ex, deck, ui.lit, record)  # its table cells are Markdown: log text as code spans
    pu, uu = labels.points_unit(row["variant"]), labels.units_unit(row["variant"])
    st.subheader("结算争议 Why the settlement is disputed", anchor="dispute")
    st.caption(f"引擎在第 {ex['step']} 步（座位 {ex['seat']} 的胡）重新判定：与回放同一段代码 — the engine judges the "
               f"position before step {ex['step']} (seat {ex['seat']}'s 胡) with the same code that replays the game.")
    if x["refused"]:
        st.error(f"引擎不认这个胡 The engine refuses the claimed 胡 · {rule_ref(x['rule'])}\n\n" + ui.lit(x["refused"]),
                 icon=":material/gavel:")
    if x["part"]:
        st.error("不符之处 Where they part — " + ui.lit(x["part"]), icon=":material/compare_arrows:")
    if x["groups"]:
        st.markdown(f"**计算的胡牌拆分 The computed winning split** (每组{pu}与规则 each group's {pu} and its rule; "
                    "来自 from names a card another seat gave)")
        st.table(pd.DataFrame([{"种类 kind": g["kind"], "牌 cards": g["cards"], pu: g["points"],
                                "来自 from": g["from"], "规则 rule": rule_line(g["rule"])} for g in x["groups"]]))
        if x["points_sum"]:
            claimed_pts = ex["points"]["claimed"]
            st.markdown(f"**{pu}: {x['points_sum']}** · 申报 claimed " + ui.lit(claimed_pts if claimed_pts is not None else "—"))
    if x["units_sum"]:
        st.markdown(f"**{uu} 计算 computed:** {x['units_sum']}")
        if x["claimed_units"]:
            st.markdown(f"**{uu} 申报 claimed:** " + ui.lit(x["claimed_units"]))
    terms = pd.DataFrame([{"项 term": t["term"], "计算 computed": t["computed"], "申报 claimed": t["claimed"],
                           "一致 match": {True: "✓", False: "✗ 不符", None: "—"}[t["same"]],
                           "规则 rule": rule_line(t["rule"])} for t in x["terms"]])
    bad_terms = [t["same"] is False for t in x["terms"]]
    st.markdown("**逐项对比 Term by term** (申报 claimed 来自记录 comes from the log)")
    st.table(terms.style.apply(lambda r: ["background-color:#ffd6d6;color:#7a0000" if bad_terms[r.name] else ""]
                               * len(r), axis=1))
    if ex.get("best"):
        st.caption(f"引擎找到更好的胡法 The engine finds a better way to this 胡: {ex['best']['points']} {pu}, "
                   f"{ex['best']['units']} {uu} via {' → '.join(map(str, ex['best']['path']))} (the log took another).")
    st.caption("规则链接打开规则页的那一节 A rule's link opens its section of the rules doc on the Rules page.")

# --- claimed vs computed ---
st.subheader("结算对比 Claimed vs computed")
diff = a["diff"]
if a["claimed"] is None:
    st.info("记录没有申报结算 The record claims no result; computed result below.")
if a["computed"] is None:
    st.caption("回放未算出结算 Replay computed no result (it stopped at an error).")
if diff:
    table = pd.DataFrame([{
        "字段 field": audit_mod.term(d["field"], row["variant"], ui.lit),  # st.table reads each cell as Markdown
        "申报 claimed": audit_mod.fmt_value(d["field"], d["claimed"], deck, d["claimed_present"], ui.lit),
        "计算 computed": audit_mod.fmt_value(d["field"], d["computed"], deck, d["computed_present"], ui.lit),
        "一致 match": {True: "✓", False: "✗ 不符", None: "—"}[d["same"]],
    } for d in diff])
    bad = [d["same"] is False for d in diff]
    styled = table.style.apply(lambda r: ["background-color:#ffd6d6;color:#7a0000" if bad[r.name] else ""] * len(r),
                               axis=1)
    st.table(styled)  # a static table wraps long values: nothing is cut off at the right edge
    n_bad = sum(bad)
    if n_bad:
        st.error(f"{n_bad} 处不符 field(s) differ: " + "、".join(
            audit_mod.term(d["field"], row["variant"], ui.lit) for d in diff if d["same"] is False)
            + (" — 见上方 结算争议 see Why the settlement is disputed above" if ex else ""))
    elif a["claimed"] is not None and any(d["same"] for d in diff):
        st.success("申报结算与计算一致 The claimed result matches the computed one.")

if a["record"] is not None:
    with st.expander("原始记录 Raw record (JSON)"):
        st.json(a["record"], expanded=False)
