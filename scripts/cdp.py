"""A small client for headless Chromium over the DevTools Protocol (CDP).

Shared by ``scripts/check_offline.py``, ``scripts/check_live.py`` and the browser tests
(``tests/test_browser_*.py``)::

    with cdp.Browser() as browser:          # headless Chromium, its own process group
        page = browser.page                 # a CDP connection to its first tab
        page.call("Page.navigate", url="file:///...")
        page.wait_for("document.readyState === 'complete'", 30, "the page to load")

* **The DevTools websocket without an Origin header** (``suppress_origin=True``): since
  Chromium 111 the DevTools server rejects a connection that sends one (HTTP 403).
* **No browser left behind.**  Chromium starts in its own process group (a new session);
  the group is ended (SIGTERM, then SIGKILL) when the ``with`` block ends, whatever ends
  it, by an ``atexit`` hook, and on SIGTERM/SIGHUP of this process; on Linux a browser
  whose parent dies without any of these (SIGKILL) gets SIGKILL too (``PR_SET_PDEATHSIG``).
* **Where Chromium is:** ``$CHROMIUM``, else ``chromium``, ``chromium-browser``,
  ``google-chrome`` or ``google-chrome-stable`` on PATH (:func:`find_chromium`).
"""

from __future__ import annotations

import atexit
import base64
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

#: The executables tried, in order, after ``$CHROMIUM``.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

#: Headless flags: no first-run UI, no background traffic to other hosts.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-extensions",
    "--disable-quic",
    "--no-first-run",
    "--no-default-browser-check",
    "--hide-scrollbars",
    "--mute-audio",
)


#: Errors of ``Runtime.evaluate`` while a page navigates (its context is being replaced).
NAVIGATING = (
    "Execution context was destroyed",
    "Cannot find context with specified id",
    "Inspected target navigated or closed",
)


class Failure(Exception):
    """A browser check failed (or the browser could not be driven)."""


def find_chromium() -> str | None:
    """The Chromium executable to use, or ``None`` if there is none."""
    env = os.environ.get("CHROMIUM")
    if env:
        return shutil.which(env) or (env if Path(env).is_file() else None)
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- ending every browser this process started ---------------------------------------

_RUNNING: dict[int, "Browser"] = {}  # pid -> Browser, while it runs
_HOOKS_INSTALLED = False


def _end_all() -> None:
    for browser in list(_RUNNING.values()):
        browser.close()


def _on_signal(signum, frame) -> None:
    _end_all()
    # then die of the signal as the default action would
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_hooks() -> None:
    """atexit, and SIGTERM/SIGHUP handlers where the process has none of its own."""
    global _HOOKS_INSTALLED
    if _HOOKS_INSTALLED:
        return
    _HOOKS_INSTALLED = True
    atexit.register(_end_all)
    if threading.current_thread() is not threading.main_thread():
        return  # signal handlers can only be set from the main thread
    for sig in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if sig is not None and signal.getsignal(sig) in (signal.SIG_DFL, None):
            signal.signal(sig, _on_signal)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child before exec
    """In the child: ask Linux to SIGKILL it when this (parent) process dies."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGKILL)


def group_alive(pgid: int) -> list[int]:
    """The pids of the processes still in process group ``pgid`` (Linux: from /proc)."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended while we looked
            continue
        fields = stat.rsplit(")", 1)[1].split()
        # fields after the name: state ppid pgrp session ...
        if int(fields[2]) == pgid and fields[0] != "Z":
            alive.append(int(entry.name))
    return alive


def end_group(proc: subprocess.Popen, sig: int = signal.SIGTERM, wait: float = 10.0) -> None:
    """End the process group led by ``proc`` (started with ``start_new_session``)."""
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass  # the whole group has already gone
    try:
        proc.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        pass
    # the leader may be gone while its children linger: SIGKILL whatever is left
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if proc.poll() is None:
        proc.wait(timeout=wait)


# --- the browser ---------------------------------------------------------------------


