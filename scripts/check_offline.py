#!/usr/bin/env python3
"""Check that the built book's pages load nothing from another host.

    python scripts/check_offline.py _build/html            # every page
    python scripts/check_offline.py _build/html index.html book/api.html

Opens each page in headless Chromium, records every request the page makes (the
DevTools Protocol's ``Network.requestWillBeSent`` events, read over ``websocket-client``),
and lists the requests to a host other than this machine: ``http(s)``/``ws(s)`` URLs whose
host is not ``localhost``/``127.0.0.1``/``::1``.  ``file:``, ``data:`` and ``blob:`` URLs
are local.  Links (launch buttons, the repository button) are not requests and are not
followed.  External requests are blocked while checking, so a missing network cannot
stall a page.  A local file a page asks for but cannot load (a missing script, font or
image) is listed too.  Exits 1 if any page made an external request, missed a local
file or did not finish loading, 0 otherwise.  Needs ``chromium`` (Debian package) on
PATH or ``--chromium PATH``.

``--screenshots DIR`` also saves each page as DIR/<page>-<width>.png at every width of
``--widths`` (default 1280,390), the whole page up to ``--max-height`` pixels.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1", "[::1]"}


def is_external(url: str) -> bool:
    """True for a URL that would be fetched from another machine."""
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https", "ws", "wss", "ftp"}:
        return False  # file:, data:, blob:, about:, chrome-extension:, ...
    return (parts.hostname or "") not in LOCAL_HOSTS


def pages_in(html_dir: Path, names: list[str]) -> list[Path]:
    if names:
        pages = [html_dir / n for n in names]
        missing = [str(p) for p in pages if not p.is_file()]
        if missing:
            raise SystemExit(f"no such page(s): {', '.join(missing)}")
        return pages
    skip = {"_static", "_sources", "_images", "_downloads"}
    return sorted(
        p for p in html_dir.rglob("*.html") if not skip.intersection(p.relative_to(html_dir).parts)
    )


class Browser:
    """A headless Chromium driven over the DevTools Protocol."""

    def __init__(self, chromium: str):
        import websocket  # websocket-client

        self.profile = tempfile.mkdtemp(prefix="check-offline-")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            [
                chromium,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-sync",
                "--disable-extensions",
                f"--remote-debugging-port={port}",
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{base}/json/list", timeout=2) as r:
                    targets = [t for t in json.load(r) if t.get("type") == "page"]
                if targets:
                    break
            except OSError:
                pass
            if time.time() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError(f"chromium did not start a DevTools server on port {port}")
            time.sleep(0.2)
        self.ws = websocket.create_connection(targets[0]["webSocketDebuggerUrl"], timeout=30)
        self.next_id = 0
        self.events: list[dict] = []
        self.missing: list[str] = []
        self.call("Network.enable")
        self.call("Page.enable")
        # Requests to other hosts fail at once instead of waiting for a network.
        self.call("Network.setBlockedURLs", urls=["http://*", "https://*", "ws://*", "wss://*"])

    def call(self, method: str, **params) -> dict:
        self.next_id += 1
        mid = self.next_id
        self.ws.send(json.dumps({"id": mid, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == mid:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})
            self.events.append(msg)

    def visit(self, url: str, timeout: float, settle: float) -> tuple[list[str], bool]:
        """Load ``url``; return (every requested URL, whether the load event fired).

        Local files that failed to load are left in ``self.missing``."""
        self.events.clear()
        self.call("Page.navigate", url=url)
        loaded = False
        deadline = time.time() + timeout
        quiet_until = None
        self.ws.settimeout(0.25)
        import websocket

        while time.time() < deadline:
            try:
                msg = json.loads(self.ws.recv())
            except websocket.WebSocketTimeoutException:
                if loaded and quiet_until is not None and time.time() >= quiet_until:
                    break
                continue
            self.events.append(msg)
            if msg.get("method") == "Page.loadEventFired":
                loaded = True
            if loaded:
                # keep listening until no request has started for `settle` seconds
                quiet_until = time.time() + settle
        self.ws.settimeout(30)
        requests = {
            e["params"]["requestId"]: e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        }
        self.missing = sorted(
            {
                requests.get(e["params"]["requestId"], "?")
                for e in self.events
                if e.get("method") == "Network.loadingFailed"
                and not is_external(requests.get(e["params"]["requestId"], ""))
                and not e["params"].get("canceled")
            }
        )
        urls = [
            e["params"]["request"]["url"]
            for e in self.events
            if e.get("method") == "Network.requestWillBeSent"
        ]
        return urls, loaded

    def screenshot(
        self, url: str, width: int, path: Path, timeout: float, settle: float, max_height: int
    ) -> None:
        self.call(
            "Emulation.setDeviceMetricsOverride",
            width=width,
            height=900,
            deviceScaleFactor=1,
            mobile=width < 600,
        )
        self.visit(url, timeout, settle)
        time.sleep(settle)  # let MathJax typeset
        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        height = min(int(size["height"]), max_height)
        shot = self.call(
            "Page.captureScreenshot",
            format="png",
            captureBeyondViewport=True,
            clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
        )
        path.write_bytes(base64.b64decode(shot["data"]))
        self.call("Emulation.clearDeviceMetricsOverride")

    def close(self) -> None:
        try:
            if getattr(self, "ws", None) is not None:
                self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)


def check(
    html_dir: Path,
    names: list[str],
    chromium: str,
    timeout: float,
    settle: float,
    out=sys.stdout,
    screenshots: Path | None = None,
    widths: tuple[int, ...] = (1280, 390),
    max_height: int = 6000,
) -> int:
    pages = pages_in(html_dir, names)
    if not pages:
        print(f"no HTML pages under {html_dir}", file=out)
        return 1
    browser = Browser(chromium)
    bad = 0
    try:
        for page in pages:
            urls, loaded = browser.visit(page.resolve().as_uri(), timeout, settle)
            external = sorted(set(u for u in urls if is_external(u)))
            rel = page.relative_to(html_dir)
            missing = browser.missing
            if external or missing or not loaded:
                bad += 1
                why = "; did not finish loading" if not loaded else ""
                print(
                    f"FAIL {rel}: {len(external)} external request(s), "
                    f"{len(missing)} missing local file(s){why}",
                    file=out,
                )
                for u in external:
                    print(f"     external: {u}", file=out)
                for u in missing:
                    print(f"     missing:  {u}", file=out)
            else:
                print(f"ok   {rel}: {len(urls)} requests, all local", file=out)
            if screenshots is not None:
                screenshots.mkdir(parents=True, exist_ok=True)
                stem = str(rel.with_suffix("")).replace(os.sep, "-")
                for width in widths:
                    browser.screenshot(
                        page.resolve().as_uri(),
                        width,
                        screenshots / f"{stem}-{width}.png",
                        timeout,
                        settle,
                        max_height,
                    )
    finally:
        browser.close()
    print(f"{len(pages) - bad} of {len(pages)} pages load nothing from another host", file=out)
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("html_dir", type=Path, help="the built book, e.g. _build/html")
    ap.add_argument("pages", nargs="*", help="pages relative to html_dir (default: all)")
    ap.add_argument(
        "--chromium",
        default=os.environ.get("CHROMIUM")
        or shutil.which("chromium")
        or shutil.which("chromium-browser")
        or shutil.which("google-chrome")
        or "chromium",
    )
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per page")
    ap.add_argument(
        "--settle",
        type=float,
        default=1.0,
        help="seconds without a new request after the load event",
    )
    ap.add_argument("--screenshots", type=Path, help="also save screenshots in this folder")
    ap.add_argument("--widths", default="1280,390", help="screenshot widths in CSS px")
    ap.add_argument("--max-height", type=int, default=6000, help="screenshot height limit")
    args = ap.parse_args(argv)
    if not args.html_dir.is_dir():
        ap.error(f"html_dir {args.html_dir} is not a directory")
    widths = tuple(int(w) for w in args.widths.split(","))
    return check(
        args.html_dir,
        args.pages,
        args.chromium,
        args.timeout,
        args.settle,
        screenshots=args.screenshots,
        widths=widths,
        max_height=args.max_height,
    )


if __name__ == "__main__":
    sys.exit(main())
