"""The launch buttons open a notebook that runs (``tools/publish_notebooks.py``).

A one-chapter book is built with the book's own launch settings (``_config.yml``'s
``repository.branch`` and ``launch_buttons``, ``tools/downloads.py``) and a placeholder
repository URL; the page's Colab and Binder links must open, on the branch the script
writes, the executed chapter whose first cell installs ``dmi_lib`` from that branch.
``tests/test_downloads.py`` runs such a chapter in a fresh environment.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import downloads  # noqa: E402
import publish_notebooks  # noqa: E402

URL = "https://github.com/OWNER/REPO"  # a placeholder: nothing is fetched from it
BRANCH = yaml.safe_load((ROOT / "_config.yml").read_text())["repository"]["branch"]


def git(root, *args):
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    root = tmp_path_factory.mktemp("book")
    real = yaml.safe_load((ROOT / "_config.yml").read_text())
    config = {
        "title": "t",
        "only_build_toc_files": True,
        "exclude_patterns": real["exclude_patterns"],
        "execute": {"execute_notebooks": "force"},
        "repository": {**real["repository"], "url": URL},
        "launch_buttons": real["launch_buttons"],
        "html": {"use_repository_button": True},
        "sphinx": {"local_extensions": {"downloads": str(ROOT / "tools")}},
    }
    (root / "_config.yml").write_text(yaml.safe_dump(config))
    (root / "_toc.yml").write_text("format: jb-book\nroot: book/ch\n")
    (root / "book").mkdir()
    nb = {
        "cells": [
            {"cell_type": "markdown", "id": "a", "metadata": {}, "source": "# A chapter"},
            {
                "cell_type": "code",
                "id": "b",
                "metadata": {},
                "execution_count": None,
                "outputs": [],
                "source": "print(6 * 7)",
            },
        ],
        "metadata": {
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (root / "book" / "ch.ipynb").write_text(json.dumps(nb))
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "a book")
    jb = Path(sys.executable).parent / "jupyter-book"
    proc = subprocess.run(
        [str(jb), "build", "-W", str(root)], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return root


def test_the_launch_buttons_open_the_executed_chapter_with_its_install_cell(book):
    html_dir = book / "_build" / "html"
    page = (html_dir / "book" / "ch.html").read_text()
    links = publish_notebooks.launch_links(page)
    assert sorted(k for k, _, _ in links) == ["binder", "colab"]
    assert all(b == BRANCH and p == "book/ch.ipynb" for _, b, p in links), links
    assert f"colab.research.google.com/github/OWNER/REPO/blob/{BRANCH}/book/ch.ipynb" in page

    head = git(book, "rev-parse", "HEAD")
    assert publish_notebooks.main([str(html_dir), "--branch", BRANCH, "--root", str(book)]) == 0
    assert git(book, "rev-parse", f"{BRANCH}^") == head  # the branch sits on HEAD
    assert git(book, "rev-parse", "HEAD") == head  # the checkout is untouched
    opened = json.loads(git(book, "show", f"{BRANCH}:book/ch.ipynb"))
    first, rest = opened["cells"][0], opened["cells"][1:]
    assert downloads.TAG in first["metadata"]["tags"]
    assert f"REPOSITORY = {URL!r}" in first["source"]
    assert f"BRANCH = {BRANCH!r}" in first["source"]  # it installs from that branch
    code = [c for c in rest if c["cell_type"] == "code"]
    assert "".join(code[0]["outputs"][0]["text"]) == "42\n"  # executed, outputs included
    # every other file of the repository is on the branch as on HEAD
    assert git(book, "show", f"{BRANCH}:_toc.yml") == (book / "_toc.yml").read_text().strip()


def test_a_launch_link_to_a_file_the_build_did_not_produce_fails(book, tmp_path, capsys):
    html_dir = tmp_path / "html"
    subprocess.run(["cp", "-r", str(book / "_build" / "html"), str(html_dir)], check=True)
    page = html_dir / "book" / "ch.html"
    page.write_text(page.read_text().replace("book/ch.ipynb", "book/other.ipynb"))
    assert publish_notebooks.main([str(html_dir), "--branch", BRANCH, "--root", str(book)]) == 1
    assert "book/other.ipynb, which the build did not produce" in capsys.readouterr().err


def test_a_launch_link_to_another_branch_fails(book, capsys):
    html_dir = book / "_build" / "html"
    code = publish_notebooks.main([str(html_dir), "--branch", "elsewhere", "--root", str(book)])
    assert code == 1
    assert f"opens {BRANCH}:book/ch.ipynb, not the branch written here" in capsys.readouterr().err


def test_a_chapter_without_its_install_cell_fails(book, tmp_path, capsys):
    html_dir = tmp_path / "html"
    subprocess.run(["cp", "-r", str(book / "_build" / "html"), str(html_dir)], check=True)
    download = html_dir / "_sources" / "book" / "ch.ipynb"
    nb = json.loads(download.read_text())
    nb["cells"] = nb["cells"][1:]
    download.write_text(json.dumps(nb))
    assert publish_notebooks.main([str(html_dir), "--branch", BRANCH, "--root", str(book)]) == 1
    assert "first cell does not install dmi_lib" in capsys.readouterr().err


def test_links_are_read_as_sphinx_book_theme_writes_them():
    page = (
        '<a href="https://mybinder.org/v2/gh/O/R/nb?urlpath=lab/tree/book/x.ipynb">'
        '<a href="https://colab.research.google.com/github/O/R/blob/nb/book/x.ipynb">'
        '<a href="https://github.com/O/R">'
    )
    assert publish_notebooks.launch_links(page) == [
        ("binder", "nb", "book/x.ipynb"),
        ("colab", "nb", "book/x.ipynb"),
    ]
