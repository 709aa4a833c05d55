"""The built book in headless Chromium, every page: what a reader's browser gets.

* every page loads with no request to another host, no missing local file and no
  console error (``scripts/check_offline.py``);
* every frame player's buttons change the frame shown (and its alt text follows);
* at a phone's width (390 CSS px): no page wider than the screen, no formula or other
  content cut off (wider than the box that clips it, and not in a box of its own that
  scrolls), every figure label at least 9 CSS px, every figure a link to its full-size
  image.

The book is ``_build/html``, built once by the ``built_book`` fixture (tests/conftest.py)
if it is missing or older than its sources; ``DMI_BOOK_HTML=DIR`` checks another copy.
"""

from __future__ import annotations

import io
import json
import re
import sys
import time
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import cdp  # noqa: E402
import check_offline  # noqa: E402

PHONE = 390  # CSS px
MIN_LABEL_PX = 9.0


def pages(html: Path) -> list[Path]:
    return check_offline.pages_in(html, [])


@pytest.fixture(scope="module")
def browser(chromium):
    with cdp.Browser(chromium, width=1280, height=900) as b:
        for domain in ("Page", "Runtime", "Log", "Network"):
            b.page.call(f"{domain}.enable")
        b.page.call("Network.setBlockedURLs", urls=["http://*", "https://*", "ws://*", "wss://*"])
        yield b


def load(page: cdp.CDP, url: str) -> None:
    """Open ``url`` and wait for it to load and MathJax to finish typesetting."""
    blank = page.mark()
    page.call("Page.navigate", url="about:blank")
    page.wait_quiet(blank, 10, 0.0)
    mark = page.mark()
    page.call("Page.navigate", url=url)
    if not page.wait_quiet(mark, 60, 0.3):
        raise AssertionError(f"{url} did not load")
    page.wait_for(
        "!window.MathJax || !MathJax.startup || !MathJax.startup.promise ? true : "
        "MathJax.startup.promise.then(() => true)",
        60,
        "MathJax",
    )
    time.sleep(0.3)  # dmi-book.js's resize pass, fonts


# --- every page offline, without console errors -----------------------------------------


def test_every_page_loads_offline_without_console_errors(built_book, chromium):
    out = io.StringIO()
    code = check_offline.check(built_book, [], chromium, timeout=60, settle=0.5, out=out)
    text = out.getvalue()
    print(text)
    assert code == 0, text
    assert len(pages(built_book)) >= 15, text


# --- frame players --------------------------------------------------------------------

PLAYERS_JS = """Array.from(document.querySelectorAll('img[id^="_anim_img"]')).map(img => {
  const id = img.id.slice('_anim_img'.length);
  return {id: id, src: img.src.slice(-64), alt: img.alt};
})"""


def player_state(page, pid):
    return page.js(
        f"""(() => {{ const img = document.getElementById('_anim_img{pid}');
        const s = document.getElementById('_anim_slider{pid}');
        return {{src: img.src, alt: img.alt, slider: s ? s.value : null}}; }})()"""
    )


def press(page, pid, label):
    """Click the player's button with aria-label ``label`` (a real mouse click)."""
    box = page.js(
        f"""(() => {{ const img = document.getElementById('_anim_img{pid}');
        const b = img.closest('.animation').querySelector('button[aria-label="{label}"]');
        if (!b) return null;
        b.scrollIntoView({{block: 'center', behavior: 'instant'}});
        const r = b.getBoundingClientRect();
        return {{x: r.x + r.width / 2, y: r.y + r.height / 2}}; }})()"""
    )
    assert box is not None, f"player {pid} has no button {label!r}"
    page.click(box["x"], box["y"])
    time.sleep(0.15)


def test_every_frame_players_buttons_change_the_frame(built_book, browser):
    page = browser.page
    found, problems = 0, []
    for path in pages(built_book):
        if "_anim_img" not in path.read_text(errors="replace"):
            continue
        load(page, path.resolve().as_uri())
        page.wait_for("typeof Animation === 'function'", 10, "the player script")
        time.sleep(0.2)
        for player in page.js(PLAYERS_JS):
            found += 1
            pid, where = player["id"], f"{path.name} player {player['id'][:8]}"
            press(page, pid, "First frame")
            first = player_state(page, pid)
            steps = [("Next frame", "!="), ("Last frame", "!="), ("Previous frame", "!=")]
            before = first
            for label, _ in steps:
                press(page, pid, label)
                now = player_state(page, pid)
                if now["src"] == before["src"]:
                    problems.append(f"{where}: {label!r} did not change the frame")
                if now["alt"] == before["alt"]:
                    problems.append(f"{where}: {label!r} did not change the alt text")
                before = now
            press(page, pid, "First frame")
            if player_state(page, pid)["src"] != first["src"]:
                problems.append(f"{where}: 'First frame' did not return to the first frame")
            press(page, pid, "Play")
            time.sleep(2.0)
            played = player_state(page, pid)
            press(page, pid, "Pause")
            if played["src"] == first["src"]:
                problems.append(f"{where}: 'Play' did not move on from the first frame")
            if first["alt"] in ("animation frame", "") or "frame 1 of" in first["alt"]:
                problems.append(f"{where}: alt text {first['alt']!r} does not say what it shows")
    assert found >= 9, f"expected the book's nine frame players, found {found}"
    assert not problems, "\n".join(problems)


