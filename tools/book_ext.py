"""Sphinx extension of the book (listed under ``sphinx.local_extensions`` in _config.yml).

* **MathJax served with the book.**  ``mathjax_path`` in _config.yml names a file under
  ``_static/``; this extension copies MathJax 3 (the ``es5`` build shipped in the pinned
  ``django-static-mathjax`` wheel, whose ``mathjax`` package needs no Django) into the
  HTML output, so every page typesets its maths without a network.
* **The paper's numbers on sphinx-proof blocks.**  A block is written as MyST (and
  JupyterLab's jupyterlab-myst) spells an explicit number, ``{prf:theorem} DMI-clustering``
  with the option ``:enumerator: 2.2``; sphinx-proof has no such option, so this extension
  turns it into an unnumbered block titled "2.2 (DMI-clustering)".  Both then read
  "Theorem 2.2 (DMI-clustering)".
* **A proof index that shows titles.**  sphinx-proof's index (``prf-prf.html``) lists
  each block under its internal label (``thm-dmi-clustering``); this one lists
  "Theorem 2.2 (DMI-clustering)" under "Theorem", with the chapter it is in, the whole
  title (formulas as plain text), and a block stated again later as a sub-entry
  "restated" under the first statement.
* **An API reference that cannot fall behind.**  The ``dmi-api`` directive (used in
  book/api.md) documents every public module of a package, one section each: the
  module's ``__all__`` with autodoc (a package face's names as links to the module that
  defines them), so a new public function appears without editing the page.

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


#: LaTeX commands of the book's titles and their plain-text forms (index entries are text).
_LATEX_SYMBOLS = {
    r"\top": "\u1d40",
    r"\in": " \u2208 ",
    r"\max": "max",
    r"\min": "min",
    r"\det": " det",
    r"\cdot": "\u00b7",
    r"\mathcal{C}": "\U0001d49e",
    r"\ldots": "\u2026",
    r"\dots": "\u2026",
}


def latex_to_text(tex: str) -> str:
    """Plain text of a short formula: ``\\mathrm{DMI\\text{-}C}(\\mathbf{A})`` → ``DMI-C(A)``.

    Font commands keep their argument, ``\\tilde{X}`` becomes ``X̃``, ``^\\top`` ``ᵀ``, and
    braces and spacing commands go; an unknown command keeps its name without the backslash.
    """
    text = tex
    for cmd, plain in _LATEX_SYMBOLS.items():
        text = text.replace(cmd, plain)
    text = re.sub(r"\\tilde\{\\?(?:mathbf\{)?(\w)\}?\}", "\\1\u0303", text)
    for _ in range(3):  # nested font commands
        text = re.sub(
            r"\\(?:mathbf|mathrm|mathit|text|operatorname|boldsymbol)\{([^{}]*)\}", r"\1", text
        )
    text = re.sub(r"\\[,;:! ]", " ", text)
    text = re.sub(r"\\([A-Za-z]+)", r"\1", text)
    text = text.replace("^", "").replace("{", "").replace("}", "")
    return " ".join(text.split())


def _plain_title(title) -> str:
    """A title's text for the index: an index entry is plain text, so a formula in the
    title (a ``math`` node) is given as plain text (:func:`latex_to_text`) and a
    citation is left out."""
    from docutils import nodes

    parts = []
    for node in title.findall(lambda n: isinstance(n, (nodes.Text, nodes.math))):
        above = list(_ancestors(node, title))
        if any(p.tagname == "pending_xref" and p.get("refdomain") == "cite" for p in above):
            continue  # a citation (still its key at this stage) is left out of the entry
        if isinstance(node, nodes.math):
            parts.append(latex_to_text(node.astext()))
        elif not any(p.tagname == "math" for p in above):
            parts.append(str(node))
    text = " ".join("".join(parts).split())
    text = re.sub(r"[,;\s]+([)\]])", r"\1", text)  # separators left before a citation
    return re.sub(r"\(\)", "", text).strip()


def numbered_title(number: str, title: str) -> str:
    """The title sphinx-proof prints after the type: ``2.2 (DMI-clustering)``."""
    title = title.strip()
    return f"{number} ({title})" if title else number


#: sphinx-proof's own ``run`` of its blocks, wrapped by :func:`_accept_enumerators`.
_ORIGINAL_PROOF_RUN = None


def _accept_enumerators() -> None:
    """Give sphinx-proof's blocks MyST's ``:enumerator:`` option (the paper's number).

    ``{prf:theorem} DMI-clustering`` with ``:enumerator: 2.2`` becomes an unnumbered
    block titled ``2.2 (DMI-clustering)``, which ``proof_title_format: " %t"`` prints as
    "Theorem 2.2 (DMI-clustering)", the same as jupyterlab-myst prints the source.
    """
    from docutils.parsers.rst import directives
    from sphinx_proof.directive import ElementDirective

    if "enumerator" in ElementDirective.option_spec:
        return
    ElementDirective.option_spec = {
        **ElementDirective.option_spec,
        "enumerator": directives.unchanged_required,
    }
    global _ORIGINAL_PROOF_RUN
    _ORIGINAL_PROOF_RUN = ElementDirective.run

    def run_with_enumerator(self):
        number = self.options.pop("enumerator", None)
        if number is not None:
            self.arguments = [numbered_title(number, self.arguments[0] if self.arguments else "")]
            self.options["nonumber"] = None
        return _ORIGINAL_PROOF_RUN(self)

    ElementDirective.run = run_with_enumerator


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
            # in reading order (the chapters' file names follow it), so that the first
            # block with a number is the statement and later ones are restatements
            for anchor, values in sorted(proofs.items(), key=lambda kv: kv[1]["docname"]):
                if docnames and values["docname"] not in docnames:
                    continue
                kind = values["realtype"].title()
                title = values.get("title", "").strip()
                name = f"{kind} {title}" if title else f"{kind} ({anchor})"
                chapter = titles.get(values["docname"])
                extra = chapter.astext() if chapter is not None else values["docname"]
                number = re.match(r"\d+(?:\.\d+)*\b", title)
                key = (kind, number.group(0)) if number else (kind, anchor)
                content[kind].append([key, name, values["docname"], anchor, extra])
            result = []
            for kind, found in sorted(content.items()):
                first, entries = {}, []
                for key, name, doc, anchor, extra in found:
                    first.setdefault(key, (name, doc, anchor, extra))
                for key, (name, doc, anchor, extra) in first.items():
                    again = [f for f in found if f[0] == key and f[3] != anchor]
                    # (name, subtype, docname, anchor, extra, qualifier, description):
                    # subtype 1 has sub-entries (subtype 2) after it
                    entries.append([(name, 1 if again else 0, doc, anchor, extra, "", "")])
                    for _, _, doc2, anchor2, extra2 in again:
                        entries[-1].append(("restated", 2, doc2, anchor2, extra2, "", ""))
                entries.sort(key=lambda group: _natural_key(group[0][0]))
                result.append((kind, [e for group in entries for e in group]))
            return result, True

    return TitledProofIndex


# --- API reference -------------------------------------------------------------------


def public_modules(package: str) -> list:
    """``package`` and every module under it whose dotted name has no private part, in
    the order of the source tree (a package before its modules)."""
    mod = importlib.import_module(package)
    out = [mod]
    for info in pkgutil.iter_modules(getattr(mod, "__path__", []), prefix=f"{package}."):
        if not info.name.rsplit(".", 1)[1].startswith("_"):
            out += public_modules(info.name) if info.ispkg else [importlib.import_module(info.name)]
    return out


def public_names(module: str) -> list[str]:
    """The public names of ``module``: its ``__all__``, which every public module has."""
    mod = importlib.import_module(module)
    if not hasattr(mod, "__all__"):
        raise ExtensionError(f"{module} has no __all__: the API page lists each module's __all__")
    return list(mod.__all__)


def homes(package: str) -> dict[str, str]:
    """``{name: module}`` for each name a public module of ``package`` defines: the
    module whose ``__all__`` lists it and that is not a package face re-exporting it
    from a public module below it (a package's own names, from private parts such as
    ``dmi_book.plotting._base``, have the package as their home)."""
    out: dict[str, str] = {}
    for mod in public_modules(package):
        for name in public_names(mod.__name__):
            if is_face_name(mod, name):
                continue
            if name in out:
                raise ExtensionError(f"{name} has two homes: {out[name]} and {mod.__name__}")
            out[name] = mod.__name__
    return out


def is_face_name(mod, name: str) -> bool:
    """Whether package ``mod`` lists ``name`` only as a face of a public submodule's."""
    if not hasattr(mod, "__path__"):
        return False
    obj = getattr(mod, name)
    return any(
        name in getattr(sub, "__all__", ()) and getattr(sub, name) is obj
        for sub in public_modules(mod.__name__)[1:]
    )


def _heading(module: str) -> str:
    doc = inspect.getdoc(importlib.import_module(module)) or module
    heading = " ".join(doc.strip().split("\n\n")[0].split()).rstrip(".")
    heading = re.sub(r"^[\w.]+\s+[-\u2014:]+\s*", "", heading) or module
    return f"``{module}``: {heading}"


def api_rst(package: str) -> list[str]:
    """reStructuredText for every public module of ``package``: a package face's names
    as links to their homes, each module's own names (its ``__all__``) with autodoc."""
    where = homes(package)
    lines: list[str] = []
    for mod in public_modules(package):
        names = public_names(mod.__name__)
        face = [n for n in names if is_face_name(mod, n)]
        own = [n for n in names if n not in face]
        heading = _heading(mod.__name__)
        lines += [heading, "-" * len(heading), ""]
        if not names:
            lines += [f"``{mod.__name__}`` defines no names of its own; see its modules.", ""]
        if face:
            lines += [
                f"Importable from ``{mod.__name__}``; each is documented in its home module.",
                "",
                ".. autosummary::",
                "   :nosignatures:",
                "",
                *(f"   {where[n]}.{n}" for n in face),
                "",
            ]
        if own:
            lines += [".. autosummary::", "   :nosignatures:", ""]
            lines += [f"   {mod.__name__}.{n}" for n in own]
            lines.append("")
        for name in own:
            obj = getattr(mod, name)
            qual = f"{mod.__name__}.{name}"
            if inspect.isclass(obj):
                lines += [f".. autoclass:: {qual}", "   :members:", ""]
            elif callable(obj):
                lines += [f".. autofunction:: {qual}", ""]
            else:
                lines += [f".. autodata:: {qual}", "   :no-value:", ""]
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
            for module in public_modules(package):
                if getattr(module, "__file__", None):
                    self.env.note_dependency(module.__file__)
            container = nodes.container()
            lines = api_rst(package)
            nested_parse_with_titles(
                self.state, StringList(lines, source=f"<{package} API>"), container
            )
            return container.children

    return DMIApi


#: The whole book as one PDF, written by ``python3 dev.py pdf`` (tools/book_pdf.py) at the
#: root of the HTML output.
BOOK_PDF = "dmi-book.pdf"


def _add_book_pdf_to_downloads(app: Sphinx, pagename, templatename, context, doctree) -> None:
    """Add "the whole book (.pdf)" to the download menu of every page that has one."""
    for button in context.get("header_buttons", []):
        if button.get("label") == "download-buttons":
            button["buttons"].append(
                {
                    "type": "link",
                    "url": context["pathto"](BOOK_PDF, 1),
                    "text": "book .pdf",
                    "tooltip": "The whole book as one PDF (python3 dev.py pdf)",
                    "icon": "fas fa-book",
                    "label": "download-book-pdf-button",
                }
            )


def setup(app: Sphinx) -> dict:
    app.add_directive("dmi-api", _api_directive())
    app.connect("config-inited", _check_mathjax_path)
    app.connect("config-inited", _default_mode)
    app.connect("build-finished", _copy_mathjax)
    app.add_css_file("dmi-book.css")
    # after sphinx-book-theme's own download buttons (priority 501)
    app.connect("html-page-context", _add_book_pdf_to_downloads, priority=502)

    app.add_js_file("dmi-book.js", loading_method="defer")
    app.connect("html-page-context", _page_figures)
    try:
        from sphinx_proof.domain import ProofDomain, ProofIndex
    except ImportError:  # pragma: no cover - sphinx-proof is pinned
        pass
    else:
        ProofDomain.indices = [titled_proof_index(ProofIndex)]
        app.connect("doctree-read", _record_proof_titles)
        _accept_enumerators()
    return {"version": "1.0", "parallel_read_safe": False, "parallel_write_safe": True}
