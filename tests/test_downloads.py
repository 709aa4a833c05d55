"""The notebook a reader downloads from the book runs on its own (``tools/downloads.py``).

The slow test does what a reader in Colab would: a fresh virtual environment with nothing
of the project, the downloaded chapter, and only its first cell to install what it needs
(pointed at this checkout instead of the public repository).
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import venv
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import downloads  # noqa: E402

CHAPTER = ROOT / "book" / "06_one_dimension.ipynb"


def executed_like(path: Path) -> dict:
    """A chapter as the build leaves it: with an output in its first code cell."""
    nb = json.loads(path.read_text())
    first = next(c for c in nb["cells"] if c["cell_type"] == "code")
    first["outputs"] = [{"output_type": "stream", "name": "stdout", "text": ["ran\n"]}]
    first["execution_count"] = 1
    return nb


def test_the_download_is_the_executed_chapter_with_an_install_cell_first():
    executed = executed_like(CHAPTER)
    before = copy.deepcopy(executed)
    nb = downloads.downloadable(executed, "https://github.com/OWNER/REPO", "main")
    assert executed == before  # the build's copy is not changed
    first = nb["cells"][0]
    assert first["cell_type"] == "code" and downloads.TAG in first["metadata"]["tags"]
    assert "https://github.com/OWNER/REPO" in first["source"]
    assert f"[{downloads.EXTRA}]" in first["source"]
    assert nb["cells"][1:] == executed["cells"]  # every cell, outputs included
    nbformat.validate(nbformat.from_dict(nb))
    compile(first["source"], "install", "exec")
    # a second build does not add a second install cell
    again = downloads.downloadable(nb, "https://github.com/OWNER/REPO", "main")
    assert [c["source"] for c in again["cells"]] == [c["source"] for c in nb["cells"]]


def test_without_a_repository_url_the_cell_says_so():
    nb = downloads.downloadable(executed_like(CHAPTER), None)
    source = nb["cells"][0]["source"]
    assert "git clone" not in source and "without its repository URL" in source
    compile(source, "install", "exec")


def test_the_chapters_extra_exists():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    assert downloads.EXTRA in extras


def _run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc


def test_a_downloaded_chapter_runs_in_a_fresh_environment(tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("VIRTUAL_ENV", "PYTHONPATH", "JUPYTER_PATH", "PYTHONHOME")
    }
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PIP_CONSTRAINT"] = str(ROOT / "requirements-lock.txt")  # the lock's versions
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    # What runs the notebook (a Jupyter client and kernel), not what the chapter needs.
    _run([python, "-m", "pip", "install", "--quiet", "nbclient", "ipykernel"], env=env)
    probe = _run(
        [python, "-c", "import importlib.util as u; print(u.find_spec('dmi_lib'))"],
        cwd=tmp_path,
        env=env,
    )
    assert probe.stdout.strip() == "None"  # nothing of the project yet

    nb = downloads.downloadable(json.loads(CHAPTER.read_text()), ROOT.as_uri(), "HEAD")
    # `git clone --branch HEAD` is not valid: clone this checkout's current commit
    nb["cells"][0]["source"] = nb["cells"][0]["source"].replace('"--branch", BRANCH, ', "")
    work = tmp_path / "reader"
    work.mkdir()
    (work / "chapter.ipynb").write_text(json.dumps(nb))
    runner = (
        "import nbformat, nbclient, sys\n"
        "nb = nbformat.read('chapter.ipynb', as_version=4)\n"
        "nbclient.NotebookClient(nb, timeout=600, kernel_name='python3',"
        " resources={'metadata': {'path': '.'}}).execute()\n"
        "nbformat.write(nb, 'chapter.out.ipynb')\n"
    )
    _run([python, "-c", runner], cwd=work, env=env, timeout=1500)
    out = nbformat.read(work / "chapter.out.ipynb", as_version=4)
    errors = [o for c in out.cells for o in c.get("outputs", []) if o["output_type"] == "error"]
    assert not errors
    assert (work / "dmi-book" / "dmi_lib" / "__init__.py").is_file()  # it did install
    code = [c for c in out.cells if c.cell_type == "code"]
    skipped = [c for c in code if "skip-execution" in c.metadata.get("tags", [])]
    assert len(code) - len(skipped) >= 5
    assert all(c.get("execution_count") for c in code if c not in skipped)
