"""The dashboard in a real browser: Debian's chromium driven by Playwright opens every page of the
demo warehouse and a deep link of each kind, fails on any Streamlit exception shown on a page, and
asserts what each page must show — the dispute in plain words, the split table and the differing
term on a disputed game, one variant in scope (and another from the URL), Chinese labels, a player
under 100 games with every rate and the recent-games table, a table's session, a seat's view of the
board, a seat's decision review opened from its link (``&review=SEAT``) with its table of decisions,
the board in view on a ``?step=`` link, stepping with → / ← and the buttons, the whole action list
jumping to a step, a player's decision review drawn on request, and no table cut off at the right
edge at 1,400 px. With ``PAIPU_SCREENSHOTS`` set, a screenshot of each page lands in that folder
(``make test`` takes none: drawing whole pages is slow); to refresh the ones in
``docs/screenshots/`` on purpose::

    PAIPU_SCREENSHOTS=docs/screenshots .venv/bin/python -m pytest tests/test_browser.py

Skipped (with the reason) only when chromium or the ``playwright`` package is missing; CI installs
both (``.ci/run``). ``playwright install`` is never needed: the system chromium is used.
"""

from __future__ import annotations

import os
import shutil
import urllib.parse
from pathlib import Path

import demo_warehouse
import pytest
from apptest_util import MARKDOWN, MARKDOWN_GAMES, dashboard, markdown_claim_warehouse

pytestmark = pytest.mark.long  # started first (tests/conftest.py)

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / os.environ["PAIPU_SCREENSHOTS"] if os.environ.get("PAIPU_SCREENSHOTS") else None
CHROMIUM = os.environ.get("PAIPU_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]
WIDTH = 1400


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.skip(f"chromium not installed ({CHROMIUM}); CI installs it with apt-get install chromium")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is not installed (pip install playwright)")
    exe = CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=FLAGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def server(browser, tmp_path_factory):
    demo = demo_warehouse.build(tmp_path_factory)
    # `paipu dashboard` itself: the CLI's own address and port options
    with dashboard(demo.warehouse) as base:
        yield base, demo


def _pages(demo) -> list[tuple[str, str, list[str]]]:
    """(screenshot name, path and query, texts the page must show)."""
    exp = demo.tune.experiment
    broken = urllib.parse.quote(str(demo.logs / "broken.jsonl"))
    return [
        ("overview", "", ["概览 Overview", "范围 scope: 桂林字牌 (guilin)", "走势 Over time", "各座位胡率"]),
        ("overview-variant", "?variant=tongcheng_gezi&seats=3&grain=month",
         ["范围 scope: 通城個子牌 (tongcheng_gezi) · 3 人 players", "one point per month", "平均個子 mean 個子"]),
        ("hand-types", "hand-types", ["牌型与醒", "自摸 (zimo)", "胡 per win"]),
        ("hand-types-shangdaren", "hand-types?variant=shangdaren", ["范围 scope: 上大人", "屁胡 (pihu)"]),
        ("families", "families?variant=tongcheng_gezi", ["個子 Gezi", "有人胡 % games won"]),
        ("families-jing", "families?variant=sanjing_huapai", ["精 Jing", "主精: the 精 the winner holds most of", "精的胡"]),
        ("tuning-experiment", f"tuning?variant=guilin&exp={exp}", ["成对牌局", "paired deals, B against A:", "逢几进一舵 tuo_step: 5 → 3",
                                                                 "差值一览 Differences at a glance"]),
        ("tuning-rulesets", f"tuning?variant=guilin&mode=rulesets&a=guilin-default&b={demo.double_ruleset}",
         ["自摸加舵 zimo_bonus: plus1 → double", "independent games"]),
        ("conformance", "conformance?variant=guilin&fit=1&without_rules=1",  # the demo's records carry their rules
         ["服务器一致性 Server conformance", "找到的规则 The ruleset found", "各选项的证据 Evidence per option",
          "疑似服务器错误 suspected server fault", f"审计示例 Audit the example {demo.disputed['guilin']}"]),
        ("fairness", "fairness", ["发牌位置均匀性", "与均匀洗牌相符"]),
        ("audit-disputed", f"audit?game={demo.disputed['guilin']}",
         ["结算有误 The settlement is wrong", "the server counted 25 胡; the hand makes 21 胡",
          "结算争议 Why the settlement is disputed", "计算的胡牌拆分 The computed winning split", "规则 rule",
          "Where they part", "胡 points: 申报 claimed", "§Winning shape and 胡", "贰 ← 座位 seat 0",
          "全部动作 All actions"]),
        ("audit-invalid", f"audit?game={demo.tampered['guilin']}", ["out_of_turn", "此步违规 This step fails"]),
        ("audit-step", "audit?game=example-guilin-1&step=4",
         ["shown after step 4", "rest of the wall (18", "扫 sao"]),
        ("audit-seat-view", "audit?game=example-guilin-1&step=4&seat=0",
         ["Seat 0's view", "手牌 hand (17) — 这个视角看不到 not visible from this seat", "手牌 hand (20)"]),
        ("audit-review", "audit?game=example-guilin-1&step=2&review=1",
         ["决策复盘 decision review", "座位 seat 1 的决策 decision", "与机器人相同 as the bot chooses",
          "决策复盘 Decision review · 座位 seat 1", "与机器人相同 same as the bot", "100%"]),
        ("rules", "rules?doc=guilin&section=Winning shape and 胡", ["规则 Rules", "Winning shape and 胡", "开舵"]),
        ("audit-search", "audit?player=ring-a&with=ring-b", ["找到 found"]),
        ("audit-reject", f"audit?file={broken}&line=1", ["拒收的行 Rejected line", "非 JSON bad_json", "{oops"]),
        ("collusion", "collusion", ["单向输送", "线索 lead"]),
        ("player", "player?player=ring-a", ["ring-a", "评分 Rating (openskill)", "近期走势", "胡率 win rate",
                                           "[75.8%, 100.0%]", "全体 variant mean", "A small sample: 12 局 games",
                                           "最近对局 Recent games"]),
        ("leaderboard", "leaderboard?min=5", ["排行榜", "评分 = openskill"]),
        ("session", "session?table=guilin-t0001", ["牌桌 Session", "guilin-t0001", "每一局 Round by round",
                                                   "总分 Totals after the last round"]),
    ]


def _open(page, url: str) -> None:
    """Go to ``url`` and wait until the script has finished and every chart has drawn (a screenshot
    taken earlier shows a skeleton)."""
    page.goto(url, wait_until="domcontentloaded")
    _settle(page)


def _settle(page) -> None:
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=60_000)
    page.wait_for_selector('[data-testid="stMain"] h1', timeout=30_000)
    page.wait_for_function("""() => Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"]'))
                                 .filter(c => !c.closest('details:not([open])'))  // closed expanders never draw
                                 .every(c => c.querySelector('canvas, svg'))""", timeout=30_000)
    page.wait_for_timeout(400)


