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


#: Largest table of counts the functions below allocate (int64 cells): 1 GiB.
_MAX_TABLE_BYTES = 1 << 30


def _count_pairs(a, b, shape: tuple[int, int], what: str, advice: str) -> np.ndarray:
    """``T[i, j]``: how many positions have ``(a, b) == (i, j)``, a table of ``shape``;
    a ValueError (``what`` the table is, ``advice``) when it exceeds 1 GiB."""
    cells = shape[0] * shape[1]  # Python ints: no overflow, whatever the ids
    if 8 * cells > _MAX_TABLE_BYTES:
        raise ValueError(
            f"{what} would be a {shape[0]} x {shape[1]} table of {8 * cells / 2**30:.3g} GiB "
            f"(more than {_MAX_TABLE_BYTES / 2**30:g} GiB); {advice}"
        )
    return np.bincount(a * shape[1] + b, minlength=cells).reshape(shape)


def contingency(labels_a, labels_b) -> np.ndarray:
    """Table ``T[i, j]``: the number of items in cluster ``i`` of ``a`` and ``j`` of ``b``.

    The table is indexed by the ids themselves, so it has ``max(labels_a) + 1`` rows
    and ``max(labels_b) + 1`` columns, whatever the number of clusters.

    Raises
    ------
    ValueError
        If the labelings differ in length or hold a negative id, or if the table
        would exceed 1 GiB (``2**27`` cells): renumber the ids ``0, 1, ...`` first
        (``np.unique(labels_a, return_inverse=True)[1]``).
    TypeError
        If an id is not a whole number.

    Examples
    --------
    >>> contingency([0, 0, 1], [1, 1, 1]).tolist()
    [[0, 2], [0, 1]]
    """
    a, b = _pair(labels_a, labels_b)
    ka = int(a.max()) + 1 if a.size else 0
    kb = int(b.max()) + 1 if b.size else 0
    return _count_pairs(
        a,
        b,
        (ka, kb),
        "the contingency table of labels_a and labels_b (indexed by the ids, the largest "
        f"{ka - 1} and {kb - 1})",
        "renumber the ids 0, 1, ... first, e.g. np.unique(labels_a, return_inverse=True)[1]",
    )


def same_partition(labels_a, labels_b) -> bool:
    """Whether two labelings define the same partition (equal up to renaming clusters).

    Labels may be of any type (ids, strings, options).

    Raises
    ------
    ValueError
        If the labelings differ in length, or one holds NaN or None (it names no
        cluster).

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
    for name, x in (("labels_a", a), ("labels_b", b)):
        missing = pd.isna(x)  # NaN (not even equal to itself) or None names no cluster
        if missing.any():
            i = int(np.argmax(missing))
            raise ValueError(f"{name} must name every item's cluster, found {x[i]} at position {i}")
    # Each labeling on its own (no common dtype: ids beyond 2**53 stay distinct next
    # to float labels; objects need not be comparable).
    return bool(np.array_equal(canonical_labels(a), canonical_labels(b)))


def _matching(labels, reference, shape: tuple[int, int]) -> tuple[np.ndarray, int]:
    """The contingency table of ``labels`` and ``reference`` (ids numbered ``0, 1,
    ...``) of ``shape``, and the most items an optimal one-to-one renaming of
    ``labels``' clusters onto ``reference``'s names puts on their ``reference``
    cluster."""
    T = _count_pairs(
        labels,
        reference,
        shape,
        "matching the clusters of labels with those of reference",
        "there are too many clusters for an optimal matching",
    )
    rows, cols = linear_sum_assignment(T, maximize=True)
    return T, T[rows, cols].sum()


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

    Returns
    -------
    ndarray of int, shape (n,)
        ``labels`` renamed.  The names are ids used by ``labels`` or ``reference``:
        a cluster matched to a cluster of ``reference`` takes its id, the others take
        ids no matched cluster uses.  Only the order of the ids matters (they are
        numbered ``0, 1, ...`` for the matching), so the work grows with the number
        of clusters, not with the largest id.

    Raises
    ------
    ValueError
        If ``labels`` and ``reference`` differ in length or hold a negative id, if
        ``k`` names are too few, or if they hold so many clusters (``c`` ids in all)
        that the ``c x c`` table of the matching would exceed 1 GiB.
    TypeError
        If an id is not a whole number.

    Examples
    --------
    >>> align_labels([0, 2000], [0, 1]).tolist()
    [0, 1]
    >>> align_labels([1, 1, 0, 2], [0, 0, 2, 1]).tolist()
    [0, 0, 2, 1]
    """
    a, ref = _pair(labels, reference, ("labels", "reference"))
    if a.size == 0:
        return a.copy()
    # Only the order of the ids matters: number the ids of both labelings 0, 1, ...
    # (identity when they already are), rename, and give the ids back.
    ids, codes = np.unique(np.r_[a, ref], return_inverse=True)
    a_codes = codes[: a.size]
    table, best = _matching(a_codes, codes[a.size :], (ids.size, ids.size))
    named = ids[_first_optimal(table, best)[a_codes]]
    needed = int(named.max()) + 1
    if k is not None and needed > k:
        raise ValueError(f"k = {k} names are too few for these labelings (need {needed})")
    return named


