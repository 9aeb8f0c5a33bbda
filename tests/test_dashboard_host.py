"""``paipu dashboard`` answers only to its own names.

DNS rebinding: a page on an attacker's name that resolves to 127.0.0.1 talks to the local dashboard
with that name in ``Host`` (and an ``Origin`` that matches it, which Streamlit's websocket accepts).
A real ``paipu dashboard`` is started on a free port and sent requests with good and bad ``Host``
headers: plain HTTP (the health check among them) and the websocket upgrade of ``/_stcore/stream``
as a raw request, as a browser would send it. The rule itself: :func:`dashboards.serve.host_allowed`.
"""

from __future__ import annotations

import base64
import http.client
import os
import socket

import pytest
from apptest_util import dashboard

from dashboards.serve import host_allowed


@pytest.fixture(scope="module")
def port(tmp_path_factory):
    # an empty warehouse: the page says so; what is tested is the server in front of it
    with dashboard(tmp_path_factory.mktemp("wh")) as base:
        yield int(base.rstrip("/").rsplit(":", 1)[1])


def _get(port: int, path: str, host: str) -> tuple[int, bytes]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        c.putrequest("GET", path, skip_host=True)
        c.putheader("Host", host)
        c.endheaders()
        r = c.getresponse()
        return r.status, r.read()
    finally:
        c.close()


def _upgrade(port: int, host: str, origin: str) -> int:
    """The status of a websocket upgrade of ``/_stcore/stream`` (101: accepted)."""
    key = base64.b64encode(os.urandom(16)).decode()
    req = (f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: streamlit\r\n"
           f"Origin: {origin}\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.sendall(req.encode())
        head = b""
        while b"\r\n" not in head:
            chunk = s.recv(1024)
            if not chunk:
                break
            head += chunk
    return int(head.split(b" ", 2)[1])


def _bad(port: int) -> list[str]:
    return [f"evil.example:{port}", f"127.0.0.1.evil.example:{port}", f"localhost.evil.example:{port}",
            f"user@127.0.0.1:{port}", f"localhost:{port + 1}", "localhost", f"10.0.0.1:{port}"]


def test_http_answers_its_own_names_only(port):
    for host in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}", f"[::1]:{port}"):
        assert _get(port, "/_stcore/health", host) == (200, b"ok"), host
        assert _get(port, "/", host)[0] == 200, host
    for host in _bad(port):
        for path in ("/_stcore/health", "/", "/audit?game=x", "/_stcore/host-config"):
            status, body = _get(port, path, host)
            assert status == 403 and b"Host header" in body, (host, path, status)


def test_the_websocket_answers_its_own_names_only(port):
    for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
        assert _upgrade(port, host, f"http://{host}") == 101, host
    for host in _bad(port):  # Origin matching Host: what a rebound page sends
        assert _upgrade(port, host, f"http://{host}") == 403, host
    assert _upgrade(port, f"evil.example:{port}", f"http://127.0.0.1:{port}") == 403


def test_the_rule():
    """localhost, 127.0.0.1, [::1] and the --host value, each on the server's port (80 when the
    Host has none); on a wildcard address IP literals too (never resolved, so never rebound)."""
    ok = [("127.0.0.1:8501", "127.0.0.1"), ("localhost:8501", "127.0.0.1"), ("[::1]:8501", "127.0.0.1"),
          ("localhost.:8501", "127.0.0.1"), ("dash.lan:8501", "dash.lan"), ("DASH.lan:8501", "dash.lan."),
          ("192.168.1.5:8501", "0.0.0.0"), ("[fe80::1]:8501", "::"), ("localhost:8501", "0.0.0.0"),
          ("10.0.0.7:8501", "10.0.0.7")]
    for host, address in ok:
        assert host_allowed(host, address, 8501), (host, address)
    assert host_allowed("localhost", "127.0.0.1", 80)
    bad = [("evil.example:8501", "127.0.0.1"), ("evil.example:8501", "0.0.0.0"), ("dash.lan:8501", "127.0.0.1"),
           ("192.168.1.5:8501", "127.0.0.1"), ("localhost:8502", "127.0.0.1"), ("localhost", "127.0.0.1"),
           ("a@localhost:8501", "127.0.0.1"), ("localhost:85x1", "127.0.0.1"), ("[::1:8501", "127.0.0.1"),
           ("localhost:8501/x", "127.0.0.1"), ("", "127.0.0.1"), (None, "127.0.0.1"),
           ("localhost.evil.example:8501", "localhost")]
    for host, address in bad:
        assert not host_allowed(host, address, 8501), (host, address)
