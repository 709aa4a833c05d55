"""Serve the built book and its kernels from one local Jupyter server (``dev.py live``).

Started by ``python3 dev.py live`` (which builds the book first if needed).  One Jupyter
server, on 127.0.0.1 only, serves

* the built book under ``/book/`` (this module is also the server extension that adds it),
* kernels for the pages' "Live code" switches, on the same origin as the pages.

The pages reach the kernels the way Jupyter's own front ends do: the printed URL carries a
fresh random token once (``?token=…``); the server answers with a login cookie and an XSRF
cookie and redirects to the same page without the token, so the token stays out of the
address bar, the history and every file or endpoint.  The page's script then talks to its
own origin with the cookie and the XSRF header; no CORS is answered at all.

What the server refuses (``tests/test_live_security.py`` attacks each):

* a ``Host`` other than ``127.0.0.1`` / ``localhost`` (DNS rebinding), with Jupyter's own
  host check (``allow_remote_access`` off, ``local_hostnames = ["localhost"]``);
* any request from another origin, even with the token (``OriginCheckingIdentityProvider``:
  Jupyter skips the origin and XSRF checks for requests carrying the token and answers
  them with CORS headers; this server does none of that);
* requests without the login cookie or the token, or with a token of an earlier run (each
  run has a new token and a new cookie secret);
* writes through the contents API (``ReadOnlyContentsManager``), terminals (off);
* and it shuts kernels down after ``--cull-idle`` seconds without activity and without a
  connected page (a tab closed without switching off).

Ctrl-C (or SIGTERM) stops the server and its kernels.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
import webbrowser
from pathlib import Path

from jupyter_server.auth.identity import PasswordIdentityProvider
from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager
from jupyter_server.utils import url_path_join
from tornado import web

HOST = "127.0.0.1"
#: The path under which the server serves the built book.
BOOK_PREFIX = "book/"
#: The page's script asks for this path (under the book) to find its server: the
#: answer names no secret, only where the kernels are.
SERVER_JSON = "_live/server.json"
#: Environment variable carrying the built book's folder to the server extension.
BOOK_ENV = "DMI_LIVE_BOOK"
#: Kernels idle this long (seconds) without a connected page are shut down.
CULL_IDLE = 600
TOOLS = Path(__file__).resolve().parent


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free now."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def jupyter_command(python: str, root: Path, port: int, cull_idle: int = CULL_IDLE) -> list[str]:
    """Command line of the Jupyter server; the token is passed in ``JUPYTER_TOKEN``."""
    extensions = {
        # kernels and the book only: JupyterLab and the others start 2-3 s slower
        "jupyterlab": False,
        "jupyter_lsp": False,
        "jupyter_server_terminals": False,
        "notebook_shim": False,
        "live_server": True,  # this module: serves the book under /book/
    }
    cmd = [
        python,
        "-m",
        "jupyter_server",
        "--no-browser",
        f"--ServerApp.ip={HOST}",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        f"--ServerApp.jpserver_extensions={extensions!r}",
        "--ServerApp.allow_remote_access=False",
        "--ServerApp.local_hostnames=['localhost']",
        "--ServerApp.terminals_enabled=False",
        f"--ServerApp.default_url=/{BOOK_PREFIX}index.html",
        "--ServerApp.identity_provider_class=live_server.OriginCheckingIdentityProvider",
        "--ServerApp.contents_manager_class=live_server.ReadOnlyContentsManager",
        f"--MappingKernelManager.cull_idle_timeout={cull_idle}",
        f"--MappingKernelManager.cull_interval={max(1, min(60, cull_idle // 2))}",
        "--MappingKernelManager.cull_connected=False",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


def login_url(port: int, page: str, token: str) -> str:
    """The URL to open: a page of the book, with the token that logs the browser in once."""
    page = urllib.parse.quote(page.lstrip("/"))
    return f"http://{HOST}:{port}/{BOOK_PREFIX}{page}?token={token}"


# --- the server side: loaded by jupyter_server as its extension ---------------------------


class OriginCheckingIdentityProvider(PasswordIdentityProvider):
    """Jupyter's login, without the exceptions it makes for requests carrying the token.

    Jupyter lets a request with the token through from any origin, without the XSRF check,
    and echoes its origin in CORS headers (the token is meant to be a secret).  Here the
    token only logs a browser in once; the page then uses the cookie, so every request is
    checked for its origin and XSRF header, and no CORS is answered.
    """

    def should_check_origin(self, handler) -> bool:
        return True

    def is_token_authenticated(self, handler) -> bool:
        return False


class ReadOnlyContentsManager(AsyncLargeFileManager):
    """The repository, readable (kernels start in a chapter's folder) but not writable."""

    def _refuse(self, *args, **kwargs):
        raise web.HTTPError(403, "the live-code server's files are read-only")

    save = new = new_untitled = copy = rename = rename_file = _refuse
    delete = delete_file = create_checkpoint = restore_checkpoint = _refuse


class BookHandler(JupyterHandler, web.StaticFileHandler):
    """The built book, for a logged-in browser only.

    A request carrying ``?token=`` logs the browser in (Jupyter sets the login cookie) and
    is redirected to the same page without the token.
    """

    auth_resource = "contents"

    @web.authenticated
    async def get(self, path: str, include_body: bool = True) -> None:
        self.xsrf_token  # noqa: B018  (sets the _xsrf cookie the page's requests send back)
        if "token" in self.request.query_arguments:
            query = {k: v for k, v in self.request.query_arguments.items() if k != "token"}
            target = self.request.path
            if query:
                target += "?" + urllib.parse.urlencode(query, doseq=True)
            self.redirect(target)
            return
        if path == SERVER_JSON:  # tells the page's script that its kernels are here
            self.set_header("Content-Type", "application/json")
            self.set_header("Cache-Control", "no-store")
            self.finish(json.dumps({"baseUrl": self.base_url}))
            return
        await web.StaticFileHandler.get(self, path, include_body=include_body)

    @web.authenticated
    async def head(self, path: str) -> None:
        await web.StaticFileHandler.get(self, path, include_body=False)

    def compute_etag(self):
        return None

    def set_extra_headers(self, path: str) -> None:
        self.set_header("Cache-Control", "no-cache")
        self.set_header("Referrer-Policy", "no-referrer")


def _jupyter_server_extension_points():
    return [{"module": "live_server"}]


def _load_jupyter_server_extension(serverapp) -> None:
    """Add ``/book/(.*)``: the built book in ``$DMI_LIVE_BOOK``."""
    book = os.environ.get(BOOK_ENV)
    if not book or not (Path(book) / "index.html").is_file():
        raise RuntimeError(f"{BOOK_ENV} must name a built book (a folder with index.html)")
    route = url_path_join(serverapp.base_url, BOOK_PREFIX, "(.*)")
    serverapp.web_app.add_handlers(
        ".*$", [(route, BookHandler, {"path": book, "default_filename": "index.html"})]
    )


# --- the launcher -------------------------------------------------------------------------


def wait_ready(port: int, token: str, proc: subprocess.Popen, timeout: float = 60.0) -> float:
    """Poll the Jupyter server's /api/status until it answers; return the seconds taken."""
    start = time.monotonic()
    req = urllib.request.Request(
        f"http://{HOST}:{port}/api/status", headers={"Authorization": f"token {token}"}
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
    p.add_argument("--port", type=int, default=8000, help="the server's port (0: any free)")
    p.add_argument(
        "--page", default="index.html", help="page to open, e.g. book/06_one_dimension.html"
    )
    p.add_argument(
        "--cull-idle",
        type=int,
        default=CULL_IDLE,
        help=f"shut kernels down after this many idle seconds (default {CULL_IDLE})",
    )
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    args = p.parse_args(argv)
    if not (args.book / "index.html").exists():
        print(f"no built book in {args.book} (run python3 dev.py book)", file=sys.stderr)
        return 2
    if args.cull_idle < 1:
        print(f"--cull-idle must be at least 1 second, got {args.cull_idle}", file=sys.stderr)
        return 2
    port = args.port or free_port()
    with socket.socket() as s:  # a clear message before Jupyter's long one
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Jupyter binds it
        try:
            s.bind((HOST, port))
        except OSError as err:
            print(
                f"cannot serve on port {port}: {err}; "
                "choose another with --port N (0: any free port)",
                file=sys.stderr,
            )
            return 2

    token = secrets.token_hex(24)
    # A private runtime folder per run: a new cookie secret (no login cookie of an earlier
    # run is valid) and kernel connection files that go away with the server.
    runtime = tempfile.mkdtemp(prefix="dmi-live-")
    env = dict(
        os.environ,
        JUPYTER_TOKEN=token,
        JUPYTER_RUNTIME_DIR=runtime,
        PYTHONPATH=os.pathsep.join(filter(None, [str(TOOLS), os.environ.get("PYTHONPATH")])),
        **{BOOK_ENV: str(args.book.resolve())},
    )
    t0 = time.monotonic()
    jupyter = subprocess.Popen(
        jupyter_command(sys.executable, args.root.resolve(), port, args.cull_idle),
        env=env,
        stdin=subprocess.DEVNULL,
    )
    stopped = threading.Event()

    def stop(*_):
        stopped.set()

    # SIGINT too: a shell starting this in the background would leave it ignored
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        wait_ready(port, token, jupyter)
        url = login_url(port, args.page, token)
        print(
            f"\nJupyter server ready on http://{HOST}:{port} after "
            f"{time.monotonic() - t0:.1f} s (book under /{BOOK_PREFIX}; idle kernels "
            f"shut down after {args.cull_idle} s)",
            flush=True,
        )
        print(
            f"Book with live code: {url}\nOpen this URL (it logs your browser in once), then "
            'turn on "Live code" under a chapter\'s title. Ctrl-C stops the server.',
            flush=True,
        )
        if not args.no_browser:
            threading.Thread(target=webbrowser.open, args=(url,), daemon=True).start()
        while not stopped.wait(0.5):
            if jupyter.poll() is not None:
                raise RuntimeError(f"the Jupyter server exited with code {jupyter.returncode}")
    except RuntimeError as err:
        print(f"live: {err}", file=sys.stderr)
        return 1
    finally:
        jupyter.terminate()
        try:
            jupyter.wait(timeout=10)
        except subprocess.TimeoutExpired:
            jupyter.kill()
        shutil.rmtree(runtime, ignore_errors=True)
        print("stopped the Jupyter server and its kernels", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
