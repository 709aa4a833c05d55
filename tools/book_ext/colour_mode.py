"""A valid default colour mode for the theme."""

from __future__ import annotations

from sphinx.application import Sphinx


def _default_mode(app: Sphinx, config) -> None:
    """Give the theme's colour mode a valid default ("auto": the reader's system setting).
    Without one, pydata-sphinx-theme logs a console error on a reader's first page
    ("Got invalid theme mode: .")."""
    config.html_context = {"default_mode": "auto", **(config.html_context or {})}


def setup(app: Sphinx) -> None:
    app.connect("config-inited", _default_mode)