class Browser:
    """Headless Chromium in its own process group, with a CDP connection to one tab.

    Parameters
    ----------
    exe : str, optional
        The Chromium executable (default: :func:`find_chromium`).
    width, height : int
        The window size in CSS pixels.
    args : sequence of str
        More command-line flags.
    timeout : float
        Seconds to wait for the DevTools server.
    die_with_parent : bool
        On Linux, have the kernel SIGKILL the browser when this process dies (the last
        resort, for a SIGKILL of this process); the other ways of ending it do not
        depend on it (the tests switch it off to check them one by one).
    """

    def __init__(
        self, exe=None, *, width=1280, height=900, args=(), timeout=30.0, die_with_parent=True
    ):
        exe = exe or find_chromium()
        if exe is None:
            raise Failure(
                "no Chromium found: install it (Debian/Ubuntu: apt-get install chromium) "
                "or set CHROMIUM=/path/to/chrome"
            )
        _install_hooks()
        self.profile = tempfile.mkdtemp(prefix="dmi-chromium-")
        self.port = free_port()
        self.page: CDP | None = None
        self._closed = False
        kw = {"start_new_session": True}  # its own session and process group
        if die_with_parent and sys.platform.startswith("linux"):
            kw["preexec_fn"] = _die_with_parent
        self.proc = subprocess.Popen(
            [
                exe,
                *CHROMIUM_FLAGS,
                f"--remote-debugging-port={self.port}",
                f"--user-data-dir={self.profile}",
                f"--window-size={width},{height}",
                *args,
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            **kw,
        )
        _RUNNING[self.proc.pid] = self
        try:
            self.page = CDP(self._page_ws_url(timeout))
        except BaseException:
            self.close()
            raise

    @property
    def pgid(self) -> int:
        """The browser's process group (its leader's pid)."""
        return self.proc.pid

    def _page_ws_url(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise Failure(f"Chromium exited at start with code {self.proc.returncode}")
            try:
                url = f"http://127.0.0.1:{self.port}/json/list"
                with urllib.request.urlopen(url, timeout=2) as r:
                    pages = [t for t in json.load(r) if t.get("type") == "page"]
                if pages:
                    return pages[0]["webSocketDebuggerUrl"]
            except OSError:
                pass  # not listening yet
            time.sleep(0.1)
        raise Failure(f"Chromium's DevTools server did not come up within {timeout:.0f} s")

    def close(self) -> None:
        """Close the connection and end the browser's whole process group."""
        if self._closed:
            return
        self._closed = True
        try:
            if self.page is not None:
                self.page.close()
        finally:
            end_group(self.proc)
            _RUNNING.pop(self.proc.pid, None)
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class CDP:
    """A DevTools-protocol connection: commands by id, events kept in order.

    A reader thread stores replies by id and every event in ``log``; :meth:`mark` and
    :meth:`events_since` select the events after a point.
    """

    def __init__(self, ws_url: str, timeout: float = 60.0):
        import websocket  # websocket-client

        # suppress_origin: Chromium >= 111 answers 403 to a DevTools socket with an Origin
        self.ws = websocket.create_connection(ws_url, timeout=timeout, suppress_origin=True)
        self.next_id = 0
        self.replies: dict[int, dict] = {}
        self.log: list[dict] = []
        self.cv = threading.Condition()
        self.closed = False
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        import websocket

        while True:
            try:
                msg = json.loads(self.ws.recv())
            except (websocket.WebSocketException, OSError, ValueError):
                with self.cv:  # the socket closed: wake every waiting call
                    self.closed = True
                    self.cv.notify_all()
                return
            with self.cv:
                if "id" in msg:
                    self.replies[msg["id"]] = msg
                else:
                    self.log.append(msg)
                self.cv.notify_all()

    def call(self, method: str, timeout: float = 60.0, **params) -> dict:
        """Send a command; return its result (raise :class:`Failure` on an error)."""
        with self.cv:
            self.next_id += 1
            i = self.next_id
        self.ws.send(json.dumps({"id": i, "method": method, "params": params}))
        with self.cv:
            if not self.cv.wait_for(lambda: i in self.replies or self.closed, timeout=timeout):
                raise Failure(f"no reply to {method} within {timeout} s")
            if i not in self.replies:
                raise Failure(f"the browser closed the connection during {method}")
            reply = self.replies.pop(i)
        if "error" in reply:
            raise Failure(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def js(self, expr: str, timeout: float = 60.0):
        """Evaluate ``expr`` in the page (promises awaited); return its value as JSON."""
        r = self.call(
            "Runtime.evaluate",
            timeout=timeout,
            expression=expr,
            returnByValue=True,
            awaitPromise=True,
        )
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            text = d.get("exception", {}).get("description") or d.get("text")
            raise Failure(f"JavaScript error in {expr[:80]!r}: {text}")
        return r["result"].get("value")

    def wait_for(self, expr: str, timeout: float, what: str, poll: float = 0.1):
        """Evaluate ``expr`` until it is truthy; return its value."""
        start = time.monotonic()
        while time.monotonic() - start < timeout:
            try:
                value = self.js(expr)
            except Failure as err:
                # the page is navigating (its JavaScript context went away): ask again
                if not any(m in str(err) for m in NAVIGATING):
                    raise
                value = None
            if value:
                return value
            time.sleep(poll)
        raise Failure(f"timed out after {timeout:.0f} s waiting for {what}")

    def mark(self) -> int:
        """A position in the event log (for :meth:`events_since`)."""
        with self.cv:
            return len(self.log)

    def events_since(self, n: int, method: str | None = None) -> list[dict]:
        """The events after mark ``n`` (only those of ``method`` if given)."""
        with self.cv:
            events = list(self.log[n:])
        return [e for e in events if method is None or e.get("method") == method]

    def wait_quiet(self, since: int, timeout: float, settle: float) -> bool:
        """Wait for ``Page.loadEventFired`` after mark ``since``, then until no request
        has started for ``settle`` seconds.  Returns whether the load event fired."""
        deadline = time.monotonic() + timeout
        with self.cv:
            while True:
                events = self.log[since:]
                loaded = [
                    i for i, e in enumerate(events) if e.get("method") == "Page.loadEventFired"
                ]
                if loaded:
                    break
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    return False
                self.cv.wait(left)
            while True:
                n = len(self.log)
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    return True
                self.cv.wait_for(lambda: len(self.log) > n, timeout=min(settle, left))
                new = self.log[n:]
                if not any(e.get("method") == "Network.requestWillBeSent" for e in new):
                    if len(self.log) == n:  # nothing at all for `settle` seconds
                        return True

    def screenshot(self, path: Path | None = None, clip: dict | None = None, full=False) -> bytes:
        """A PNG of the viewport, of ``clip`` (document coordinates) or of the whole page."""
        params: dict = {"format": "png"}
        if clip:
            params["clip"] = {**clip, "scale": 1}
        if full:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params["captureBeyondViewport"] = True
            params["clip"] = {
                "x": 0,
                "y": 0,
                "width": size["width"],
                "height": min(size["height"], 16000),
                "scale": 1,
            }
        data = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        if path is not None:
            Path(path).write_bytes(data)
        return data

    def viewport(self, width: int, height: int, mobile: bool | None = None, scale: float = 1):
        """Emulate a screen of ``width`` x ``height`` CSS px (a phone below 600 px)."""
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=height,
            deviceScaleFactor=scale,
            mobile=width < 600 if mobile is None else mobile,
        )

    def click(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)

    def drag(self, x0: float, y0: float, dx: float, steps: int = 8) -> None:
        self.call("Input.dispatchMouseEvent", type="mouseMoved", x=x0, y=y0)
        self.call(
            "Input.dispatchMouseEvent", type="mousePressed", x=x0, y=y0, button="left", clickCount=1
        )
        for k in range(1, steps + 1):
            self.call(
                "Input.dispatchMouseEvent",
                type="mouseMoved",
                x=x0 + dx * k / steps,
                y=y0,
                button="left",
                buttons=1,
            )
            time.sleep(0.03)
        self.call(
            "Input.dispatchMouseEvent",
            type="mouseReleased",
            x=x0 + dx,
            y=y0,
            button="left",
            clickCount=1,
        )

    def console_errors(self, since: int = 0) -> list[str]:
        """Console errors, uncaught exceptions and error log entries after mark ``since``
        (needs ``Runtime.enable`` and ``Log.enable``)."""
        out = []
        for e in self.events_since(since):
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                args = p.get("args", [])
                out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in args))
            elif m == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                out.append(d.get("exception", {}).get("description") or d.get("text", ""))
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append(f"{p['entry']['text']} {p['entry'].get('url', '')}".strip())
        return out

    def close(self) -> None:
        try:
            self.ws.close()
        except OSError:
            pass  # already closed by the browser's end
