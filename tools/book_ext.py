"""Sphinx extension of the book (listed under ``sphinx.local_extensions`` in _config.yml).

* **MathJax served with the book.**  ``mathjax_path`` in _config.yml names a file under
  ``_static/``; this extension copies MathJax 3 (the ``es5`` build shipped in the pinned
  ``django-static-mathjax`` wheel, whose ``mathjax`` package needs no Django) into the
  HTML output, so every page typesets its maths without a network.
* **A proof index that shows titles.**  sphinx-proof's index (``prf-prf.html``) lists
  each block under its internal label (``thm-dmi-clustering``); this one lists
  "Theorem 2.2 (DMI-clustering)" under "Theorem", with the chapter it is in.
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


def _check_mathjax_path(app: Sphinx, config) -> None:
    path = config.mathjax_path or ""
    if "//" in path:
        raise ExtensionError(
            f"mathjax_path {path!r} loads MathJax from another server; the "
            f"book serves it itself: use '{MATHJAX_DIR}/tex-mml-chtml.js'"
        )


#: Book-wide CSS (written to _static/dmi-book.css): the API page's summary tables wrap
#: their long names, and on a phone each row's name and summary stack instead of
#: overflowing the column.
BOOK_CSS = """\
table.autosummary td, table.autosummary code { white-space: normal; overflow-wrap: anywhere; }
@media (max-width: 600px) {
  table.autosummary, table.autosummary tbody, table.autosummary tr,
  table.autosummary td { display: block; width: 100%; }
  table.autosummary td:last-child { padding-top: 0; }
}
"""


def _copy_mathjax(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    (Path(app.outdir) / "_static" / "dmi-book.css").write_text(BOOK_CSS)
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


def setup(app: Sphinx) -> dict:
    app.add_directive("dmi-api", _api_directive())
    app.connect("config-inited", _check_mathjax_path)
    app.connect("build-finished", _copy_mathjax)
    app.add_css_file("dmi-book.css")
    try:
        from sphinx_proof.domain import ProofDomain, ProofIndex
    except ImportError:  # pragma: no cover - sphinx-proof is pinned
        pass
    else:
        ProofDomain.indices = [titled_proof_index(ProofIndex)]
        app.connect("doctree-read", _record_proof_titles)
    return {"version": "1.0", "parallel_read_safe": False, "parallel_write_safe": True}
