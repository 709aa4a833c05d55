"""Sphinx extension: the ``.ipynb`` a reader downloads runs anywhere, outputs included.

The download menu of a chapter offers ``_sources/<chapter>.ipynb``.  Sphinx copies the
source notebook there, which is saved without outputs and imports ``dmi_lib`` from the
repository it sits in.  After the build this extension writes, in its place, the notebook
as the build executed it (myst-nb's ``jupyter_execute/`` copy, outputs included) with one
cell in front: outside the book's repository (Colab, any Jupyter) it clones the
repository the book was built from (``repository.url``), installs it with the ``chapters``
extra and moves into its ``book/`` folder, so every later cell runs as it does in the book;
inside the repository (``dmi_lib`` importable) it does nothing.  A book built without a
repository URL says so in that cell instead of guessing one.
"""

from __future__ import annotations

import json
from pathlib import Path

from sphinx.application import Sphinx

#: The package extra with what the chapters import (pyproject.toml).
EXTRA = "chapters"
#: Marks the added cell, so that a test (and a second build) can find it.
TAG = "dmi-install"


def install_source(repo_url: str | None, branch: str = "main") -> str:
    """The code of the first cell of a downloaded chapter."""
    if not repo_url:
        return (
            "# This copy of the book was built without its repository URL, so this cell\n"
            "# cannot fetch it: run the chapter from a clone of the book's repository.\n"
            "import importlib.util\n\n"
            'if importlib.util.find_spec("dmi_lib") is None:\n'
            '    raise RuntimeError("dmi_lib is not installed: run this chapter from a clone '
            "of the book's repository\")\n"
        )
    return (
        "# Running this chapter outside the book's repository (Colab, any Jupyter)? This\n"
        "# cell clones the repository, installs dmi_lib with what the chapters use and\n"
        "# moves into its book/ folder; inside the repository it does nothing.\n"
        "import importlib.util\n"
        "import os\n"
        "import subprocess\n"
        "import sys\n\n"
        f"REPOSITORY = {repo_url!r}\n"
        f"BRANCH = {branch!r}\n"
        'if importlib.util.find_spec("dmi_lib") is None:\n'
        '    if not os.path.isdir("dmi-book"):\n'
        "        subprocess.run(\n"
        '            ["git", "clone", "--depth", "1", "--branch", BRANCH, REPOSITORY, "dmi-book"],\n'
        "            check=True,\n"
        "        )\n"
        "    subprocess.run(\n"
        f'        [sys.executable, "-m", "pip", "install", "--quiet", "-e", "dmi-book[{EXTRA}]"],\n'
        "        check=True,\n"
        "    )\n"
        '    sys.path.insert(0, os.path.abspath("dmi-book"))  # dmi_lib and dmi_book, now\n'
        '    os.chdir("dmi-book/book")\n'
    )


def downloadable(executed: dict, repo_url: str | None, branch: str = "main") -> dict:
    """The executed notebook with the install cell in front (a new dict)."""
    cell = {
        "cell_type": "code",
        "execution_count": None,
        "id": TAG,
        "metadata": {"tags": [TAG]},
        "outputs": [],
        "source": install_source(repo_url, branch),
    }
    cells = [c for c in executed["cells"] if TAG not in c.get("metadata", {}).get("tags", [])]
    nb = dict(executed, cells=[cell, *cells])
    nb["nbformat"], nb["nbformat_minor"] = 4, max(5, executed.get("nbformat_minor", 5))
    return nb


def _write_downloads(app: Sphinx, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    executed_root = Path(app.outdir).parent / "jupyter_execute"
    sources = Path(app.outdir) / "_sources"
    opts = app.config.html_theme_options or {}
    repo_url = (opts.get("repository_url") or "").strip() or None
    branch = opts.get("repository_branch") or "main"
    for target in sources.rglob("*.ipynb"):
        executed = executed_root / target.relative_to(sources)
        if not executed.is_file():  # not executed by this build (e.g. excluded)
            continue
        nb = downloadable(json.loads(executed.read_text()), repo_url, branch)
        target.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


def setup(app: Sphinx) -> dict:
    app.connect("build-finished", _write_downloads)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
