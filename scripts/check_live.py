"""End-to-end check of the book's "Live code" switch in headless Chromium.

Starts ``python3 dev.py live`` (or uses ``--url`` of one already running), opens a
chapter with an ``interact`` slider in headless Chromium driven over the DevTools
protocol, and checks, timing each step:

1. with live code off the page requests nothing but the book's own server;
2. a click on the switch loads thebe from the book, starts a kernel on the local Jupyter
   server and runs every cell without error;
3. the slider's widget is live: dragging its handle changes the readout and the figure
   (the figure's pixels and its SVG/PNG data differ before and after);
4. with live code on, every request and WebSocket goes to the book's server or the local
   Jupyter server;
5. switching off shuts the kernel down (the Jupyter server lists no kernel).

Screenshots (1280 px and 390 px wide) and ``report.json`` go to ``--out``.  Exits 1 on a
failed check.  Needs Chromium (Debian: ``apt-get install chromium``) and
``websocket-client``; not part of the test suite (it starts servers and a browser).

    python scripts/check_live.py [--page book/06_one_dimension.html] [--out DIR]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import queue
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import websocket  # websocket-client

ROOT = Path(__file__).resolve().parents[1]


class Failure(Exception):
    """A check failed."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class CDP:
    """A minimal DevTools-protocol client: commands by id, events in a queue."""

    def __init__(self, ws_url: str):
        self.ws = websocket.create_connection(ws_url, timeout=60, suppress_origin=True)
        self.next_id = 0
        self.replies: dict[int, dict] = {}
        self.events: "queue.Queue[dict]" = queue.Queue()
        self.log: list[dict] = []
        self.lock = threading.Lock()
        self.cv = threading.Condition(self.lock)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            try:
                msg = json.loads(self.ws.recv())
            except Exception:  # noqa: BLE001 (socket closed: stop reading)
                return
            with self.cv:
                if "id" in msg:
                    self.replies[msg["id"]] = msg
                    self.cv.notify_all()
                else:
                    self.log.append(msg)

    def call(self, method: str, timeout: float = 60, **params):
        with self.cv:
            self.next_id += 1
            i = self.next_id
        self.ws.send(json.dumps({"id": i, "method": method, "params": params}))
        with self.cv:
            if not self.cv.wait_for(lambda: i in self.replies, timeout=timeout):
                raise Failure(f"no reply to {method} within {timeout} s")
            reply = self.replies.pop(i)
        if "error" in reply:
            raise Failure(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def js(self, expr: str, timeout: float = 60):
        r = self.call(
            "Runtime.evaluate",
            timeout=timeout,
            expression=expr,
            returnByValue=True,
            awaitPromise=True,
        )
        if "exceptionDetails" in r:
            raise Failure(f"JS error in {expr[:80]!r}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def events_since(self, n: int) -> list[dict]:
        with self.cv:
            return list(self.log[n:])

    def mark(self) -> int:
        with self.cv:
            return len(self.log)


def wait_for(cdp: CDP, expr: str, timeout: float, what: str, poll: float = 0.2):
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        v = cdp.js(expr)
        if v:
            return v
        time.sleep(poll)
    raise Failure(f"timed out after {timeout:.0f} s waiting for {what}")


def requests_in(events: list[dict]) -> list[str]:
    urls = []
    for e in events:
        if e.get("method") == "Network.requestWillBeSent":
            urls.append(e["params"]["request"]["url"])
        elif e.get("method") == "Network.webSocketCreated":
            urls.append(e["params"]["url"])
    return urls


def origin(url: str) -> str:
    p = urllib.parse.urlsplit(url)
    return f"{p.scheme}://{p.netloc}" if p.netloc else p.scheme + ":"


def screenshot(cdp: CDP, path: Path, clip: dict | None = None) -> bytes:
    params = {"format": "png"}
    if clip:
        params["clip"] = {**clip, "scale": 1}
    data = base64.b64decode(cdp.call("Page.captureScreenshot", **params)["data"])
    path.write_bytes(data)
    return data


def click(cdp: CDP, x: float, y: float):
    for kind in ("mousePressed", "mouseReleased"):
        cdp.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)


def drag(cdp: CDP, x0: float, y0: float, dx: float, steps: int = 8):
    cdp.call("Input.dispatchMouseEvent", type="mouseMoved", x=x0, y=y0)
    cdp.call(
        "Input.dispatchMouseEvent", type="mousePressed", x=x0, y=y0, button="left", clickCount=1
    )
    for k in range(1, steps + 1):
        cdp.call(
            "Input.dispatchMouseEvent",
            type="mouseMoved",
            x=x0 + dx * k / steps,
            y=y0,
            button="left",
            buttons=1,
        )
        time.sleep(0.03)
    cdp.call(
        "Input.dispatchMouseEvent",
        type="mouseReleased",
        x=x0 + dx,
        y=y0,
        button="left",
        clickCount=1,
    )


# The figure that the slider's interact output shows: its data and its box.
FIGURE_JS = """(() => {
  const w = document.querySelector('.widget-interact');
  if (!w) return null;
  const out = w.querySelector('.widget-output, .jp-OutputArea');
  const fig = out && out.querySelector('svg, img');
  if (!fig) return null;
  fig.scrollIntoView({block: 'center', behavior: 'instant'});
  const r = fig.getBoundingClientRect();
  const data = fig.tagName.toLowerCase() === 'img' ? fig.src : fig.outerHTML;
  // document coordinates, as Page.captureScreenshot's clip wants them
  return {tag: fig.tagName, data: data, x: r.x + window.scrollX, y: r.y + window.scrollY,
          w: r.width, h: r.height};
})()"""

SLIDER_JS = """(() => {
  const w = document.querySelector('.widget-interact');
  const h = w && w.querySelector('.widget-slider .noUi-handle, .widget-slider input[type=range]');
  if (!h) return null;
  h.scrollIntoView({block: 'center', behavior: 'instant'});
  const r = h.getBoundingClientRect();
  const ro = w.querySelector('.widget-readout');
  return {x: r.x + r.width / 2, y: r.y + r.height / 2,
          readout: ro ? (ro.value !== undefined ? ro.value : ro.textContent) : null};
})()"""


def write_console(events: list[dict], path: Path):
    """The page's console messages, exceptions and log entries, one a line."""
    lines = []
    for e in events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"])
            lines.append(f"console.{p['type']}: {text}")
        elif m == "Runtime.exceptionThrown":
            d = p["exceptionDetails"]
            lines.append(f"exception: {d.get('exception', {}).get('description', d['text'])}")
        elif m == "Log.entryAdded":
            lines.append(
                f"log.{p['entry']['level']}: {p['entry']['text']} {p['entry'].get('url', '')}"
            )
    path.write_text("\n".join(lines) + "\n")


SWITCH_JS = """(() => { const b = document.querySelector('.dmi-live-switch');
  b.scrollIntoView({block: 'center', behavior: 'instant'});
  const r = b.getBoundingClientRect();
  return {x: r.x + r.width / 2, y: r.y + r.height / 2}; })()"""


def switch_position(cdp: CDP) -> dict:
    """Scroll the switch into view; its centre once the page has stopped moving."""
    cdp.js(SWITCH_JS)
    time.sleep(0.3)
    box = cdp.js(SWITCH_JS)
    hit = cdp.js(
        f"document.elementFromPoint({box['x']}, {box['y']}).closest('.dmi-live-switch') !== null"
    )
    if not hit:
        raise Failure("the live-code switch is covered by another element")
    return box


def start_live(port: int, page: str, log_path: Path) -> tuple[subprocess.Popen, str]:
    """Start ``dev.py live`` in its own process group; return it and the printed URL."""
    log = open(log_path, "w")
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "dev.py"),
            "live",
            "--no-browser",
            "--port",
            str(port),
            "--page",
            page,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        start_new_session=True,
    )
    deadline = time.monotonic() + 3600  # a first run builds the whole book
    url = None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        log.write(line)
        log.flush()
        m = re.match(r"Book with live code: (\S+)", line)
        if m:
            url = m.group(1)
            break
    if url is None:
        stop_group(proc)
        raise Failure(f"dev.py live printed no URL (see {log_path})")
    threading.Thread(target=lambda: [log.write(x) for x in proc.stdout], daemon=True).start()
    return proc, url


