"""paipu dashboard (Streamlit), started by ``paipu dashboard --warehouse DIR``: that runs
``dashboards/serve.py``, this app behind a Host check (``streamlit run dashboards/app.py -- --warehouse
DIR`` or ``PAIPU_WAREHOUSE=DIR`` serves it without one).

Every page is of one variant at a time (the sidebar: variant, seat count, rulesets, UTC dates,
valid-only, experiments), and the sidebar's filters are query parameters of every page
(``?variant=V&seats=N&ruleset=R1,R2&from=YYYY-MM-DD&to=YYYY-MM-DD&valid=0&experiments=1``), kept as
the reader moves between pages, so a view is shared by its link.

Pages (url_path, deep-link parameters):

- operators: 概览 Overview (``/overview``, ``?grain=day|week|month``), 牌型与醒 Hand types
  (``/hand-types``), 精·個子·定庄 Family figures (``/families``), 调规则 Rule tuning
  (``/tuning?exp=ID`` or ``&mode=rulesets&a=R&b=R``), 服务器一致性 Server conformance
  (``/conformance?fit=1&n=N``: ``paipu fit`` of the stored games), 公平性 Fairness (``/fairness``);
- auditors: 对局审计 Game audit (``/audit?game=ID&step=N&seat=N&review=N``: a seat's view, a seat's decision
  review; a rejected line ``?file=PATH&line=N``;
  search ``?q=&player=&with=&table=&date=&code=&hand=``), 合谋线索 Collusion leads (``/collusion``);
  规则 Rules (``/rules?doc=VARIANT&section=TITLE`` or ``?rule=VARIANT.ID``: the rules doc the audit page cites);
- players: 玩家 Player (``/player?player=ID``; without ``variant``, the player's most played), 排行榜 Leaderboard
  (``/leaderboard?min=N&sort=KEY``), 牌桌 Session (``/session?table=ID``: one table's rounds and running totals).
"""

from __future__ import annotations

import sys
from pathlib import Path

# `streamlit run dashboards/app.py` puts only dashboards/ on sys.path; the package needs the repo root.
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

import streamlit as st  # noqa: E402

from dashboards import ui  # noqa: E402
from ingest.warehouse import unreadable_error  # noqa: E402

st.set_page_config(page_title="paipu 牌谱", page_icon="🀄", layout="wide")

# Page scripts live in screens/, not pages/: a pages/ folder beside the entry script switches
# Streamlit to folder-based pages on reruns (seen in AppTest: the sidebar filters vanished).
_P = {
    "overview": st.Page("screens/overview.py", title="概览 Overview", icon=":material/bar_chart:", url_path="home", default=True),
    "hand-types": st.Page("screens/hand-types.py", title="牌型与醒 Hand types", icon=":material/style:", url_path="hand-types"),
    "families": st.Page("screens/families.py", title="精·個子·定庄 Family figures", icon=":material/diamond:", url_path="families"),
    "tuning": st.Page("screens/tuning.py", title="调规则 Rule tuning", icon=":material/balance:", url_path="tuning"),
    "conformance": st.Page("screens/conformance.py", title="服务器一致性 Server conformance", icon=":material/rule:",
                           url_path="conformance"),
    "fairness": st.Page("screens/fairness.py", title="公平性 Fairness", icon=":material/casino:", url_path="fairness"),
    "audit": st.Page("screens/audit.py", title="对局审计 Game audit", icon=":material/search:", url_path="audit"),
    "collusion": st.Page("screens/collusion.py", title="合谋线索 Collusion leads", icon=":material/policy:", url_path="collusion"),
    "player": st.Page("screens/player.py", title="玩家 Player", icon=":material/person:", url_path="player"),
    "leaderboard": st.Page("screens/leaderboard.py", title="排行榜 Leaderboard", icon=":material/leaderboard:", url_path="leaderboard"),
    "session": st.Page("screens/session.py", title="牌桌 Session", icon=":material/table_restaurant:", url_path="session"),
    "rules": st.Page("screens/rules.py", title="规则 Rules", icon=":material/menu_book:", url_path="rules"),
}
# The default page is served at "/" only (its url_path is reserved but unreachable); this hidden
# twin makes /overview a working link too.
_twin = st.Page("screens/overview.py", title="概览 Overview", url_path="overview", visibility="hidden")
_PAGES = {
    "运营 Operators": [_P["overview"], _P["hand-types"], _P["families"], _P["tuning"], _P["conformance"], _P["fairness"]],
    "审计 Audit": [_P["audit"], _P["collusion"], _P["rules"]],
    "玩家 Players": [_P["player"], _P["leaderboard"], _P["session"], _twin],
}

page = st.navigation(_PAGES)
run = ui.begin_run()
try:
    ui.page_scope(page.url_path, run)
    ui.sidebar(run)
    page.run()
except Exception as e:
    if not unreadable_error(e):  # a data file damaged in place says so; anything else is shown as raised
        raise
    ui.unreadable(run, e)
