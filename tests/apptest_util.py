"""Opening a dashboard page in ``streamlit.testing.v1.AppTest``, and ``paipu dashboard`` as a real
server (:func:`dashboard`), shared by the dashboard tests."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from streamlit.testing.v1 import AppTest

from dashboards.ui import PAGE_FILES

APP = Path(__file__).resolve().parents[1] / "dashboards" / "app.py"
HOME = "screens/overview.py"  # the default page: served without switching


def open_page(monkeypatch, warehouse: Path | None, page: str, timeout: int = 60, **params: str) -> AppTest:
    """Run the app on ``warehouse`` (None: no ``PAIPU_WAREHOUSE``) as a link to ``page`` with the
    query ``params`` opens it, in one run, and assert no page exception. A page's file is named
    after its url_path (app.py), which is how a fresh AppTest finds it before its first run."""
    if warehouse is None:
        monkeypatch.delenv("PAIPU_WAREHOUSE", raising=False)
    else:
        monkeypatch.setenv("PAIPU_WAREHOUSE", str(warehouse))
    at = AppTest.from_file(str(APP), default_timeout=timeout)
    if page != HOME:
        assert Path(page).stem in PAGE_FILES, f"{page}: not a page file named after its url_path (app.py)"
        at.switch_page(page)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def page_text(at: AppTest, code: bool = False) -> str:
    """All text elements of the page (``code`` blocks too when asked), one per line."""
    kinds = ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader") + (("code",) if code else ())
    return "\n".join(str(e.value) for kind in kinds for e in getattr(at, kind))


def metric_values(at: AppTest) -> dict[str, str]:
    """The page's metrics, label → value."""
    return {m.label: m.value for m in at.metric}


def player_summary(at: AppTest):
    """The player page's summary table (figure → value, interval, variant mean, percentile)."""
    return next(t.value for t in at.table if t.value.index.name == "指标 figure")


def dataframe_with(at: AppTest, column: str):
    """The first dataframe on the page that has ``column``."""
    for df in at.dataframe:
        if column in df.value.columns:
            return df.value
    raise AssertionError(f"no dataframe with {column!r}: {[list(d.value.columns) for d in at.dataframe]}")


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def dashboard(warehouse: Path, host: str = "127.0.0.1", port: int | None = None, timeout: float = 90) -> Iterator[str]:
    """``paipu dashboard --warehouse WAREHOUSE --host HOST --port PORT`` as a real server process,
    up once ``/_stcore/health`` answers ``ok``; yields its base URL (``http://127.0.0.1:PORT/``) and
    stops it (the process and nothing else) on the way out."""
    import os
    import subprocess
    import sys
    import tempfile
    import time
    import urllib.request

    port = port or free_port()
    env = {**os.environ, "PAIPU_WAREHOUSE": str(warehouse), "STREAMLIT_SERVER_FILE_WATCHER_TYPE": "none"}
    log = tempfile.TemporaryFile()  # a file, not a pipe: a chatty server never blocks on it
    proc = subprocess.Popen(
        [sys.executable, "-c", "from paipu.cli import main; main()", "dashboard", "--warehouse", str(warehouse),
         "--host", host, "--port", str(port)], env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(base + "_stcore/health", timeout=2) as r:
                    if r.read().strip() == b"ok":
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                proc.wait(10)
                log.seek(0)
                out = log.read().decode(errors="replace")
                raise AssertionError(f"paipu dashboard did not start:\n{out[-3000:]}")
            time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()


# What a log can try to put on a page through its claimed result: a link off the site,
# a remote image (a beacon the viewer's browser fetches), a heading, raw HTML.
MARKDOWN = ("[click](https://evil.example/l)", "![x](https://evil.example/beacon.png)", "# HEADING",
            "<img src=https://evil.example/b.png>")
MARKDOWN_GAMES = tuple(f"claimed-markdown-{i}" for i in range(len(MARKDOWN)))


def markdown_claim_warehouse(root: Path) -> Path:
    """A warehouse (``root/wh``) of the worked example and one game per string of :data:`MARKDOWN`
    (:data:`MARKDOWN_GAMES`): the example with that string in every string its claimed result
    holds — ``win_card``, ``jing.main``, a ``hand_types`` entry, a ``breakdown`` key, ``xing.cards``,
    an ``x_`` extension key and its value — and the other three beside it in the lists and keys.
    Each replays to ``result_mismatch``: a disputed game, the kind an auditor opens."""
    import json

    from ingest.run import ingest

    example = (Path(__file__).resolve().parents[1] / "data" / "guilin-short.jsonl").read_text(encoding="utf-8")
    lines = [example.rstrip("\n")]
    for gid, m in zip(MARKDOWN_GAMES, MARKDOWN):
        rec = json.loads(example)
        res = rec["result"]
        others = [m, *(x for x in MARKDOWN if x != m)]
        res["hand_types"] = [*res["hand_types"], *others]
        res["win_card"] = m
        res["breakdown"] = {**res["breakdown"], **{x: 1 for x in others}}
        res["xing"] = {"cards": others, "count": res["xing"]["count"]}
        res["jing"] = {"main": m, "count": 1}
        res[f"x_{m}"] = m
        lines.append(json.dumps({**rec, "game_id": gid}, ensure_ascii=False))
    src = root / "claims.jsonl"
    src.write_text("\n".join(lines) + "\n", encoding="utf-8")
    rep = ingest([src], root / "wh", workers=1, progress=False)
    assert (rep.total().valid, rep.total().invalid) == (1, len(MARKDOWN))
    return root / "wh"