def stop_group(proc: subprocess.Popen):
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def start_chromium(width: int, height: int) -> tuple[subprocess.Popen, str, str]:
    exe = (
        shutil.which("chromium")
        or shutil.which("chromium-browser")
        or shutil.which("google-chrome")
    )
    if exe is None:
        raise Failure("no Chromium found (Debian: apt-get install chromium)")
    port = free_port()
    profile = tempfile.mkdtemp(prefix="check_live_")
    proc = subprocess.Popen(
        [
            exe,
            "--headless=new",
            f"--remote-debugging-port={port}",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-quic",
            "--no-first-run",
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            "about:blank",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    for _ in range(100):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=1) as r:
                pages = [t for t in json.load(r) if t["type"] == "page"]
            if pages:
                return proc, pages[0]["webSocketDebuggerUrl"], profile
        except OSError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise Failure("Chromium's DevTools endpoint did not come up")


def run_binder(args, report: dict) -> dict:
    """A page built with a repository URL and served without ``_live/server.json``:
    switching on must ask the configured BinderHub (and nothing else) for a kernel."""
    url = args.url
    book_origin = origin(url)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    chrome, ws_url, profile = start_chromium(1280, 1600)
    cdp = CDP(ws_url)
    try:
        for domain in ("Page", "Network", "Runtime", "Log"):
            cdp.call(f"{domain}.enable")
        m0 = cdp.mark()
        cdp.call("Page.navigate", url=url)
        wait_for(
            cdp, "document.readyState === 'complete' && !!window.dmiLive", 60, "the page to load"
        )
        time.sleep(1.0)
        cfg = cdp.js("JSON.parse(document.querySelector('#dmi-live-config').textContent)")
        report["page config"] = cfg
        if not cfg.get("binder"):
            raise Failure("the page carries no Binder settings (built without --repo-url?)")
        binder_origin = origin(cfg["binder"]["binderUrl"])
        static = requests_in(cdp.events_since(m0))
        foreign = [u for u in static if origin(u) not in (book_origin, "data:", "blob:")]
        report["checks"] = {
            "static page requests": {"count": len(static), "not from the book": foreign}
        }
        if foreign:
            raise Failure(f"the static page fetched from other servers: {foreign}")
        m1 = cdp.mark()
        cdp.js("document.querySelector('.dmi-live-switch').click()")
        wait_for(
            cdp,
            f"""performance.getEntriesByType('resource').some(
            e => e.name.startsWith({json.dumps(binder_origin)}))
            || ['error', 'unavailable'].includes(dmiLive.state)""",
            60,
            "a request to the BinderHub",
        )
        time.sleep(2.0)
        reqs = requests_in(cdp.events_since(m1))
        state = cdp.js(
            "({state: dmiLive.state, server: dmiLive.server, status: "
            "document.querySelector('.dmi-live-status').textContent})"
        )
        report["live"] = state
        report["checks"]["live requests"] = sorted(set(reqs))
        if state.get("server", "") != "binder:" + cfg["binder"]["binderUrl"]:
            raise Failure(f"expected Binder, got {state}")
        foreign = [
            u for u in reqs if origin(u) not in (book_origin, binder_origin, "data:", "blob:")
        ]
        if foreign:
            raise Failure(f"live code on Binder fetched from other servers: {foreign}")
        if not any(origin(u) == binder_origin for u in reqs):
            raise Failure("no request reached the BinderHub")
    finally:
        write_console(cdp.events_since(0), Path(args.out) / "console_binder.txt")
        chrome.terminate()
        chrome.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)
    return report


