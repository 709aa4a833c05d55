#!/usr/bin/env python3
"""The whole book as one PDF: the built HTML pages, joined into one document and printed
by headless Chromium over the DevTools protocol.

    python3 dev.py pdf        # builds the HTML book if needed, then this script

Why this way (measured on the build machine): Jupyter Book's LaTeX builder would need TeX
Live from Debian (texlive-xetex, latexmk, texlive-latex-extra, fonts: 28 packages, 112 MB
to download, 353 MB installed), and the book's frame players, widgets' static figures,
sphinx-proof blocks and SVG figures would each need a LaTeX counterpart.  Chromium is
already installed for the browser tests and prints the pages exactly as the HTML shows
them: numbered figures ("Fig. 7.2"), equations, theorem blocks, typeset MathJax.

How: the pages are taken in the order of ``_toc.yml``; each page's article is appended to
one HTML file (``_build/html/book/_whole_book.html``, next to the pages so that every
relative link to an image or a style sheet still resolves; removed after printing).  Links between pages become
links inside the document (``07_k_cofactors.html#fig-…`` → ``#fig-…``), so cross-references
work in the PDF; ids that several pages use (``overview``, ``summary``) get the page's name
as a prefix.  Each page starts on a new sheet.  Chromium prints A4 with page numbers, and
the result is checked (:func:`verify`): page count, every figure's number in the text, and
no unresolved reference (``??``).  Output: ``_build/html/dmi-book.pdf``, the file the
download menu of every page links to.
"""

from __future__ import annotations

import argparse
import base64
import posixpath
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import cdp  # noqa: E402  (scripts/cdp.py: the book's one DevTools client)

ROOT = Path(__file__).resolve().parents[1]
PDF_NAME = "dmi-book.pdf"
COMBINED = "_whole_book.html"

#: Elements of a page that make no sense on paper (live-code switch, header links).
DROP = [".dmi-live", "a.headerlink", ".prev-next-area", "script[src*='thebe']"]

PRINT_CSS = """
.dmi-pdf-page { break-before: page; }
.dmi-pdf-page:first-child { break-before: auto; }
.bd-header, .bd-sidebar-primary, .bd-sidebar-secondary, .header-article, footer,
.bd-footer, .bd-footer-content, .prev-next-area, .dmi-live { display: none !important; }
.bd-main .bd-content .bd-article-container { max-width: 100% !important; }
figure, .cell_output img { break-inside: avoid; }
/* the theme's print style hides a page's first h1 (its header repeats it): keep the
   chapter titles */
.dmi-pdf-page h1 { display: block !important; }
"""


