#!/usr/bin/env python3
"""One entry point for set-up, tests and the book; needs only Python >= 3.11 and pip.

    python3 dev.py test            # create .venv, install pinned deps, run every test
    python3 dev.py book [--open]   # same set-up, then build the HTML book (and open it)
    python3 dev.py lab             # same set-up, then start JupyterLab on book/
                                   # (saves notebooks without outputs; --dry-run prints it)
    python3 dev.py live            # build the book if needed, serve it with a local
                                   # Jupyter server behind each page's "Live code" switch
    python3 dev.py bench NAME      # run benchmarks/bench_NAME.py in the venv
    python3 dev.py lint [--fix]    # ruff check and ruff format --check (--fix: format)

The virtual environment lives in ``.venv/`` and is reinstalled only when a
requirements file changes (a hash of them is stamped into the venv).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
import webbrowser
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
REQS = [
    "requirements.txt",
    "requirements-dev.txt",
    "requirements-lock.txt",
    "requirements-study.txt",
    "pyproject.toml",
]
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")


def run(*cmd, **kw) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=ROOT, **kw)


def ensure_env() -> None:
    """Create .venv and install the pinned requirements plus dmi_lib (editable)."""
    digest = hashlib.sha256(b"".join((ROOT / r).read_bytes() for r in REQS)).hexdigest()
    stamp = VENV / ".dmi-book-stamp"
    if PY.exists() and stamp.exists() and stamp.read_text() == digest:
        return
    if not PY.exists():
        print(f"creating virtual environment in {VENV}", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    run(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(
        PY,
        "-m",
        "pip",
        "install",
        "--quiet",
        "-r",
        "requirements-dev.txt",
        "-c",
        "requirements-lock.txt",
    )
    # crowd-kit (the real-crowds chapter's reference aggregators) without its heavy
    # optional stack (transformers, pyarrow): see requirements-study.txt.
    run(
        PY,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "-r",
        "requirements-study.txt",
        "-c",
        "requirements-lock.txt",
    )
    run(PY, "-m", "pip", "install", "--quiet", "--no-deps", "-e", ".")
    stamp.write_text(digest)


def env_vars() -> dict:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(VENV)
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    # Point Jupyter at the venv's own kernel so notebooks never run in another Python.
    env["JUPYTER_PATH"] = str(VENV / "share" / "jupyter")
    return env


def cmd_test(args) -> int:
    ensure_env()
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
    """Serve the book and a local Jupyter server for its live-code switches.

    Options: --port N (the book's port, default 8000; 0 for any free port), --page
    PATH (page to open), --no-browser, --rebuild, --repo-url URL (passed to the build).
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


LINT_PATHS = ["dmi_lib", "tests", "benchmarks", "scripts", "tools", "dev.py"]


COMMANDS = {
    "lint": cmd_lint,
    "test": cmd_test,
    "book": cmd_book,
    "lab": cmd_lab,
    "bench": cmd_bench,
    "live": cmd_live,
    "setup": lambda args: ensure_env() or 0,
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
