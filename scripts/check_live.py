"""End-to-end check of the book's "Live code" switch in headless Chromium.

Starts ``python3 dev.py live`` (or uses ``--url`` of one already running), opens a
chapter with an ``interact`` slider in headless Chromium driven over the DevTools
protocol, and checks, timing each step:

1. with live code off the page requests nothing but the book's own server;
2. a click on the switch loads thebe from the book, starts a kernel on the local Jupyter
   server and shows the first widget, live (timed: "switch on -> first widget shown", the
   moment a reader can use it);
3. the slider's widget is live: dragging its handle changes the readout and the figure
   (the figure's pixels and its SVG/PNG data differ before and after; each drag is timed
   from the mouse press to the first new figure); then every cell runs without error;
4. with live code on, every request and WebSocket goes to the book's server or the local
   Jupyter server;
5. switching off shuts the kernel down (no kernel process is left under ``dev.py live``).

The page is opened at the URL ``dev.py live`` prints, verbatim (whatever it carries);
the Jupyter server is the one the page reports (``dmiLive.server``) and kernels are
counted as processes, so nothing else of the server's is read.  Screenshots (1280 px and
390 px wide) and ``report.json`` go to ``--out``.  Exits 1 on a failed check.  Needs
Chromium (Debian: ``apt-get install chromium``); the browser goes through the shared
client ``scripts/cdp.py``.  ``tests/test_browser_live.py`` runs :func:`check_chapter` on
two chapters as part of ``python3 dev.py test``.

    python scripts/check_live.py [--page book/06_one_dimension.html] [--out DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cdp  # noqa: E402  (scripts/cdp.py: the shared DevTools client)
from cdp import free_port  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


Failure = cdp.Failure


def wait_for(page: cdp.CDP, expr: str, timeout: float, what: str, poll: float = 0.2):
    return page.wait_for(expr, timeout, what, poll)


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


def screenshot(page: cdp.CDP, path: Path, clip: dict | None = None) -> bytes:
    return page.screenshot(path, clip)


def kernels_under(pid: int) -> list[int]:
    """The pids of the Jupyter kernels (``ipykernel_launcher``) descended from ``pid``:
    the kernels of the Jupyter server that ``dev.py live`` started (Linux, /proc)."""
    children: dict[int, list[int]] = {}
    cmdlines: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # ended while we looked
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if fields[0] == "Z":
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
        cmdlines[int(entry.name)] = cmd
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            todo.append(child)
            if "ipykernel_launcher" in cmdlines.get(child, ""):
                found.append(child)
    return found


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


LIVE_JS = """({timings: dmiLive.timings, errors: dmiLive.errors, mode: dmiLive.mode,
  ran: dmiLive.ran, total: dmiLive.total, server: dmiLive.server,
  firstWidget: dmiLive.firstWidget || null,
  status: document.querySelector('.dmi-live-status').textContent,
  cells: document.querySelectorAll('.thebe-cell').length,
  errorOutputs: Array.from(document.querySelectorAll(
    '[data-mime-type="application/vnd.jupyter.error"]')).map(e => e.textContent.slice(0, 300))})"""

# An element's centre, scrolled into view, and whether a click there reaches it.
CENTRE_JS = """((b) => { if (!b) return null;
  b.scrollIntoView({block: 'center', behavior: 'instant'});
  const r = b.getBoundingClientRect();
  const x = r.x + r.width / 2, y = r.y + r.height / 2;
  const hit = document.elementFromPoint(x, y);
  return {x, y, hit: hit !== null && (hit === b || b.contains(hit))}; })"""

SWITCH_JS = CENTRE_JS + "(document.querySelector('.dmi-live-switch'))"


# the first "restart & run all" button a reader can see (a collapsed cell hides its own)
RESTART_ALL_JS = (
    CENTRE_JS
    + """(Array.from(document.querySelectorAll(
    '.thebe-restartall-button')).find((b) => b.checkVisibility({visibilityProperty: true})))"""
)


def centre_of(page: cdp.CDP, js: str, what: str) -> dict:
    """Scroll ``what`` into view (``js``: :data:`CENTRE_JS` applied to it); its centre
    once the page has stopped moving, where a click must reach it."""
    page.js(js)
    time.sleep(0.3)
    box = page.js(js)
    if box is None:
        raise Failure(f"no {what} on the page")
    if not box["hit"]:
        raise Failure(f"the {what} is covered by another element")
    return box


def restart_all(page: cdp.CDP, live_pid: int | None, timeout: float) -> dict:
    """Press a cell's "restart & run all" button, as a reader does: the kernel must be a
    new process (when ``live_pid`` is given) and every cell must run again on it."""
    before = kernels_under(live_pid) if live_pid is not None else None
    box = centre_of(page, RESTART_ALL_JS, '"restart & run all" button')
    s = time.monotonic()
    page.click(box["x"], box["y"])
    wait_for(page, "dmiLive.restarts === 1", 60, "the kernel to restart")
    state = wait_for(
        page,
        "(dmiLive.state === 'error' && 'error') || (dmiLive.restarts === 1 && "
        "dmiLive.state === 'ready' && dmiLive.ran === dmiLive.total && 'ready')",
        timeout,
        "restart & run all",
    )
    took = round(time.monotonic() - s, 2)
    live = page.js(LIVE_JS)
    if state != "ready":
        raise Failure(f"restart & run all ended in state {state!r}: {live['status']}")
    if live["errors"] or live["errorOutputs"]:
        raise Failure(f"cells raised errors after the restart: {live['errors']}")
    result = {"took_s": took, "cells run": live["ran"]}
    if live_pid is not None:
        after = kernels_under(live_pid)
        result["kernel processes before, after"] = [before, after]
        if len(after) != 1 or after == before:
            raise Failure(f"the kernel was not restarted: processes {before} -> {after}")
    return result


def switch_position(page: cdp.CDP) -> dict:
    """Scroll the switch into view; its centre once the page has stopped moving."""
    return centre_of(page, SWITCH_JS, "live-code switch")


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


def run_binder(args, report: dict) -> dict:
    """A page built with a repository URL and served without a local Jupyter server:
    switching on must ask the configured BinderHub (and nothing else) for a kernel."""
    url = args.url
    book_origin = origin(url)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    with cdp.Browser(width=1280, height=1600) as browser:
        page = browser.page
        try:
            for domain in ("Page", "Network", "Runtime", "Log"):
                page.call(f"{domain}.enable")
            m0 = page.mark()
            page.call("Page.navigate", url=url)
            wait_for(
                page,
                "document.readyState === 'complete' && !!window.dmiLive",
                60,
                "the page to load",
            )
            time.sleep(1.0)
            cfg = page.js("JSON.parse(document.querySelector('#dmi-live-config').textContent)")
            report["page config"] = cfg
            if not cfg.get("binder"):
                raise Failure("the page carries no Binder settings (built without --repo-url?)")
            binder_origin = origin(cfg["binder"]["binderUrl"])
            static = requests_in(page.events_since(m0))
            foreign = [u for u in static if origin(u) not in (book_origin, "data:", "blob:")]
            report["checks"] = {
                "static page requests": {"count": len(static), "not from the book": foreign}
            }
            if foreign:
                raise Failure(f"the static page fetched from other servers: {foreign}")
            m1 = page.mark()
            page.js("document.querySelector('.dmi-live-switch').click()")
            wait_for(
                page,
                f"""performance.getEntriesByType('resource').some(
                e => e.name.startsWith({json.dumps(binder_origin)}))
                || ['error', 'unavailable'].includes(dmiLive.state)""",
                60,
                "a request to the BinderHub",
            )
            time.sleep(2.0)
            reqs = requests_in(page.events_since(m1))
            state = page.js(
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
            write_console(page.events_since(0), Path(args.out) / "console_binder.txt")
    return report


def check_chapter(
    page: cdp.CDP,
    url: str,
    live_pid: int | None,
    out: Path,
    report: dict,
    *,
    timeout: float = 300,
    drag_px: float = 120,
    drags: int = 3,
    max_live_s: float | None = None,
    max_step_s: float | None = None,
    slowdown: float = 1.0,
    allow_static_origin: tuple[str, ...] = (),
    name: str = "",
    restart: bool = False,
) -> dict:
    """Steps 1-5 of the module's docstring on one chapter, in the tab ``page``.

    ``url`` is opened as given (the URL ``dev.py live`` printed, or another chapter of the
    same book in the same tab).  ``live_pid`` is the ``dev.py live`` process: its kernels
    are counted from the process tree (none after switching off).  With ``max_live_s``
    and ``max_step_s``, turning live (click to the first widget's figure) and the median
    slider step (of ``drags`` drags) must not take longer, times ``slowdown`` (how
    oversubscribed the machine is).  With ``restart``, "restart & run all" must then
    restart the kernel and run every cell again (:func:`restart_all`).  Raises
    ``Failure``.
    """
    out.mkdir(parents=True, exist_ok=True)
    pre = f"{name}_" if name else ""
    report.setdefault("timings_s", {})
    report.setdefault("checks", {})
    t, checks = report["timings_s"], report["checks"]
    book_origin = origin(url)
    for domain in ("Page", "Network", "Runtime", "Log"):
        page.call(f"{domain}.enable")
    page.viewport(1280, 1600)

    # 1. the static page
    m0 = page.mark()
    s = time.monotonic()
    page.call("Page.navigate", url=url)
    # dev.py live's URL carries its token once and is redirected to the page without it
    wait_for(
        page,
        f"location.href.split(/[?#]/)[0] === {json.dumps(re.split(r'[?#]', url)[0])}",
        60,
        "the navigation",
    )
    wait_for(page, "document.readyState === 'complete' && !!window.dmiLive", 60, "the page to load")
    time.sleep(1.0)  # deferred scripts, fonts
    t["page load (live code off)"] = round(time.monotonic() - s, 2)
    static_reqs = requests_in(page.events_since(m0))
    foreign = [u for u in static_reqs if origin(u) not in (book_origin, "data:", "blob:")]
    checks["static page requests"] = {"count": len(static_reqs), "not from the book": foreign}
    foreign = [u for u in foreign if origin(u) not in allow_static_origin]
    if foreign:
        raise Failure(f"the static page fetched from other servers: {foreign}")
    screenshot(page, out / f"{pre}static_1280.png")

    # 2. switch on: thebe, a kernel, the first widget with the cells it needs
    m1 = page.mark()
    box = switch_position(page)
    s = time.monotonic()
    page.click(box["x"], box["y"])
    # live, as the reader sees it: the first widget's figure is drawn by the kernel
    state = wait_for(
        page,
        f"(['error', 'unavailable'].includes(dmiLive.state) && dmiLive.state) || "
        f"(dmiLive.timings.firstWidgetRan && {FIGURE_JS} && 'shown')",
        timeout,
        "the first widget to show its figure",
    )
    t["switch on -> first widget shown"] = round(time.monotonic() - s, 2)
    live = page.js(LIVE_JS)
    report["live"] = live
    if state != "shown":
        raise Failure(f"live code ended in state {state!r}: {live['status']}")
    if live["mode"] != "dependencies":
        raise Failure(f"the page's cells do not match the build's list: mode {live['mode']!r}")
    first = live["firstWidget"] or {}
    if not first:
        raise Failure("the page says it has no widget (no cell calls interact)")
    checks["cells run to show the first widget"] = f"{first['ranBefore']} of {live['total']}"
    if first["ranBefore"] != first["needs"] + 1:
        raise Failure(
            f"turning live ran {first['ranBefore']} cells; the first widget needs "
            f"{first['needs']} and itself"
        )
    server = str(live.get("server") or "")
    if server.startswith("binder:"):
        raise Failure(f"expected the local Jupyter server, got {server}")
    if server.startswith("local:"):
        jupyter_origin = origin(server[len("local:") :])
    else:  # the page does not say: the local server its kernel WebSocket went to
        sockets = [
            e["params"]["url"]
            for e in page.events_since(m1, "Network.webSocketCreated")
            if urllib.parse.urlsplit(e["params"]["url"]).hostname in ("127.0.0.1", "localhost")
        ]
        if not sockets:
            raise Failure(f"no kernel WebSocket to a local server (page says {server!r})")
        jupyter_origin = origin(sockets[0]).replace("ws", "http", 1)

    # 3. the slider and its figure: `drags` drags (alternating direction), each timed
    # from the mouse press to the first new figure
    wait_for(page, SLIDER_JS, 30, "the slider")
    fig0 = wait_for(page, FIGURE_JS, 60, "the interact figure")
    time.sleep(0.3)
    clip = {"x": fig0["x"], "y": fig0["y"], "width": fig0["w"], "height": fig0["h"]}
    png0 = screenshot(page, out / f"{pre}figure_before.png", clip)
    screenshot(page, out / f"{pre}live_1280.png")
    page.js(SLIDER_JS)  # scrolls the slider into view: coordinates after that
    time.sleep(0.3)
    slider = page.js(SLIDER_JS)
    steps, settled, fig = [], [], fig0
    for k in range(drags):
        handle = page.js(SLIDER_JS)
        s = time.monotonic()
        page.drag(handle["x"], handle["y"], drag_px / (k + 1) * (-1) ** k)
        wait_for(
            page,
            f"(() => {{ const f = {FIGURE_JS}; return f && "
            f"f.data !== {json.dumps(fig['data'])}; }})()",
            60,
            "the figure to change after the slider moved",
        )
        steps.append(round(time.monotonic() - s, 2))
        # interact redraws while the handle moves: wait until the last value is drawn
        last, since = None, time.monotonic()
        while time.monotonic() - since < 1.5 and time.monotonic() - s < 60:
            data = page.js(FIGURE_JS)["data"]
            if data != last:
                last, since = data, time.monotonic()
            time.sleep(0.1)
        settled.append(round(since - s, 2))
        fig = page.js(FIGURE_JS)
    t["slider moved -> new figure (each drag)"] = steps
    t["slider moved -> last figure drawn (each drag)"] = settled
    slider1 = page.js(SLIDER_JS)
    fig1 = page.js(FIGURE_JS)
    time.sleep(0.3)
    clip1 = {"x": fig1["x"], "y": fig1["y"], "width": fig1["w"], "height": fig1["h"]}
    png1 = screenshot(page, out / f"{pre}figure_after.png", clip1)
    checks["slider"] = {
        "readout before": slider["readout"],
        "readout after": slider1["readout"],
        "figure element": fig0["tag"],
        "figure data sha256 before": hashlib.sha256(fig0["data"].encode()).hexdigest(),
        "figure data sha256 after": hashlib.sha256(fig1["data"].encode()).hexdigest(),
        "figure screenshot sha256 before": hashlib.sha256(png0).hexdigest(),
        "figure screenshot sha256 after": hashlib.sha256(png1).hexdigest(),
    }
    if fig0["data"] == fig1["data"]:
        raise Failure("the figure did not change when the slider moved")
    if png0 == png1:
        raise Failure("the figure's pixels did not change when the slider moved")
    if slider["readout"] == slider1["readout"]:
        raise Failure(f"the slider's readout stayed at {slider['readout']!r}")

    # every cell, in page order after those that ran, without an error output
    s = time.monotonic()
    page.js("dmiLive.runAll(); 1")
    state = wait_for(
        page,
        "(dmiLive.state === 'error' && 'error') || "
        "(dmiLive.state === 'ready' && dmiLive.ran === dmiLive.total && 'ready')",
        timeout,
        "every cell to run",
    )
    t["run all: the other cells"] = round(time.monotonic() - s, 2)
    live = page.js(LIVE_JS)
    report["live"] = live
    lt = live["timings"] or {}
    for a, b, what in (
        ("switchOn", "thebeLoaded", "thebe scripts loaded"),
        ("thebeLoaded", "kernelReady", "kernel started"),
        ("kernelReady", "firstWidgetRan", "first widget and the cells it needs ran"),
    ):
        if a in lt and b in lt:
            t[f"  {what}"] = round((lt[b] - lt[a]) / 1000, 2)
    if state != "ready":
        raise Failure(f"live code ended in state {state!r}: {live['status']}")
    if live["errors"] or live["errorOutputs"]:
        raise Failure(f"cells raised errors: {live['errors']} {live['errorOutputs']}")
    if live_pid is not None:
        kernels = kernels_under(live_pid)
        checks["kernels running (processes)"] = len(kernels)
        if len(kernels) != 1:
            raise Failure(f"expected one kernel process, found {len(kernels)}")
    if restart:
        checks["restart & run all"] = restart_all(page, live_pid, timeout)
    # the time targets, checked after switching off (below), so a slow run cleans up too
    slow = []
    took = t["switch on -> first widget shown"]
    if max_live_s is not None and took > max_live_s * slowdown:
        slow.append(f"turning live took {took} s (target {max_live_s} s x {slowdown:.2f})")
    step = statistics.median(steps)
    if max_step_s is not None and step > max_step_s * slowdown:
        slow.append(
            f"a slider step took {step} s, median of {steps} "
            f"(target {max_step_s} s x {slowdown:.2f})"
        )
    checks["time targets"] = slow or "met"

    # phone width
    page.viewport(390, 1400)
    time.sleep(0.5)
    page.js(FIGURE_JS)
    screenshot(page, out / f"{pre}live_390.png")
    page.viewport(1280, 1600)

    # 4. requests while live
    live_reqs = requests_in(page.events_since(m1))
    ws_origin = jupyter_origin.replace("http", "ws", 1)
    allowed = {book_origin, jupyter_origin, ws_origin, "data:", "blob:"}
    foreign = [
        u for u in live_reqs if origin(u) not in allowed and origin(u) not in allow_static_origin
    ]
    by_origin: dict[str, int] = {}
    for u in live_reqs:
        by_origin[origin(u)] = by_origin.get(origin(u), 0) + 1
    checks["live requests"] = {"by origin": by_origin, "foreign": foreign}
    if foreign:
        raise Failure(f"live code fetched from other servers: {foreign}")
    if not any(origin(u) == ws_origin for u in live_reqs):
        raise Failure("no WebSocket to the local Jupyter server was opened")
    exceptions = [
        e["params"]["exceptionDetails"]
        .get("exception", {})
        .get("description", e["params"]["exceptionDetails"].get("text"))
        for e in page.events_since(m0, "Runtime.exceptionThrown")
    ]
    checks["uncaught page exceptions"] = exceptions
    if exceptions:
        raise Failure(f"uncaught exceptions on the page: {exceptions}")

    # 5. switch off: the kernel is shut down, then the page reloads.  A mark on the live
    # document tells the reloaded one apart (a navigation started before the reload
    # would be cancelled by it).
    box = switch_position(page)
    page.js("window.__dmiLiveDocument = true")
    s = time.monotonic()
    page.click(box["x"], box["y"])
    wait_for(
        page,
        "!window.__dmiLiveDocument && document.readyState === 'complete' "
        "&& window.dmiLive && dmiLive.state === 'off'",
        30,
        "the static page reloaded after switching off",
    )
    if live_pid is not None:
        for _ in range(100):
            kernels = kernels_under(live_pid)
            if not kernels:
                break
            time.sleep(0.1)
        checks["kernels after switching off (processes)"] = len(kernels)
        if kernels:
            raise Failure(f"{len(kernels)} kernel(s) still running after switching off")
    t["switch off -> static page, no kernel"] = round(time.monotonic() - s, 2)
    write_console(page.events_since(m0), out / f"{pre}console.txt")
    if slow:
        raise Failure("; ".join(slow))
    return report


def run(args, report: dict) -> dict:
    """Start ``dev.py live`` (unless ``--url``) and headless Chromium; check ``--page``."""
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report.update({"page": args.page, "timings_s": {}, "checks": {}})
    live_proc = None
    t0 = time.monotonic()
    try:
        if args.url:
            url = args.url
        else:
            live_proc, url = start_live(args.port or free_port(), args.page, out / "dev_live.log")
            report["timings_s"]["dev.py live until URL printed"] = round(time.monotonic() - t0, 2)
        with cdp.Browser(width=1280, height=1600) as browser:
            check_chapter(
                browser.page,
                url,
                live_proc.pid if live_proc else None,
                out,
                report,
                timeout=args.timeout,
                drag_px=args.drag_px,
                allow_static_origin=tuple(args.allow_static_origin),
            )
    finally:
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
