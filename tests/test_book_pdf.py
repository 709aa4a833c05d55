"""The whole-book PDF (tools/book_pdf.py, ``python3 dev.py pdf``).

The joining of the pages is tested on small pages of our own; printing and the checks of
the result run on a page set printed by headless Chromium here, and on the real book when
its HTML is built (the ``built_book`` fixture of conftest.py builds it once when it is
missing or older than its sources).
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import book_pdf  # noqa: E402

PAGE = """<!DOCTYPE html><html><head><title>{title}</title></head><body>
<div class="bd-header">site header</div>
<article class="bd-article" role="main">
<section id="{sec}"><h1>{title}</h1>
<section id="overview"><h2>Overview</h2><p>{body}</p></section>
<figure id="{fig}"><img src="../_images/x.png" alt="x"/>
<figcaption><p><span class="caption-number">Fig. {num} </span>A figure.</p></figcaption>
</figure>
<a class="headerlink" href="#overview">#</a>
</section></article></body></html>"""


def write_pages(folder: Path) -> list[str]:
    (folder / "book").mkdir(parents=True)
    (folder / "book" / "a.html").write_text(
        PAGE.format(
            title="Chapter A",
            sec="chapter-a",
            fig="fig-a",
            num="1.1",
            body='See <a href="b.html#fig-b">Fig. 2.1</a>, <a href="b.html">chapter B</a>, '
            '<a href="#overview">above</a> and <a href="https://example.org/x">away</a>.',
        )
    )
    (folder / "book" / "b.html").write_text(
        PAGE.format(
            title="Chapter B",
            sec="chapter-b",
            fig="fig-b",
            num="2.1",
            body='Back to <a href="a.html#fig-a">Fig. 1.1</a> and the '
            '<a href="../genindex.html">index</a>.',
        )
    )
    return ["book/a", "book/b"]


def test_combine_makes_links_between_pages_internal(tmp_path):
    from bs4 import BeautifulSoup

    docs = write_pages(tmp_path)
    soup = BeautifulSoup(book_pdf.combine(tmp_path, docs), "html.parser")
    ids = [el["id"] for el in soup.select("[id]")]
    assert len(ids) == len(set(ids)), "ids must stay unique in one document"
    # unique ids are kept, shared ones ("overview") get the page's name
    assert {"fig-a", "fig-b", "a--overview", "b--overview", "a--page", "b--page"} <= set(ids)
    hrefs = [a["href"] for a in soup.select("a[href]")]
    assert hrefs == [
        "#fig-b",
        "#b--page",
        "#a--overview",
        "https://example.org/x",
        "#fig-a",
        "../genindex.html",
    ]
    for h in hrefs:
        if h.startswith("#"):
            assert h[1:] in ids, h
    # one section per page, in order, without the site's header or header links
    assert [s["id"] for s in soup.select("section.dmi-pdf-page")] == ["a--page", "b--page"]
    assert not soup.select(".bd-header") and not soup.select("a.headerlink")
    assert soup.select_one("img")["src"] == "../_images/x.png"


def test_combine_rejects_pages_in_different_folders(tmp_path):
    write_pages(tmp_path)
    with pytest.raises(ValueError, match="one folder"):
        book_pdf.combine(tmp_path, ["book/a", "other/b"])


def test_toc_pages_follow_the_reading_order():
    pages = book_pdf.toc_pages()
    assert pages[0] == "book/index"
    chapters = [p for p in pages if p.split("/")[-1][:2].isdigit()]
    # chapter numbers never go back (a chapter's section pages share its number)
    numbers = [int(re.match(r"\d+", p.split("/")[-1]).group()) for p in chapters]
    assert numbers == sorted(numbers)
    assert {"book/references", "book/api"} <= set(pages)


@pytest.fixture
def pdf_tools(chromium):
    """Chromium (the ``chromium`` fixture: fails under CI=true when missing) and poppler."""
    if not (shutil.which("pdftotext") and shutil.which("pdftoppm")):
        msg = "needs poppler-utils (python3 dev.py test installs it as root)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg)
        pytest.skip(msg)
    return chromium


def test_print_and_verify_small_pages(tmp_path, pdf_tools):
    docs = write_pages(tmp_path)
    combined = tmp_path / "book" / book_pdf.COMBINED
    combined.write_text(book_pdf.combine(tmp_path, docs))
    pdf = tmp_path / "out.pdf"
    book_pdf.print_pdf(combined, pdf, timeout=120)
    assert book_pdf.pdf_pages(pdf) == 2  # each page on its own sheet
    stats = book_pdf.verify(pdf, tmp_path, docs, min_pages=2)
    assert stats == {"pages": 2, "figures": 2}
    # a reference Sphinx could not resolve prints as ??: verify rejects it
    (tmp_path / "book" / "b.html").write_text(
        (tmp_path / "book" / "b.html").read_text().replace("Back to", "Back to ??")
    )
    combined.write_text(book_pdf.combine(tmp_path, docs))
    book_pdf.print_pdf(combined, pdf, timeout=120)
    with pytest.raises(AssertionError, match=r"\?\?"):
        book_pdf.verify(pdf, tmp_path, docs, min_pages=2)


def test_the_whole_book_prints_with_every_figure(tmp_path, pdf_tools, built_book):
    BUILT = built_book
    docs = book_pdf.toc_pages()
    missing = [d for d in docs if not (BUILT / f"{d}.html").exists()]
    assert not missing, f"pages of the toc not in the built book: {missing}"
    combined = BUILT / "book" / book_pdf.COMBINED
    combined.write_text(book_pdf.combine(BUILT, docs))
    pdf = tmp_path / "book.pdf"
    try:
        book_pdf.print_pdf(combined, pdf)
    finally:
        combined.unlink()
    stats = book_pdf.verify(pdf, BUILT, docs)
    assert stats["figures"] >= 50
