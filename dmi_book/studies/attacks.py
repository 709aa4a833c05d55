"""Strategic crowds on real data: manipulated copies of a long answer table.

The paper's model of a strategic crowd (Section 3.1) is a row-stochastic strategy
``S``: on signal ``c`` a worker reports ``c'`` with probability ``S[c, c']``.  These
scenarios apply such strategies to the answers of real workers, for the robustness
studies of :mod:`dmi_book.studies.real_crowds` (``book/13_real_crowds.ipynb``):

* :func:`inject_low_effort` — a share of the workers always answer one option (the
  Abstract's "low-effort people");
* :func:`inject_strategy` — a share of the workers report through a strategy ``S``;
* :func:`cyclic_strategy` — a non-permutation ``S`` (report the next option with
  probability ``λ``).
"""

from __future__ import annotations

import numbers

import numpy as np
import pandas as pd

from dmi_lib._validation import check_random_state
from dmi_lib.answers import check_answers, check_options, factorize
from dmi_lib.simulation import check_strategies

__all__ = ["cyclic_strategy", "inject_low_effort", "inject_strategy"]


def _check_share(share) -> float:
    if isinstance(share, (bool, np.bool_)) or not isinstance(share, numbers.Real):
        raise TypeError(f"share must be a number in [0, 1], got {share!r}")
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must be in [0, 1] (a fraction of the workers), got {share!r}")
    return float(share)


def cyclic_strategy(C, lam: float) -> np.ndarray:
    """``S = (1 - λ) I + λ P``: on signal ``c`` report ``c + 1 (mod C)`` with
    probability ``λ``.

    A non-permutation strategy for ``0 < λ < 1``; ``det S = (1-λ)^C - (-λ)^C``
    (eigenvalues ``1 - λ + λω`` over the ``C``-th roots of unity ``ω``) is non-zero
    unless ``λ = 1/2`` with ``C`` even, so Theorem 3.2's invertibility condition holds
    for a crowd in which everyone uses it.

    Examples
    --------
    >>> cyclic_strategy(3, 0.25)
    array([[0.75, 0.25, 0.  ],
           [0.  , 0.75, 0.25],
           [0.25, 0.  , 0.75]])
    >>> round(float(np.linalg.det(cyclic_strategy(2, 0.6))), 12)
    -0.2
    """
    if isinstance(C, (bool, np.bool_)) or not isinstance(C, numbers.Integral) or C < 2:
        raise ValueError(f"C must be an integer >= 2, got {C!r}")
    lam = float(lam)
    if not 0.0 <= lam <= 1.0:
        raise ValueError(f"lam must be in [0, 1] (a probability), got {lam!r}")
    return (1.0 - lam) * np.eye(C) + lam * np.roll(np.eye(C), 1, axis=1)


def _chosen_workers(answers: pd.DataFrame, share: float, rng) -> np.ndarray:
    """Boolean mask of the rows of a random ``round(share · m)`` of the ``m`` workers."""
    codes, workers = factorize(answers["worker"].to_numpy())
    n_bad = int(round(share * len(workers)))
    bad = np.zeros(len(workers), dtype=bool)
    bad[rng.choice(len(workers), n_bad, replace=False)] = True
    return bad[codes]


def inject_low_effort(answers, share: float, option, *, random_state=None) -> pd.DataFrame:
    """Replace a random share of the workers by low-effort workers who always answer
    ``option`` (the Abstract's "people who always report 'good'").

    ``round(share · m)`` of the ``m`` workers are drawn uniformly; every answer they
    gave becomes ``option``.  Tasks, workers and the other columns are kept.

    Examples
    --------
    >>> df = pd.DataFrame({"task": [0, 0, 1, 1], "worker": ["a", "b", "a", "b"],
    ...                    "label": [1, 0, 1, 0]})
    >>> inject_low_effort(df, 0.5, 1, random_state=0)["label"].tolist()
    [1, 1, 1, 1]
    >>> inject_low_effort(df, 0.0, 1)["label"].tolist()
    [1, 0, 1, 0]
    """
    answers = check_answers(answers)
    share = _check_share(share)
    rng = check_random_state(random_state)
    out = answers.copy()
    mask = _chosen_workers(answers, share, rng)
    out.loc[mask, "label"] = option
    return out


def inject_strategy(answers, S, share: float, *, options=None, random_state=None) -> pd.DataFrame:
    """A random share of the workers report through the strategy ``S`` (Section 3.1's
    model: ``S[c, c']`` is the probability of reporting ``c'`` on signal ``c``).

    Each answer of a chosen worker, with label ``options[c]``, is replaced by
    ``options[c']`` drawn from row ``S[c]`` (independently per answer).

    Parameters
    ----------
    answers : pandas.DataFrame
        Long table (``task``, ``worker``, ``label``).
    S : array_like, shape (C, C)
        Row-stochastic strategy over ``options``.
    share : float in [0, 1]
    options : sequence, optional
        The label values in the order of ``S``'s rows (default: sorted labels seen).
    random_state : None, int or Generator

    Examples
    --------
    >>> df = pd.DataFrame({"task": [0, 1, 2], "worker": ["a", "a", "a"],
    ...                    "label": ["x", "y", "x"]})
    >>> inject_strategy(df, [[0, 1], [1, 0]], 1.0)["label"].tolist()
    ['y', 'x', 'y']
    """
    answers = check_answers(answers)
    share = _check_share(share)
    codes, opts = check_options(options, answers["label"].to_numpy())
    S = check_strategies(np.asarray(S, dtype=float)[None], len(opts))[0]
    rng = check_random_state(random_state)
    mask = _chosen_workers(answers, share, rng)
    # inverse-CDF draw from row S[c] for every chosen answer at once
    cdf = np.cumsum(S, axis=1)[codes[mask]]
    u = rng.random(int(mask.sum()))[:, None]
    new = np.minimum((u >= cdf).sum(axis=1), len(opts) - 1)
    out = answers.copy()
    out.loc[mask, "label"] = opts[new].to_numpy()
    return out
