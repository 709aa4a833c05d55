"""scripts/check_offline.py: finds a page's requests to other hosts and missing local files."""

from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
spec = importlib.util.spec_from_file_location(
    "check_offline", ROOT / "scripts" / "check_offline.py"
)
check_offline = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_offline)


@pytest.mark.parametrize(
    "url, external",
    [
        ("https://cdn.example.org/a.js", True),
        ("http://example.org/", True),
        ("wss://example.org/socket", True),
        ("http://localhost:8888/api", False),
        ("http://127.0.0.1:1/x", False),
        ("file:///tmp/a.html", False),
        ("data:image/png;base64,AAAA", False),
        ("blob:null/1234", False),
    ],
)
def test_is_external(url, external):
    assert check_offline.is_external(url) is external


@pytest.fixture
def site(tmp_path):
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "ok.js").write_text("window.ok = 1;")
    (tmp_path / "clean.html").write_text(
        '<html><head><script src="_static/ok.js"></script></head><body>ok</body></html>'
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "cdn.html").write_text(
        '<html><head><link rel="stylesheet" href="https://cdn.example.org/fa.css">'
        '<script src="../_static/missing.js"></script></head><body>x</body></html>'
    )
    return tmp_path


def test_pages_in(site):
    pages = check_offline.pages_in(site, [])
    assert [p.relative_to(site).as_posix() for p in pages] == ["clean.html", "sub/cdn.html"]


def test_external_request_and_missing_file_fail(site, chromium):
    out = io.StringIO()
    code = check_offline.check(site, [], chromium, timeout=30, settle=0.3, out=out)
    text = out.getvalue()
    assert code == 1, text
    assert "ok   clean.html" in text
    assert "FAIL sub/cdn.html" in text and "https://cdn.example.org/fa.css" in text
    assert "missing.js" in text
    assert "1 of 2 pages" in text


def test_clean_page_passes(site, chromium):
    out = io.StringIO()
    assert check_offline.check(site, ["clean.html"], chromium, 30, 0.3, out=out) == 0, (
        out.getvalue()
    )


@pytest.mark.parametrize(
    "script",
    ["console.error('deliberate')", "undefinedFunction()"],
    ids=["console.error", "uncaught-exception"],
)
def test_console_error_fails(site, chromium, script):
    (site / "err.html").write_text(f"<html><body><script>{script}</script>x</body></html>")
    out = io.StringIO()
    code = check_offline.check(site, ["err.html"], chromium, 30, 0.3, out=out)
    assert code == 1 and "1 console error(s)" in out.getvalue(), out.getvalue()
