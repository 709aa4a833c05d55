"""MathJax served with the book.

``mathjax_path`` in _config.yml names a file under ``_static/``; this module copies
MathJax 3 (the ``es5`` build shipped in the pinned ``django-static-mathjax`` wheel, whose
``mathjax`` package needs no Django) into the HTML output, so every page typesets its
maths without a network, and refuses a ``mathjax_path`` on another server.
"""

from __future__ import annotations

import shutil
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


def _copy_mathjax(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    dst = Path(app.outdir) / "_static" / MATHJAX_DIR
    if not (dst / "tex-mml-chtml.js").is_file():
        shutil.copytree(mathjax_source(), dst, dirs_exist_ok=True)


def setup(app: Sphinx) -> None:
    app.connect("config-inited", _check_mathjax_path)
    app.connect("build-finished", _copy_mathjax)