_CLIPPED = """() => {
    // a table is cut off when its content is wider than the room it is given: the data grid's own
    // scroller, a static table's element, or the page itself
    const out = [];
    for (const el of document.querySelectorAll('[data-testid="stDataFrame"] .dvn-scroller')) {
        if (el.scrollWidth - el.clientWidth > 1) out.push(`dataframe ${el.scrollWidth}>${el.clientWidth}`);
    }
    for (const el of document.querySelectorAll('[data-testid="stTable"]')) {
        const t = el.querySelector('table') || el;
        if (t.scrollWidth - el.clientWidth > 1) out.push(`table ${t.scrollWidth}>${el.clientWidth}`);
    }
    const d = document.documentElement;
    if (d.scrollWidth - d.clientWidth > 1) out.push(`page ${d.scrollWidth}>${d.clientWidth}`);
    return out;
}"""


def _shot(page, name: str) -> None:
    """A screenshot of the whole page as ``SHOTS/<name>.png`` when ``PAIPU_SCREENSHOTS`` is set:
    Streamlit scrolls inside its main container, so the viewport is grown to the content's height
    first (then restored)."""
    if SHOTS is None:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    size = page.viewport_size
    height = page.evaluate("""() => Math.max(document.documentElement.scrollHeight,
        ...Array.from(document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"], section'))
           .map(e => e.scrollHeight))""")
    page.set_viewport_size({"width": size["width"], "height": min(max(int(height) + 40, size["height"]), 16000)})
    page.wait_for_timeout(300)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(size)


