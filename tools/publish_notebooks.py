#!/usr/bin/env python3
"""Write the branch that the Colab and Binder launch buttons open (``notebooks``).

The launch buttons of a page built with a repository URL open
``<repository>/blob/<branch>/book/<chapter>.ipynb`` (Colab) and the same path on
``<branch>`` (Binder), where ``<branch>`` is ``repository.branch`` of ``_config.yml``.
The repository's own notebooks are saved without outputs and without the cell that
installs ``dmi_lib``, so the published workflow writes that branch from the build, as
executable books publish their notebooks next to the HTML: the repository's files at
``HEAD`` with each chapter replaced by its download (``tools/downloads.py``: the executed
notebook, outputs included, whose first cell clones that branch and installs
``dmi_lib`` -- on Binder, where the repository is the working directory, it does nothing).

Before writing, every launch link of every page is read back and must name the branch
and a chapter the branch holds, whose first cell is that install cell (exit 1 if not).
A book built without a repository URL has no launch buttons; the branch is still written,
so that the step runs (and can fail) the same way in local CI.

    python tools/publish_notebooks.py _build/html [--branch notebooks] [--push REMOTE]

The commit's parent is ``HEAD``; the branch is replaced at each publish (``--push``
force-pushes it).
"""

from __future__ import annotations

import argparse
import html
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.parse
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
import downloads  # noqa: E402  (tools/downloads.py: the install cell's tag)

HREF = re.compile(r'href="([^"]+)"')
# sphinx-book-theme's launch links (header_buttons/launch.py)
COLAB = re.compile(r"/github/[^/]+/[^/]+/blob/([^/]+)/(.+\.ipynb)$")
BINDER = re.compile(r"/v2/gh/[^/]+/[^/]+/([^/?]+)$")


class Failure(Exception):
    pass


def launch_links(page: str) -> list[tuple[str, str, str]]:
    """``(kind, branch, path)`` of each Colab and Binder link in a page's HTML."""
    found = []
    for raw in HREF.findall(page):
        url = urllib.parse.urlsplit(html.unescape(raw))
        if url.netloc.endswith("colab.research.google.com"):
            m = COLAB.search(url.path)
            if m:
                found.append(("colab", m.group(1), m.group(2)))
        elif "/v2/gh/" in url.path:
            m = BINDER.search(url.path)
            query = urllib.parse.parse_qs(url.query).get("urlpath", [""])[0]
            path = re.sub(r"^(lab/tree|tree)/", "", query)
            if m and path:
                found.append(("binder", m.group(1), path))
    return found


def git(*args: str, env: dict | None = None, root: Path = ROOT) -> str:
    proc = subprocess.run(
        ["git", *args], cwd=root, env=env, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise Failure(f"git {' '.join(args)}: {proc.stderr.strip()}")
    return proc.stdout.strip()


def chapters(html_dir: Path, root: Path) -> dict[str, Path]:
    """Repository path -> the build's download, for each chapter of the repository."""
    sources = html_dir / "_sources"
    out = {}
    for download in sorted(sources.rglob("*.ipynb")):
        rel = download.relative_to(sources).as_posix()
        if (root / rel).is_file():
            out[rel] = download
    return out


def check(html_dir: Path, files: dict[str, Path], branch: str) -> list[tuple[str, str, str]]:
    """Every launch link names ``branch`` and a chapter in ``files`` that installs."""
    links = []
    for page in sorted(html_dir.rglob("*.html")):
        for kind, link_branch, path in launch_links(page.read_text(errors="replace")):
            where = f"{page.relative_to(html_dir)}: {kind} opens {link_branch}:{path}"
            if link_branch != branch:
                raise Failure(f"{where}, not the branch written here ({branch})")
            if path not in files:
                raise Failure(f"{where}, which the build did not produce")
            nb = json.loads(files[path].read_text())
            first = nb["cells"][0] if nb.get("cells") else {}
            if downloads.TAG not in first.get("metadata", {}).get("tags", []):
                raise Failure(f"{where}, whose first cell does not install dmi_lib")
            links.append((kind, link_branch, path))
    return links


def write_branch(files: dict[str, Path], branch: str, root: Path = ROOT) -> str:
    """Commit HEAD's tree with ``files`` replaced, on ``branch``; return the commit."""
    head = git("rev-parse", "HEAD", root=root)
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git("read-tree", "HEAD", env=env, root=root)
        for rel, download in files.items():
            blob = git("hash-object", "-w", str(download), root=root)
            git("update-index", "--cacheinfo", f"100644,{blob},{rel}", env=env, root=root)
        tree = git("write-tree", env=env, root=root)
    ident = {
        "GIT_AUTHOR_NAME": os.environ.get("GIT_AUTHOR_NAME", "dmi-book publish"),
        "GIT_AUTHOR_EMAIL": os.environ.get("GIT_AUTHOR_EMAIL", "dmi-book-publish@localhost"),
    }
    ident["GIT_COMMITTER_NAME"] = os.environ.get("GIT_COMMITTER_NAME", ident["GIT_AUTHOR_NAME"])
    ident["GIT_COMMITTER_EMAIL"] = os.environ.get("GIT_COMMITTER_EMAIL", ident["GIT_AUTHOR_EMAIL"])
    message = (
        f"The book's chapters as the build of {head[:12]} ran them, each with a first "
        "cell that installs dmi_lib (what the Colab and Binder buttons open)"
    )
    commit = git(
        "commit-tree", tree, "-p", head, "-m", message, env={**os.environ, **ident}, root=root
    )
    git("update-ref", f"refs/heads/{branch}", commit, root=root)
    return commit


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("html", type=Path, help="the built book (_build/html)")
    ap.add_argument("--branch", default="notebooks")
    ap.add_argument("--push", metavar="REMOTE", help="force-push the branch to REMOTE")
    ap.add_argument("--root", type=Path, default=ROOT, help="the repository")
    args = ap.parse_args(argv)
    try:
        files = chapters(args.html, args.root)
        if not files:
            raise Failure(f"no chapter downloads under {args.html / '_sources'}")
        links = check(args.html, files, args.branch)
        commit = write_branch(files, args.branch, args.root)
        print(f"{args.branch} = {commit[:12]}: {len(files)} executed chapters with an install cell")
        if links:
            print(f"{len(links)} launch links checked: each opens one of them")
        else:
            print("no launch buttons in this build (built without a repository URL)")
        if args.push:
            git("push", "--force", args.push, f"refs/heads/{args.branch}", root=args.root)
            print(f"pushed {args.branch} to {args.push}")
    except Failure as err:
        print(f"publish_notebooks: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
