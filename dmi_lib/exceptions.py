"""Warnings of dmi_lib."""

from __future__ import annotations


class ConvergenceWarning(UserWarning):
    """An iterative solver stopped at its iteration cap (``max_iter``) before its own
    stopping rule held; the result says so (``converged=False``)."""
