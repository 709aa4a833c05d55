"""The paper's numbers on sphinx-proof blocks, and a proof index that shows titles.

* A block is written as MyST (and JupyterLab's jupyterlab-myst) spells an explicit
  number, ``{prf:theorem} DMI-clustering`` with the option ``:enumerator: 2.2``;
  sphinx-proof has no such option, so this module turns it into an unnumbered block
  titled "2.2 (DMI-clustering)".  Both then read "Theorem 2.2 (DMI-clustering)".
* sphinx-proof's index (``prf-prf.html``) lists each block under its internal label
  (``thm-dmi-clustering``); this one lists "Theorem 2.2 (DMI-clustering)" under
  "Theorem", with the chapter it is in, the whole title (formulas as plain text), and a
  block stated again later as a sub-entry "restated" under the first statement.
"""

from __future__ import annotations

import re
from collections import defaultdict

from sphinx.application import Sphinx


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


def setup(app: Sphinx) -> None:
    try:
        from sphinx_proof.domain import ProofDomain, ProofIndex
    except ImportError:  # pragma: no cover - sphinx-proof is pinned
        return
    ProofDomain.indices = [titled_proof_index(ProofIndex)]
    app.connect("doctree-read", _record_proof_titles)
    _accept_enumerators()
