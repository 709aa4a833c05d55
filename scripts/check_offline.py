#!/usr/bin/env python3
"""Check that the built book's pages load nothing from another host.

    python scripts/check_offline.py _build/html            # every page
    python scripts/check_offline.py _build/html index.html book/api.html

Opens each page in headless Chromium, records every request the page makes (the
DevTools Protocol's ``Network.requestWillBeSent`` events, through the shared client
``scripts/cdp.py``),
and lists the requests to a host other than this machine: ``http(s)``/``ws(s)`` URLs whose
host is not ``localhost``/``127.0.0.1``/``::1``.  ``file:``, ``data:`` and ``blob:`` URLs
are local.  Links (launch buttons, the repository button) are not requests and are not
followed.  External requests are blocked while checking, so a missing network cannot
stall a page.  A local file a page asks for but cannot load (a missing script, font or
image) is listed too, and so is every console error or uncaught exception (besides the
messages of the requests already listed).  Exits 1 if any page made an external
request, missed a local file, logged an error or did not finish loading, 0 otherwise.
Needs Chromium (Debian package ``chromium``) on PATH, ``$CHROMIUM`` or ``--chromium
PATH``; the browser's whole process group is ended on every exit path.

``--screenshots DIR`` also saves each page as DIR/<page>-<width>.png at every width of
``--widths`` (default 1280,390), the whole page up to ``--max-height`` pixels.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import cdp  # noqa: E402  (scripts/cdp.py: the shared DevTools client)

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
    # pages named _*.html are not the book's (e.g. the whole-book PDF's transient source)
    return sorted(
        p
        for p in html_dir.rglob("*.html")
        if not skip.intersection(p.relative_to(html_dir).parts) and not p.name.startswith("_")
    )


class Browser:
    """Headless Chromium (``cdp.Browser``) that records each page's requests."""

    def __init__(self, chromium: str | None = None):
        self.browser = cdp.Browser(chromium)
        self.page = self.browser.page
        self.missing: list[str] = []
        self.console: list[str] = []
        for domain in ("Network", "Page", "Runtime", "Log"):
            self.page.call(f"{domain}.enable")
        # Requests to other hosts fail at once instead of waiting for a network.
        self.page.call(
            "Network.setBlockedURLs", urls=["http://*", "https://*", "ws://*", "wss://*"]
        )

    def visit(self, url: str, timeout: float, settle: float) -> tuple[list[str], bool]:
        """Load ``url``; return (every requested URL, whether the load event fired).

        Local files that failed to load are left in ``self.missing``, console errors and
        uncaught exceptions in ``self.console``."""
        # a blank page first: no event of the previous page is counted for this one
        blank = self.page.mark()
        self.page.call("Page.navigate", url="about:blank")
        self.page.wait_quiet(blank, 10, 0.0)
        mark = self.page.mark()
        self.page.call("Page.navigate", url=url)
        loaded = self.page.wait_quiet(mark, timeout, settle)
        events = self.page.events_since(mark)
        requests = {
            e["params"]["requestId"]: e["params"]["request"]["url"]
            for e in events
            if e.get("method") == "Network.requestWillBeSent"
        }
        self.missing = sorted(
            {
                requests.get(e["params"]["requestId"], "?")
                for e in events
                if e.get("method") == "Network.loadingFailed"
                and not is_external(requests.get(e["params"]["requestId"], ""))
                and not e["params"].get("canceled")
            }
        )
        # the blocked external requests show up as console errors too: not counted twice
        self.console = [
            c
            for c in self.page.console_errors(mark)
            if "ERR_BLOCKED_BY_CLIENT" not in c and "net::ERR_FILE_NOT_FOUND" not in c
        ]
        urls = [
            e["params"]["request"]["url"]
            for e in events
            if e.get("method") == "Network.requestWillBeSent"
        ]
        return urls, loaded

    def screenshot(
        self, url: str, width: int, path: Path, timeout: float, settle: float, max_height: int
    ) -> None:
        self.page.viewport(width, 900)
        self.visit(url, timeout, settle)
        time.sleep(settle)  # let MathJax typeset
        size = self.page.call("Page.getLayoutMetrics")["cssContentSize"]
        height = min(int(size["height"]), max_height)
        self.page.screenshot(path, clip={"x": 0, "y": 0, "width": width, "height": height})
        self.page.call("Emulation.clearDeviceMetricsOverride")

    def close(self) -> None:
        self.browser.close()

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


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
    bad = 0
    with Browser(chromium) as browser:
        for page in pages:
            urls, loaded = browser.visit(page.resolve().as_uri(), timeout, settle)
            external = sorted(set(u for u in urls if is_external(u)))
            rel = page.relative_to(html_dir)
            missing, console = browser.missing, browser.console
            if external or missing or console or not loaded:
                bad += 1
                why = "; did not finish loading" if not loaded else ""
                print(
                    f"FAIL {rel}: {len(external)} external request(s), "
                    f"{len(missing)} missing local file(s), {len(console)} console "
                    f"error(s){why}",
                    file=out,
                )
                for u in external:
                    print(f"     external: {u}", file=out)
                for u in missing:
                    print(f"     missing:  {u}", file=out)
                for c in console:
                    print(f"     console:  {c}", file=out)
            else:
                print(f"ok   {rel}: {len(urls)} requests, all local, no console error", file=out)
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
    print(f"{len(pages) - bad} of {len(pages)} pages load nothing from another host", file=out)
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("html_dir", type=Path, help="the built book, e.g. _build/html")
    ap.add_argument("pages", nargs="*", help="pages relative to html_dir (default: all)")
    ap.add_argument("--chromium", default=cdp.find_chromium(), help="default: $CHROMIUM or PATH")
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
