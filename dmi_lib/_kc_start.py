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


#: Rows per block of the starts (no copy of ``Ã`` is made).
_BLOCK = 1 << 16


def _argmax_blocks(At: np.ndarray, shift=None, divide=None) -> np.ndarray:
    """``argmax_rows((Ã − shift) / divide)`` block by block: O(block · k) memory."""
    labels = np.empty(At.shape[0], dtype=np.intp)
    for s in range(0, At.shape[0], _BLOCK):
        block = At[s : s + _BLOCK]
        block = block - shift if divide is None else block / divide
        labels[s : s + _BLOCK] = argmax_rows(block)
    return labels


def paper_init(problem: Problem) -> np.ndarray:
    """``C ← idxmax(Ã − mean(Ã))`` (caption of the paper's Figure 5)."""
    At = problem.A_tilde
    w = problem.weights
    return _argmax_blocks(At, shift=At.mean(axis=0) if w is None else (w @ At) / w.sum())


def sp_init(problem: Problem) -> np.ndarray:
    """Surprisingly-popular start ``idxmax(Ã / column means of Ã)``.

    Defined only when ``Ã`` is non-negative with positive column means (answer
    shares); otherwise the paper's initialisation is used.
    """
    At = problem.A_tilde
    means = At.mean(axis=0)
    if At.min() < 0 or np.any(means <= 0):
        return paper_init(problem)
    return _argmax_blocks(At, divide=means)


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
