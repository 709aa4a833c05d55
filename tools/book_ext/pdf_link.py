"""The whole book's PDF in every page's download menu."""

from __future__ import annotations

from sphinx.application import Sphinx

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


def setup(app: Sphinx) -> None:
    # after sphinx-book-theme's own download buttons (priority 501)
    app.connect("html-page-context", _add_book_pdf_to_downloads, priority=502)
