"""The dashboard in a real browser: Debian's chromium driven by Playwright opens every page of the
demo warehouse (deep links included), fails on any Streamlit exception shown on a page, and saves
a screenshot of each under ``docs/screenshots/``.

Skipped (with the reason) only when chromium or the ``playwright`` package is missing; CI installs
both (``.ci/run``). ``playwright install`` is never needed: the system chromium is used.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import demo_warehouse

ROOT = Path(__file__).resolve().parent.parent
SHOTS = ROOT / "docs" / "screenshots"
CHROMIUM = os.environ.get("PAIPU_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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
def server(browser):
    demo = demo_warehouse.build()
    port = _free_port()
    env = {**os.environ, "PAIPU_WAREHOUSE": str(demo.warehouse)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "dashboards" / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none", "--", "--warehouse", str(demo.warehouse)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                out = proc.stdout.read().decode(errors="replace") if proc.stdout else ""
                pytest.fail(f"streamlit did not start:\n{out[-3000:]}")
            time.sleep(0.3)
        yield base, demo
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _pages(demo) -> list[tuple[str, str, str]]:
    """(screenshot name, path and query, text the page must show)."""
    exp = demo.tune.experiment
    return [
        ("overview", "", "概览 Overview"),
        ("hand-types", "hand-types", "牌型与醒"),
        ("tuning-experiment", f"tuning?variant=guilin&exp={exp}", "成对牌局"),
        ("tuning-rulesets", f"tuning?variant=guilin&mode=rulesets&a=guilin-default&b={demo.double_ruleset}",
         "zimo_bonus"),
        ("fairness", "fairness", "发牌位置均匀性"),
        ("audit-invalid", "audit?game=demo-bad-turn", "out_of_turn"),
        ("audit-search", "audit?player=ring-a&with=ring-b", "找到 found"),
        ("collusion", "collusion", "单向输送"),
        ("player", "player?player=ring-a", "ring-a"),
        ("leaderboard", "leaderboard?min=5&sort=net", "排行榜"),
    ]


def _open(page, url: str) -> None:
    """Go to ``url`` and wait until the script has finished and every chart has drawn (a screenshot
    taken earlier shows a skeleton)."""
    page.goto(url, wait_until="domcontentloaded")
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=60_000)
    page.wait_for_selector('[data-testid="stMain"] h1', timeout=30_000)
    page.wait_for_function("""() => Array.from(document.querySelectorAll('[data-testid="stVegaLiteChart"]'))
                                 .filter(c => !c.closest('details:not([open])'))  // closed expanders never draw
                                 .every(c => c.querySelector('canvas, svg'))""", timeout=30_000)
    page.wait_for_timeout(300)


def _shot(page, path: Path) -> None:
    """A screenshot of the whole page: Streamlit scrolls inside its main container, so the viewport
    is grown to the content's height first (then restored)."""
    size = page.viewport_size
    height = page.evaluate("""() => Math.max(document.documentElement.scrollHeight,
        ...Array.from(document.querySelectorAll('[data-testid="stMain"], [data-testid="stAppViewContainer"], section'))
           .map(e => e.scrollHeight))""")
    page.set_viewport_size({"width": size["width"], "height": min(max(int(height) + 40, size["height"]), 16000)})
    page.wait_for_timeout(300)
    page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(size)


def test_every_page_in_a_browser(browser, server):
    """Every page renders without a Streamlit exception and shows its content (deep links
    honoured); a link from the player page opens the game in the audit page; at phone width
    (390 px) pages fit the screen. Screenshots land in docs/screenshots/."""
    base, demo = server
    SHOTS.mkdir(parents=True, exist_ok=True)
    ctx = browser.new_context(viewport={"width": 1440, "height": 900}, locale="zh-CN")
    page = ctx.new_page()
    problems = []
    for name, path, must in _pages(demo):
        _open(page, base + path)
        exc = page.locator('[data-testid="stException"]')
        if exc.count():
            problems.append(f"{name}: {exc.first.inner_text()[:500]}")
        body = page.locator('[data-testid="stMain"]').inner_text()
        if must not in body:
            problems.append(f"{name}: expected {must!r} on the page")
        if "not one of the choices" in body:
            problems.append(f"{name}: a deep-link parameter was not recognised")
        _shot(page, SHOTS / f"{name}.png")
    assert not problems, "\n".join(problems)

    # the player page's links carry query_params: one opens that game in the audit page
    _open(page, base + "player?player=ring-a")
    page.locator('[data-testid="stPageLink"] a').filter(has_text=demo.ring_games[-1]).first.click()
    page.wait_for_url("**/audit?game=*", timeout=30_000)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=60_000)
    page.wait_for_function("id => document.querySelector('[data-testid=\"stMain\"]').innerText.includes('对局 Game ' + id)",
                           arg=demo.ring_games[-1], timeout=30_000)
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
        _shot(page, SHOTS / f"{name}.png")
    ctx.close()
