"""dmi_lib ships alone: `python -m build` makes a wheel and an sdist that `twine check`
accepts, and the wheel, installed into a fresh virtual environment with only its
runtime dependencies (no matplotlib, no book), imports, loads every shipped data set with
its SHA-256 check, and passes the library's doctests.

The build runs in pip's isolated build environment (setuptools from the package index or
pip's cache); the fresh environment installs the wheel's requirements at the pins of
requirements-lock.txt, plus pytest to run the doctests.
"""

from __future__ import annotations

import email.parser
import json
import os
import shutil
import subprocess
import sys
import tarfile
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

import dmi_lib
from dmi_lib.extras import crowd_data

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "dmi_lib" / "data"
RUNTIME = {"numpy", "scipy", "pandas", "threadpoolctl"}
LOCK = ROOT / "requirements-lock.txt"


def _run(*cmd, cwd, env=None) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, f"{cmd}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict[str, Path]:
    """The build of a clean copy of the repository's files (what git tracks, and new
    files it does not ignore): no egg-info or build directory of the working tree can
    add files to the distributions."""
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("dist")
    files = _run(
        "git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT
    ).stdout.split("\0")
    for rel in filter(None, files):
        if (ROOT / rel).is_file():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
    _run(sys.executable, "-m", "build", "--outdir", out, src, cwd=src)
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


def _shipped_data() -> list[str]:
    """The data files of the source tree, relative to dmi_lib/data."""
    return sorted(
        str(p.relative_to(DATA))
        for p in DATA.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )


def test_build_makes_a_wheel_and_an_sdist_of_this_version(dist):
    v = dmi_lib.__version__
    assert dist["wheel"].name == f"dmi_lib-{v}-py3-none-any.whl"
    assert dist["sdist"].name == f"dmi_lib-{v}.tar.gz"


def test_twine_accepts_both(dist):
    _run(sys.executable, "-m", "twine", "check", "--strict", *dist.values(), cwd=ROOT)


def test_the_wheel_holds_the_library_its_data_and_manifest_and_nothing_else(dist):
    names = zipfile.ZipFile(dist["wheel"]).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"dmi_lib", f"dmi_lib-{dmi_lib.__version__}.dist-info"}, tops
    assert {f"dmi_lib/data/{rel}" for rel in _shipped_data()} <= set(names)
    assert "dmi_lib/data/SHA256SUMS" in names
    assert "dmi_lib/extras/scale_out.py" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".nbc")]


def test_the_wheel_requires_only_the_runtime_dependencies(dist):
    with zipfile.ZipFile(dist["wheel"]) as z:
        meta = z.read(f"dmi_lib-{dmi_lib.__version__}.dist-info/METADATA").decode()
    msg = email.parser.Parser().parsestr(meta)
    assert msg["Version"] == dmi_lib.__version__
    reqs = [Requirement(r) for r in msg.get_all("Requires-Dist")]
    runtime = {r.name.lower() for r in reqs if r.marker is None}
    assert runtime == RUNTIME, runtime
    extras = set(msg.get_all("Provides-Extra"))
    assert {"fast", "dask", "book", "test"} <= extras


def test_the_sdist_holds_the_sources_and_the_data(dist):
    with tarfile.open(dist["sdist"]) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
    assert {"pyproject.toml", "README.md", "dmi_lib/__init__.py", "PKG-INFO"} <= names
    assert {f"dmi_lib/data/{rel}" for rel in _shipped_data()} <= names
    assert not [n for n in names if n.startswith("dmi_book/")]


