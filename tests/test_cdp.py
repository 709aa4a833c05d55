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


# The runs below (but the SIGKILL one) start the browser with die_with_parent=False, so
# that each way of ending it is checked on its own, not covered by the kernel's
# PR_SET_PDEATHSIG; the runs check, while the child Python still runs where they can.
NO_PDEATHSIG = "die_with_parent=False"


def test_an_exception_in_with_leaves_no_browser(chromium):
    code = (
        f"try:\n    with cdp.Browser({NO_PDEATHSIG}) as b:\n"
        "        pgid = b.pgid\n        raise RuntimeError('deliberate')\n"
        "except RuntimeError:\n    import time; time.sleep(1)\n"
        "    print(pgid, cdp.group_alive(pgid), flush=True)\n"
    )
    proc = _child(code)
    out, err = proc.communicate(timeout=60)
    pgid, alive = out.split(" ", 1)
    assert alive.strip() == "[]", f"left behind while the run still went on: {alive} {err}"
    assert _gone(int(pgid)) == []


def test_an_exit_without_with_leaves_no_browser(chromium):
    # the atexit hook ends it; a check registered before it runs after it
    code = (
        "import atexit, time\nstate = {}\n"
        "atexit.register(lambda: print(state['pgid'], cdp.group_alive(state['pgid']),"
        " flush=True))\n"
        f"b = cdp.Browser({NO_PDEATHSIG})\nstate['pgid'] = b.pgid\nraise SystemExit(3)\n"
    )
    proc = _child(code)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err
    pgid, alive = out.split(" ", 1)
    assert _gone(int(pgid), within=0.5) == [], f"at exit: {alive} {err}"


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_killed_run_leaves_no_browser(chromium, sig):
    # SIGTERM: the module's handler ends the group; SIGKILL: only PR_SET_PDEATHSIG can
    opts = NO_PDEATHSIG if sig == signal.SIGTERM else ""
    proc = _child(
        f"b = cdp.Browser({opts})\nprint(b.pgid, b.profile, flush=True)\n"
        "import time; time.sleep(120)"
    )
    pgid, profile = proc.stdout.readline().split()
    pgid = int(pgid)
    assert cdp.group_alive(pgid)
    proc.send_signal(sig)
    proc.wait(timeout=60)
    assert _gone(pgid) == [], f"Chromium processes left behind after {sig!r}"
    shutil.rmtree(profile, ignore_errors=True)  # a SIGKILLed run cannot remove it itself


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
        "        Spy.pid = self.pid\n"
        "subprocess.Popen = Spy\n"
        "try:\n"
        f"    cdp.Browser({NO_PDEATHSIG})\n"
        "except websocket.WebSocketBadStatusException as err:\n"
        "    import time; time.sleep(1)\n"
        "    print(cdp.group_alive(Spy.pid), err, flush=True)\n"
    )
    proc = _child(code)
    pgid = int(proc.stdout.readline())
    out, err = proc.communicate(timeout=60)
    assert "403" in out, out + err
    assert out.startswith("[] "), f"left behind while the run still went on: {out}"
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
