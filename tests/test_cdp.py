"""scripts/cdp.py: the shared DevTools client connects, and leaves no Chromium behind.

Each run below starts Chromium in a child Python and ends that child in a different
way (an exception inside ``with``, an exception without ``with``, SIGTERM, SIGKILL, a
DevTools connection that fails, a failing ``check_offline.py``); afterwards no process
of the browser's process group may be left.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "scripts"
sys.path.insert(0, str(SCRIPTS))

import cdp  # noqa: E402


def _child(code: str, **kw) -> subprocess.Popen:
    prelude = f"import sys; sys.path.insert(0, {str(SCRIPTS)!r}); import cdp\n"
    return subprocess.Popen(
        [sys.executable, "-c", prelude + code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def _gone(pgid: int, within: float = 15.0) -> list[int]:
    """The processes of group ``pgid`` still there after waiting up to ``within`` s."""
    deadline = time.monotonic() + within
    while True:
        alive = cdp.group_alive(pgid)
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


def test_connects_and_evaluates(chromium):
    with cdp.Browser(chromium) as browser:
        assert browser.page.js("1 + 2") == 3
        pgid = browser.pgid
        assert cdp.group_alive(pgid)  # the browser runs while the block runs
    assert _gone(pgid) == []


@pytest.mark.parametrize(
    "code",
    [
        # an exception inside the with block
        "with cdp.Browser() as b:\n    print(b.pgid, flush=True)\n    raise RuntimeError('x')",
        # an exception with no with block: the atexit hook ends it
        "b = cdp.Browser()\nprint(b.pgid, flush=True)\nraise SystemExit(3)",
    ],
    ids=["exception-in-with", "exit-without-with"],
)
def test_a_failing_run_leaves_no_browser(chromium, code):
    proc = _child(code)
    pgid = int(proc.stdout.readline())
    proc.wait(timeout=60)
    assert proc.returncode != 0
    assert _gone(pgid) == [], "Chromium processes left behind"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_killed_run_leaves_no_browser(chromium, sig):
    proc = _child("b = cdp.Browser()\nprint(b.pgid, flush=True)\nimport time; time.sleep(120)")
    pgid = int(proc.stdout.readline())
    assert cdp.group_alive(pgid)
    proc.send_signal(sig)
    proc.wait(timeout=60)
    assert _gone(pgid) == [], f"Chromium processes left behind after {sig!r}"


def test_a_failed_connection_leaves_no_browser(chromium):
    # the DevTools socket refuses the connection (as Chromium >= 111 does when an Origin
    # header is sent): Browser() raises, and its browser is ended before it does
    code = (
        "import websocket\n"
        "def refuse(*a, **k):\n"
        "    raise websocket.WebSocketBadStatusException('Handshake status 403 Forbidden', 403)\n"
        "websocket.create_connection = refuse\n"
        "import subprocess\n"
        "Popen = subprocess.Popen\n"
        "class Spy(Popen):\n"
        "    def __init__(self, *a, **k):\n"
        "        super().__init__(*a, **k)\n"
        "        print(self.pid, flush=True)\n"
        "subprocess.Popen = Spy\n"
        "cdp.Browser()\n"
    )
    proc = _child(code)
    pgid = int(proc.stdout.readline())
    proc.wait(timeout=60)
    assert proc.returncode != 0 and "403" in proc.stderr.read()
    assert _gone(pgid) == []


def _processes_mentioning(text: str) -> list[str]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if text in cmd:
                found.append(f"{entry.name}: {cmd[:120]}")
    return found


def test_a_failing_check_offline_leaves_no_browser(chromium, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "bad.html").write_text(
        '<html><head><link rel="stylesheet" href="https://cdn.example.org/x.css"></head>'
        "<body>x</body></html>"
    )
    # the browser's profile is made in this folder, so its processes name it; a short
    # path, as Chromium's socket paths under TMPDIR must stay below 108 characters
    tmp = Path(tempfile.mkdtemp(prefix="cdp", dir="/tmp"))
    proc = subprocess.run(
        [sys.executable, str(SCRIPTS / "check_offline.py"), str(site), "--settle", "0.2"],
        env=dict(os.environ, TMPDIR=str(tmp)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1 and "FAIL bad.html" in proc.stdout, proc.stdout + proc.stderr
    deadline = time.monotonic() + 15
    while _processes_mentioning(str(tmp)) and time.monotonic() < deadline:
        time.sleep(0.2)
    try:
        assert _processes_mentioning(str(tmp)) == []
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def test_find_chromium_honours_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("CHROMIUM", str(tmp_path / "nope"))
    assert cdp.find_chromium() is None
    monkeypatch.setenv("CHROMIUM", sys.executable)
    assert cdp.find_chromium() == sys.executable
    with pytest.raises(cdp.Failure, match="no Chromium found"):
        monkeypatch.setenv("CHROMIUM", str(tmp_path / "nope"))
        cdp.Browser()
