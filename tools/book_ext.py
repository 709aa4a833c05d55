"""Sphinx extension of the book (listed under ``sphinx.local_extensions`` in _config.yml).

* **MathJax served with the book.**  ``mathjax_path`` in _config.yml names a file under
  ``_static/``; this extension copies MathJax 3 (the ``es5`` build shipped in the pinned
  ``django-static-mathjax`` wheel, whose ``mathjax`` package needs no Django) into the
  HTML output, so every page typesets its maths without a network.
* **A proof index that shows titles.**  sphinx-proof's index (``prf-prf.html``) lists
  each block under its internal label (``thm-dmi-clustering``); this one lists
  "Theorem 2.2 (DMI-clustering)" under "Theorem", with the chapter it is in.
* **An API reference that cannot fall behind.**  The ``dmi-api`` directive (used in
  book/api.md) documents every public name of a package with autodoc, grouped by the
  module that defines it, so a new public function appears without editing the page.

Both work with a plain ``jupyter-book build .`` as well as with ``python3 dev.py book``.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import shutil
from collections import defaultdict
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

MATHJAX_DIR = "mathjax"  # under _static/; _config.yml's mathjax_path points into it


def mathjax_source() -> Path:
    """The MathJax 3 ``es5`` directory of the installed ``django-static-mathjax`` wheel."""
    try:
        import mathjax  # the wheel's package name
    except ImportError as err:  # pragma: no cover - the pins install it
        raise ExtensionError(
            "MathJax is served with the book from the pinned "
            "'django-static-mathjax' package, which is not installed "
            "(python3 dev.py setup installs it)"
        ) from err
    src = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not (src / "tex-mml-chtml.js").is_file():
        raise ExtensionError(f"no tex-mml-chtml.js in {src}")
    return src


def _default_mode(app: Sphinx, config) -> None:
    """Give the theme's colour mode a valid default ("auto": the reader's system setting).
    Without one, pydata-sphinx-theme logs a console error on a reader's first page
    ("Got invalid theme mode: .")."""
    config.html_context = {"default_mode": "auto", **(config.html_context or {})}


def _check_mathjax_path(app: Sphinx, config) -> None:
    path = config.mathjax_path or ""
    if "//" in path:
        raise ExtensionError(
            f"mathjax_path {path!r} loads MathJax from another server; the "
            f"book serves it itself: use '{MATHJAX_DIR}/tex-mml-chtml.js'"
        )


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


def _copy_mathjax(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    (Path(app.outdir) / "_static" / "dmi-book.css").write_text(BOOK_CSS)
    (Path(app.outdir) / "_static" / "dmi-book.js").write_text(BOOK_JS)
    dst = Path(app.outdir) / "_static" / MATHJAX_DIR
    if not (dst / "tex-mml-chtml.js").is_file():
        shutil.copytree(mathjax_source(), dst, dirs_exist_ok=True)


# --- proof index ---------------------------------------------------------------------


def _record_proof_titles(app: Sphinx, doctree) -> None:
    """Store each sphinx-proof block's rendered title next to its label."""
    proofs = getattr(app.env, "proof_list", None)
    if not proofs:
        return
    for node in doctree.findall(
        lambda n: "realtype" in getattr(n, "attributes", {}) and "label" in n.attributes
    ):
        entry = proofs.get(node["label"])
        if entry is None or entry.get("docname") != app.env.docname:
            continue
        title = next((c for c in node.children if c.tagname == "title"), None)
        entry["title"] = _plain_title(title) if title is not None else ""


def _plain_title(title) -> str:
    """A title's text for the index: an index entry is plain text, so a formula in the
    title (a ``math`` node) is shown as an ellipsis rather than as LaTeX source."""
    from docutils import nodes

    parts = []
    for node in title.findall(nodes.Text):
        if any(p.tagname == "math" for p in _ancestors(node, title)):
            if not parts or parts[-1] != "\u2026":
                parts.append("\u2026")
        else:
            parts.append(str(node))
    text = " ".join("".join(parts).split())
    return re.sub(r"\s+([)\]])", r"\1", text)


def _ancestors(node, stop):
    node = node.parent
    while node is not None and node is not stop:
        yield node
        node = node.parent


