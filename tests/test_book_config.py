"""The book's configuration: offline assets, bibliography, API page, proof index, JupyterLab."""

from __future__ import annotations

import ast
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text())
SPHINX = CONFIG["sphinx"]["config"]


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sys.path.insert(0, str(ROOT / "tools"))

from book_ext import api, local_mathjax, proofs  # noqa: E402


# --- offline ---------------------------------------------------------------------------


def test_mathjax_is_served_with_the_book():
    path = SPHINX["mathjax_path"]
    assert "//" not in path and not path.startswith("/")
    assert (
        local_mathjax.mathjax_source() / Path(path).relative_to(local_mathjax.MATHJAX_DIR)
    ).is_file()
    assert "book_ext" in CONFIG["sphinx"]["local_extensions"]
    assert (
        ROOT / CONFIG["sphinx"]["local_extensions"]["book_ext"] / "book_ext" / "__init__.py"
    ).is_file()


def test_no_page_loads_the_widget_javascript():
    # myst-nb would otherwise add require.js and the html-manager from a CDN
    assert SPHINX["nb_ipywidgets_js"] == {}


def test_config_check_rejects_a_cdn_mathjax():
    class Cfg:
        mathjax_path = "https://cdn.example.org/mathjax/tex-mml-chtml.js"

    from sphinx.errors import ExtensionError

    with pytest.raises(ExtensionError, match="mathjax_path"):
        local_mathjax._check_mathjax_path(None, Cfg())


# --- bibliography ----------------------------------------------------------------------


def _bib():
    from pybtex.database import parse_file

    return parse_file(str(ROOT / CONFIG["bibtex_bibfiles"][0]))


def _paper_tex() -> Path | None:
    for base in (ROOT.parent, ROOT.parent.parent):
        tex = sorted((base / "shared" / "paper").glob("*.tex"))
        if tex:
            return tex[0]
    return None


def test_bibliography_has_no_invented_links():
    bib = _bib()
    assert "kong-iemc" in bib.entries
    for key, entry in bib.entries.items():
        fields = {f.lower() for f in entry.fields}
        assert not fields & {"url", "doi", "eprint", "pages", "volume"}, key
        assert entry.persons.get("author"), key


def test_bibliography_keys_are_the_papers_cite_keys():
    tex = _paper_tex()
    if tex is None:
        pytest.skip("the paper's LaTeX source is not beside this repository")
    text = tex.read_text()
    cited = {
        k.strip()
        for group in re.findall(r"\\cite[tp]?\*?(?:\[[^]]*\])?\{([^}]*)\}", text)
        for k in group.split(",")
    }
    keys = set(_bib().entries) - {"kong-iemc"}
    assert keys <= cited, keys - cited
    # the two keys the source does not identify are the only ones left out
    assert cited - keys == {"liuchen", "huang2020affine"}


def test_cover_page_cites_the_paper_and_has_index_entries():
    index = (ROOT / "book" / "index.md").read_text()
    assert "{cite}`kong-iemc`" in index
    assert re.search(r"```\{index\} .*DMI-clustering", index)
    toc = (ROOT / "_toc.yml").read_text()
    assert "book/references" in toc and "book/api" in toc
    assert "{bibliography}" in (ROOT / "book" / "references.md").read_text()


# --- API reference ---------------------------------------------------------------------


PACKAGES = ("dmi_lib", "dmi_book")


def _documented(rst: str) -> set[str]:
    return set(re.findall(r"^\.\. auto(?:function|class|data):: ([\w.]+)$", rst, re.M))


def _linked(rst: str) -> set[str]:
    return set(re.findall(r"^   ([\w.]+)$", rst, re.M))


@pytest.mark.parametrize("package", PACKAGES)
def test_api_page_lists_every_public_name_of_every_public_module(package):
    """The page (book/api.md, through the dmi-api directive) against each module's
    __all__: every name of a module documented there under the module's name, a package
    face's names linked to their homes, and nothing else."""
    assert f".. dmi-api:: {package}" in (ROOT / "book" / "api.md").read_text()
    rst = "\n".join(api.api_rst(package))
    modules = api.public_modules(package)
    homes = api.homes(package)
    expected = {f"{homes[n]}.{n}" for m in modules for n in m.__all__}
    assert _documented(rst) == expected
    assert _linked(rst) == expected
    for m in modules:  # every module has a section
        assert f"``{m.__name__}``: " in rst


@pytest.mark.parametrize("package", PACKAGES)
def test_every_public_module_lists_its_public_names_and_each_name_has_one_home(package):
    import inspect

    homes = api.homes(package)  # raises on a name listed by two modules
    for m in api.public_modules(package):
        mine = {
            n
            for n, obj in vars(m).items()
            if not n.startswith("_")
            and (inspect.isfunction(obj) or inspect.isclass(obj))
            and obj.__module__ == m.__name__
        }
        # and its public module-level constants (read from the source)
        tree = ast.parse(inspect.getsource(m))
        mine |= {
            t.id
            for node in tree.body
            if isinstance(node, (ast.Assign, ast.AnnAssign))
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(t, ast.Name) and not t.id.startswith("_")
        }
        assert mine <= set(m.__all__), f"{m.__name__} defines {mine - set(m.__all__)}"
        assert len(m.__all__) == len(set(m.__all__)), m.__name__
        for n in m.__all__:
            assert hasattr(m, n), f"{m.__name__}.__all__ names {n}, which it lacks"
            home = importlib.import_module(homes[n])
            assert getattr(home, n) is getattr(m, n), f"{m.__name__}.{n} is not {homes[n]}.{n}"


