"""Sphinx extension: a "Live code" switch that runs a chapter's cells on a Jupyter kernel.

Each notebook page gets a switch under its title.  Switched on, the page loads thebe
(vendored from npm with a pinned, verified integrity by ``tools/vendor_js.py`` and served
from the book's own ``_static/live/``), turns every code cell into an editable cell, starts
a kernel and runs the first widget with the earlier cells it needs (listed in the page's
configuration by :func:`page_cells`, from ``deps.py``) -- widgets included (thebe bundles
the ipywidgets 8 widget manager).  The kernel comes from

1. the local Jupyter server of ``python3 dev.py live``, which serves the book itself
   (same origin, Jupyter's login cookie; ``_live/server.json`` says where), else
2. Binder, when the book was built with a repository URL (``repository.url``; the
   ``launch_buttons.binderhub_url`` of ``_config.yml``), else
3. nowhere: the switch says how to start ``python3 dev.py live``.

With the switch off a page loads no script from another server.  This extension also
points sphinx-thebe's loader URL at the vendored copy and drops myst-nb's widget-state
scripts from other servers (``nb_ipywidgets_js``): static pages show widgets through the
frame players, live pages through thebe.
"""

from __future__ import annotations

import html
import json
import sys
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import vendor_js  # noqa: E402  (tools/vendor_js.py)

from . import deps  # noqa: E402  (which earlier cells a cell needs)

LOGGER = logging.getLogger(__name__)
STATIC = Path(__file__).resolve().parent / "static"
# The repository root: Jupyter servers (local, Binder) start there, so a kernel's
# notebook path is the chapter's path relative to it.
REPO = Path(__file__).resolve().parents[2]
THEBE_JS = "live/thebe/lib/index.js"


def binder_settings(theme_options: dict) -> dict | None:
    """Binder options for thebe from the theme's repository settings, or None.

    ``repository_url`` must be a GitHub URL (``https://github.com/OWNER/REPO``); the
    branch defaults to ``main`` and the BinderHub to ``launch_buttons.binderhub_url``.
    """
    url = (theme_options.get("repository_url") or "").strip()
    if not url:
        return None
    head, sep, tail = url.rstrip("/").removesuffix(".git").partition("github.com/")
    parts = tail.split("/")
    if not sep or len(parts) != 2 or not all(parts):
        raise ExtensionError(
            f"live_code: repository.url must look like "
            f"https://github.com/OWNER/REPO for Binder, got {url!r}"
        )
    launch = theme_options.get("launch_buttons") or {}
    binderhub = (launch.get("binderhub_url") or "").rstrip("/")
    if not binderhub:
        return None
    return {
        "repo": "/".join(parts),
        "ref": theme_options.get("repository_branch") or "main",
        "binderUrl": binderhub,
        "repoProvider": "github",
    }


def page_config(
    notebook: str, kernel_name: str, binder: dict | None, cells: list[dict] | None = None
) -> dict:
    """The JSON a page carries for ``live-code.js`` (notebook: path from the repo root).

    ``cells``: for each code cell shown with its source, in page order, the earlier
    cells it needs and whether it shows a widget (:func:`deps.dependencies`).
    """
    return {
        "kernelName": kernel_name,
        "path": notebook,
        "binder": binder,
        "thebe": THEBE_JS,
        "cells": cells or [],
    }


def page_cells(doctree: nodes.document) -> list[dict]:
    """:func:`deps.dependencies` of the code cells a page shows with their source, in
    page order (the cells ``live-code.js`` makes runnable)."""
    sources = []
    for cell in doctree.findall(nodes.container):
        if cell.get("nb_element") != "cell_code":
            continue
        for part in cell.findall(nodes.container):
            if part.get("nb_element") == "cell_code_source":
                block = next(iter(part.findall(nodes.literal_block)), None)
                if block is not None:
                    sources.append(block.astext())
                break
    return deps.dependencies(sources)


