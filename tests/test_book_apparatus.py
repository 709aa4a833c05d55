"""The book's scholarly apparatus, read from the sources: citations, figure numbering and
references, the concept index.

* Every entry of book/references.bib is cited from a chapter (or the cover page), and
  every cited key is in the bibliography.
* Every numbered figure (a figure cell's ``mystnb.figure.name`` or a ``glue:figure``'s
  ``:name:``) is referenced from the text with ``{numref}``.
* The paper's figure numbers appear only as "(Figure N of the paper)" in captions: no
  heading, no prose, no code comment, no printed label and no image title names a
  "Figure N" or "Fig. N"; the text cites the book's own number with ``{numref}``.  Only
  the page on the paper's imprecisions, whose subject is the paper's own text, may say
  "the paper's Figure N", and the figure modules' docstrings must say whose number it is.
* The concept index has enough entries, and they point into the chapters.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
CITE = re.compile(r"\{cite(?::[a-z]+)?\}`([^`]+)`")
NUMREF = re.compile(r"\{numref\}`(?:[^`<]*<)?([^`>]+)>?`")
FIGURE_N = re.compile(r"\bFigures? \d")


def chapters():
    return sorted(BOOK.glob("*.ipynb"))


def cells(path):
    return json.loads(path.read_text())["cells"]


def source(cell) -> str:
    s = cell["source"]
    return s if isinstance(s, str) else "".join(s)


def markdown_texts():
    """(file name, text) of every markdown cell and of the cover page."""
    for path in chapters():
        for cell in cells(path):
            if cell["cell_type"] == "markdown":
                yield path.name, source(cell)
    yield "index.md", (BOOK / "index.md").read_text()


def bib_keys() -> set[str]:
    return set(re.findall(r"^@\w+\{([^,]+),", (BOOK / "references.bib").read_text(), re.M))


def cited_keys() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for name, text in markdown_texts():
        for group in CITE.findall(text):
            for key in group.split(","):
                found.setdefault(key.strip(), set()).add(name)
    return found


def test_every_bibliography_entry_is_cited_from_a_chapter():
    keys, cited = bib_keys(), cited_keys()
    assert len(keys) >= 20
    assert not sorted(keys - set(cited)), "entries of references.bib never cited"


def test_every_cited_key_is_in_the_bibliography():
    unknown = {k: sorted(v) for k, v in cited_keys().items() if k not in bib_keys()}
    assert not unknown


def figure_labels() -> dict[str, str]:
    """label -> file of every numbered figure of the chapters."""
    labels = {}
    for path in chapters():
        for cell in cells(path):
            fig = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
            if fig.get("name"):
                labels[fig["name"]] = path.name
            if cell["cell_type"] == "markdown":
                for m in re.finditer(r"\{glue:figure\}[^\n]*\n:name: *(\S+)", source(cell)):
                    labels[m.group(1)] = path.name
    return labels


def numrefs() -> set[str]:
    out = set()
    for _, text in markdown_texts():
        out.update(NUMREF.findall(text))
    return out


def test_figure_labels_are_found():
    labels = figure_labels()
    assert len(labels) >= 50, len(labels)


def test_every_figure_is_referenced_from_the_text():
    missing = sorted(
        f"{f}: {label}" for label, f in figure_labels().items() if label not in numrefs()
    )
    assert not missing, "figures no {numref} points to"


def test_every_numref_points_to_a_figure_or_another_numbered_target():
    labels = set(figure_labels())
    other = set()
    for _, text in markdown_texts():
        other.update(re.findall(r"^:(?:name|label): *(\S+)", text, re.M))
        other.update(re.findall(r"^\((\S+)\)=", text, re.M))
    dangling = sorted(numrefs() - labels - other)
    assert not dangling


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.name)
def test_no_heading_names_a_figure_of_the_paper(path):
    bad = [
        line
        for cell in cells(path)
        if cell["cell_type"] == "markdown"
        for line in source(cell).splitlines()
        if line.startswith("#") and FIGURE_N.search(line)
    ]
    assert not bad


def figure_captions():
    for path in chapters():
        for cell in cells(path):
            fig = cell.get("metadata", {}).get("mystnb", {}).get("figure", {})
            if fig.get("caption"):
                yield path.name, fig["name"], fig["caption"]
            if cell["cell_type"] == "markdown":
                for m in re.finditer(
                    r"\{glue:figure\}[^\n]*\n:name: *(\S+)\n(.*?)\n[`:]{3}", source(cell), re.S
                ):
                    yield path.name, m.group(1), m.group(2)


def test_captions_name_the_papers_figure_once_and_in_one_form():
    bad = []
    for name, label, caption in figure_captions():
        mentions = FIGURE_N.findall(caption)
        of_paper = re.findall(r"\(Figures? \d+(?:(?:,| and) \d+)* of the paper\)", caption)
        if len(mentions) != len(of_paper) or len(of_paper) > 1:
            bad.append(f"{name}: {label}")
    assert not bad


#: A figure number in the paper's numbering: "Figure 5", "Figures 4–5", "Fig. 3" (the
#: book's own numbers are "Fig. 7.2", written by {numref}, and never typed).
PAPER_FIGURE = re.compile(
    r"(?<![\w.])Fig(?:ure)?s?\.?\s+\d+(?:\s*(?:,|–|-|and)\s*\d+)*(?![.\d])", re.I
)
#: The only page allowed to name the paper's figures outside captions: its subject is the
#: paper's text.
ABOUT_THE_PAPER = "15_appendix_imprecise.ipynb"
QUALIFIED = re.compile(r"paper's\s+$")


def _outside_captions(text: str) -> str:
    """``text`` without its ``glue:figure`` blocks (captions, checked above)."""
    return re.sub(r"```\{glue:figure\}.*?\n```", "", text, flags=re.S)


def paper_figure_mentions(name: str, text: str) -> list[str]:
    """The paper-numbered figure mentions of ``text`` that are not allowed in ``name``."""
    bad = []
    text = _outside_captions(text)
    for m in PAPER_FIGURE.finditer(text):
        qualified = QUALIFIED.search(text[max(0, m.start() - 20) : m.start()]) or text[
            m.end() :
        ].startswith(" of the paper")
        if name == ABOUT_THE_PAPER and qualified:
            continue
        bad.append(f"{name}: ...{text[max(0, m.start() - 40) : m.end() + 20]!r}")
    return bad


def test_paper_figure_mentions_are_found():
    """The scanner itself: it finds the forms it is meant to forbid, and passes the rest."""
    assert paper_figure_mentions("x.ipynb", "covers Algorithm 2 and Figures 4–5.")
    assert paper_figure_mentions("x.ipynb", "# the local maximum of Figure 5 (231.559)")
    assert paper_figure_mentions("x.ipynb", '"appendix 7x2 (Fig. 3)"')
    assert paper_figure_mentions("x.ipynb", "Figure 4 of the paper shows the steps")
    assert not paper_figure_mentions("x.ipynb", "as Fig. 7.2 shows; see {numref}`fig-a`")
    assert not paper_figure_mentions(ABOUT_THE_PAPER, "the caption of the paper's Figure 5")
    assert paper_figure_mentions(ABOUT_THE_PAPER, "the caption of Figure 5")


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.name)
def test_no_text_names_a_figure_of_the_paper(path):
    """Prose, code comments and printed labels cite the book's figure numbers, not the
    paper's ({numref} to the figure's label); captions say "(Figure N of the paper)"
    once (checked above)."""
    bad = [m for cell in cells(path) for m in paper_figure_mentions(path.name, source(cell))]
    assert not bad


def test_no_page_names_a_figure_of_the_paper():
    pages = sorted(BOOK.glob("*.md"))
    assert pages
    assert not [m for p in pages for m in paper_figure_mentions(p.name, p.read_text())]


def test_figure_docstrings_say_whose_number_they_cite():
    """The API page shows the figure modules' docstrings: a "Figure N" there is the
    paper's, and says so ("the paper's Figure N" or "Figure N of the paper")."""
    files = plotting_sources() + sorted((ROOT / "dmi_book").rglob("studies/*.py"))
    bad = []
    for path in files:
        text = path.read_text()
        for m in PAPER_FIGURE.finditer(text):
            before = text[max(0, m.start() - 20) : m.start()]
            if not (QUALIFIED.search(before) or text[m.end() :].startswith(" of the paper")):
                line = text.count("\n", 0, m.start()) + 1
                bad.append(f"{path.relative_to(ROOT)}:{line}: {m.group(0)}")
    assert not bad


