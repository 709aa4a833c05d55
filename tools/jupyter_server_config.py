"""Jupyter server configuration for ``python3 dev.py lab``: notebooks are saved without outputs.

The chapters are committed without outputs (tests/test_repo.py checks), but JupyterLab
saves outputs into a notebook whenever it saves (and autosaves every two minutes).  This
file registers a pre-save hook that clears every code cell's outputs and execution
count before the file is written; what is on screen is not affected.  dev.py passes it
with ``--config``; to use it with a Jupyter started by hand:

    jupyter lab --config=tools/jupyter_server_config.py book
"""

from __future__ import annotations


def strip_outputs(model, **kwargs):
    """Pre-save hook: drop outputs and execution counts from a notebook model in place.

    ``model`` is the Jupyter contents model being saved; anything that is not a
    notebook (a text file, a folder) passes through unchanged.
    """
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return model
    for cell in model["content"].get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
    return model


try:
    c = get_config()  # noqa: F821  (defined when Jupyter loads this file)
except NameError:  # imported as a module (tests)
    c = None
if c is not None:
    c.ContentsManager.pre_save_hook = strip_outputs