def switch_html(config: dict) -> str:
    """HTML of the switch plus its page configuration (JSON in a script element)."""
    data = json.dumps(config, sort_keys=True).replace("</", "<\\/")
    where = (
        "Binder or a local Jupyter server"
        if config["binder"]
        else "a local Jupyter server (python3 dev.py live)"
    )
    title = html.escape(f"Run this page's code cells on {where}")
    return (
        '<div class="dmi-live" data-dmi-live-state="off">'
        '<button type="button" class="dmi-live-switch" role="switch" aria-checked="false" '
        f'title="{title}">'
        '<span class="dmi-live-track" aria-hidden="true"><span class="dmi-live-knob"></span>'
        '</span><span class="dmi-live-label">Live code</span></button>'
        '<span class="dmi-live-status" aria-live="polite"></span></div>'
        f'<script type="application/json" id="dmi-live-config">{data}</script>'
    )


def _vendor(app: Sphinx) -> None:
    dest = Path(app.outdir).parent / "_live_static"
    try:
        vendor_js.vendor(dest / "live")
    except Exception as err:  # noqa: BLE001  (re-raised with the reason)
        raise ExtensionError(f"live_code: cannot vendor thebe: {err}") from err
    app.config.html_static_path.extend([str(STATIC), str(dest)])


def _no_remote_widget_js(app: Sphinx, config) -> None:
    # myst-nb's default widget scripts come from other servers; the static pages
    # render no widget views (interact outputs are removed), so load none.
    config.nb_ipywidgets_js = {}


def _local_thebe_url(app: Sphinx, pagename, templatename, context, doctree) -> None:
    """Point sphinx-thebe's ``THEBE_JS_URL`` at the vendored thebe, once per page.

    sphinx-thebe's inline settings script (``const THEBE_JS_URL = ...``) reaches the page
    twice (once with filename None, once with "" from Sphinx's registry), and a second
    ``const`` declaration is a SyntaxError; every script tag passes through ``js_tag``,
    so it is rewritten there and written once.
    """
    js_tag = context.get("js_tag")
    if js_tag is None:
        return
    done = []

    def local_js_tag(js):
        attrs = getattr(js, "attributes", None) or {}
        body = attrs.get("body", "")
        if getattr(js, "filename", "x") or "THEBE_JS_URL" not in body:  # None or "": inline
            return js_tag(js)
        if done:
            return ""
        done.append(True)
        _, _, rest = body.partition(";")
        body = (
            "const THEBE_JS_URL = (document.documentElement.dataset.content_root"
            f' || "") + "_static/{THEBE_JS}";{rest}'
        )
        return js_tag(type(js)(js.filename, priority=js.priority, **{**attrs, "body": body}))

    context["js_tag"] = local_js_tag


def _add_switch(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    meta = app.env.metadata.get(docname, {})
    source = Path(app.env.doc2path(docname)).resolve()
    if source.suffix != ".ipynb":
        return
    try:
        notebook = source.relative_to(REPO).as_posix()
    except ValueError:
        notebook = source.name
    kernelspec = meta.get("kernelspec") or {}
    if isinstance(kernelspec, str):
        kernelspec = json.loads(kernelspec)
    binder = binder_settings(app.config.html_theme_options or {})
    config = page_config(notebook, kernelspec.get("name", "python3"), binder, page_cells(doctree))
    section = next(iter(doctree.findall(nodes.section)), None)
    raw = nodes.raw("", switch_html(config), format="html")
    if section is not None and section.children and isinstance(section[0], nodes.title):
        section.insert(1, raw)
    else:
        doctree.insert(0, raw)


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", _no_remote_widget_js)
    app.connect("builder-inited", _vendor)
    app.connect("html-page-context", _local_thebe_url, priority=900)
    app.connect("doctree-resolved", _add_switch)
    app.add_js_file("live/live-code.js", defer="defer")
    app.add_css_file("live/live-code.css")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