def test_the_package_face_offers_exactly_its_all():
    import inspect

    import dmi_lib

    public = {n for n, v in vars(dmi_lib).items() if not n.startswith("_")}
    modules = {n for n in public if inspect.ismodule(getattr(dmi_lib, n))}
    assert public - modules == set(dmi_lib.__all__)
    assert {"dmi_cluster", "aggregate", "load_paper_data", "DMIClustering"} <= set(dmi_lib.__all__)
    assert "importlib" not in vars(dmi_lib)
    # beyond the paper: in dmi_lib.extras, not on the face
    assert not {"practical_dmi_aggregate", "kernel_dmi_cluster", "load_dataset"} & set(
        dmi_lib.__all__
    )


def test_a_module_without_all_stops_the_api_page(monkeypatch):
    import dmi_lib.labels

    monkeypatch.delattr(dmi_lib.labels, "__all__")
    with pytest.raises(Exception, match="dmi_lib.labels has no __all__"):
        api.api_rst("dmi_lib")


# --- proof index -----------------------------------------------------------------------


def test_proof_titles_drop_latex():
    from docutils import nodes

    title = nodes.title(
        "",
        "",
        nodes.Text(" 1 (DMI-clustering "),
        nodes.math("", r"\mathrm{DMI}(\mathbf{A})"),
        nodes.Text(")"),
    )
    assert proofs._plain_title(title) == "1 (DMI-clustering DMI(A))"
    from sphinx import addnodes

    cited = nodes.title(
        "",
        "",
        nodes.Text(" 3.3 (Surprisingly popular, "),
        addnodes.pending_xref("", nodes.Text("prelec2017solution"), refdomain="cite"),
        nodes.Text(")"),
    )
    assert proofs._plain_title(cited) == "3.3 (Surprisingly popular)"
    lemma = nodes.title(
        "",
        "",
        nodes.Text(" 4.1 ("),
        addnodes.pending_xref("", nodes.Text("blum2016foundations"), refdomain="cite"),
        nodes.Text(")"),
    )
    assert proofs._plain_title(lemma) == "4.1"


def test_latex_to_text_keeps_the_whole_formula():
    tex = r"\max_{\mathbf{C}\in\mathcal{C}}\det[\mathbf{C}^\top\tilde{\mathbf{A}}]"
    assert proofs.latex_to_text(tex) == "max_C \u2208 \U0001d49e det[C\u1d40A\u0303]"
    assert proofs.latex_to_text(r"\mathrm{DMI\text{-}C}(\mathbf{A})") == "DMI-C(A)"


def test_enumerator_option_numbers_a_block_like_jupyterlab_myst(tmp_path):
    """``{prf:theorem} DMI-clustering`` with ``:enumerator: 2.2`` renders as
    "Theorem 2.2 (DMI-clustering)", unnumbered by sphinx-proof."""
    from sphinx_proof.directive import ElementDirective

    proofs._accept_enumerators()
    assert "enumerator" in ElementDirective.option_spec
    seen = {}

    def fake_run(self):
        seen.update(arguments=list(self.arguments), nonumber="nonumber" in self.options)
        return []

    directive = ElementDirective.__new__(ElementDirective)
    directive.arguments, directive.options = ["DMI-clustering"], {"enumerator": "2.2"}
    original = proofs._ORIGINAL_PROOF_RUN
    try:
        proofs._ORIGINAL_PROOF_RUN = fake_run
        ElementDirective.run(directive)
    finally:
        proofs._ORIGINAL_PROOF_RUN = original
    assert seen == {"arguments": ["2.2 (DMI-clustering)"], "nonumber": True}
    assert proofs.numbered_title("1.1", "") == "1.1"


def test_proof_index_lists_titles_by_type():
    from types import SimpleNamespace

    from docutils import nodes
    from sphinx_proof.domain import ProofIndex

    env = SimpleNamespace(
        proof_list={
            "thm-b": {"docname": "b", "realtype": "theorem", "title": "2.10 (later)"},
            "thm-a": {"docname": "a", "realtype": "theorem", "title": "2.2 (DMI-clustering)"},
            "alg-x": {"docname": "a", "realtype": "algorithm", "title": ""},
        },
        titles={"a": nodes.title("", "Chapter A"), "b": nodes.title("", "Chapter B")},
    )
    index = proofs.titled_proof_index(ProofIndex).__new__(proofs.titled_proof_index(ProofIndex))
    index.domain = SimpleNamespace(env=env)
    content, _ = index.generate()
    assert [kind for kind, _ in content] == ["Algorithm", "Theorem"]
    theorems = content[1][1]
    assert [e[0] for e in theorems] == ["Theorem 2.2 (DMI-clustering)", "Theorem 2.10 (later)"]
    assert theorems[0][2:5] == ("a", "thm-a", "Chapter A")
    assert content[0][1][0][0] == "Algorithm (alg-x)"


