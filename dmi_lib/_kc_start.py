"""Arguments and starting clusterings of k-cofactors (Algorithms 2 and 3).

The paper's start ``C ← idxmax(Ã − mean(Ã))`` (caption of Figure 5), the
surprisingly-popular start, labels given by the caller, and the checks of these
arguments, shared by the solver (:mod:`dmi_lib.kcofactors`) and the replays of the
paper's plain iteration (``k_cofactors_history``, Algorithm 3's
``k_cofactors_2d``).
"""

from __future__ import annotations


import numpy as np

from ._validation import check_labels
from .problem import Problem, argmax_rows

INITS = ("paper", "sp", "random")


def check_init(init, n: int, k: int):
    """One of :data:`INITS`, or checked labels of ``n`` rows in ``0..k-1``."""
    if isinstance(init, str):
        if init not in INITS:
            raise ValueError(f"init must be one of {INITS} or an array of labels, got {init!r}")
        return init
    return check_labels(init, n, k, "init")


def _argmax_blocks(problem: Problem, rows=None, shift=None, divide=None) -> np.ndarray:
    """``argmax_rows((Ã − shift) / divide)`` over all rows (block by block: O(block
    · k) memory) or over the rows ``rows``."""
    if rows is not None:
        block = problem.tilde_rows(rows)
        return argmax_rows(block - shift if divide is None else block / divide)
    labels = np.empty(problem.n, dtype=np.intp)
    for b in problem.blocks():
        block = problem.tilde_rows(b)
        labels[b] = argmax_rows(block - shift if divide is None else block / divide)
    return labels


def paper_init(problem: Problem, rows=None) -> np.ndarray:
    """``C ← idxmax(Ã − mean(Ã))`` (caption of the paper's Figure 5), of all rows
    or of the rows ``rows`` (the mean is that of all rows)."""
    return _argmax_blocks(problem, rows, shift=problem.tilde_mean())


def sp_init(problem: Problem, rows=None) -> np.ndarray:
    """Surprisingly-popular start ``idxmax(Ã / column means of Ã)``, of all rows or
    of the rows ``rows``.

    Defined only when ``Ã`` is non-negative with positive column means (answer
    shares); otherwise the paper's initialisation is used.
    """
    means = problem.tilde_mean(weighted=False)
    if np.any(means <= 0) or problem.tilde_min() < 0:
        return paper_init(problem, rows)
    return _argmax_blocks(problem, rows, divide=means)


def replay_init(problem: Problem, init, k: int, who: str) -> np.ndarray:
    """Starting labels of a deterministic replay (history / Algorithm 3)."""
    init = check_init(init, problem.n, k)
    if not isinstance(init, str):
        return init
    if init == "random":
        raise ValueError(
            f"{who} replays a deterministic run: init must be 'paper', "
            "'sp' or an array of labels, got 'random'"
        )
    return paper_init(problem) if init == "paper" else sp_init(problem)
