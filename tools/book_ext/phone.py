"""The layout for a page as narrow as a phone's (390 CSS px) as well as a desktop's.

Writes the book-wide CSS and JavaScript (``_static/dmi-book.css``, ``dmi-book.js``) and
wraps each figure image in a link to its full-size file, with the width at which its
smallest label stays readable.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.application import Sphinx

#: Book-wide CSS (written to _static/dmi-book.css), for a page as narrow as a phone's
#: (390 CSS px) as well as a desktop's:
#:
#: * the API page's summary tables wrap their long names (on a phone each row's name and
#:   summary stack), and signatures wrap between parameters;
#: * a display formula wider than the column scrolls in its own box; an inline formula
#:   wider than its line gets the class ``dmi-math-wide`` (BOOK_JS) and scrolls too;
#: * a figure is a link to its full-size SVG (a tap opens it) and keeps the width at which
#:   its smallest label is 9 CSS px (``min-width``, set per figure by
#:   :func:`_figure_links`), scrolling sideways in its own box when the column is narrower;
#:   the frame players' images likewise.
BOOK_CSS = """\
table.autosummary td, table.autosummary code { white-space: normal; overflow-wrap: anywhere; }
@media (max-width: 600px) {
  table.autosummary, table.autosummary tbody, table.autosummary tr,
  table.autosummary td { display: block; width: 100%; }
  table.autosummary td:last-child { padding-top: 0; }
}
dt.sig { white-space: normal; overflow-wrap: anywhere; max-width: 100%; }
article dl.field-list { grid-template-columns: minmax(0, 1fr); }
article dl.field-list > dt, article dl.field-list > dd, article dl dt, article dl dd,
article dl p { min-width: 0; overflow-wrap: anywhere; }
article code.literal { overflow-wrap: anywhere; }
article code.literal span.pre { white-space: pre-wrap; }
@media (max-width: 600px) {
  article dl.field-list { display: block; }
  table.indextable, table.indextable tbody, table.indextable tr,
  table.indextable td { display: block; width: 100%; }
  table.indextable td, table.indextable li, table.indextable code,
  table.indextable span.pre { overflow-wrap: anywhere; white-space: normal; }
}
dt.sig .sig-param, dt.sig .sig-name, dt.sig .sig-prename { white-space: normal; }
dt.sig em.sig-param { overflow-wrap: anywhere; }
mjx-container[jax="CHTML"][display="true"] {
  display: block; max-width: 100%; overflow-x: auto; overflow-y: hidden;
  padding: 2px 0;
}
mjx-container.dmi-math-wide {
  display: inline-block; max-width: 100%; overflow-x: auto; overflow-y: hidden;
  vertical-align: middle; padding: 1px 0;
}
div.math, .math-wrapper { max-width: 100%; overflow-x: auto; overflow-y: hidden; }
a.dmi-figure { display: block; max-width: 100%; overflow-x: auto; overflow-y: hidden;
  text-align: center; cursor: zoom-in; -webkit-overflow-scrolling: touch; }
