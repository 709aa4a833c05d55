"""The k-cofactors passes over the rows, written for numba (compiled by :mod:`dmi_lib._compiled`).

Two kernels, one per kind of pass, for any number of clusters ``k`` (``k`` is a
loop bound read from the arrays' shapes, in the manner of scikit-learn's Lloyd
kernel):

* :func:`sweep`, the batch phase's pass (Algorithm 2's assignment
  ``C ← idxmax(XD)`` with the paper's tie rule, the change of ``CᵀX`` or ``CᵀX``
  itself, and the change of the clustering's fingerprint);
* :func:`screen`, the finishing ascent's full pass (the rows with an improving
  move, their gaps in buckets with the bucket sums for the line search, and
  the margins of every row when asked).

They do what :func:`dmi_lib._kc_pass.sweep` does in numpy, fused per block of
:data:`~dmi_lib._kc_common.KERNEL_BLOCK` rows that stays in the L1 cache: the
products, the row maxima and the sums are made while the block's rows are
loaded once.  Rows are split into :data:`~dmi_lib._kc_common.CHUNKS` chunks run
in parallel (``prange``) and summed in chunk order, so the result does not depend
on the number of threads.

The functions are plain Python on scalars and arrays, so that this module imports
without numba; :mod:`dmi_lib._compiled` compiles them with numba (binding
``prange`` to ``numba.prange`` and the helpers to their compiled versions).  The
loops over the rows of a block are innermost, so that the compiler vectorises
them over rows.  Every row array must have ``n`` entries: the compiled kernels do
not check bounds.
"""

from __future__ import annotations

import math

import numpy as np

from ._kc_common import (
    BUCKET_EMAX,
    CHUNKS,
    GOLDEN,
    HASH_SEED,
    KERNEL_BLOCK,
    MIX1,
    MIX2,
    N_BUCKETS,
    SQRT_HALF,
)

#: A loop whose iterations may run in parallel (``numba.prange`` once compiled).
prange = range

#: Copies of the cluster sums: consecutive rows add into different copies, which
#: breaks the chain of dependent additions when many rows share a cluster.
COPIES = 4


# --------------------------------------------------------------------------- #
# Helpers (compiled too, and called from the kernels)
# --------------------------------------------------------------------------- #
def weight(i):
    """``dmi_lib._kc_common.hash_weights(n)[i]``, by the same uint64 arithmetic."""
    z = np.uint64(i) * np.uint64(GOLDEN) + np.uint64(HASH_SEED)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
    return z ^ (z >> np.uint64(31))


def products(Xt, D, s0, w, G):
    """``G[c, r] = (XD)[s0 + r, c]`` for the block's ``w`` rows.

    ``Xt``'s last row (all ones) is not read: it adds ``D[k-1, c]``.  Four
    columns of ``X`` per pass over ``G[c]`` (fewer loads and stores of ``G``:
    1.4x faster at k = 10).  The loops run over row views: an index ``s0 + r``
    of unknown sign would keep numba's negative-index check in the loop and stop
    it vectorising."""
    k = D.shape[0]
    m = k - 1
    for c in range(k):
        g = G[c]
        last = D[m, c]
        for r in range(w):
            g[r] = last
        j = 0
        while j + 4 <= m:
            d0, d1, d2, d3 = D[j, c], D[j + 1, c], D[j + 2, c], D[j + 3, c]
            x0, x1 = Xt[j, s0 : s0 + w], Xt[j + 1, s0 : s0 + w]
            x2, x3 = Xt[j + 2, s0 : s0 + w], Xt[j + 3, s0 : s0 + w]
            for r in range(w):
                g[r] += (d0 * x0[r] + d1 * x1[r]) + (d2 * x2[r] + d3 * x3[r])
            j += 4
        while j < m:
            d = D[j, c]
            x = Xt[j, s0 : s0 + w]
            for r in range(w):
                g[r] += d * x[r]
            j += 1


def row_maxima(G, w, lab, hi, tg, cur):
    """Per row ``r`` of the block (labels ``lab``): its maximum ``hi[r]``, the first
    cluster ``tg[r]`` that reaches it, and ``cur[r]``, the entry of its own
    cluster."""
    k = G.shape[0]
    g0 = G[0]
    for r in range(w):
        hi[r] = g0[r]
        tg[r] = 0
        cur[r] = G[lab[r], r]
    for c in range(1, k):
        g = G[c]
        for r in range(w):
            up = g[r] > hi[r]
            hi[r] = g[r] if up else hi[r]
            tg[r] = c if up else tg[r]


