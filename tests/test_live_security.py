"""Attacks on the live-code server of ``dev.py live`` (``tools/live_server.py``).

A page of another site, a page re-pointed at 127.0.0.1 by DNS rebinding, a script without
the token and a script with an earlier run's token or cookie must each fail to start a
kernel, open a kernel's channels, write a file or read the book; the book's own origin,
logged in by the URL the server prints, must still get a kernel.  The server runs for
real (a Jupyter server on 127.0.0.1), on a two-page book made here.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.parse
from http.cookies import SimpleCookie
from pathlib import Path

import pytest
import websocket

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import live_server  # noqa: E402

CULL_IDLE = 4  # seconds: short, so that the culling test is quick
#: Refusals: Jupyter answers a request from another origin with 404, one without a valid
#: login with 403 (401 for a websocket); each test also checks that nothing happened.
REFUSED = (401, 403, 404)


class Live:
    """One run of the live server: its port, token and a logged-in browser's cookies."""

    def __init__(self, book: Path, port: int = 0):
        self.root = book.parent / "root"  # the server's folder: a file written lands here
        self.proc = subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "tools" / "live_server.py"),
                "--book",
                str(book),
                "--root",
                str(self.root),
                "--port",
                str(port),
                "--no-browser",
                "--cull-idle",
                str(CULL_IDLE),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        deadline = time.monotonic() + 90
        self.url = None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line and self.proc.poll() is not None:
                break
            m = re.match(r"Book with live code: (\S+)", line)
            if m:
                self.url = m.group(1)
                break
        if self.url is None:
            self.stop()
            raise RuntimeError("the live server printed no URL")
        try:
            parts = urllib.parse.urlsplit(self.url)
            self.port = parts.port
            self.token = urllib.parse.parse_qs(parts.query)["token"][0]
            self.origin = f"http://127.0.0.1:{self.port}"
            self.host = f"127.0.0.1:{self.port}"
            self.cookies = self.log_in()
        except BaseException:
            self.stop()  # no server left behind by a failing start
            raise

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def request(self, method, path, headers=None, body=None):
        """(status, headers, body) of one request, with exactly these headers."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        hdrs = {"Host": self.host, **(headers or {})}
        hdrs = {k: v for k, v in hdrs.items() if v is not None}
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=body, headers=hdrs)
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return resp.status, resp.headers, data

    def log_in(self) -> dict:
        """Open the printed URL as a browser would: the cookies it gets back."""
        path = urllib.parse.urlsplit(self.url)
        status, headers, _ = self.request("GET", f"{path.path}?{path.query}")
        assert status == 302, status
        jar = SimpleCookie()
        for value in headers.get_all("Set-Cookie") or []:
            jar.load(value)
        return {k: m.value for k, m in jar.items()}

    def cookie_header(self, cookies=None) -> str:
        return "; ".join(f"{k}={v}" for k, v in (cookies or self.cookies).items())

    def as_page(self, cookies=None, origin=None) -> dict:
        """Headers of a request from the book's own page (cookie, XSRF header, origin)."""
        cookies = cookies or self.cookies
        return {
            "Cookie": self.cookie_header(cookies),
            "X-XSRFToken": cookies.get("_xsrf"),
            "Origin": origin or self.origin,
        }

    def kernels(self) -> list[str]:
        status, _, body = self.request(
            "GET", "/api/kernels", {"Authorization": f"token {self.token}"}
        )
        assert status == 200, status
        return [k["id"] for k in json.loads(body)]

    def start_kernel_as_page(self) -> str:
        status, _, body = self.request("POST", "/api/kernels", self.as_page(), body={})
        assert status == 201, (status, body)
        return json.loads(body)["id"]

    def delete_kernel(self, kid: str) -> None:
        status, _, _ = self.request("DELETE", f"/api/kernels/{kid}", self.as_page())
        assert status in (204, 404), status


