"""The blocked numerics behind :func:`dmi_lib.problem.prepare` and :class:`~dmi_lib.problem.Problem`.

Power-of-two scaling (exact), the rows' moments and the triangular factor of the
centred data (tall-skinny QR), each by blocks of rows with O(block · d) memory, the
rank at the data's precision, the choice of ``k`` independent columns of ``[A 1]``
and the matrix ``Ã = [A 1][:, L]`` they make.  Every step works on scaled,
centred data, so that magnitudes from 1e-300 to 1e300 and large offsets work alike.

One BLAS thread for the row-block products of large inputs: the solvers multiply each
block by a small ``d × r`` or ``k × k`` matrix, and OpenBLAS threading such a product
costs more in synchronisation than it saves; on a loaded machine it can be ten times
slower (measured on a loaded 2-core machine: a k-cofactors pass at ``k = 10``,
``n = 10⁶`` took 0.8-1 s with two BLAS threads instead of 0.08 s).  scikit-learn's
Lloyd k-means runs its blocks on one BLAS thread for the same reason; small inputs keep
the caller's setting (:func:`single_thread_blas`).
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
import scipy.linalg
from threadpoolctl import ThreadpoolController

#: Rows per block of the passes over the data (blocked QR, centring, the solvers' passes
#: over ``Ã``): O(block · d) extra memory instead of a copy of ``A``.
BLOCK = 1 << 16

#: From this many rows on, the row-block products run on one BLAS thread.
SINGLE_THREAD_MIN_ROWS = 1 << 16

_CONTROLLER = None


def single_thread_blas(n: int, min_rows: float = SINGLE_THREAD_MIN_ROWS):
    """Limit BLAS to one thread inside the block when ``n >= min_rows``: a context
    manager for a ``with`` statement (threadpoolctl's limiter, or one doing nothing)."""
    global _CONTROLLER
    if n < min_rows:
        return nullcontext()
    if _CONTROLLER is None:  # finding the BLAS libraries takes a while: once
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")


def scaled_blocks(A: np.ndarray, s: float, *centres):
    """The passes over the data: ``(rows, A[rows] / s - centres)`` for each block of
    ``BLOCK`` rows (``rows`` a slice), the centres subtracted one after the other.  The
    block is a new array (O(block · d) memory), the caller's to change."""
    for s0 in range(0, A.shape[0], BLOCK):
        block = A[s0 : s0 + BLOCK] / s
        for centre in centres:
            block -= centre
        yield slice(s0, s0 + BLOCK), block


def moments(A: np.ndarray, s: float, wn):
    """Mean of the rows of ``A / s`` (weights ``wn``), their total weight, and the
    root of their (weighted) sum of squares, block by block (no copy of ``A``)."""
    n, d = A.shape
    total_sum, squares = np.zeros(d), 0.0
    for rows, block in scaled_blocks(A, s):
        if wn is None:
            total_sum += block.sum(axis=0)
            squares += float(np.einsum("ij,ij->", block, block))
        else:
            total_sum += wn[rows] @ block
            squares += float(wn[rows] @ np.einsum("ij,ij->i", block, block))
    total = float(n) if wn is None else float(wn.sum())
    return total_sum / total, total, float(np.sqrt(squares))


def tall_r(A: np.ndarray, s: float, mean: np.ndarray, root_w=None) -> np.ndarray:
    """The triangular factor ``R`` of ``diag(root_w) (A / s - mean) = QR``, by blocks of
    rows (R of ``[R_prev; next block]``, as in tall-skinny QR): the same singular
    values and right vectors as the centred data's, with O(block · d) extra memory
    instead of a centred copy of ``A`` and LAPACK's copy of that."""
    R = np.zeros((0, A.shape[1]))
    for rows, block in scaled_blocks(A, s, mean):
        if root_w is not None:
            block *= root_w[rows, None]
        R = np.linalg.qr(np.vstack([R, block]), mode="r")
    return R


def pow2_scale(A: np.ndarray) -> float:
    """A power of two ``s`` with ``max|A| / s`` in ``[0.5, 1)``: dividing by it is
    exact (no rounding), so it changes no answer."""
    amax = max(float(A.max()), -float(A.min()))  # no |A| copy; A has a row and a column
    # frexp(0) has exponent 0: all-zero data gets s = 1.
    return float(np.ldexp(1.0, int(np.frexp(amax)[1])))


def choose_columns(Vt_r, sv_r, mean, n, tol) -> tuple:
    """First ``k`` columns of ``[A 1]``, in order, that are independent at ``tol``.

    ``[A 1] = [U, 1/√n] P`` up to the discarded noise, with ``[U, 1/√n]``
    orthonormal (``U`` is centred) and ``P = [[Σ Vᵀ, 0], [√n ā, √n]]`` (k × (d+1)).
    A set of columns of ``[A 1]`` is independent, and as well conditioned, as the same
    columns of ``P`` — so the choice is made on ``P``, where the rank tolerance
    applies directly (a column that is pure rounding noise is never picked).
    """
    k = sv_r.size + 1
    d = mean.size
    P = np.zeros((k, d + 1))
    P[:-1, :d] = sv_r[:, None] * Vt_r
    P[-1] = np.sqrt(n) * np.r_[mean, 1.0]
    scale = np.linalg.norm(P, axis=0).max()
    threshold = max(tol, 1e-12) * scale
    chosen: list[int] = []
    basis = np.zeros((k, 0))
    for j in range(d + 1):
        c = P[:, j]
        resid = c - basis @ (basis.T @ c)
        resid -= basis @ (basis.T @ resid)  # re-orthogonalise once (Gram-Schmidt twice)
        rn = np.linalg.norm(resid)
        if rn > threshold:
            basis = np.column_stack([basis, resid / rn])
            chosen.append(j)
            if len(chosen) == k:
                return tuple(chosen)
    # Unreachable in exact arithmetic (P has rank k); pivoted QR is the safe fallback.
    _, _, piv = scipy.linalg.qr(P, mode="economic", pivoting=True)
    return tuple(sorted(int(p) for p in piv[:k]))


def offset_from(A: np.ndarray, s: float, origin: np.ndarray, wn) -> np.ndarray:
    """``Σᵢ wnᵢ (A[i] / s - origin)``, block by block: the weighted sum of the rows
    relative to ``origin`` (a row of the data), which keeps the digits a rounded
    mean would lose when the rows sit far from zero."""
    acc = np.zeros(A.shape[1])
    for rows, block in scaled_blocks(A, s, origin):
        acc += wn[rows] @ block
    return acc


def count_rank(sv, tol, shape, floor: float = 0.0) -> int:
    """Singular values above ``tol·σ_max``, numpy's rounding threshold, and ``floor``
    (:func:`~dmi_lib.problem.prepare` passes ``IDENTICAL_RTOL`` times the norm of the
    uncentred data).  ``sv`` is never empty (``A`` has a row and a column); all zero,
    it has rank 0."""
    eps_floor = sv[0] * max(shape) * np.finfo(float).eps  # numpy's matrix_rank threshold
    return int(np.sum(sv > max(tol * sv[0], eps_floor, floor)))


def tilde(A: np.ndarray, columns: tuple) -> np.ndarray:
    """``Ã = [A 1][:, L]``: a read-only view of ``A`` when ``L`` is evenly spaced
    columns of ``A``, else a new array (``k`` column copies, no ``[A 1]``)."""
    n, d = A.shape
    step = columns[1] - columns[0] if len(columns) > 1 else 1
    if columns[-1] < d and step > 0 and columns == tuple(range(columns[0], columns[-1] + 1, step)):
        view = A[:, columns[0] : columns[-1] + 1 : step]
        view.flags.writeable = False
        return view
    out = np.empty((n, len(columns)))
    for j, col in enumerate(columns):
        out[:, j] = A[:, col] if col < d else 1.0
    return out
