"""Live code through ``python3 dev.py live``, in headless Chromium, on two chapters.

One ``dev.py live`` server for the module; the page it prints is opened verbatim (it may
carry what the page needs to reach the Jupyter server), then chapters 8 and 2 (its
longest page) in the same tab.  On each chapter (``scripts/check_live.py``'s
``check_chapter``): with live code off the page requests nothing but the book's server;
the switch shows the first widget live within MAX_LIVE_S (what it needs runs first);
dragging the slider redraws the figure, a step within MAX_STEP_S (median of 3 drags);
then every cell runs without an error output; every request goes to the book's or the
local Jupyter server; switching off ends the kernel (no kernel process is left under
``dev.py live``).  Timings and the load average go to ``_build/test_browser/live_*.json``.
"""

from __future__ import annotations

import json
import os
import sys
import posixpath
import re
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import cdp  # noqa: E402
import check_live  # noqa: E402

FIRST = "book/06_one_dimension.html"
SECOND = "book/08_two_dimensions.html"
# Chapter 2's slider, on its longest page (32 cells; every cell takes ~35 s here)
THIRD = "book/02a_low_effort_and_bias.html"
# A chapter turns live (click to the first widget's figure) within MAX_LIVE_S whatever its
# length, and a slider step (mouse press to the first new figure, median of 3 drags)
# within MAX_STEP_S -- on a machine with a core to spare.  When more processes want to
# run than there are cores (the 1-minute load average above the core count), every step
# waits its turn: the targets are scaled by load / cores (reported with the timings).
# Independent of load, turning live must run only the first widget and what it needs.
MAX_LIVE_S = 10.0
MAX_STEP_S = 1.0


def slowdown() -> float:
    return max(1.0, os.getloadavg()[0] / (os.cpu_count() or 1))


OUT = ROOT / "_build" / "test_browser"


@pytest.fixture(scope="module")
def live(built_book):
    if built_book.resolve() != (ROOT / "_build" / "html").resolve():
        pytest.skip("dev.py live serves _build/html only (DMI_BOOK_HTML is set)")
    OUT.mkdir(parents=True, exist_ok=True)
    proc, url = check_live.start_live(cdp.free_port(), FIRST, OUT / "dev_live.log")
    try:
        yield proc, url
    finally:
        check_live.stop_group(proc)


@pytest.fixture(scope="module")
def tab(chromium, live):
    with cdp.Browser(chromium, width=1280, height=1600) as browser:
        yield browser.page


def _check(tab, live, url, name, restart=False):
    proc, _ = live
    factor = slowdown()
    report: dict = {
        "url": url.split("#")[0],
        "load average": os.getloadavg(),
        "cores": os.cpu_count(),
        "targets scaled by": round(factor, 2),
    }
    try:
        check_live.check_chapter(
            tab,
            url,
            proc.pid,
            OUT,
            report,
            timeout=240,
            name=name,
            max_live_s=MAX_LIVE_S,
            max_step_s=MAX_STEP_S,
            slowdown=factor,
            restart=restart,
        )
        report["result"] = "passed"
    except Exception as err:
        report["result"] = f"FAILED: {err!r}"  # kept in the JSON, then raised
        raise
    finally:
        (OUT / f"live_{name}.json").write_text(json.dumps(report, indent=1))
        print(json.dumps({k: report.get(k) for k in ("timings_s", "load average")}, indent=1))
    return report


def test_live_code_first_chapter(tab, live):
    # the URL exactly as dev.py live printed it
    _check(tab, live, live[1], "ch06")


def _same_server(live, page):
    # the same server, another chapter: a page path relative to the printed page
    return urllib.parse.urljoin(
        re.split(r"[?#]", live[1])[0], posixpath.relpath(page, posixpath.dirname(FIRST))
    )


def test_live_code_second_chapter_same_tab(tab, live):
    # and "restart & run all" starts a new kernel and runs every cell again
    _check(tab, live, _same_server(live, SECOND), "ch08", restart=True)


def test_live_code_longest_chapter_page_same_tab(tab, live):
    _check(tab, live, _same_server(live, THIRD), "ch02a")