def test_every_page_in_a_browser(browser, server):
    """Every page (and a deep link of each kind) renders without a Streamlit exception and shows
    what it must; no table is cut off at 1,400 px; picking a row of the action list jumps to that
    step; a link from the player page opens the game in the audit page; at phone width (390 px)
    pages fit the screen."""
    base, demo = server
    ctx = browser.new_context(viewport={"width": WIDTH, "height": 900}, locale="zh-CN")
    page = ctx.new_page()
    problems = []
    for name, path, musts in _pages(demo):
        _open(page, base + path)
        exc = page.locator('[data-testid="stException"]')
        if exc.count():
            problems.append(f"{name}: {exc.first.inner_text()[:500]}")
        body = page.locator('[data-testid="stMain"]').inner_text()
        problems += [f"{name}: expected {m!r} on the page" for m in musts if m not in body]
        if "not one of the choices" in body:
            problems.append(f"{name}: a deep-link parameter was not recognised")
        if "variant=" not in page.url:
            problems.append(f"{name}: the variant in scope is not in the URL ({page.url})")
        problems += [f"{name}: cut off at {WIDTH} px: {c}" for c in page.evaluate(_CLIPPED)]
        _shot(page, name)
    assert not problems, "\n".join(problems)

    # the whole action list: picking a row (its selection box, at the grid's left edge) jumps there
    _open(page, base + f"audit?game={demo.tampered['guilin']}")
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.scroll_into_view_if_needed()  # below the board
    page.wait_for_timeout(300)
    box = grid.bounding_box()
    assert box is not None
    row_h = 35
    page.mouse.click(box["x"] + 14, box["y"] + row_h + 2 * row_h + row_h / 2)  # the third row: step 2
    page.wait_for_function("() => location.search.includes('step=2')", timeout=30_000)
    _settle(page)
    assert "第 2 步 step 2" in page.locator('[data-testid="stMain"]').inner_text()

    # a review link: the review's table of decisions is on the page, below its heading, the step's row marked
    _open(page, base + "audit?game=example-guilin-1&step=2&review=1")
    grid = page.locator('[data-testid="stDataFrame"]').first  # the finder is closed: the review's table comes first
    grid.scroll_into_view_if_needed()
    head, box = page.locator("#review").bounding_box(), grid.bounding_box()
    assert head is not None and box is not None and box["y"] > head["y"] and box["height"] > 3 * 35, (head, box)
    # the grid's accessible table, its cells as text, fills in after the grid has drawn
    page.wait_for_function("e => e.textContent.length > 0", arg=grid.element_handle(), timeout=30_000)
    cells = grid.evaluate("e => e.textContent")
    assert "吃 小一 (小二 小三)" in cells and "▶2出牌 discard出牌 玖出牌 玖" in cells, cells

    # a ?step= link opens with the board in view: the step's line and the first seat at the top of the screen
    _open(page, base + "audit?game=example-guilin-1&step=4")
    main = page.locator('[data-testid="stMain"]')
    for text in ("第 4 步 step 4", "手牌 hand (20)"):  # seat 0, the first seat of the board
        box = main.get_by_text(text).first.bounding_box()
        assert box is not None and box["y"] + box["height"] < 900, (text, box)
    # → and ← step through the game (the buttons' keyboard shortcuts), and so do the buttons; ?step= follows
    main.locator("h1").first.click()  # the page has the focus, not a text box
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => location.search.includes('step=5')", timeout=30_000)
    _settle(page)
    assert "第 5 步 step 5" in main.inner_text()
    page.get_by_role("button", name="◀ 上一步 prev").click()
    page.wait_for_function("() => location.search.includes('step=4')", timeout=30_000)
    _settle(page)
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => location.search.includes('step=3')", timeout=30_000)
    _settle(page)
    assert "第 3 步 step 3" in main.inner_text()

    # the player page's links carry query_params: one of the biggest wins opens that game in the audit page
    _open(page, base + "player?player=ring-a")
    link = page.locator('[data-testid="stPageLink"] a').filter(has_text="+16 ·").first
    gid = link.inner_text().split("·")[-1].strip()
    link.click()
    page.wait_for_url("**/audit?*game=*", timeout=30_000)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=60_000)
    page.wait_for_function("id => document.querySelector('[data-testid=\"stMain\"]').innerText.includes(id)",
                           arg=gid, timeout=30_000)
    assert not page.locator('[data-testid="stException"]').count()
    # the player's decision review, on request: the figure draws, each game a link to its review
    _open(page, base + "player?player=ring-a")
    page.get_by_role("button", name="复盘最近 20 局 Review the last 20 games").click()
    page.wait_for_function("() => document.querySelector('[data-testid=\"stMain\"]').innerText"
                           ".includes('same as the ev bot at')", timeout=60_000)
    _settle(page)
    assert not page.locator('[data-testid="stException"]').count()
    _shot(page, "player-review")

    # the audit page of a round links its table's session
    _open(page, base + f"audit?game={demo.ring_games[1]}")
    page.locator('[data-testid="stPageLink"] a').filter(has_text="整场 the whole session").first.click()
    page.wait_for_url("**/session?*table=guilin-t0001*", timeout=30_000)
    _settle(page)
    assert "每一局 Round by round" in page.locator('[data-testid="stMain"]').inner_text()
    assert not page.locator('[data-testid="stException"]').count()
    ctx.close()

    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True,
                              has_touch=True, locale="zh-CN")
    page = ctx.new_page()
    for name, path in (("overview-phone", ""), ("player-phone", "player?player=ring-a")):
        _open(page, base + path)
        assert not page.locator('[data-testid="stException"]').count(), name
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 1, f"{name}: {overflow}px wider than the screen"
        _shot(page, name)
    ctx.close()


