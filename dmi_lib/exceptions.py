"""Warnings of dmi_lib."""

from __future__ import annotations

__all__ = ["ConvergenceWarning"]


class ConvergenceWarning(UserWarning):
    """An iterative solver stopped at its iteration cap (``max_iter``) before its own
    stopping rule held; the result says so (``converged=False``)."""
