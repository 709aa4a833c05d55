"""Serve the built book with a local Jupyter server behind its "Live code" switches.

Started by ``python3 dev.py live`` (which builds the book first if needed).  Two servers,
both on 127.0.0.1 only:

* a Jupyter server (the venv's kernel, the repository as its root folder) with a fresh
  random token, accepting cross-origin requests from the book's origin only;
* a static server for ``_build/html`` that also answers ``/_live/server.json`` with the
  Jupyter server's URL and token, which the pages' live-code script reads when switched on.

Ctrl-C (or SIGTERM) stops both.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import webbrowser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOST = "127.0.0.1"
SERVER_JSON = "/_live/server.json"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def origin_pattern(book_port: int) -> str:
    """Regular expression of the book's origins (127.0.0.1 and localhost, that port)."""
    return rf"^http://(127\.0\.0\.1|localhost):{book_port}$"


def jupyter_command(python: str, root: Path, port: int, book_port: int) -> list[str]:
    """Command line of the Jupyter server; the token is passed in ``JUPYTER_TOKEN``."""
    cmd = [
        python,
        "-m",
        "jupyter_server",
        "--no-browser",
        f"--ServerApp.ip={HOST}",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        f"--ServerApp.allow_origin_pat={origin_pattern(book_port)}",
        # kernels only: JupyterLab and its server extensions start 2-3 s slower
        "--ServerApp.jpserver_extensions="
        + repr(
            {
                name: False
                for name in (
                    "jupyterlab",
                    "jupyter_lsp",
                    "jupyter_server_terminals",
                    "notebook_shim",
                )
            }
        ),
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


def server_info(port: int, token: str) -> dict:
    """The JSON the pages read: where the kernel server is and its token."""
    base = f"http://{HOST}:{port}"
    return {"baseUrl": base, "wsUrl": base.replace("http", "ws", 1), "token": token}


class BookHandler(SimpleHTTPRequestHandler):
    """Static files of the book, plus ``/_live/server.json``."""

    info: dict = {}

    def do_GET(self):  # noqa: N802 (http.server's name)
        if self.path.split("?")[0] == SERVER_JSON:
            body = json.dumps(self.info).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, fmt, *args):  # only errors
        if args and re.match(r"[45]\d\d", str(args[1]) if len(args) > 1 else ""):
            sys.stderr.write("book server: " + fmt % args + "\n")


def wait_ready(info: dict, proc: subprocess.Popen, timeout: float = 60.0) -> float:
    """Poll the Jupyter server's /api/status until it answers; return the seconds taken."""
    start = time.monotonic()
    req = urllib.request.Request(
        info["baseUrl"] + "/api/status", headers={"Authorization": f"token {info['token']}"}
    )
    while time.monotonic() - start < timeout:
        if proc.poll() is not None:
            raise RuntimeError(f"the Jupyter server exited with code {proc.returncode}")
        try:
            with urllib.request.urlopen(req, timeout=2) as resp:
                if resp.status == 200:
                    return time.monotonic() - start
        except OSError:
            time.sleep(0.25)
    raise RuntimeError(f"the Jupyter server did not answer within {timeout:.0f} s")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--book", type=Path, required=True, help="the built HTML book")
    p.add_argument("--root", type=Path, required=True, help="the Jupyter server's root")
    p.add_argument("--port", type=int, default=8000, help="the book's port (0: any free)")
    p.add_argument(
        "--page", default="index.html", help="page to open, e.g. book/06_one_dimension.html"
    )
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    args = p.parse_args(argv)
    if not (args.book / "index.html").exists():
        print(f"no built book in {args.book} (run python3 dev.py book)", file=sys.stderr)
        return 2

    book_port = args.port or free_port()
    handler = functools.partial(BookHandler, directory=str(args.book))
    try:
        httpd = ThreadingHTTPServer((HOST, book_port), handler)
    except OSError as err:
        print(
            f"cannot serve the book on port {book_port}: {err}; "
            "choose another with --port N (0: any free port)",
            file=sys.stderr,
        )
        return 2

    token = secrets.token_hex(24)
    jport = free_port()
    BookHandler.info = server_info(jport, token)
    env = dict(os.environ, JUPYTER_TOKEN=token)
    t0 = time.monotonic()
    jupyter = subprocess.Popen(
        jupyter_command(sys.executable, args.root.resolve(), jport, book_port),
        env=env,
        stdin=subprocess.DEVNULL,
    )

    def stop(*_):
        raise KeyboardInterrupt  # leaves serve_forever; `finally` stops both servers

    # SIGINT too: a shell starting this in the background would leave it ignored
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        wait_ready(BookHandler.info, jupyter)
        url = f"http://{HOST}:{book_port}/{args.page.lstrip('/')}"
        print(
            f"\nJupyter server ready on http://{HOST}:{jport} after "
            f"{time.monotonic() - t0:.1f} s (token in {SERVER_JSON}, origins "
            f"{origin_pattern(book_port)})",
            flush=True,
        )
        print(
            f'Book with live code: {url}\nTurn on "Live code" under a chapter\'s title. '
            "Ctrl-C stops both servers.",
            flush=True,
        )
        if not args.no_browser:
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    except RuntimeError as err:
        print(f"live: {err}", file=sys.stderr)
        return 1
    finally:
        httpd.server_close()
        jupyter.terminate()
        try:
            jupyter.wait(timeout=10)
        except subprocess.TimeoutExpired:
            jupyter.kill()
        print("stopped the book and Jupyter servers", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
