#!/usr/bin/env python3
"""One entry point for set-up, tests and the book; needs only Python >= 3.11 and pip.

    python3 dev.py test            # create .venv, install pinned deps, run every test
    python3 dev.py book [--open]   # same set-up, then build the HTML book (and open it)
    python3 dev.py lab             # same set-up, then start JupyterLab on book/
                                   # (saves notebooks without outputs; --dry-run prints it)
    python3 dev.py live            # build the book if needed, serve it with a local
                                   # Jupyter server behind each page's "Live code" switch
    python3 dev.py pdf             # build the book if needed, then the whole book as one
                                   # PDF, _build/html/dmi-book.pdf (headless Chromium)
    python3 dev.py bench NAME      # run benchmarks/bench_NAME.py in the venv
    python3 dev.py lint [--fix]    # ruff check and ruff format --check (--fix: format)
    python3 dev.py lock            # write .venv's exact versions to requirements-lock.txt,
                                   # then environment.yml from pyproject.toml and the lock

The virtual environment lives in ``.venv/``: dmi_lib (editable) with the extras of
pyproject.toml that development needs (``dev``), every package at its exact version in
requirements-lock.txt, the one lock file.  It is reinstalled only when pyproject.toml's
[project] table or the lock changes (a hash of them is stamped into the venv).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
import venv
import webbrowser
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
LOCK = "requirements-lock.txt"
#: The book's own package (figures and studies), installed editable next to dmi_lib.
BOOK_PACKAGE = "./dmi_book"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
#: The conda environment of environment.yml (Binder) uses this Python.
CONDA_PYTHON = "3.11"


def run(*cmd, **kw) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT, **kw)


def project() -> dict:
    """The [project] table of pyproject.toml: dependencies and extras as ranges."""
    import tomllib  # here, so that Python < 3.11 gets main()'s message, not an ImportError

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def study_packages() -> list[str]:
    """The ``study`` extra (crowd-kit and what its aggregators import), as requirements."""
    return list(project()["optional-dependencies"]["study"])


def study_command(python) -> list[str]:
    """Install the ``study`` extra at the lock's pins WITHOUT dependencies: crowd-kit
    declares transformers (with its own dependencies about 780 MB), which its
    aggregators never import (see the extra's comment in pyproject.toml)."""
    return [
        str(python),
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        *study_packages(),
        "-c",
        LOCK,
    ]


def install_commands(python) -> list[list[str]]:
    """The pip commands that install the environment; every one is constrained by the lock."""
    pip = [str(python), "-m", "pip", "install", "--quiet"]
    return [[*pip, "-e", ".[dev]", "-e", BOOK_PACKAGE, "-c", LOCK], study_command(python)]


def env_digest() -> str:
    """What the environment is built from: the [project] tables of pyproject.toml and the
    book package's dmi_book/pyproject.toml, and the lock."""
    spec = json.dumps(project(), sort_keys=True).encode()
    book = (ROOT / BOOK_PACKAGE / "pyproject.toml").read_bytes()
    return hashlib.sha256(spec + book + (ROOT / LOCK).read_bytes()).hexdigest()


def ensure_env() -> None:
    """Create .venv and install dmi_lib (editable) with its dev extras, at the lock's pins."""
    digest = env_digest()
    stamp = VENV / ".dmi-book-stamp"
    if PY.exists() and stamp.exists() and stamp.read_text() == digest:
        return
    if not PY.exists():
        print(f"creating virtual environment in {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    run(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    for cmd in install_commands(PY):
        run(*cmd)
    # Compile k-cofactors' numba passes into numba's on-disk cache now (13-27 s, once),
    # so that no test, notebook or user call pays for it.
    run(PY, "-c", "from dmi_lib.kcofactors import compile_passes; compile_passes()")
    stamp.write_text(digest)


def _name(requirement: str) -> str:
    """The normalised project name of a requirement or pin (PEP 503)."""
    name = requirement.split(";")[0]
    for sep in "[<>=!~ @":
        name = name.split(sep)[0]
    return name.strip().lower().replace("_", "-").replace(".", "-")


def lock_pins() -> list[str]:
    """The lock's ``name==version`` lines, in file order."""
    lines = (ROOT / LOCK).read_text().splitlines()
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


LOCK_HEADER = """\
# Every exact pin: what dev.py, environment.yml and postBuild install (one file; the ranges
# are in pyproject.toml).  Written by `python3 dev.py lock` from `pip freeze` of .venv.
"""


def environment_yml() -> str:
    """environment.yml (conda, Binder): Python, then every pin of the lock but the ``study``
    extra's, which postBuild installs without their dependencies."""
    study = {_name(r) for r in study_packages()}
    pins = [p for p in lock_pins() if _name(p) not in study]
    lines = [
        "# Conda / Binder environment, written by `python3 dev.py lock` from pyproject.toml and",
        f"# {LOCK} (do not edit by hand; tests/test_repo.py checks it is up to date).",
        "# Binder then runs ./postBuild: the `study` extra (crowd-kit), without its dependencies.",
        "name: dmi-book",
        "channels:",
        "  - conda-forge",
        "dependencies:",
        f"  - python={CONDA_PYTHON}",
        "  - pip",
        "  - pip:",
        *(f"      - {p}" for p in pins),
        "      - -e .[dev]",
        f"      - -e {BOOK_PACKAGE}",
    ]
    return "\n".join(lines) + "\n"


def cmd_lock(args) -> int:
    """Write .venv's exact versions to the lock, then environment.yml from it."""
    if not PY.exists():
        print("no .venv yet: run `python3 dev.py setup` first")
        return 2
    stamp = VENV / ".dmi-book-stamp"
    fresh = stamp.exists() and stamp.read_text() == env_digest()
    frozen = subprocess.run(
        [str(PY), "-m", "pip", "freeze", "--exclude-editable"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    pins = sorted((ln for ln in frozen if "==" in ln), key=str.lower)
    (ROOT / LOCK).write_text(LOCK_HEADER + "\n".join(pins) + "\n")
    (ROOT / "environment.yml").write_text(environment_yml())
    if fresh:  # .venv is what the new lock says: no reinstall on the next command
        stamp.write_text(env_digest())
    print(f"wrote {LOCK} ({len(pins)} pins) and environment.yml")
    return 0


def install_study(args) -> int:
    """Install the ``study`` extra into this Python, without dependencies (Binder's postBuild)."""
    return subprocess.run(study_command(sys.executable), cwd=ROOT).returncode


def env_vars() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(VENV)
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    # Point Jupyter at the venv's own kernel so notebooks never run in another Python.
    env["JUPYTER_PATH"] = str(VENV / "share" / "jupyter")
    return env


def find_chromium() -> str | None:
    """The Chromium the browser tests use (scripts/cdp.py's rule: $CHROMIUM, then PATH)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("cdp", ROOT / "scripts" / "cdp.py")
    cdp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cdp)
    return cdp.find_chromium()


NO_BROWSER = """
!!! No Chromium: the browser tests (every page offline and without console errors, the
!!! frame players, the phone layout at 390 px, live code, the book's PDF) need headless
!!! Chromium and poppler's pdftoppm/pdftotext.  As root with apt, `python3 dev.py test`
!!! installs them (apt-get install -y chromium poppler-utils).
!!! Without root: install Chromium or Google Chrome (e.g. ask an administrator for the
!!! `chromium` package), or set CHROMIUM=/path/to/chrome; then run the tests again.
!!! {what}
"""


def ensure_browser() -> bool:
    """Provide headless Chromium (and poppler's PDF tools, for the whole-book PDF's test)
    for the browser tests; True if both are there.

    Found on PATH (or ``$CHROMIUM``): used.  Missing, as root on a system with apt-get
    (Debian, Ubuntu): ``apt-get update`` and ``apt-get install -y chromium poppler-utils``.
    Otherwise a loud message: the browser tests then skip, or fail under ``CI=true``.
    """

    def missing() -> list[str]:
        need = [] if find_chromium() else ["chromium"]
        if not (shutil.which("pdftoppm") and shutil.which("pdftotext")):
            need.append("poppler-utils")
        return need

    need = missing()
    if not need:
        return True
    root = hasattr(os, "geteuid") and os.geteuid() == 0
    apt = shutil.which("apt-get")
    if root and apt:
        print(f"installing {' and '.join(need)} with apt-get (Debian packages)", flush=True)
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        try:
            run(apt, "update", env=env)
            run(apt, "install", "-y", "--no-install-recommends", *need, env=env)
        except subprocess.CalledProcessError as err:
            print(f"apt-get failed: {err}", flush=True)
        need = missing()
        if not need:
            return True
    ci = os.environ.get("CI", "").lower() == "true"
    what = f"Missing: {', '.join(need)}. " + (
        "CI=true: the browser tests will FAIL."
        if ci
        else "The browser tests are SKIPPED in this run (under CI=true they fail)."
    )
    print(NO_BROWSER.format(what=what), flush=True)
    return False


def cmd_test(args) -> int:
    ensure_env()
    ensure_browser()
    # -n 2 --dist loadfile: a notebook's cells must stay on one worker (TOOLCHAIN.md).
    proc = subprocess.run(
        [str(PY), "-m", "pytest", "-n", "2", "--dist", "loadfile", *args], cwd=ROOT, env=env_vars()
    )
    return proc.returncode


def effective_config(repo_url: str | None) -> Path:
    """Write the build's config: _config.yml plus the repository URL, if one is known.

    The launch buttons (Binder, Colab) need the public repository URL, which is not
    known in advance; without it they are switched off rather than pointing nowhere.
    """
    import yaml  # PyYAML comes with jupyter-book

    cfg = yaml.safe_load((ROOT / "_config.yml").read_text())
    if repo_url:
        cfg.setdefault("repository", {})["url"] = repo_url
        cfg.setdefault("html", {}).update(use_repository_button=True)
    else:
        cfg.pop("launch_buttons", None)
        print("note: no --repo-url / DMI_BOOK_REPO_URL: building without launch buttons")
    # The effective config is written under _build/, and jupyter-book resolves
    # local_extensions paths against the config file's folder: make them absolute.
    local = cfg.get("sphinx", {}).get("local_extensions") or {}
    for name, path in local.items():
        local[name] = str((ROOT / path).resolve())
    out = ROOT / "_build" / "_config.effective.yml"
    out.parent.mkdir(exist_ok=True)
    out.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return out


def cmd_book(args) -> int:
    ensure_env()
    repo_url = os.environ.get("DMI_BOOK_REPO_URL")
    if "--repo-url" in args:
        i = args.index("--repo-url")
        if i + 1 >= len(args):
            print("--repo-url needs a value, e.g. --repo-url https://github.com/OWNER/REPO")
            return 2
        repo_url = args[i + 1]
    # The config is written by the venv's Python: it needs PyYAML and MathJax from there.
    run(PY, Path(__file__).name, "_write-config", repo_url or "", env=env_vars())
    config = ROOT / "_build" / "_config.effective.yml"
    proc = subprocess.run(
        [str(BIN / "jupyter-book"), "build", "-W", "--keep-going", "--config", str(config), "."],
        cwd=ROOT,
        env=env_vars(),
    )
    index = ROOT / "_build" / "html" / "index.html"
    if proc.returncode == 0:
        # the browser tests rebuild the book when a source is newer than this stamp
        (ROOT / "_build" / "html" / ".dmi-book-built").write_text(f"{time.time():.0f}\n")
        print(f"\nbook built: {index}")
        if "--open" in args:
            webbrowser.open(index.as_uri())
    return proc.returncode


LAB_CONFIG = ROOT / "tools" / "jupyter_server_config.py"


def lab_command(args) -> list[str]:
    """The JupyterLab command line of ``dev.py lab``.

    Notebooks are saved without outputs (the pre-save hook of LAB_CONFIG); as root,
    Jupyter refuses to start unless given --allow-root, so it is added for root.
    """
    cmd = [str(BIN / "jupyter"), "lab", f"--config={LAB_CONFIG}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in args:
        cmd.append("--allow-root")
    return [*cmd, *args, "book"]


def cmd_lab(args) -> int:
    dry_run = "--dry-run" in args
    args = [a for a in args if a != "--dry-run"]
    cmd = lab_command(args)
    if dry_run:  # print the command (and check the set-up) without starting a server
        print(" ".join(cmd))
        return 0 if LAB_CONFIG.is_file() else 1
    ensure_env()
    return subprocess.run(cmd, cwd=ROOT, env=env_vars()).returncode


def cmd_live(args) -> int:
    """Serve the book and its kernels from one local Jupyter server (tools/live_server.py).

    Options: --port N (default 8000; 0 for any free port), --page PATH (page to open),
    --cull-idle SECONDS, --no-browser, --rebuild, --repo-url URL (passed to the build).
    """
    ensure_env()
    book_args = []
    if "--repo-url" in args:
        i = args.index("--repo-url")
        book_args, args = args[i : i + 2], args[:i] + args[i + 2 :]
    live_js = ROOT / "_build" / "html" / "_static" / "live" / "live-code.js"
    if "--rebuild" in args or not live_js.exists():
        if cmd_book(book_args) != 0:
            return 1
    cmd = [
        str(PY),
        str(ROOT / "tools" / "live_server.py"),
        "--book",
        str(ROOT / "_build" / "html"),
        "--root",
        str(ROOT),
        *(a for a in args if a != "--rebuild"),
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env_vars())
    try:
        return proc.wait()
    except KeyboardInterrupt:  # the server got Ctrl-C too and stops both of its servers
        return proc.wait()


def cmd_pdf(args) -> int:
    """The whole book as one PDF (tools/book_pdf.py): builds the HTML book if it is
    missing or with --rebuild, then prints it with headless Chromium and checks it."""
    ensure_env()
    index = ROOT / "_build" / "html" / "book" / "index.html"
    if "--rebuild" in args or not index.exists():
        if cmd_book([a for a in args if a != "--rebuild"]) != 0:
            return 1
    script = ROOT / "tools" / "book_pdf.py"
    return subprocess.run([str(PY), str(script)], cwd=ROOT, env=env_vars()).returncode


def cmd_bench(args) -> int:
    ensure_env()
    if not args:
        print(
            "usage: python3 dev.py bench NAME [ARGS]; NAME one of:",
            ", ".join(p.stem[6:] for p in sorted((ROOT / "benchmarks").glob("bench_*.py"))),
        )
        return 2
    script = ROOT / "benchmarks" / f"bench_{args[0]}.py"
    return subprocess.run([str(PY), str(script), *args[1:]], cwd=ROOT, env=env_vars()).returncode


def cmd_lint(args) -> int:
    """``ruff check`` and ``ruff format --check``; with ``--fix``, format and fix in place."""
    ensure_env()
    fix = "--fix" in args
    paths = [a for a in args if a != "--fix"] or LINT_PATHS
    ruff = str(BIN / "ruff")
    check = subprocess.run(
        [ruff, "check", *(["--fix"] if fix else []), *paths], cwd=ROOT, env=env_vars()
    ).returncode
    fmt = subprocess.run(
        [ruff, "format", *([] if fix else ["--check"]), *paths], cwd=ROOT, env=env_vars()
    ).returncode
    return check or fmt


LINT_PATHS = ["dmi_lib", "dmi_book", "tests", "benchmarks", "scripts", "tools", "dev.py"]


COMMANDS = {
    "lint": cmd_lint,
    "test": cmd_test,
    "book": cmd_book,
    "lab": cmd_lab,
    "bench": cmd_bench,
    "live": cmd_live,
    "pdf": cmd_pdf,
    "setup": lambda args: ensure_env() or 0,
    "lock": cmd_lock,
    "_install-study": install_study,
    "_write-config": lambda args: effective_config(args[0] if args else None) and 0,
}


def main(argv: list[str]) -> int:
    if sys.version_info < (3, 11):
        print(
            f"dev.py needs Python >= 3.11 (the pinned numpy does); this is {sys.version.split()[0]}"
        )
        return 2
    if not argv or argv[0] not in COMMANDS:
        print(__doc__)
        return 2
    return COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
