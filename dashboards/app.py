"""paipu dashboard (Streamlit): ``streamlit run dashboards/app.py -- --warehouse DIR`` or
``PAIPU_WAREHOUSE=DIR``; normally started by ``paipu dashboard --warehouse DIR``.

Pages: 概览 Overview (``/overview``), 牌型与醒 Hand types (``/hand-types``), 对局审计 Game audit
(``/audit?game=ID&step=N``).
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

st.set_page_config(page_title="paipu 牌谱", page_icon="🀄", layout="centered")

# Page scripts live in screens/, not pages/: a pages/ folder beside the entry script switches
# Streamlit to folder-based pages on reruns (seen in AppTest: the sidebar filters vanished).
_PAGES = [
    st.Page("screens/overview.py", title="概览 Overview", icon="📊", url_path="home", default=True),
    st.Page("screens/hand_types.py", title="牌型与醒 Hand types", icon="🀄", url_path="hand-types"),
    st.Page("screens/audit.py", title="对局审计 Game audit", icon="🔍", url_path="audit"),
]

# The default page is served at "/" only (its url_path is reserved but unreachable); this hidden
# twin makes /overview a working link too.
_PAGES.append(st.Page("screens/overview.py", title="概览 Overview", url_path="overview", visibility="hidden"))

page = st.navigation(_PAGES)
ui.sidebar(ui.ctx())
page.run()