_FROM_LOG = """() => ({
    links: Array.from(document.querySelectorAll('a[href]')).map(a => a.href).filter(h => h.includes('evil.example')),
    images: Array.from(document.querySelectorAll('img, source, image'))
        .map(i => i.src || i.srcset || i.getAttribute('href') || '').filter(u => u.includes('evil.example')),
    headings: Array.from(document.querySelectorAll('h1, h2, h3, h4, h5, h6')).map(h => h.innerText)
        .filter(t => t.includes('HEADING')),
    rows: Array.from(document.querySelectorAll('[data-testid="stTable"] tr'))
        .map(r => Array.from(r.querySelectorAll('th, td')).map(c => c.innerText.trim())),
})"""


@pytest.fixture(scope="module")
def claims_server(browser, tmp_path_factory):
    with dashboard(markdown_claim_warehouse(tmp_path_factory.mktemp("claims"))) as base:
        yield base


def test_a_claimed_result_is_text_in_the_browser(browser, claims_server):
    """A game whose claimed result holds a link, a remote image, a heading and an <img>
    in each of its strings (``win_card``, ``jing.main``, ``hand_types``, ``breakdown`` keys,
    ``xing.cards``, an ``x_`` field): its audit page, as the browser renders it, has no link to the
    site named, no image from it (and fetches nothing from it), no heading made of it, and shows
    each string literally in the tables."""
    ctx = browser.new_context(viewport={"width": WIDTH, "height": 900}, locale="zh-CN")
    page = ctx.new_page()
    fetched: list[str] = []
    page.on("request", lambda r: fetched.append(r.url) if "evil.example" in r.url else None)
    for gid, planted in zip(MARKDOWN_GAMES, MARKDOWN):
        _open(page, claims_server + "audit?" + urllib.parse.urlencode({"game": gid}))
        page.wait_for_function("() => document.querySelectorAll('[data-testid=\"stTable\"]').length >= 3",
                               timeout=30_000)  # the split, term by term, claimed vs computed
        assert not page.locator('[data-testid="stException"]').count(), gid
        got = page.evaluate(_FROM_LOG)
        assert (got["links"], got["images"], got["headings"]) == ([], [], []), (gid, got)
        assert "result_mismatch" in page.locator('[data-testid="stMain"]').inner_text()
        cells = [c for r in got["rows"] for c in r]
        assert all(any(m in c for c in cells) for m in MARKDOWN), (gid, cells)
        # the scalar fields hold this game's string alone, shown whole (the last table: claimed vs computed)
        claimed = {r[0]: r[1] for r in got["rows"] if len(r) == 4}
        assert claimed["胡牌 win card"] == planted and claimed["精 jing"] == f"主精 {planted} · 精 1", (gid, claimed)
        assert claimed[f"x_{planted}"] == planted, (gid, claimed)
    assert not fetched, fetched
    ctx.close()


def test_dashboard_listens_on_localhost_by_default(monkeypatch, tmp_path):
    """``paipu dashboard`` binds 127.0.0.1 and port 8501 unless --host / --port say otherwise, and
    serves the app through dashboards/serve.py (the command it becomes)."""
    import typer
    from typer.testing import CliRunner

    from dashboards import cli

    seen = {}

    def fake_execve(exe, cmd, env):
        seen["cmd"] = cmd
        raise typer.Exit(0)

    monkeypatch.setattr(cli.os, "execve", fake_execve)
    app = typer.Typer()
    app.command()(cli.dashboard_cmd)

    def served(*args: str) -> tuple[str, str]:
        res = CliRunner().invoke(app, ["--warehouse", str(tmp_path), *args])
        assert res.exit_code == 0, res.output
        cmd = seen.pop("cmd")
        assert cmd[cmd.index("run") + 1] == str(cli.APP) and cli.APP.name == "serve.py"  # behind the Host check
        return cmd[cmd.index("--server.address") + 1], cmd[cmd.index("--server.port") + 1]

    assert served() == ("127.0.0.1", "8501")
    assert served("--host", "0.0.0.0", "--port", "9000") == ("0.0.0.0", "9000")