def plotting_sources():
    """The plotting modules, wherever the package keeps them."""
    skip = {".venv", "_build", ".git"}
    return [
        p
        for p in ROOT.rglob("*.py")
        if "plotting" in p.parts and not skip & set(p.relative_to(ROOT).parts)
    ]


def test_no_image_title_names_a_figure_of_the_paper():
    """Strings drawn into images (titles, labels) never say "Figure N"; docstrings may."""
    import ast

    files = plotting_sources()
    assert files
    bad = []
    for path in files:
        tree = ast.parse(path.read_text())
        docstrings = {
            id(node.body[0].value)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and re.match(r"\s*Figures? \d", node.value)
            ):
                bad.append(f"{path.name}:{node.lineno}")
    assert not bad


def index_entries() -> dict[str, set[str]]:
    """term -> chapters of every ``{index}`` directive in the chapters."""
    found: dict[str, set[str]] = {}
    for path in chapters():
        for cell in cells(path):
            if cell["cell_type"] != "markdown":
                continue
            for line in re.findall(r"^[`:]{3,}\{index\}\s*(.+)$", source(cell), re.M):
                for term in line.split(","):
                    term = re.sub(r"^(single|pair|see|seealso):\s*", "", term.strip())
                    found.setdefault(term, set()).add(path.name)
    return found


