"""Sphinx extension of the book (listed under ``sphinx.local_extensions`` in _config.yml),
one module per idea:

* :mod:`.local_mathjax` — MathJax served with the book (no page needs a network);
* :mod:`.proofs` — the paper's numbers on sphinx-proof blocks (``:enumerator: 2.2``) and
  a proof index that shows whole titles and marks restatements;
* :mod:`.api` — the ``dmi-api`` directive of book/api.md: every public name of every
  public module, from each module's ``__all__``;
* :mod:`.phone` — the layout for a phone's width: book-wide CSS and JavaScript, figures
  as links to their full-size files with a readable minimum width;
* :mod:`.pdf_link` — the whole book's PDF in the download menu;
* :mod:`.colour_mode` — a valid default colour mode for the theme.

All work with a plain ``jupyter-book build .`` as well as with ``python3 dev.py book``.
"""

from __future__ import annotations

from sphinx.application import Sphinx

from . import api, colour_mode, local_mathjax, pdf_link, phone, proofs

IDEAS = (local_mathjax, proofs, api, phone, pdf_link, colour_mode)


def setup(app: Sphinx) -> dict:
    for idea in IDEAS:
        idea.setup(app)
    return {"version": "1.0", "parallel_read_safe": False, "parallel_write_safe": True}