# --- the phone layout -----------------------------------------------------------------

#: For every element of the page's main content: is it wider than a box that clips it
#: (an ancestor whose overflow is not visible, or the screen) without being inside a
#: box of its own that scrolls?  Formulas (MathJax) are measured by their mjx-math box.
LAYOUT_JS = r"""(() => {
  const vw = document.documentElement.clientWidth;
  // the page's content (the side bars are drawers on a phone, off the screen until opened)
  const main = document.querySelector('article') || document.querySelector('main')
    || document.body;
  const article = main;
  const cut = [];
  function describe(el) {
    const t = (el.textContent || el.getAttribute('src') || '').replace(/\s+/g, ' ').trim();
    return el.tagName.toLowerCase() + (el.className && typeof el.className === 'string'
      ? '.' + el.className.split(' ')[0] : '') + ': ' + t.slice(0, 70);
  }
  function scrollBox(el) {
    // the nearest ancestor-or-self inside the article that scrolls sideways
    for (let a = el; a && a !== article && a !== document.body; a = a.parentElement) {
      const o = getComputedStyle(a).overflowX;
      if (o === 'auto' || o === 'scroll') return a;
    }
    return null;
  }
  function clipEdges(el) {
    let l = 0, r = vw;
    for (let a = el.parentElement; a; a = a.parentElement) {
      if (getComputedStyle(a).overflowX !== 'visible') {
        const b = a.getBoundingClientRect();
        l = Math.max(l, b.left); r = Math.min(r, b.right);
      }
    }
    return [l, r];
  }
  function isCut(el) {
    const box = scrollBox(el.parentElement || el) || el;
    const r = box.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) return 0;
    const [l, rr] = clipEdges(box);
    return Math.max(r.right - rr, l - r.left);
  }
  const formulas = Array.from(main.querySelectorAll('mjx-container'));
  for (const f of formulas) {
    const m = f.querySelector('mjx-math') || f;
    const by = isCut(m);
    if (by > 1) cut.push({what: 'formula ' + describe(f), by: Math.round(by)});
  }
  const blocks = main.querySelectorAll(
    'p, li, dt, dd, pre, table, img, svg, figure, .cell_output, .highlight, .admonition, ' +
    '.proof, .animation, h1, h2, h3, code, .sig');
  const reported = new Set();  // one report for a cut element, not one per descendant
  for (const el of blocks) {
    if (el.closest('mjx-container')) continue;
    let inner = false;
    for (let a = el.parentElement; a && !inner; a = a.parentElement) inner = reported.has(a);
    if (inner) continue;
    const by = isCut(el);
    if (by > 1) {
      cut.push({what: describe(el), by: Math.round(by)});
      reported.add(el);
    }
  }
  return {vw: vw, scrollWidth: Math.max(document.documentElement.scrollWidth,
                                        document.body.scrollWidth),
          formulas: formulas.length, cut: cut};
})()"""

FIGURES_JS = r"""(() => {
  const main = document.querySelector('article') || document.querySelector('main')
    || document.body;
  // figures: every image but the index pages' expand/collapse icons (Sphinx's togglers)
  return Array.from(main.querySelectorAll('img:not(.toggler)')).map(img => {
    const r = img.getBoundingClientRect();
    const a = img.closest('a[href]');
    return {src: img.getAttribute('src'), url: img.src, width: r.width,
            link: a ? a.href : null, player: img.id.startsWith('_anim_img'),
            minFontPt: img.dataset.dmiMinFontPt ? parseFloat(img.dataset.dmiMinFontPt) : null,
            naturalCss: img.dataset.dmiWidth ? parseFloat(img.dataset.dmiWidth) : null};
  });
})()"""


def svg_label_sizes(svg: str) -> tuple[float, list[float]]:
    """(viewBox width, font size of every text) of a matplotlib SVG whose text is drawn as
    glyph paths: each text is a group ``<g transform="... scale(s -s)">`` of glyphs at
    size 100 s (matplotlib's TextToPath works at 100 points)."""
    view = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+) [\d.]+"', svg)
    assert view, "an SVG without a viewBox"
    sizes = [
        100 * float(a)
        for a, b in re.findall(r'<g transform="[^"]*scale\(([\d.]+) -([\d.]+)\)"', svg)
        if a == b
    ]
    return float(view.group(1)), sizes


