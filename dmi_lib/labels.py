"""Labelings up to renaming: the one home of "the same clusters under other names".

A clustering names its clusters arbitrarily (the paper's permutation problem:
DMI-clustering finds which tasks belong together, not which option each group *is*).
Comparing two labelings therefore means comparing partitions, or first renaming one
labeling's clusters to agree as much as possible with the other.  Everything in
:mod:`dmi_lib`, the book and the tests that does so uses these functions.
:func:`distinct_rows` gives the labeling of the rows of a matrix by equality (identical
rows, one group), which the solvers and the aggregators use to work on distinct rows.

Examples
--------
>>> same_partition([0, 0, 1, 2], [2, 2, 0, 1])
True
>>> align_labels([1, 1, 0, 2], [0, 0, 2, 1]).tolist()
[0, 0, 2, 1]
>>> agreement([0, 0, 1, 1], [0, 1, 1, 1])
0.75
>>> canonical_labels([2, 2, 0, 1, 0]).tolist()
[0, 0, 1, 2, 1]
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import linear_sum_assignment

from ._validation import check_labels, check_matrix

__all__ = [
    "agreement",
    "align_labels",
    "canonical_labels",
    "contingency",
    "distinct_rows",
    "same_partition",
]


def _pair(a, b, names=("labels_a", "labels_b")) -> tuple[np.ndarray, np.ndarray]:
    a, b = check_labels(a, name=names[0]), check_labels(b, name=names[1])
    if a.shape != b.shape:
        raise ValueError(f"{names[0]} and {names[1]} have different lengths: {a.size} and {b.size}")
    return a, b


def contingency(labels_a, labels_b) -> np.ndarray:
    """Table ``T[i, j]``: the number of items in cluster ``i`` of ``a`` and ``j`` of ``b``.

    Examples
    --------
    >>> contingency([0, 0, 1], [1, 1, 1]).tolist()
    [[0, 2], [0, 1]]
    """
    a, b = _pair(labels_a, labels_b)
    ka = int(a.max()) + 1 if a.size else 0
    kb = int(b.max()) + 1 if b.size else 0
    return np.bincount(a * kb + b, minlength=ka * kb).reshape(ka, kb)


def same_partition(labels_a, labels_b) -> bool:
    """Whether two labelings define the same partition (equal up to renaming clusters).

    Examples
    --------
    >>> same_partition([0, 0, 1, 2], [2, 2, 0, 1])
    True
    >>> same_partition([0, 0, 1], [0, 1, 1])
    False
    """
    a = np.asarray(labels_a).ravel()
    b = np.asarray(labels_b).ravel()
    if a.shape != b.shape:
        raise ValueError(f"labelings have different lengths: {a.size} and {b.size}")
    # Same partition iff the pairs (a_i, b_i) define a bijection between labels;
    # this works for labels of any type, not only integer ids.
    pairs = np.unique(np.stack([a, b]), axis=1)
    return bool(np.unique(pairs[0]).size == pairs.shape[1] == np.unique(pairs[1]).size)


def _matching(labels, reference) -> tuple[np.ndarray, int]:
    """The contingency table of ``labels`` and ``reference``, made square, and the most
    items an optimal one-to-one renaming of ``labels``' clusters onto ``reference``'s
    names puts on their ``reference`` cluster."""
    T = contingency(labels, reference)
    k = max(T.shape)
    square = np.zeros((k, k), dtype=T.dtype)
    square[: T.shape[0], : T.shape[1]] = T
    rows, cols = linear_sum_assignment(square, maximize=True)
    return square, square[rows, cols].sum()


def _first_optimal(square: np.ndarray, best) -> np.ndarray:
    """Of the renamings reaching ``best``, the first in lexicographic order.

    Cluster 0 gets the smallest name with which ``best`` is still reachable, then
    cluster 1, and so on, each check one assignment of the clusters left: ``O(k²)``
    assignments.  Deterministic names for tied renamings keep a figure's colours
    (which name wins a tie is otherwise up to the assignment solver).
    """
    k = square.shape[0]
    rename = np.empty(k, dtype=np.intp)
    free = list(range(k))
    gained = 0
    for i in range(k):
        for j in free:
            rest = square[np.ix_(range(i + 1, k), [c for c in free if c != j])]
            r, c = linear_sum_assignment(rest, maximize=True)
            if gained + square[i, j] + rest[r, c].sum() == best:
                rename[i] = j
                gained += square[i, j]
                free.remove(j)
                break
    return rename


def align_labels(labels, reference, k: int | None = None) -> np.ndarray:
    """Rename the clusters of ``labels`` to agree as much as possible with ``reference``.

    Distinct clusters get distinct names (an optimal assignment, so any number of
    clusters is fine); the partition itself is unchanged.  Use it to keep colours in
    place when a figure redraws a clustering of changed data.  When several renamings
    agree equally well, the first in lexicographic order wins (cluster 0 gets the
    smallest name it can, then cluster 1, ...), so ties are named the same every time.

    Parameters
    ----------
    labels, reference : array_like of int, shape (n,)
        Cluster ids ``>= 0``.
    k : int, optional
        Number of names to choose from (default: enough for both labelings).

    Examples
    --------
    >>> align_labels([1, 1, 0, 2], [0, 0, 2, 1]).tolist()
    [0, 0, 2, 1]
    """
    a, ref = _pair(labels, reference, ("labels", "reference"))
    if a.size == 0:
        return a.copy()
    rename = _first_optimal(*_matching(a, ref))
    if k is not None and rename.size > k:
        needed = int(rename[np.unique(a)].max()) + 1
        if needed > k:
            raise ValueError(f"k = {k} names are too few for these labelings (need {needed})")
    return rename[a]


def agreement(labels, reference) -> float:
    """Largest share of items on which two labelings agree after renaming clusters.

    It is 1 exactly when the two labelings are the same partition; against a true
    state per item it is the accuracy of the clustering named in the way most
    favourable to it (distinct clusters, distinct names).

    Examples
    --------
    >>> agreement([0, 0, 1, 2], [2, 2, 0, 1])
    1.0
    >>> agreement([0, 0, 1, 1], [0, 1, 1, 1])
    0.75
    """
    a, ref = _pair(labels, reference, ("labels", "reference"))
    if a.size == 0:
        raise ValueError("labels is empty: no items to compare")
    return float(_matching(a, ref)[1] / a.size)


def canonical_labels(labels) -> np.ndarray:
    """Rename clusters in order of first appearance: equal partitions give equal arrays.

    Examples
    --------
    >>> canonical_labels([2, 2, 0, 1, 0]).tolist()
    [0, 0, 1, 2, 1]
    """
    # pandas numbers values in order of first appearance, in O(n) (a hash table).
    return pd.factorize(np.asarray(labels).ravel())[0].astype(np.intp)


def distinct_rows(A):
    """The distinct rows of ``A`` and where each row went: ``(index, inverse, counts)``.

    ``A[index]`` are the distinct rows (in order of first appearance), ``A[i] ==
    A[index][inverse[i]]`` and ``counts[j]`` is how many rows equal distinct row
    ``j``.  Exact equality of the stored values.  Hash-based, O(nd): each column is
    factorised, then the codes are combined column by column (re-factorising the
    combined code whenever it could overflow int64).

    Examples
    --------
    >>> index, inverse, counts = distinct_rows([[1, 2], [3, 4], [1, 2]])
    >>> index.tolist(), inverse.tolist(), counts.tolist()
    ([0, 1], [0, 1, 0], [2, 1])
    """
    A = check_matrix(A)
    n, d = A.shape
    code = pd.factorize(A[:, 0])[0].astype(np.int64)
    size = int(code.max()) + 1 if n else 0
    for j in range(1, d):
        c, u = pd.factorize(A[:, j])
        if size * len(u) >= 2**62:  # keep the combined code in int64
            code, uniq = pd.factorize(code)
            size = len(uniq)
        code = code * len(u) + c
        size *= len(u)
    inverse, uniq = pd.factorize(code)  # order of first appearance
    # Groups are numbered in order of first appearance, so row i opens a group exactly
    # when its number exceeds every number before it.
    opens = np.r_[True, inverse[1:] > np.maximum.accumulate(inverse)[:-1]][:n]
    index = np.flatnonzero(opens).astype(np.intp)
    return index, inverse.astype(np.intp), np.bincount(inverse, minlength=len(uniq))