#: Runs in the fresh environment: every data set through the public loaders (each read
#: checks the file's SHA-256 against the manifest), then an independent check of every
#: manifest line against the installed bytes.
CHECK = textwrap.dedent(
    """
    import hashlib, importlib.util, json, sys
    from pathlib import Path

    import dmi_lib
    from dmi_lib.extras.crowd_data import HOSSEINI_TREATMENTS, PRELEC_STUDIES, list_datasets, load_dataset
    from dmi_lib.datasets import load_paper_data, paper_data_names

    loaded = []
    for name in list_datasets():
        if name == "prelec2017_sp":
            runs = [{"study": s} for s in PRELEC_STUDIES]
        elif name == "hosseini2021_spvoting":
            runs = [{"treatment": t} for t in HOSSEINI_TREATMENTS]
        else:
            runs = [{}]
        for kw in runs:
            d = load_dataset(name, **kw)
            assert len(d.answers) > 0, (name, kw)
            loaded.append([name, kw, len(d.answers)])
    for name in paper_data_names():
        load_paper_data(name)
        loaded.append([name, {}, 0])
    data = Path(dmi_lib.__file__).parent / "data"
    lines = (data / "SHA256SUMS").read_text(encoding="utf-8").splitlines()
    checked = 0
    for line in filter(None, lines):
        digest, rel = line.split(maxsplit=1)
        rel = rel.lstrip("*")
        assert hashlib.sha256((data / rel).read_bytes()).hexdigest() == digest, rel
        checked += 1
    print(json.dumps({
        "file": dmi_lib.__file__,
        "version": dmi_lib.__version__,
        "missing": [m for m in ("matplotlib", "ipywidgets", "dmi_book", "dask", "numba")
                    if importlib.util.find_spec(m) is None],
        "loaded": loaded,
        "manifest_lines": checked,
    }))
    """
)


@pytest.fixture(scope="module")
def fresh(dist, tmp_path_factory) -> Path:
    """A new virtual environment with the wheel and its runtime requirements (and
    pytest, for the doctests), at the lock's pins."""
    where = tmp_path_factory.mktemp("fresh")
    venv.EnvBuilder(with_pip=True).create(where / "venv")
    py = where / "venv" / ("Scripts" if os.name == "nt" else "bin") / "python"
    _run(py, "-m", "pip", "install", "--quiet", dist["wheel"], "pytest", "-c", LOCK, cwd=where)
    return py


def test_the_installed_wheel_loads_every_data_set_without_the_book(fresh, tmp_path):
    out = _run(fresh, "-c", CHECK, cwd=tmp_path).stdout
    report = json.loads(out.strip().splitlines()[-1])
    assert Path(report["file"]).resolve().is_relative_to(fresh.parents[1].resolve())
    assert report["version"] == dmi_lib.__version__
    assert report["missing"] == ["matplotlib", "ipywidgets", "dmi_book", "dask", "numba"]
    names = {name for name, _, _ in report["loaded"]}
    assert names == set(crowd_data.list_datasets()) | set(dmi_lib.datasets.paper_data_names())
    manifest = [ln for ln in (DATA / "SHA256SUMS").read_text().splitlines() if ln]
    assert report["manifest_lines"] == len(manifest) > 0


def test_the_installed_wheel_passes_the_library_doctests(fresh, tmp_path):
    site = Path(
        _run(
            fresh,
            "-c",
            "import dmi_lib, os; print(os.path.dirname(dmi_lib.__file__))",
            cwd=tmp_path,
        ).stdout.strip()
    )
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\ndoctest_optionflags = NORMALIZE_WHITESPACE NUMBER\n"
    )
    # The Dask path needs the `dask` extra, which this environment does not have.
    proc = _run(
        fresh, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--doctest-modules",
        "-c", tmp_path / "pytest.ini", "--rootdir", tmp_path,
        "--ignore", site / "extras" / "scale_out.py", site,
        cwd=tmp_path,
    )  # fmt: skip
    summary = proc.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary and "error" not in summary, summary
    # every doctest of the source tree ran there (the same modules, collected here)
    here = _run(
        sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only",
        "--doctest-modules", "-c", tmp_path / "pytest.ini", "--rootdir", tmp_path,
        "--ignore", ROOT / "dmi_lib" / "extras" / "scale_out.py", ROOT / "dmi_lib",
        cwd=tmp_path,
    )  # fmt: skip
    collected = int(here.stdout.strip().splitlines()[-1].split()[0])
    assert int(summary.split(" passed")[0].split()[-1]) == collected > 0, (summary, collected)
