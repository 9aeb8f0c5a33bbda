"""Opening a dashboard page in ``streamlit.testing.v1.AppTest``, shared by the dashboard tests."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = Path(__file__).resolve().parents[1] / "dashboards" / "app.py"
HOME = "screens/overview.py"  # the default page: served without switching


def open_page(monkeypatch, warehouse: Path | None, page: str, timeout: int = 60, **params: str) -> AppTest:
    """Run the app on ``warehouse`` (None: no ``PAIPU_WAREHOUSE``), switch to ``page`` with the
    query ``params``, and assert no page exception."""
    if warehouse is None:
        monkeypatch.delenv("PAIPU_WAREHOUSE", raising=False)
    else:
        monkeypatch.setenv("PAIPU_WAREHOUSE", str(warehouse))
    at = AppTest.from_file(str(APP), default_timeout=timeout).run()
    if page != HOME:
        at.switch_page(page)
    for k, v in params.items():
        at.query_params[k] = v
    if page != HOME or params:
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def page_text(at: AppTest, code: bool = False) -> str:
    """All text elements of the page (``code`` blocks too when asked), one per line."""
    kinds = ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader") + (("code",) if code else ())
    return "\n".join(str(e.value) for kind in kinds for e in getattr(at, kind))
