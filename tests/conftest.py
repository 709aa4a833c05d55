"""Fixtures shared by every test file: a headless matplotlib, no figure left open, and
what the plotting tests read off a figure."""

import matplotlib
import matplotlib.colors

matplotlib.use("Agg")  # before pyplot: tests draw without a display

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every figure a test opened (figures hold memory and leak between tests)."""
    yield
    plt.close("all")


@pytest.fixture
def dashed_lines():
    """``dashed_lines(ax, color=None)``: the dashed lines on ``ax`` (the partitions and
    rays the figures draw), optionally only those of one colour."""

    def lines(ax, color=None):
        found = [ln for ln in ax.get_lines() if ln.get_linestyle() == "--"]
        if color is None:
            return found
        rgb = matplotlib.colors.to_rgba(color)[:3]
        return [
            ln for ln in found if np.allclose(matplotlib.colors.to_rgba(ln.get_color())[:3], rgb)
        ]

    return lines


@pytest.fixture
def suptitle():
    """``suptitle(fig)``: the figure's overall title, ``""`` when it has none."""
    return lambda fig: fig._suptitle.get_text() if fig._suptitle is not None else ""


# --- the browser tests (tests/test_browser_*.py, tests/test_check_offline.py, tests/test_cdp.py)

import fcntl  # noqa: E402
import os  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import cdp  # noqa: E402  (scripts/cdp.py)

#: What the built book is made of: a change to any of these makes _build/html stale.
BOOK_SOURCES = ("book", "dmi_lib", "dmi_book", "tools", "_config.yml", "_toc.yml")


def _newest_source() -> float:
    newest = 0.0
    for name in BOOK_SOURCES:
        path = ROOT / name
        files = [path] if path.is_file() else path.rglob("*")
        for f in files:
            if f.suffix in {".ipynb", ".md", ".py", ".yml", ".bib", ".js", ".css", ".html"}:
                if ".ipynb_checkpoints" not in f.parts and "__pycache__" not in f.parts:
                    newest = max(newest, f.stat().st_mtime)
    return newest


@pytest.fixture(scope="session")
def chromium():
    """The Chromium executable.  Without one the browser tests are skipped with a loud
    reason, except under CI=true, where they fail (``python3 dev.py test`` installs
    Chromium itself where it can)."""
    exe = cdp.find_chromium()
    if exe is None:
        msg = (
            "NO CHROMIUM: the browser tests need headless Chromium. As root on Debian/Ubuntu "
            "`python3 dev.py test` installs it (apt-get install chromium); otherwise install "
            "Chromium or Chrome yourself, or point CHROMIUM=/path/to/chrome at one."
        )
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(msg + " (CI=true: a missing browser is a failure)")
        pytest.skip(msg)
    return exe


@pytest.fixture(scope="session")
def built_book(chromium):
    """The built HTML book: ``$DMI_BOOK_HTML`` if set (used as it is), else
    ``_build/html``, built once (``python3 dev.py book``) if it is missing or older than
    its sources.  A file lock keeps two test workers from building at once."""
    given = os.environ.get("DMI_BOOK_HTML")
    if given:
        html = Path(given)
        if not (html / "index.html").is_file():
            pytest.fail(f"DMI_BOOK_HTML={given} has no index.html")
        return html
    html = ROOT / "_build" / "html"
    (ROOT / "_build").mkdir(exist_ok=True)
    with open(ROOT / "_build" / ".book-lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = html / ".dmi-book-built"  # written by `dev.py book` after a build
        fresh = stamp.is_file() and stamp.stat().st_mtime >= _newest_source()
        if not fresh:
            proc = subprocess.run(
                [sys.executable, str(ROOT / "dev.py"), "book"],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            if proc.returncode != 0:
                pytest.fail("the book did not build:\n" + (proc.stdout + proc.stderr)[-4000:])
    return html