def toc_pages(root: Path = ROOT) -> list[str]:
    """The book's documents in reading order (``book/index``, chapters, sections)."""
    import yaml

    toc = yaml.safe_load((root / "_toc.yml").read_text())
    pages = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                pages.append(entry["file"])
            walk(entry.get("sections"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return pages


def _key(doc: str) -> str:
    return doc.rsplit("/", 1)[-1]


def combine(html_dir: Path, docs: list[str]) -> str:
    """One HTML document with the articles of ``docs`` (paths without ``.html``,
    relative to ``html_dir``), links between them made internal."""
    from bs4 import BeautifulSoup

    folders = {posixpath.dirname(d) for d in docs}
    if len(folders) != 1:
        raise ValueError(f"the pages must share one folder, got {sorted(folders)}")
    folder = folders.pop()
    soups = {d: BeautifulSoup((html_dir / f"{d}.html").read_text(), "html.parser") for d in docs}
    articles = {}
    for d, soup in soups.items():
        art = soup.select_one("article.bd-article") or soup.select_one("main") or soup.body
        if art is None:
            raise ValueError(f"{d}.html has no article")
        for sel in DROP:
            for el in art.select(sel):
                el.decompose()
        articles[d] = art
    # ids used by more than one page get the page's name as a prefix
    owners: dict[str, set[str]] = {}
    for d, art in articles.items():
        for el in art.select("[id]"):
            owners.setdefault(el["id"], set()).add(d)
    shared = {i for i, ds in owners.items() if len(ds) > 1}

    def new_id(doc, i):
        return f"{_key(doc)}--{i}" if i in shared else i

    known = {d: {el["id"] for el in art.select("[id]")} for d, art in articles.items()}

    def target(doc, href):
        parts = urlsplit(href)
        if parts.scheme or parts.netloc or href.startswith("mailto:"):
            return None
        if parts.path:
            path = posixpath.normpath(posixpath.join(folder, parts.path))
            if not path.endswith(".html") or path[:-5] not in articles:
                return None
            doc = path[:-5]
        frag = parts.fragment
        if not frag or frag not in known[doc]:
            return f"#{_key(doc)}--page"
        return f"#{new_id(doc, frag)}"

    out = BeautifulSoup("", "html.parser")
    first = soups[docs[0]]
    html = out.new_tag("html", lang="en")
    out.append(html)
    head = first.head.extract() if first.head else out.new_tag("head")
    style = out.new_tag("style")
    style.string = PRINT_CSS
    head.append(style)
    for s in head.select("script[src*='thebe'], script[src*='live-code']"):
        s.decompose()
    html.append(head)
    body = out.new_tag("body")
    html.append(body)
    main = out.new_tag("main", attrs={"class": "bd-main"})
    content = out.new_tag("div", attrs={"class": "bd-content"})
    container = out.new_tag("div", attrs={"class": "bd-article-container"})
    book = out.new_tag("article", attrs={"class": "bd-article", "role": "main"})
    body.append(main)
    main.append(content)
    content.append(container)
    container.append(book)
    for d, art in articles.items():
        for el in art.select("[id]"):
            el["id"] = new_id(d, el["id"])
        for a in art.select("a[href]"):
            t = target(d, a["href"])
            if t is not None:
                a["href"] = t
        page = out.new_tag("section", id=f"{_key(d)}--page", attrs={"class": "dmi-pdf-page"})
        for child in list(art.children):
            page.append(child.extract())
        book.append(page)
    return "<!DOCTYPE html>\n" + str(out)


# --- Chromium over the DevTools protocol ---------------------------------------------


FOOTER = (
    '<div style="font-size:8px;width:100%;text-align:center;color:#555">'
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)


def print_pdf(html_file: Path, pdf_file: Path, *, timeout: float = 600) -> None:
    """Print ``html_file`` to ``pdf_file`` (A4, page numbers) with headless Chromium,
    through the book's one DevTools client (``scripts/cdp.py``)."""
    with cdp.Browser() as browser:
        page = browser.page
        page.call("Page.enable")
        page.call("Page.navigate", url=html_file.resolve().as_uri())
        page.wait_for("document.readyState === 'complete'", timeout, "the page to load")
        # MathJax typesets after the load event; wait for it to finish
        page.js(
            "(window.MathJax && MathJax.startup && MathJax.startup.promise)"
            " ? MathJax.startup.promise.then(() => true) : true",
            timeout=timeout,
        )
        res = page.call(
            "Page.printToPDF",
            timeout=timeout,
            printBackground=True,
            paperWidth=8.27,
            paperHeight=11.69,
            marginTop=0.6,
            marginBottom=0.6,
            marginLeft=0.5,
            marginRight=0.5,
            displayHeaderFooter=True,
            headerTemplate="<span></span>",
            footerTemplate=FOOTER,
            transferMode="ReturnAsStream",
        )
        chunks = []
        while True:
            part = page.call("IO.read", handle=res["stream"], size=1 << 20)
            data = part.get("data", "")
            chunks.append(base64.b64decode(data) if part.get("base64Encoded") else data.encode())
            if part.get("eof"):
                break
        page.call("IO.close", handle=res["stream"])
    pdf_file.write_bytes(b"".join(chunks))


def figure_numbers(html_dir: Path, docs: list[str]) -> list[str]:
    """The figure numbers ("Fig. 7.2") the HTML pages show in their captions."""
    found = []
    for d in docs:
        text = (html_dir / f"{d}.html").read_text()
        found += re.findall(r'<span class="caption-number">(Fig\. [\d.]+)\s*</span>', text)
    return found


def page_titles(html_dir: Path, docs: list[str]) -> list[str]:
    """The text of each page's ``h1`` (without the section number and the "#" link)."""
    from bs4 import BeautifulSoup

    out = []
    for d in docs:
        h1 = BeautifulSoup((html_dir / f"{d}.html").read_text(), "html.parser").find("h1")
        if h1 is not None:
            for el in h1.select(".section-number, a.headerlink"):
                el.decompose()
            out.append(h1.get_text(" ", strip=True))
    return out


def pdf_text(pdf: Path) -> str:
    return subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout


def pdf_pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True)
    return int(re.search(r"^Pages:\s+(\d+)", info.stdout, re.M).group(1))


def verify(pdf: Path, html_dir: Path, docs: list[str], *, min_pages: int = 100) -> dict:
    """Check the printed book; raise AssertionError with what is wrong.

    * at least ``min_pages`` pages, and every page renders (``pdftoppm``) to a
      non-blank image for a sample of pages;
    * every figure number of the HTML ("Fig. 7.2") is in the PDF's text;
    * no unresolved reference: no ``??`` in the text;
    * every page's title (its ``h1``) is in the text.
    """
    pages = pdf_pages(pdf)
    assert pages >= min_pages, f"{pages} pages < {min_pages}"
    text = pdf_text(pdf)
    flat = " ".join(text.split())
    figs = figure_numbers(html_dir, docs)
    missing = [f for f in figs if f not in flat]
    assert figs and not missing, f"figures missing from the PDF: {missing}"
    assert "??" not in text, "an unresolved reference (??) in the PDF"
    titles = page_titles(html_dir, docs)
    # a title broken after a hyphen reads "affine- invariant" in the text
    unbroken = flat.replace("- ", "-")
    lost = [t for t in titles if " ".join(t.split()) not in unbroken]
    assert not lost, f"page titles missing from the PDF: {lost}"
    with tempfile.TemporaryDirectory() as tmp:
        for p in sorted({1, pages // 2, pages}):
            subprocess.run(
                ["pdftoppm", "-f", str(p), "-l", str(p), "-r", "30", "-gray", str(pdf), f"{tmp}/p"],
                check=True,
            )
        images = sorted(Path(tmp).glob("p*.pgm"))
        assert len(images) == len({1, pages // 2, pages})
        for img in images:
            raw = img.read_bytes()
            pixels = raw.split(b"\n", 3)[3]  # P5 header: magic, size, maxval
            assert len(set(pixels)) > 2, f"{img.name} is blank"
    return {"pages": pages, "figures": len(figs)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--html", default=str(ROOT / "_build" / "html"))
    ap.add_argument("--out", default=None, help=f"default: <html>/{PDF_NAME}")
    args = ap.parse_args(argv)
    html_dir = Path(args.html)
    docs = toc_pages()
    missing = [d for d in docs if not (html_dir / f"{d}.html").exists()]
    if missing:
        print(f"build the HTML book first (python3 dev.py book): missing {missing}")
        return 2
    combined = html_dir / posixpath.dirname(docs[0]) / COMBINED
    combined.write_text(combine(html_dir, docs))
    out = Path(args.out) if args.out else html_dir / PDF_NAME
    t0 = time.monotonic()
    try:
        print_pdf(combined, out)
    finally:
        combined.unlink()
    stats = verify(out, html_dir, docs)
    print(
        f"wrote {out}: {stats['pages']} pages, {stats['figures']} numbered figures, "
        f"{out.stat().st_size / 1e6:.1f} MB in {time.monotonic() - t0:.0f} s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