def file_of(url: str) -> Path:
    return Path(unquote(urlsplit(url).path))


def phone_problems(page, path: Path, stats: dict | None = None) -> list[str]:
    """What is wrong with the page shown at a phone's width; ``stats`` (if given) counts
    what was measured: figures, players, the smallest label (CSS px)."""
    stats = {} if stats is None else stats
    problems = []
    layout = page.js(LAYOUT_JS)
    if layout["scrollWidth"] > layout["vw"] + 1:
        problems.append(f"page is {layout['scrollWidth']} px wide on a {layout['vw']} px screen")
    for c in layout["cut"]:
        problems.append(f"cut off by {c['by']} px: {c['what']}")
    for fig in page.js(FIGURES_JS):
        src = fig["src"] or ""
        if fig["width"] == 0 or src.startswith("data:") and not fig["player"]:
            continue
        if fig["player"]:
            if fig["minFontPt"] is None or not fig["naturalCss"]:
                problems.append(f"frame player without its font size: {src[:40]}")
                continue
            px = fig["minFontPt"] * 4 / 3 * fig["width"] / fig["naturalCss"]
            stats["players"] = stats.get("players", 0) + 1
            stats["smallest player label px"] = round(
                min(px, stats.get("smallest player label px", 99)), 2
            )
            if px < MIN_LABEL_PX - 0.05:
                problems.append(f"frame player labels at {px:.1f} px")
            continue
        if fig["link"] is None or file_of(fig["link"]) != file_of(fig["url"]):
            problems.append(f"figure {src} is not a link to its full-size image")
        if src.lower().endswith(".svg"):
            width, sizes = svg_label_sizes(file_of(fig["url"]).read_text(errors="replace"))
            if sizes:
                px = min(sizes) * fig["width"] / width
                stats["svg figures"] = stats.get("svg figures", 0) + 1
                stats["smallest svg label px"] = round(
                    min(px, stats.get("smallest svg label px", 99)), 2
                )
                if px < MIN_LABEL_PX - 0.05:
                    problems.append(
                        f"figure {Path(src).name}: smallest label {min(sizes):.1f} pt renders "
                        f"at {px:.1f} CSS px (figure {fig['width']:.0f} px wide)"
                    )
    return [f"{path.name}: {p}" for p in problems]


def test_phone_layout_of_every_page(built_book, browser):
    page = browser.page
    page.viewport(PHONE, 844, mobile=True)
    problems, stats = [], {"pages": 0, "formulas": 0}
    try:
        for path in pages(built_book):
            load(page, path.resolve().as_uri())
            stats["pages"] += 1
            stats["formulas"] += page.js("document.querySelectorAll('mjx-container').length")
            problems += phone_problems(page, path.relative_to(built_book), stats)
    finally:
        page.viewport(1280, 900, mobile=False)
    print(json.dumps(stats))
    # the checks had something to measure: MathJax ran, figures and players were found
    assert stats["formulas"] > 100 and stats["svg figures"] > 30 and stats["players"] >= 9, stats
    assert not problems, f"{len(problems)} problem(s) at {PHONE} px:\n" + "\n".join(problems)


def test_phone_checks_catch_a_cut_formula_a_wide_page_and_small_labels(browser, tmp_path):
    # the checks above can fail: a page with each fault
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="600pt" height="100pt" '
        'viewBox="0 0 600 100"><g transform="translate(10 50) scale(0.1 -0.1)">'
        '<rect width="100" height="100"/></g></svg>'
    )
    (tmp_path / "fig.svg").write_text(svg)
    (tmp_path / "bad.html").write_text(
        '<html><head><meta name="viewport" content="width=device-width"></head><body>'
        '<main><article><div style="overflow: hidden">'
        '<mjx-container jax="CHTML"><mjx-math style="display: inline-block; width: 900px">'
        "x</mjx-math></mjx-container></div>"
        '<pre style="width: 700px">a wide block</pre>'
        '<img src="fig.svg" style="width: 100%"></article></main></body></html>'
    )
    page = browser.page
    page.viewport(PHONE, 844, mobile=True)
    try:
        load(page, (tmp_path / "bad.html").as_uri())
        problems = phone_problems(page, tmp_path / "bad.html")
    finally:
        page.viewport(1280, 900, mobile=False)
    text = "\n".join(problems)
    assert "page is" in text and "wide on a 390 px screen" in text, text
    assert "cut off by" in text and "formula" in text, text
    assert "is not a link to its full-size image" in text, text
    assert "smallest label 10.0 pt renders at" in text, text