def agreement(labels, reference, *, one_to_one: bool = True) -> float:
    """Largest share of items on which two labelings agree after renaming clusters.

    It is 1 exactly when the two labelings are the same partition; against a true
    state per item it is the accuracy of the clustering named in the way most
    favourable to it (clusters carry no names: the paper's permutation problem).
    Only the partitions count, not the ids (each labeling's clusters are numbered
    ``0, 1, ...`` first).

    Parameters
    ----------
    labels, reference : array_like of int, shape (n,)
    one_to_one : bool
        True: distinct clusters get distinct names (an optimal matching).  False:
        each cluster of ``labels`` is named by the ``reference`` cluster most common
        in it (several clusters may share a name).

    Raises
    ------
    ValueError
        If ``labels`` is empty, the two differ in length or hold a negative id, or
        the table of the matching (clusters of ``labels`` x clusters of
        ``reference``) would exceed 1 GiB.
    TypeError
        If an id is not a whole number.

    Examples
    --------
    >>> agreement([0, 0, 1, 2], [2, 2, 0, 1])
    1.0
    >>> agreement([0, 0, 1, 1], [0, 1, 1, 1])
    0.75
    >>> agreement([1, 1, 0, 2], [0, 0, 1, 1], one_to_one=False)
    1.0
    """
    a, ref = _pair(labels, reference, ("labels", "reference"))
    if a.size == 0:
        raise ValueError("labels is empty: no items to compare")
    # A score of the two partitions: number each one's clusters 0, 1, ... first.
    a, ref = canonical_labels(a), canonical_labels(ref)
    if not one_to_one:
        return float(contingency(a, ref).max(axis=1).sum() / a.size)
    return float(_matching(a, ref, (int(a.max()) + 1, int(ref.max()) + 1))[1] / a.size)


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
    A = check_matrix(A)  # n >= 1 rows, d >= 1 columns
    code, size = np.zeros(A.shape[0], dtype=np.int64), 1  # one group, split column by column
    for j in range(A.shape[1]):
        c, u = pd.factorize(A[:, j])
        if size * len(u) >= 2**62:  # keep the combined code in int64
            code, uniq = pd.factorize(code)
            size = len(uniq)
        code = code * len(u) + c
        size *= len(u)
    inverse, uniq = pd.factorize(code)  # order of first appearance
    # Groups are numbered in order of first appearance, so row i opens a group exactly
    # when its number exceeds every number before it.
    opens = np.r_[True, inverse[1:] > np.maximum.accumulate(inverse)[:-1]]
    index = np.flatnonzero(opens)
    return index, inverse.astype(np.intp), np.bincount(inverse, minlength=len(uniq))