def test_proof_index_marks_restatements():
    from types import SimpleNamespace

    from docutils import nodes
    from sphinx_proof.domain import ProofIndex

    env = SimpleNamespace(
        proof_list={
            "def-late": {"docname": "c", "realtype": "definition", "title": "3.3 (SP)"},
            "def-first": {"docname": "a", "realtype": "definition", "title": "3.3 (SP)"},
            "def-other": {"docname": "b", "realtype": "definition", "title": "2.1 (idxmax)"},
        },
        titles={k: nodes.title("", f"Chapter {k}") for k in "abc"},
    )
    cls = proofs.titled_proof_index(ProofIndex)
    index = cls.__new__(cls)
    index.domain = SimpleNamespace(env=env)
    ((kind, entries),) = index.generate()[0]
    assert kind == "Definition"
    assert [(e[0], e[1], e[3]) for e in entries] == [
        ("Definition 2.1 (idxmax)", 0, "def-other"),
        ("Definition 3.3 (SP)", 1, "def-first"),
        ("restated", 2, "def-late"),
    ]


# --- JupyterLab ------------------------------------------------------------------------


def test_pre_save_hook_strips_outputs():
    hooks = _load("lab_config", ROOT / "tools" / "jupyter_server_config.py")
    nb = {
        "type": "notebook",
        "content": {
            "cells": [
                {
                    "cell_type": "code",
                    "source": "1+1",
                    "metadata": {"tags": ["hide-input"]},
                    "execution_count": 3,
                    "outputs": [{"output_type": "execute_result", "data": {"text/plain": "2"}}],
                },
                {"cell_type": "markdown", "source": "text", "metadata": {}},
            ]
        },
    }
    out = hooks.strip_outputs(nb, path="book/x.ipynb", contents_manager=None)
    code, md = out["content"]["cells"]
    assert code["outputs"] == [] and code["execution_count"] is None
    assert code["metadata"] == {"tags": ["hide-input"]} and code["source"] == "1+1"
    assert md == {"cell_type": "markdown", "source": "text", "metadata": {}}
    text = {"type": "file", "content": "x"}
    assert hooks.strip_outputs(dict(text), path="a.txt") == text


def test_lab_config_registers_the_hook():
    from traitlets.config import Config

    cfg = Config()
    ns = {"get_config": lambda: cfg}
    exec(compile((ROOT / "tools" / "jupyter_server_config.py").read_text(), "cfg", "exec"), ns)
    assert cfg.ContentsManager.pre_save_hook is ns["strip_outputs"]


def test_dev_lab_command(monkeypatch):
    dev = _load("dev", ROOT / "dev.py")
    monkeypatch.setattr(dev.os, "geteuid", lambda: 0, raising=False)
    cmd = dev.lab_command(["--no-browser"])
    assert cmd[1:3] == ["lab", f"--config={dev.LAB_CONFIG}"]
    assert "--allow-root" in cmd and cmd[-1] == "book" and "--no-browser" in cmd
    monkeypatch.setattr(dev.os, "geteuid", lambda: 1000, raising=False)
    assert "--allow-root" not in dev.lab_command([])
    proc = subprocess.run(
        [sys.executable, str(ROOT / "dev.py"), "lab", "--dry-run"], capture_output=True, text=True
    )
    assert proc.returncode == 0 and "jupyter_server_config.py" in proc.stdout


def test_jupyterlab_myst_is_enabled_and_compatible():
    # `jupyter labextension list` marks an extension built for another JupyterLab "X"
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "jupyter"), "labextension", "list"],
        capture_output=True,
        text=True,
    )
    out = re.sub(r"\x1b\[[0-9;]*m", "", proc.stdout + proc.stderr)
    line = next((ln for ln in out.splitlines() if "jupyterlab-myst" in ln), "")
    assert re.search(r"enabled\s+OK", line), out


def test_gitattributes_strips_notebooks():
    attrs = (ROOT / ".gitattributes").read_text()
    assert re.search(r"^\*\.ipynb\s+.*filter=nbstripout", attrs, re.M)


def test_widget_cells_are_not_executed_by_the_book_build():
    """A cell that calls ``interact`` shows a live widget, which the static page
    cannot; its output is removed and a frame player tells the story instead.  The
    build does not execute it (``skip-execution``, nbclient's tag): executed by the
    build, such a cell now and then did not complete until the execution timeout
    (300 s, without an error), in about half of the fresh builds.  nbval still
    runs it."""
    import json

    found = 0
    for path in sorted((ROOT / "book").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] != "code" or "interact(" not in "".join(cell["source"]):
                continue
            tags = cell.get("metadata", {}).get("tags", [])
            assert {"skip-execution", "remove-output"} <= set(tags), (path.name, tags)
            found += 1
    assert found >= 10
