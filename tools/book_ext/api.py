"""An API reference that cannot fall behind.

The ``dmi-api`` directive (used in book/api.md) documents every public module of a
package, one section each: the module's ``__all__`` with autodoc (a package face's names
as links to the module that defines them), so a new public function appears without
editing the page.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError


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


def setup(app: Sphinx) -> None:
    app.add_directive("dmi-api", _api_directive())