def other_maxima(G, w, lab, other):
    """Per row of the block: the maximum over the clusters other than its own."""
    k = G.shape[0]
    for r in range(w):
        other[r] = -np.inf
    for c in range(k):
        g = G[c]
        for r in range(w):
            v = g[r] if lab[r] != c else -np.inf
            other[r] = v if v > other[r] else other[r]


def gap_bucket(gap):
    """``dmi_lib._kc_common.gap_buckets`` of one gap."""
    m, e = math.frexp(gap)  # gap = m·2^e, 0.5 <= m < 1
    b = 2 * (BUCKET_EMAX - e) + (1 if m < SQRT_HALF else 0)
    return min(max(b, 0), N_BUCKETS - 1)


def add_rows(V, Xt, s0, w, lab):
    """``V[copy·k + lab[r]] += x_{s0+r}`` for the block's rows (``x``'s last entry
    is 1), consecutive rows into different copies of the ``k × k`` sums."""
    k = Xt.shape[0]
    for j in range(k - 1):
        x = Xt[j, s0 : s0 + w]
        for r in range(w):
            V[(r % COPIES) * k + lab[r], j] += x[r]
    for r in range(w):
        V[(r % COPIES) * k + lab[r], k - 1] += 1.0


def chunk_total(Vp, counts):
    """The chunks' sums added in chunk order (independent of the threads)."""
    V = np.zeros(Vp.shape[1:])
    total = counts[0] * 0
    for c in range(Vp.shape[0]):
        V += Vp[c]
        total += counts[c]
    return V, total


# --------------------------------------------------------------------------- #
# The batch phase's pass
# --------------------------------------------------------------------------- #
def sweep_chunk(Xt, D, labels, tol, out, new_sums, s, e, V):
    """:func:`sweep` over the rows ``s:e``; adds into ``V`` (``COPIES·k × k``) and
    returns the rows moved and the fingerprint change."""
    k = D.shape[0]
    G = np.empty((k, KERNEL_BLOCK))
    hi = np.empty(KERNEL_BLOCK)
    cur = np.empty(KERNEL_BLOCK)
    tg = np.empty(KERNEL_BLOCK, np.int64)
    moved = 0
    fingerprint = np.uint64(0)
    for s0 in range(s, e, KERNEL_BLOCK):
        w = min(e, s0 + KERNEL_BLOCK) - s0
        lab, new = labels[s0 : s0 + w], out[s0 : s0 + w]
        products(Xt, D, s0, w, G)
        row_maxima(G, w, lab, hi, tg, cur)
        m = 0
        for r in range(w):
            t = tg[r] if cur[r] < hi[r] - tol else lab[r]  # the footnote's tie rule
            new[r] = t
            m += t != lab[r]
        moved += m
        for r in range(w if m else 0):  # the moved rows
            t, c0 = new[r], lab[r]
            if t != c0:
                i = s0 + r  # fingerprint: mod 2**64, as hash_weights' sum
                fingerprint += weight(i) * (np.uint64(t) - np.uint64(c0))
                if not new_sums:  # Σ (e_new − e_old) xᵢᵀ
                    for j in range(k - 1):
                        V[t, j] += Xt[j, i]
                        V[c0, j] -= Xt[j, i]
                    V[t, k - 1] += 1.0
                    V[c0, k - 1] -= 1.0
        if new_sums:  # CᵀX of the new labels
            add_rows(V, Xt, s0, w, new)
    return moved, fingerprint


def sweep(Xt, D, labels, tol, out, new_sums):
    """The batch phase's full pass: writes ``C ← idxmax(XD)`` (the footnote's tie
    rule) into ``out`` and returns ``(moved, V, fingerprint change)``, ``V`` the
    change of ``CᵀX`` (or, with ``new_sums``, ``CᵀX`` of ``out``).

    ``Xt``: ``k × n`` (last row all ones, not read), ``D``: ``k × k``, ``labels``
    and ``out``: ``n`` labels of the same integer type."""
    k, n = Xt.shape
    chunk = (n + CHUNKS - 1) // CHUNKS
    Vp = np.zeros((CHUNKS, k, k))
    moved = np.zeros(CHUNKS, np.int64)
    fingerprints = np.zeros(CHUNKS, np.uint64)
    for c in prange(CHUNKS):
        V = np.zeros((COPIES * k, k))
        s = min(n, c * chunk)
        m, h = sweep_chunk(Xt, D, labels, tol, out, new_sums, s, min(n, s + chunk), V)
        moved[c] = m
        fingerprints[c] = h
        # Explicit loops: an array expression in the parallel loop makes numba
        # compile the row loops above as scalar code (measured: 3.5x slower).
        for p in range(k):
            for q in range(k):
                total = 0.0
                for copy in range(COPIES):
                    total += V[copy * k + p, q]
                Vp[c, p, q] = total
    V, total_moved = chunk_total(Vp, moved)
    fingerprint = np.uint64(0)
    for c in range(CHUNKS):
        fingerprint += fingerprints[c]
    return total_moved, V, fingerprint