def _natural_key(text: str):
    return [int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", text)]


def titled_proof_index(base):
    """A subclass of sphinx-proof's ``ProofIndex`` whose entries read like the book."""

    class TitledProofIndex(base):
        def generate(self, docnames=None):
            proofs = getattr(self.domain.env, "proof_list", {})
            titles = self.domain.env.titles
            content = defaultdict(list)
            for anchor, values in proofs.items():
                if docnames and values["docname"] not in docnames:
                    continue
                kind = values["realtype"].title()
                title = values.get("title", "").strip()
                name = f"{kind} {title}" if title else f"{kind} ({anchor})"
                chapter = titles.get(values["docname"])
                extra = chapter.astext() if chapter is not None else values["docname"]
                # (name, subtype, docname, anchor, extra, qualifier, description)
                content[kind].append((name, 0, values["docname"], anchor, extra, "", ""))
            result = [
                (kind, sorted(entries, key=lambda e: _natural_key(e[0])))
                for kind, entries in sorted(content.items())
            ]
            return result, True

    return TitledProofIndex


# --- API reference -------------------------------------------------------------------


def public_names(package: str) -> list[str]:
    """The public names of ``package``: its ``__all__``, else every name without a
    leading underscore that is not a module (lazily loaded names included)."""
    mod = importlib.import_module(package)
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [
            n for n in dir(mod) if not n.startswith("_") and not inspect.ismodule(getattr(mod, n))
        ]
    return list(names)


def _submodules(package: str) -> list:
    mod = importlib.import_module(package)
    out = [mod]
    for info in pkgutil.iter_modules(mod.__path__, prefix=f"{package}."):
        if not info.ispkg:
            out.append(importlib.import_module(info.name))
    return out


def _home(package: str, name: str, obj, modules) -> str:
    """The module that defines ``name`` (for data: the module that assigns it)."""
    if inspect.isclass(obj) or inspect.isfunction(obj):
        home = obj.__module__
        if any(part.startswith("_") for part in home.split(".")):
            # A private module's name (e.g. a part of k-cofactors): document it where
            # the public module that re-exports it is.
            public = [
                m.__name__
                for m in modules[1:]
                if vars(m).get(name) is obj
                and not any(p.startswith("_") for p in m.__name__.split("."))
            ]
            return public[0] if public else home
        return home
    for module in modules[1:]:
        if vars(module).get(name) is obj:
            try:
                source = inspect.getsource(module)
            except (OSError, TypeError):
                continue
            if re.search(rf"^{re.escape(name)}\s*[:=]", source, re.M):
                return module.__name__
    return package


def api_rst(package: str) -> list[str]:
    """reStructuredText documenting every public name of ``package`` with autodoc."""
    mod = importlib.import_module(package)
    modules = _submodules(package)
    groups: dict[str, list[tuple[str, object]]] = defaultdict(list)
    for name in public_names(package):
        obj = getattr(mod, name)
        groups[_home(package, name, obj, modules)].append((name, obj))
    lines: list[str] = []
    for home in sorted(
        groups,
        key=lambda m: (
            [x.__name__ for x in modules].index(m)
            if m in [x.__name__ for x in modules]
            else len(modules)
        ),
    ):
        doc = inspect.getdoc(importlib.import_module(home)) or home
        heading = " ".join(doc.strip().split("\n\n")[0].split()).rstrip(".")
        heading = re.sub(r"^[\w.]+\s+[-\u2014:]+\s*", "", heading) or home
        lines += [
            heading,
            "-" * max(len(heading), 3),
            "",
            f"Defined in ``{home}``; import them from ``{package}``.",
            "",
            ".. autosummary::",
            "   :nosignatures:",
            "",
        ]
        lines += [f"   {package}.{name}" for name, _ in groups[home]]
        lines.append("")
        for name, obj in groups[home]:
            if inspect.isclass(obj):
                lines += [f".. autoclass:: {package}.{name}", "   :members:", ""]
            elif callable(obj):
                lines += [f".. autofunction:: {package}.{name}", ""]
            else:
                lines += [f".. autodata:: {home}.{name}", "   :no-value:", ""]
    return lines


def _api_directive():
    from docutils.parsers.rst import directives
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective
    from sphinx.util.nodes import nested_parse_with_titles

    class DMIApi(SphinxDirective):
        """``.. dmi-api:: PACKAGE``: autodoc for every public name of PACKAGE."""

        required_arguments = 1
        option_spec = {"noindex": directives.flag}

        def run(self):
            from docutils import nodes

            package = self.arguments[0]
            for module in _submodules(package):
                if getattr(module, "__file__", None):
                    self.env.note_dependency(module.__file__)
            container = nodes.container()
            lines = api_rst(package)
            nested_parse_with_titles(
                self.state, StringList(lines, source=f"<{package} API>"), container
            )
            return container.children

    return DMIApi


def setup(app: Sphinx) -> dict:
    app.add_directive("dmi-api", _api_directive())
    app.connect("config-inited", _check_mathjax_path)
    app.connect("config-inited", _default_mode)
    app.connect("build-finished", _copy_mathjax)
    app.add_css_file("dmi-book.css")
    app.add_js_file("dmi-book.js", loading_method="defer")
    app.connect("html-page-context", _page_figures)
    try:
        from sphinx_proof.domain import ProofDomain, ProofIndex
    except ImportError:  # pragma: no cover - sphinx-proof is pinned
        pass
    else:
        ProofDomain.indices = [titled_proof_index(ProofIndex)]
        app.connect("doctree-read", _record_proof_titles)
    return {"version": "1.0", "parallel_read_safe": False, "parallel_write_safe": True}