def run(args, report: dict) -> dict:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report.update({"page": args.page, "timings_s": {}, "checks": {}})
    t = report["timings_s"]
    live_proc = None
    t0 = time.monotonic()
    if args.url:
        url = args.url
    else:
        live_proc, url = start_live(args.port or free_port(), args.page, out / "dev_live.log")
        t["dev.py live until URL printed"] = round(time.monotonic() - t0, 2)
    book_origin = origin(url)
    with urllib.request.urlopen(urllib.parse.urljoin(url, "/_live/server.json")) as r:
        info = json.load(r)
    jupyter_origin = info["baseUrl"]
    ws_origin = info["wsUrl"]
    report["origins"] = {"book": book_origin, "jupyter": jupyter_origin}

    chrome, ws_url, profile = start_chromium(1280, 1600)
    cdp = CDP(ws_url)
    try:
        for domain in ("Page", "Network", "Runtime", "Log"):
            cdp.call(f"{domain}.enable")
        cdp.call(
            "Emulation.setDeviceMetricsOverride",
            width=1280,
            height=1600,
            deviceScaleFactor=1,
            mobile=False,
        )

        # 1. the static page
        m0 = cdp.mark()
        s = time.monotonic()
        cdp.call("Page.navigate", url=url)
        wait_for(
            cdp, "document.readyState === 'complete' && !!window.dmiLive", 60, "the page to load"
        )
        time.sleep(1.0)  # deferred scripts, fonts
        t["page load (live code off)"] = round(time.monotonic() - s, 2)
        static_reqs = requests_in(cdp.events_since(m0))
        foreign = [u for u in static_reqs if origin(u) not in (book_origin, "data:", "blob:")]
        report["checks"]["static page requests"] = {
            "count": len(static_reqs),
            "not from the book": foreign,
        }
        if args.allow_static_origin:
            report["checks"]["static page requests"]["allowed by --allow-static-origin"] = (
                args.allow_static_origin
            )
            foreign = [u for u in foreign if origin(u) not in args.allow_static_origin]
        if foreign:
            raise Failure(f"the static page fetched from other servers: {foreign}")
        screenshot(cdp, out / "static_1280.png")

        # 2. switch on: thebe, kernel, all cells
        m1 = cdp.mark()
        box = switch_position(cdp)
        s = time.monotonic()
        click(cdp, box["x"], box["y"])
        state = wait_for(
            cdp,
            "['ready', 'error', 'unavailable'].includes(dmiLive.state) && dmiLive.state",
            args.timeout,
            "the cells to run",
        )
        t["switch on -> all cells ran"] = round(time.monotonic() - s, 2)
        live = cdp.js(
            "({timings: dmiLive.timings, errors: dmiLive.errors, "
            "server: dmiLive.server, status: "
            "document.querySelector('.dmi-live-status').textContent, "
            "cells: document.querySelectorAll('.thebe-cell').length})"
        )
        report["live"] = live
        lt = live["timings"]
        for a, b, name in (
            ("switchOn", "thebeLoaded", "thebe scripts loaded"),
            ("thebeLoaded", "kernelReady", "kernel started"),
            ("kernelReady", "cellsDone", "cells ran"),
        ):
            if a in lt and b in lt:
                t[f"  {name}"] = round((lt[b] - lt[a]) / 1000, 2)
        if state != "ready":
            raise Failure(f"live code ended in state {state!r}: {live['status']}")
        if not live["server"].startswith("local:"):
            raise Failure(f"expected the local Jupyter server, got {live['server']}")

        req = urllib.request.Request(
            jupyter_origin + "/api/sessions", headers={"Authorization": f"token {info['token']}"}
        )
        with urllib.request.urlopen(req) as r:
            sessions = [x["path"] for x in json.load(r)]
        report["checks"]["kernel sessions (notebook paths)"] = sessions
        if len(sessions) != 1:
            raise Failure(f"expected one kernel session, found {sessions}")

        # 3. the slider and its figure
        wait_for(cdp, SLIDER_JS, 30, "the slider")
        fig0 = wait_for(cdp, FIGURE_JS, 60, "the interact figure")
        time.sleep(0.3)
        clip = {"x": fig0["x"], "y": fig0["y"], "width": fig0["w"], "height": fig0["h"]}
        png0 = screenshot(cdp, out / "figure_before.png", clip)
        screenshot(cdp, out / "live_1280.png")
        slider = cdp.js(SLIDER_JS)  # scrolls the slider into view: coordinates now
        time.sleep(0.3)
        slider = cdp.js(SLIDER_JS)
        s = time.monotonic()
        drag(cdp, slider["x"], slider["y"], args.drag_px)
        changed = wait_for(
            cdp,
            f"(() => {{ const f = {FIGURE_JS}; return f && "
            f"f.data !== {json.dumps(fig0['data'])}; }})()",
            60,
            "the figure to change after the slider moved",
        )
        t["slider moved -> new figure"] = round(time.monotonic() - s, 2)
        # interact redraws while the handle moves: wait until the last value is drawn
        last, since = None, time.monotonic()
        while time.monotonic() - since < 1.5 and time.monotonic() - s < 60:
            data = cdp.js(FIGURE_JS)["data"]
            if data != last:
                last, since = data, time.monotonic()
            time.sleep(0.1)
        t["slider moved -> figure settled (incl. 1.5 s quiet)"] = round(time.monotonic() - s, 2)
        slider1 = cdp.js(SLIDER_JS)
        fig1 = cdp.js(FIGURE_JS)
        time.sleep(0.3)
        clip1 = {"x": fig1["x"], "y": fig1["y"], "width": fig1["w"], "height": fig1["h"]}
        png1 = screenshot(cdp, out / "figure_after.png", clip1)
        report["checks"]["slider"] = {
            "readout before": slider["readout"],
            "readout after": slider1["readout"],
            "figure element": fig0["tag"],
            "figure data sha256 before": hashlib.sha256(fig0["data"].encode()).hexdigest(),
            "figure data sha256 after": hashlib.sha256(fig1["data"].encode()).hexdigest(),
            "figure screenshot sha256 before": hashlib.sha256(png0).hexdigest(),
            "figure screenshot sha256 after": hashlib.sha256(png1).hexdigest(),
        }
        if not changed or fig0["data"] == fig1["data"]:
            raise Failure("the figure did not change when the slider moved")
        if png0 == png1:
            raise Failure("the figure's pixels did not change when the slider moved")
        if slider["readout"] == slider1["readout"]:
            raise Failure(f"the slider's readout stayed at {slider['readout']!r}")
        screenshot(cdp, out / "live_slider_moved_1280.png")

        # phone width
        cdp.call(
            "Emulation.setDeviceMetricsOverride",
            width=390,
            height=1400,
            deviceScaleFactor=1,
            mobile=True,
        )
        time.sleep(0.5)
        cdp.js(FIGURE_JS)
        screenshot(cdp, out / "live_390.png")
        cdp.js("document.querySelector('.dmi-live').scrollIntoView({block: 'start'})")
        screenshot(cdp, out / "live_switch_390.png")
        cdp.call(
            "Emulation.setDeviceMetricsOverride",
            width=1280,
            height=1600,
            deviceScaleFactor=1,
            mobile=False,
        )

        # 4. requests while live
        live_reqs = requests_in(cdp.events_since(m1))
        allowed = {book_origin, jupyter_origin, origin(ws_origin), "data:", "blob:"}
        foreign = [
            u
            for u in live_reqs
            if origin(u) not in allowed and origin(u) not in args.allow_static_origin
        ]
        by_origin: dict[str, int] = {}
        for u in live_reqs:
            by_origin[origin(u)] = by_origin.get(origin(u), 0) + 1
        report["checks"]["live requests"] = {
            "by origin": by_origin,
            "foreign": foreign,
            "allowed": args.allow_static_origin,
        }
        if foreign:
            raise Failure(f"live code fetched from other servers: {foreign}")
        if not any(origin(u) == origin(ws_origin) for u in live_reqs):
            raise Failure("no WebSocket to the local Jupyter server was opened")
        exceptions = [
            e["params"]["exceptionDetails"]
            .get("exception", {})
            .get("description", e["params"]["exceptionDetails"].get("text"))
            for e in cdp.events_since(m0)
            if e.get("method") == "Runtime.exceptionThrown"
        ]
        report["checks"]["uncaught page exceptions"] = exceptions
        if exceptions:
            raise Failure(f"uncaught exceptions on the page: {exceptions}")

        # 5. switch off
        box = switch_position(cdp)
        s = time.monotonic()
        click(cdp, box["x"], box["y"])
        time.sleep(1.0)
        wait_for(
            cdp,
            "document.readyState === 'complete' && window.dmiLive && dmiLive.state === 'off'",
            30,
            "the static page after switching off",
        )
        req = urllib.request.Request(
            jupyter_origin + "/api/kernels", headers={"Authorization": f"token {info['token']}"}
        )
        for _ in range(50):
            with urllib.request.urlopen(req) as r:
                kernels = json.load(r)
            if not kernels:
                break
            time.sleep(0.2)
        t["switch off -> static page, no kernel"] = round(time.monotonic() - s, 2)
        report["checks"]["kernels after switching off"] = len(kernels)
        if kernels:
            raise Failure(f"{len(kernels)} kernel(s) still running after switching off")
        cdp.ws.close()
    finally:
        try:
            report["live state at end"] = cdp.js(
                "window.dmiLive && ({state: dmiLive.state, errors: dmiLive.errors, status: "
                "document.querySelector('.dmi-live-status').textContent})",
                timeout=5,
            )
        except Exception as err:  # noqa: BLE001 (the browser may be gone)
            report["live state at end"] = repr(err)
        write_console(cdp.events_since(0), out / "console.txt")
        chrome.terminate()
        chrome.wait(timeout=10)
        shutil.rmtree(profile, ignore_errors=True)
        if live_proc is not None:
            stop_group(live_proc)
    return report


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--page", default="book/06_one_dimension.html")
    p.add_argument("--url", help="use a running `dev.py live` page instead of starting one")
    p.add_argument("--port", type=int, default=0, help="port for dev.py live (0: free)")
    p.add_argument("--out", default=str(ROOT / "_build" / "check_live"))
    p.add_argument("--timeout", type=float, default=300, help="seconds for all cells")
    p.add_argument("--drag-px", type=float, default=120, help="slider drag distance")
    p.add_argument(
        "--allow-static-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="do not fail on requests to ORIGIN (still reported), e.g. a "
        "stylesheet that chapter outputs link to; not for live-code requests",
    )
    p.add_argument(
        "--binder",
        action="store_true",
        help="check the Binder path instead: "
        "--url is a page built with --repo-url, served without a Jupyter server",
    )
    args = p.parse_args(argv)
    report: dict = {}
    try:
        if args.binder and not args.url:
            raise Failure("--binder needs --url")
        (run_binder if args.binder else run)(args, report)
        report["result"] = "passed"
        code = 0
    except Failure as err:
        report["result"] = f"FAILED: {err}"
        code = 1
    Path(args.out).mkdir(parents=True, exist_ok=True)
    (Path(args.out) / "report.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report, indent=1))
    return code


if __name__ == "__main__":
    sys.exit(main())
