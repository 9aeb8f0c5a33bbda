"""What ``paipu dashboard`` runs: ``streamlit run dashboards/serve.py`` serves the dashboard
(``app.py``) as an ``st.App`` behind :class:`HostGuard`.

DNS rebinding: a page on an attacker's name that resolves to 127.0.0.1 reaches the local
dashboard with its own name in ``Host`` (and a matching ``Origin``, which Streamlit accepts on
its websocket). So every HTTP request and websocket upgrade must name this server: ``localhost``,
``127.0.0.1`` or ``[::1]``, or the ``--host`` value (``server.address``), each with the server's
port; on a wildcard address (``0.0.0.0``, ``::``) any IP literal as well (a literal is never
resolved, so it cannot be rebound). Anything else is refused with 403 before Streamlit sees it.

Self-contained (Streamlit and Starlette only): ``streamlit run`` imports it as a top-level
module from ``dashboards/``.
"""

from __future__ import annotations

import ipaddress
from typing import Any, Awaitable, Callable
from urllib.parse import urlsplit

import streamlit as st
from starlette.middleware import Middleware

LOCAL = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARDS = frozenset({"", "0.0.0.0", "::"})
REFUSED = (b"403: this dashboard answers only to its own address (localhost, 127.0.0.1 or the --host "
           b"given to paipu dashboard), not to the name in this request's Host header.\n")


def _ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_allowed(host: str | None, address: str | None, port: int) -> bool:
    """Whether a ``Host`` header names this server, bound to ``address`` (``server.address``;
    None or "" is every interface) on ``port``. A Host without a port means port 80."""
    if not host:
        return False
    try:
        parts = urlsplit(f"//{host}")
        name, given = parts.hostname, parts.port
    except ValueError:  # a port that is not a number, an unclosed [
        return False
    if not name or parts.username is not None or parts.password is not None or parts.path or parts.query \
            or parts.fragment or (given if given is not None else 80) != port:
        return False
    name = name.rstrip(".").lower()
    bound = (address or "").strip("[]").rstrip(".").lower()
    return name in LOCAL or name == bound or (bound in WILDCARDS and _ip(name))


class HostGuard:
    """ASGI middleware: HTTP requests and websocket upgrades whose ``Host`` is not this server's
    get 403 (a websocket is closed before it is accepted, which the server answers with 403)."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        from streamlit import config

        host = next((v.decode("latin-1") for k, v in scope.get("headers") or [] if k == b"host"), None)
        # read per request: the address and port the server was started with
        if host_allowed(host, config.get_option("server.address"), int(config.get_option("server.port"))):
            return await self.app(scope, receive, send)
        if scope["type"] == "websocket":
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return None
        await send({"type": "http.response.start", "status": 403,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                (b"content-length", str(len(REFUSED)).encode())]})
        await send({"type": "http.response.body", "body": REFUSED})
        return None


app = st.App("app.py", middleware=[Middleware(HostGuard)])