@pytest.fixture(scope="module")
def book(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("live") / "book"
    root.mkdir()
    (root.parent / "root").mkdir()
    (root.parent / "root" / "README.md").write_text("kept")
    (root / "index.html").write_text("<html><body>cover</body></html>")
    (root / "book").mkdir()
    (root / "book" / "ch.html").write_text("<html><body>chapter</body></html>")
    return root


@pytest.fixture(scope="module")
def runs(book):
    """An earlier run (stopped: its token and cookies are stale) and the current run, on
    the same port (the login cookie's name carries the port)."""
    earlier = Live(book)
    earlier.stop()
    live = Live(book, port=earlier.port)
    yield earlier, live
    live.stop()


@pytest.fixture(scope="module")
def live(runs):
    return runs[1]


def attackers(earlier: Live, live: Live) -> dict[str, dict]:
    """Request headers of each attacker (Host and Origin included)."""
    evil_host = f"evil.example:{live.port}"
    evil_origin = f"http://evil.example:{live.port}"
    return {
        # DNS rebinding: a page of evil.example re-pointed at 127.0.0.1, same port
        "foreign Host": {"Host": evil_host, "Origin": evil_origin, **_auth(live)},
        # another site's page (or another local port: same site, other origin) that
        # somehow holds the token, or rides on the browser's cookies
        "foreign Origin, token": {"Origin": evil_origin, **_auth(live)},
        "foreign Origin, cookie": live.as_page(origin="http://127.0.0.1:1"),
        "no token": {"Origin": live.origin},
        "stale token": {"Origin": live.origin, **_auth(earlier)},
        "stale cookie": live.as_page(cookies=earlier.cookies),
    }


def _auth(run: Live) -> dict:
    return {"Authorization": f"token {run.token}"}


ATTACKERS = [
    "foreign Host",
    "foreign Origin, token",
    "foreign Origin, cookie",
    "no token",
    "stale token",
    "stale cookie",
]


def test_the_printed_url_logs_in_and_leaves_no_token_in_the_address(live):
    path = urllib.parse.urlsplit(live.url)
    status, headers, _ = live.request("GET", f"{path.path}?{path.query}")
    assert status == 302
    assert "token" not in headers["Location"]
    assert headers["Location"].endswith(path.path)
    assert "_xsrf" in live.cookies and len(live.cookies) >= 2  # login cookie and XSRF cookie
    status, _, body = live.request("GET", path.path, {"Cookie": live.cookie_header()})
    assert status == 200 and b"cover" in body


def test_no_response_carries_the_token(live):
    page = {"Cookie": live.cookie_header()}
    for path in ("/book/_live/server.json", "/book/index.html", "/book/book/ch.html"):
        status, headers, body = live.request("GET", path, page)
        assert status == 200, path
        assert live.token.encode() not in body
        assert live.token not in str(headers)
    status, _, body = live.request("GET", "/book/_live/server.json", page)
    assert json.loads(body) == {"baseUrl": "/"}


def test_the_book_page_gets_a_kernel_and_its_channels(live):
    kid = live.start_kernel_as_page()
    try:
        assert kid in live.kernels()
        ws = websocket.create_connection(
            f"ws://{live.host}/api/kernels/{kid}/channels",
            header=[f"Cookie: {live.cookie_header()}"],
            origin=live.origin,
            timeout=20,
        )
        ws.close()
    finally:
        live.delete_kernel(kid)


@pytest.mark.parametrize("who", ATTACKERS)
def test_attacker_cannot_start_a_kernel(runs, who):
    earlier, live = runs
    headers = attackers(earlier, live)[who]
    before = set(live.kernels())
    status, _, body = live.request("POST", "/api/kernels", headers, body={})
    assert status in REFUSED, (who, status, body[:200])
    status, _, body = live.request(
        "POST",
        "/api/sessions",
        headers,
        body={"path": "book/x.ipynb", "type": "notebook", "kernel": {"name": "python3"}},
    )
    assert status in REFUSED, (who, status, body[:200])
    assert set(live.kernels()) == before


@pytest.mark.parametrize("who", ATTACKERS)
def test_attacker_cannot_write_a_file(runs, who):
    earlier, live = runs
    headers = attackers(earlier, live)[who]
    body = {"type": "file", "format": "text", "content": "pwned"}
    status, _, _ = live.request("PUT", "/api/contents/PWNED.txt", headers, body=body)
    assert status in REFUSED, (who, status)
    assert not (live.root / "PWNED.txt").exists()


@pytest.mark.parametrize("who", ATTACKERS)
def test_attacker_cannot_open_a_kernel_channel(runs, who):
    earlier, live = runs
    headers = dict(attackers(earlier, live)[who])
    kid = live.start_kernel_as_page()
    try:
        origin = headers.pop("Origin", None)
        host = headers.pop("Host", None)
        with pytest.raises(websocket.WebSocketBadStatusException) as err:
            websocket.create_connection(
                f"ws://{live.host}/api/kernels/{kid}/channels",
                header=[f"{k}: {v}" for k, v in headers.items() if v is not None],
                host=host,
                origin=origin,
                suppress_origin=origin is None,
                timeout=20,
            )
        assert err.value.status_code in REFUSED, (who, err.value.status_code)
    finally:
        live.delete_kernel(kid)


@pytest.mark.parametrize("who", ATTACKERS)
def test_attacker_cannot_read_the_book_or_where_its_kernels_are(runs, who):
    earlier, live = runs
    headers = attackers(earlier, live)[who]
    for path in ("/book/_live/server.json", "/book/index.html"):
        status, _, body = live.request("GET", path, {k: v for k, v in headers.items()})
        if who.startswith("foreign Origin"):
            # a same-origin-policy read: a browser shows another origin's page nothing
            # without CORS headers (checked below), whatever the status
            continue
        assert status in (302, *REFUSED), (who, path, status)
        assert b"cover" not in body


@pytest.mark.parametrize("origin", ["http://evil.example:8000", "http://127.0.0.1:1", "null"])
def test_no_cors_for_another_origin(live, origin):
    for method, path in [("OPTIONS", "/api/kernels"), ("POST", "/api/kernels")]:
        status, headers, _ = live.request(
            method,
            path,
            {
                "Origin": origin,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization, content-type",
                **_auth(live),
            },
            body={} if method == "POST" else None,
        )
        assert "Access-Control-Allow-Origin" not in headers, (method, origin, status)
        assert "Access-Control-Allow-Credentials" not in headers


def test_the_book_itself_cannot_write_or_open_a_terminal(live):
    body = {"type": "file", "format": "text", "content": "x"}
    status, _, _ = live.request("PUT", "/api/contents/WRITTEN.txt", live.as_page(), body=body)
    assert status == 403
    assert not (live.root / "WRITTEN.txt").exists()
    status, _, _ = live.request("DELETE", "/api/contents/README.md", live.as_page())
    assert status == 403
    assert (live.root / "README.md").read_text() == "kept"
    status, _, _ = live.request("POST", "/api/terminals", live.as_page(), body={})
    assert status == 404


def test_idle_kernels_are_shut_down(live):
    kid = live.start_kernel_as_page()
    deadline = time.monotonic() + 6 * CULL_IDLE + 30
    while kid in live.kernels():
        if time.monotonic() > deadline:
            live.delete_kernel(kid)
            pytest.fail(f"kernel {kid} still running {6 * CULL_IDLE + 30} s later")
        time.sleep(1)


def test_command_line_hardening():
    cmd = live_server.jupyter_command("python", Path("/repo"), 9000, cull_idle=120)
    assert "--ServerApp.allow_remote_access=False" in cmd
    assert "--ServerApp.terminals_enabled=False" in cmd
    assert "--MappingKernelManager.cull_idle_timeout=120" in cmd
    assert not any("allow_origin" in c for c in cmd)  # no CORS at all: same origin