a.dmi-figure > img { max-width: 100%; height: auto; }
.dmi-frame-scroll { max-width: 100%; overflow-x: auto; overflow-y: hidden; }
"""

#: Book-wide JavaScript (``_static/dmi-book.js``): once MathJax has typeset the page, an
#: inline formula wider than the line it is in gets the class ``dmi-math-wide`` (it then
#: scrolls in its own box instead of being cut off); again after a resize.
BOOK_JS = """\
(function () {
  "use strict";
  function fit() {
    document.querySelectorAll("mjx-container.dmi-math-wide").forEach(function (m) {
      m.classList.remove("dmi-math-wide");
    });
    document.querySelectorAll('mjx-container[jax="CHTML"]:not([display="true"])')
      .forEach(function (m) {
        var box = m.parentElement;
        while (box && getComputedStyle(box).display.indexOf("inline") === 0) {
          box = box.parentElement;
        }
        if (!box) return;
        var r = m.getBoundingClientRect(), b = box.getBoundingClientRect();
        var cs = getComputedStyle(box);
        var right = b.right - parseFloat(cs.paddingRight || "0");
        if (r.right > right + 0.5 || r.width > box.clientWidth) {
          m.classList.add("dmi-math-wide");
        }
      });
    window.dmiMathFitted = true;
  }
  var tries = 0;
  function start() {
    var mj = window.MathJax;
    if (mj && mj.startup && mj.startup.promise) {
      mj.startup.promise.then(fit);
    } else if (!document.querySelector('script[src*="mathjax"]') || ++tries > 100) {
      fit();  // a page without MathJax (or one that never started)
    } else {
      setTimeout(start, 100);
    }
  }
  var timer = null;
  window.addEventListener("resize", function () {
    clearTimeout(timer);
    timer = setTimeout(fit, 150);
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
"""

#: Smallest label of a figure on a page, in CSS px (figures keep the width that gives it).
MIN_LABEL_PX = 9.0

_SVG_TEXT_SCALE = re.compile(r"<g transform=\"[^\"]*?scale\(([0-9.]+) -\1\)\">")
_SVG_VIEWBOX = re.compile(r'<svg[^>]*\sviewBox="([-0-9.]+) ([-0-9.]+) ([0-9.]+) ([0-9.]+)"')


def svg_text_sizes(svg: str) -> tuple[float, list[float]] | None:
    """``(width, sizes)`` of a matplotlib SVG: its viewBox width (points) and the size of
    each text (points), read from the ``scale(s -s)`` of the glyph groups that
    ``svg.fonttype = "path"`` writes (size = 100 s).  ``None`` without a viewBox."""
    box = _SVG_VIEWBOX.search(svg)
    if box is None:
        return None
    return float(box.group(3)), [100 * float(s) for s in _SVG_TEXT_SCALE.findall(svg)]


def figure_min_width(svg: str) -> float | None:
    """CSS width (px) at which the figure's smallest text is ``MIN_LABEL_PX``; ``None``
    for an SVG without text."""
    found = svg_text_sizes(svg)
    if found is None or not found[1]:
        return None
    width, sizes = found
    return MIN_LABEL_PX * width / min(sizes)


_IMG = re.compile(r'(<a\b[^>]*>\s*)?<img\b([^>]*?)\ssrc="([^"]+)"([^>]*)>')


def _figure_links(body: str, image_file) -> str:
    """Wrap every figure image of ``body`` in a link to itself (class ``dmi-figure``) with
    the ``min-width`` of :func:`figure_min_width`; wrap each frame player's image in a
    scroll box with the width at which its smallest text is ``MIN_LABEL_PX``.
    ``image_file(src)`` is the image's file (or ``None``)."""

    def repl(m):
        link, before, src, after = m.group(1), m.group(2), m.group(3), m.group(4)
        if link or "dmi-figure" in before + after:
            return m.group(0)
        style = ""
        if src.lower().endswith(".svg"):
            path = image_file(src)
            if path is not None and path.is_file():
                min_w = figure_min_width(path.read_text(errors="replace"))
                if min_w is not None:
                    style = f' style="min-width: {min_w:.0f}px"'
        elif not re.search(r"\.(png|jpe?g|gif|webp)$", src, re.I):
            return m.group(0)
        img = f'<img{before} src="{src}"{after.rstrip("/").rstrip()}{style}>'
        return f'<a class="dmi-figure" href="{src}" title="Open the full-size figure">{img}</a>'

    body = _IMG.sub(repl, body)

    def player(m):
        tag = m.group(0)
        pt = re.search(r'data-dmi-min-font-pt="([0-9.]+)"', tag)
        w = re.search(r'data-dmi-width="([0-9.]+)"', tag)
        if not (pt and w) or "min-width" in tag:  # not a player's frame, or done
            return tag
        # the frame is w CSS px wide at 96 px per inch: a text of p points is p * 4/3 px
        min_w = MIN_LABEL_PX * float(w.group(1)) / (float(pt.group(1)) * 4 / 3)
        tag = tag.replace("max-width: 100%;", f"max-width: 100%; min-width: {min_w:.0f}px;", 1)
        return f'<div class="dmi-frame-scroll">{tag}</div>'

    return re.sub(r'<img id="_anim_img\w+"[^>]*>', player, body)


def _page_figures(app: Sphinx, pagename, templatename, context, doctree) -> None:
    if "body" not in context or app.builder.format != "html":
        return
    by_name = {Path(dest).name: src for src, dest in getattr(app.builder, "images", {}).items()}

    def image_file(src: str):
        name = Path(src.split("?")[0]).name
        if name in by_name:
            return Path(app.srcdir, by_name[name])
        return None

    context["body"] = _figure_links(context["body"], image_file)


def _write_assets(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    (Path(app.outdir) / "_static" / "dmi-book.css").write_text(BOOK_CSS)
    (Path(app.outdir) / "_static" / "dmi-book.js").write_text(BOOK_JS)


def setup(app: Sphinx) -> None:
    app.add_css_file("dmi-book.css")
    app.add_js_file("dmi-book.js", loading_method="defer")
    app.connect("html-page-context", _page_figures)
    app.connect("build-finished", _write_assets)