def test_the_concept_index_points_into_the_chapters():
    entries = index_entries()
    assert len(entries) >= 60, len(entries)
    # spread over the book, not gathered on one page
    assert len({name for names in entries.values() for name in names}) >= 12
    for term in ("DMI-clustering", "k-cofactors", "surprisingly popular", "affine invariance"):
        assert term in entries, term


def test_docstrings_cite_the_papers_numbering():
    """Every "Theorem" and "Corollary" in the package's sources carries the compiled
    paper's number (Theorem 2.2, Corollary 2.4), never "Corollary 2d" or "the Theorem"."""
    package = ROOT / "dmi_lib"
    bad = []
    for path in sorted(package.rglob("*.py")):
        # a number may follow on the next line of a wrapped docstring
        text = re.sub(r"\s+", " ", path.read_text())
        for m in re.finditer(r"\b(Theorem|Corollary|Corollaries)\b(?! \d\.\d)", text):
            bad.append(f"{path.relative_to(ROOT)}: ...{text[m.start() : m.start() + 40]}")
    assert not bad


def test_directive_fences_are_valid_commonmark():
    """A backtick fence's first line may not contain a backtick (CommonMark): such a
    "directive" renders as inline code and silently disappears from the book.  Blocks
    whose title cites (``{cite:t}`key```) use a colon fence."""
    bad = [
        f"{name}: {line}"
        for name, text in markdown_texts()
        for line in text.splitlines()
        if re.match(r"^`{3,}\{", line) and "`" in line.lstrip("`")
    ]
    assert not bad


@pytest.mark.parametrize("path", chapters(), ids=lambda p: p.name)
def test_proof_blocks_carry_the_papers_number_as_enumerator(path):
    """A ``{prf:...}`` block gives the paper's number in ``:enumerator:``, never at the
    start of its title: JupyterLab prints a title "2.2 (DMI-clustering)" as
    "Theorem (2.2 (DMI-clustering))"."""
    bad = [
        m.group(0)
        for cell in cells(path)
        if cell["cell_type"] == "markdown"
        for m in re.finditer(
            r"^[`:]{3,}\{prf:\w+\} *\d+(?:\.\d+)?(?: *\(| and|,| *$)[^\n]*", source(cell), re.M
        )
    ]
    assert not bad