# --------------------------------------------------------------------------- #
# The finishing ascent's full pass
# --------------------------------------------------------------------------- #
def screen_chunk(Xt, D, labels, tol, margin, found, s, e, V, counts):
    """:func:`screen` over the rows ``s:e``: writes the moved rows from ``s`` on
    into ``found`` (``idx, tgt, gap, bkt``) and returns how many."""
    idx, tgt, gap, bkt = found
    k = D.shape[0]
    G = np.empty((k, KERNEL_BLOCK))
    hi = np.empty(KERNEL_BLOCK)
    cur = np.empty(KERNEL_BLOCK)
    other = np.empty(KERNEL_BLOCK)
    lb = np.empty(KERNEL_BLOCK)
    mb = np.empty(KERNEL_BLOCK)
    tg = np.empty(KERNEL_BLOCK, np.int64)
    keep = margin.shape[0] > 0
    o = s
    for s0 in range(s, e, KERNEL_BLOCK):
        w = min(e, s0 + KERNEL_BLOCK) - s0
        lab = labels[s0 : s0 + w]
        products(Xt, D, s0, w, G)
        row_maxima(G, w, lab, hi, tg, cur)
        if keep:
            other_maxima(G, w, lab, other)
            x = Xt[0, s0 : s0 + w]
            for r in range(w):  # ‖xᵢ‖₁ in the order of _kc_common.row_l1
                lb[r] = abs(x[r])
            for j in range(1, k):
                x = Xt[j, s0 : s0 + w]
                for r in range(w):
                    lb[r] += abs(x[r])
            for r in range(w):  # every row: a store under a condition stops vectorising
                mb[r] = (cur[r] - other[r]) / lb[r]
            mo = margin[s0 : s0 + w]
            for r in range(w):
                mo[r] = mb[r]
        for r in range(w):  # the moved rows: few, once near a maximum
            if cur[r] < hi[r] - tol:
                i, t, c0, g = s0 + r, tg[r], lab[r], hi[r] - cur[r]
                b = gap_bucket(g)
                idx[o], tgt[o], gap[o], bkt[o] = i, t, g, b
                o += 1
                counts[b] += 1
                for j in range(k - 1):
                    V[b * k + t, j] += Xt[j, i]
                    V[b * k + c0, j] -= Xt[j, i]
                V[b * k + t, k - 1] += 1.0
                V[b * k + c0, k - 1] -= 1.0
    return o - s


def screen(Xt, D, labels, tol, margin, idx, tgt, gap, bkt):
    """The ascent's full pass (``_kc_pass.sweep(..., collect=True, buckets=True,
    margins=True)``): writes chunk ``c``'s moved rows from ``idx[c·chunk]`` on
    (``idx, tgt, gap, bkt``: row, target, gap, gap bucket) and, unless
    ``margin`` is empty, every row's margin into ``margin``; returns the number
    per chunk, the bucket sums (``N_BUCKETS·k × k``: row ``b·k + c``) and the rows
    per bucket.  (A row's source is its label: not written.)"""
    k, n = Xt.shape
    chunk = (n + CHUNKS - 1) // CHUNKS
    rows = N_BUCKETS * k
    Vp = np.zeros((CHUNKS, rows, k))
    cp = np.zeros((CHUNKS, N_BUCKETS), np.int64)
    found = np.zeros(CHUNKS, np.int64)
    for c in prange(CHUNKS):
        V = np.zeros((rows, k))
        counts = np.zeros(N_BUCKETS, np.int64)
        s = min(n, c * chunk)
        e = min(n, s + chunk)
        out = (idx, tgt, gap, bkt)
        found[c] = screen_chunk(Xt, D, labels, tol, margin, out, s, e, V, counts)
        for p in range(rows):  # explicit loops (see sweep)
            for q in range(k):
                Vp[c, p, q] = V[p, q]
        for p in range(N_BUCKETS):
            cp[c, p] = counts[p]
    V, counts = chunk_total(Vp, cp)
    return found, V, counts
