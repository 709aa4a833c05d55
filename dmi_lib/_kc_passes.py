"""The passes of k-cofactors over the rows: numpy and compiled, each pass with its twin.

Algorithm 2 needs two kinds of pass over the rows of ``X`` (whitened ``Ã``, see
:mod:`dmi_lib._kc_engine`), both built on the assignment ``C ← idxmax(XD)`` with
the paper's footnote tie rule (a row moves only when its cluster is more than
``tol`` below its row's maximum):

* :func:`assign_rows` / :func:`assign_kernel`, the batch phase's assignment:
  writes the new labels and returns an :class:`Assignment` (rows moved, the
  change of ``CᵀX`` -- or ``CᵀX`` itself, summed afresh -- the change of the
  clustering's fingerprint, the margins of every row when asked);
* :func:`screen_rows` / :func:`screen_kernel`, the ascent's screen: returns a
  :class:`Screen` (the rows with an improving move, their targets, sources and
  gaps, and the gap buckets with their sums for the line search).

Each has a numpy variant (blocks of rows of ``X`` stored transposed, ``Xt`` of
shape ``(k, n)`` with the last row the weights or all ones: one small BLAS
product ``DᵀXᵀ`` per block, row maxima over the short axis, ``bincount`` sums)
and a variant written for numba (QuantEcon's pattern: plain Python on scalars and
arrays, compiled by :func:`kernels` with ``cache=True``; this module imports
without numba).  The compiled variants fuse the work per block of
:data:`KERNEL_BLOCK` rows that stays in the L1 cache, run :data:`CHUNKS` chunks of
rows in parallel (``prange``) and add the chunks in chunk order, so that their
result does not depend on the number of threads.  Both variants find the same
rows; their sums differ only in the order of floating-point additions.  The loops
over the rows of a block are innermost, so that the compiler vectorises them;
every row array must have ``n`` entries (the compiled kernels do not check
bounds).

numba is optional (``pip install "dmi-lib[fast]"``); without it, or with
``DMI_LIB_NO_NUMBA=1``, every pass is the numpy one.
"""

from __future__ import annotations

import importlib.util
import math
import os
import sys
import types
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np

from .problem import cluster_sums

_EPS = np.finfo(np.float64).eps

#: Safety factor on the rounding-error bound that decides ties (see :func:`tie_tol`).
TIE_SAFETY = 64.0

#: Gap buckets of the line search: ratio √2, from ``2**BUCKET_EMAX`` down.
BUCKET_EMAX = 8
N_BUCKETS = 2 * (BUCKET_EMAX + 60)
SQRT_HALF = math.sqrt(0.5)

#: The compiled passes split the rows into this many chunks, summed in chunk
#: order, so that their result does not depend on the number of threads.
CHUNKS = 16

#: Rows per block inside a chunk of a compiled pass: the block's ``k × 256``
#: products stay in the L1 cache between the assignment and the cluster sums.
KERNEL_BLOCK = 256

#: Copies of the cluster sums in a compiled pass: consecutive rows add into
#: different copies, which breaks the chain of dependent additions when many
#: rows share a cluster.
COPIES = 4

#: Seed of the fingerprint weights (:func:`hash_weights`) and the splitmix64
#: multipliers.
HASH_SEED = 0x6B_C0FA
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB

#: Up to this many clusters, :func:`first_index` replaces ``argmax(axis=0)``; up to
#: ``_LUT_MAX_K`` it uses a table of ``2**k`` entries.
_FAST_ARGMAX_MAX_K = 16
_LUT_MAX_K = 12
_LUTS: dict = {}

#: A loop whose iterations may run in parallel (``numba.prange`` once compiled).
prange = range


# --------------------------------------------------------------------------- #
# What both variants agree on
# --------------------------------------------------------------------------- #
def hash_weights(n: int) -> np.ndarray:
    """The fingerprint weight ``w_i`` of row ``i`` (splitmix64 of ``i``), as uint64.

    A clustering's fingerprint is ``Σ w_i·label_i mod 2⁶⁴``: the batch phase
    updates it from the rows that move and recognises a repeated clustering (a
    cycle of the paper's iteration) by it.  The compiled passes compute ``w_i``
    on the fly with the same arithmetic (:func:`weight`).

    Examples
    --------
    >>> w = hash_weights(3)
    >>> w.dtype.name, len(set(w.tolist()))
    ('uint64', 3)
    """
    return weight(np.arange(n, dtype=np.uint64))


def row_l1(Xs) -> np.ndarray:
    """``‖xᵢ‖₁`` of the rows of a block ``Xs`` (``k × B``, ``X`` transposed), summed
    one coordinate at a time in order (the compiled screen adds in the same order).

    Examples
    --------
    >>> row_l1(np.array([[1.0, -2.0], [1.0, 1.0]])).tolist()
    [2.0, 3.0]
    """
    l1 = np.abs(Xs[0])
    for row in Xs[1:]:
        l1 += np.abs(row)
    return l1


def gap_buckets(gap):
    """Bucket of each gap on a fixed grid of ratio √2, largest gaps first.

    Examples
    --------
    >>> gap_buckets(np.array([4.0, 2.0, 1.5, 1.0])).tolist()
    [11, 13, 14, 15]
    """
    m, e = np.frexp(gap)  # gap = m·2^e, 0.5 <= m < 1
    b = 2 * (BUCKET_EMAX - e) + (m < SQRT_HALF)
    return np.clip(b, 0, N_BUCKETS - 1)


def tie_tol(k: int, row_l1_max: float, D: np.ndarray) -> float:
    """Absolute tolerance under which two entries of a row of ``XD`` count as tied.

    ``|fl(x·d) − x·d| <= k·eps·‖x‖₁·max|d|`` bounds the rounding of one entry; the
    safety factor covers the error of ``D`` itself.  Without it a genuine tie (the
    global mean is always one, Theorem 2.2) is broken by rounding noise and the
    paper's footnote semantics ("move a row only if its cluster is not among the
    maxima") is lost.
    """
    return TIE_SAFETY * k * _EPS * row_l1_max * float(np.abs(D).max())


def first_index(mask):
    """Index of the first True in each column of the boolean ``(k, B)`` ``mask``.

    Packs each column into the integer ``Σ_c 2^(k-1-c)·mask[c]`` (``k`` shifts and
    ors) and looks its highest set bit up in a table: 3x faster than
    ``argmax(axis=0)`` for ``k <= 10``.  For 13 to 16 rows it reads the same sum
    in float64 and takes its binary exponent.

    Examples
    --------
    >>> first_index(np.array([[False, True], [True, True]])).tolist()
    [1, 0]
    """
    k = mask.shape[0]
    if k > _FAST_ARGMAX_MAX_K:
        return mask.argmax(axis=0)
    if k > _LUT_MAX_K:
        code = np.ldexp(1.0, np.arange(k - 1, -1, -1)) @ mask
        return k - np.frexp(code)[1]
    lut = _LUTS.get(k)
    if lut is None:  # lut[code] = k - bit_length(code): the first row with a 1
        codes = np.arange(1 << k)
        lut = np.where(codes > 0, k - np.frexp(codes.astype(float))[1], 0)
        lut = _LUTS[k] = lut.astype(np.intp)
    code = mask[0].astype(np.uint16)
    for c in range(1, k):
        code <<= 1
        code |= mask[c]
    return lut.take(code)


def _pair_change(Xs, hit, kt, ks, k: int, groups: int):
    """``Σ_i (e_tgt − e_src) xᵢᵀ`` per group, from the keys ``kt = group·k + tgt``
    and ``ks = group·k + src``: :func:`~dmi_lib.problem.cluster_sums` of the moved
    rows by target minus by source, shape ``(groups·k, k)``."""
    xh = Xs.take(hit, axis=1).T
    return cluster_sums(xh, kt, groups * k) - cluster_sums(xh, ks, groups * k)


class _Moves(NamedTuple):
    """The rows of one block that the footnote's rule moves (numpy passes)."""

    Xs: np.ndarray  # the block's rows of X, transposed (k, B)
    lab: np.ndarray  # their labels
    base: int  # the first row's index (full passes; 0 otherwise)
    cur: np.ndarray  # each row's entry of its own cluster
    hit: np.ndarray  # positions in the block of the rows that move
    tgt: np.ndarray  # their first maximum
    src: np.ndarray  # their current cluster
    glob: np.ndarray  # their row indices
    hi_hit: np.ndarray  # their maximum


def _block_moves(Xt, D, labels, tol, rows, block: int, margin):
    """``C ← idxmax(XD)`` block by block: a :class:`_Moves` per block of all rows
    (``rows`` None), of an index array, or of segments ``(idx, Xs)`` with ``Xs``
    the rows' columns of ``Xt`` gathered already (or None).  Unless ``margin`` is
    None (full passes), each block's margins ``νᵢ = (g_cur − max_{c≠cur} g_c) /
    ‖xᵢ‖₁`` are written into it once the caller is done with the block."""
    DT, tol = np.ascontiguousarray(D.T), float(tol)
    if rows is None:
        spans = [(s, Xt[:, s : s + block]) for s in range(0, Xt.shape[1], block)]
        parts = ((Xs, labels[s : s + Xs.shape[1]], s, None) for s, Xs in spans)
    else:
        segments = [(rows, None)] if isinstance(rows, np.ndarray) else rows
        parts = (
            (Xt.take(r, axis=1) if Xr is None else Xr[:, s : s + block], labels.take(r), 0, r)
            for idx, Xr in segments
            for s in range(0, idx.size, block)
            for r in [idx[s : s + block]]
        )
    for Xs, lab, base, ridx in parts:
        G = DT @ Xs
        width = G.shape[1]
        # Reductions over the short axis 0 of a C-ordered (k, B) block run as k
        # vectorised passes; the argmax is needed only for the rows that move.
        flat = lab.astype(np.intp)  # G[lab[i], i] as a flat take: 2x take_along_axis
        flat *= width
        flat += np.arange(width)
        cur = G.reshape(-1).take(flat)
        hi = G.max(axis=0)
        hit = np.flatnonzero(cur < hi - tol)
        glob = hit + base if ridx is None else ridx.take(hit)
        hi_hit = hi.take(hit)  # (take: several times faster than fancy indexing)
        if 2 * hit.size < width:
            tgt = first_index(G.take(hit, axis=1) >= hi_hit)
        else:  # most rows move (early iterations): skip the gather
            tgt = first_index(G >= hi).take(hit)
        yield _Moves(Xs, lab, base, cur, hit, tgt, lab.take(hit), glob, hi_hit)
        if margin is not None:  # hides the current entries of G (in place)
            G.reshape(-1)[flat] = -np.inf
            m = margin[base : base + width]
            np.subtract(cur, G.max(axis=0), out=m)
            m /= row_l1(Xs)


def weight(i):
    """``hash_weights(n)[i]`` (splitmix64 of ``i``), of an array of row indices or,
    in a compiled pass, of one row: the passes compute the weights of the rows
    they need (no array of ``n`` weights is kept).

    Examples
    --------
    >>> bool((weight(np.array([2, 0])) == hash_weights(3)[[2, 0]]).all())
    True
    """
    z = np.uint64(i) * np.uint64(GOLDEN) + np.uint64(HASH_SEED)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX1)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX2)
    return z ^ (z >> np.uint64(31))


def products(Xt, D, s0, w, G):
    """``G[c, r] = (XD)[s0 + r, c]`` for a compiled block's ``w`` rows.

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
    """Per row ``r`` of a compiled block (labels ``lab``): its maximum ``hi[r]``,
    the first cluster ``tg[r]`` that reaches it, and ``cur[r]``, the entry of its
    own cluster."""
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


def chunk_total(Vp, counts):
    """The compiled chunks' sums added in chunk order (independent of the threads)."""
    V = np.zeros(Vp.shape[1:])
    total = counts[0] * 0
    for c in range(Vp.shape[0]):
        V += Vp[c]
        total += counts[c]
    return V, total


# --------------------------------------------------------------------------- #
# The batch phase's assignment
# --------------------------------------------------------------------------- #
class Assignment(NamedTuple):
    """What one assignment pass ``C ← idxmax(XD)`` found (:func:`assign_rows`)."""

    moved: int  # rows whose cluster is more than tol below their maximum
    V: np.ndarray  # Σ (e_new − e_old) xᵢᵀ over them, (k, k); CᵀX of out if new_sums
    hdelta: int  # the change of the label fingerprint
    margin: np.ndarray | None = None  # every row's margin, when asked
    compiled: bool = False  # made by the compiled kernel


def assign_rows(
    Xt, D, labels, tol, out, *, block: int, rows=None, margins=False, new_sums=False
) -> Assignment:
    """The batch phase's assignment at ``D``, in numpy, over all rows or ``rows``
    (an index array, or segments ``(idx, Xs)``, see :func:`_block_moves`).

    Writes ``idxmax(XD)`` with the footnote's tie rule into ``out`` (which must
    hold ``labels`` already when ``rows`` is given; None: nothing written) and
    returns the rows moved, ``V = Σ (e_new − e_old) xᵢᵀ`` over them and the
    fingerprint change.  ``new_sums`` (a full pass that writes ``out``, when most
    rows move): ``V`` is ``CᵀX`` of the new labels, summed afresh, which is
    cheaper than gathering the movers.  ``margins`` (a full pass): every row's
    margin ``νᵢ = (g_cur − max_{c≠cur} g_c) / ‖xᵢ‖₁``, for :class:`Bounds`."""
    k = Xt.shape[0]
    margin = np.empty(Xt.shape[1]) if margins and rows is None else None
    V, moved, hd = np.zeros((k, k)), 0, 0
    for mv in _block_moves(Xt, D, labels, tol, rows, block, margin):
        h = mv.hit.size
        if h:
            if not new_sums:
                V += _pair_change(mv.Xs, mv.hit, mv.tgt, mv.src, k, 1)
            delta = (mv.tgt - mv.src).astype(np.uint64)  # wraps modulo 2**64
            hd += int((weight(mv.glob) * delta).sum(dtype=np.uint64))
        span = slice(mv.base, mv.base + mv.Xs.shape[1])
        if out is not None:
            if rows is None and out is not labels:
                out[span] = mv.lab
            if h:
                out[mv.glob] = mv.tgt
        if new_sums:
            V += cluster_sums(mv.Xs.T, out[span], k)
        moved += h
    return Assignment(moved, V, hd % 2**64, margin)


def assign_chunk(Xt, D, labels, tol, out, new_sums, s, e, V):
    """:func:`assign_kernel` over the rows ``s:e``; adds into ``V``
    (``COPIES·k × k``) and returns the rows moved and the fingerprint change."""
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
        if new_sums:  # CᵀX of the new labels, consecutive rows into different copies
            for j in range(k - 1):
                x = Xt[j, s0 : s0 + w]
                for r in range(w):
                    V[(r % COPIES) * k + new[r], j] += x[r]
            for r in range(w):
                V[(r % COPIES) * k + new[r], k - 1] += 1.0
    return moved, fingerprint


def assign_kernel(Xt, D, labels, tol, out, new_sums):
    """:func:`assign_rows` over all rows, compiled (unweighted): returns
    ``(moved, V, fingerprint change)``.

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
        m, h = assign_chunk(Xt, D, labels, tol, out, new_sums, s, min(n, s + chunk), V)
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
    return total_moved, V, fingerprints.sum()  # mod 2**64 in any order


# --------------------------------------------------------------------------- #
# The ascent's screen
# --------------------------------------------------------------------------- #
class Screen(NamedTuple):
    """The rows with an improving single move (:func:`screen_rows`), in row order."""

    moved: int  # how many
    idx: np.ndarray  # the rows
    tgt: np.ndarray  # their best cluster (first maximum of XD)
    src: np.ndarray  # their cluster
    gap: np.ndarray  # max of the row of XD minus its own entry (> tol)
    bucket: np.ndarray | None  # gap buckets (gap_buckets), with buckets
    V: np.ndarray | None  # per bucket Σ (e_tgt − e_src) xᵢᵀ, (N_BUCKETS, k, k)
    counts: np.ndarray | None  # rows per bucket
    margin: np.ndarray | None = None  # every row's margin, when asked
    compiled: bool = False  # made by the compiled kernel


def screen_rows(
    Xt, D, labels, tol, *, block: int, rows=None, margins=False, buckets=True
) -> Screen:
    """The ascent's screen at ``D``, in numpy, over all rows or ``rows`` (as in
    :func:`assign_rows`): the rows whose cluster is more than ``tol`` below their
    row's maximum of ``XD``, their targets, sources and gaps; with ``buckets``
    the gap buckets and, per bucket, the change of ``CᵀX`` if its rows move (the
    line search's sums); with ``margins`` (a full pass) every row's margin."""
    k, nb = Xt.shape[0], N_BUCKETS
    margin = np.empty(Xt.shape[1]) if margins and rows is None else None
    V = np.zeros((nb, k, k)) if buckets else None
    counts = np.zeros(nb, dtype=np.int64) if buckets else None
    itype = np.int32 if labels.size < 2**31 else np.intp  # row indices: int32 below 2³¹ rows
    idx, tgt, gap, bkt = [], [], [], []
    for mv in _block_moves(Xt, D, labels, tol, rows, block, margin):
        if mv.hit.size:
            g = mv.hi_hit - mv.cur.take(mv.hit)
            if buckets:
                b = gap_buckets(g)
                kt, ks = b * k + mv.tgt, b * k + mv.src
                Vb = _pair_change(mv.Xs, mv.hit, kt, ks, k, nb)
                V += Vb.reshape(nb, k, k)
                counts += np.bincount(b, minlength=nb)
                bkt.append(b.astype(np.uint8))
            # kept in small types (up to n rows early on)
            idx.append(mv.glob.astype(itype))
            tgt.append(mv.tgt.astype(np.int32))
            gap.append(g)
    idx, tgt, gap = _cat(idx, itype), _cat(tgt, np.int32), _cat(gap, float)
    bkt = _cat(bkt, np.uint8) if buckets else None
    return Screen(idx.size, idx, tgt, labels.take(idx), gap, bkt, V, counts, margin)


def _cat(parts: list, dtype) -> np.ndarray:
    """The blocks' ``parts`` end to end (empty, of ``dtype``, when there are none)."""
    return np.concatenate(parts) if parts else np.empty(0, dtype=dtype)


def other_maxima(G, w, lab, other):
    """Per row of a compiled block: the maximum over the clusters other than its own."""
    k = G.shape[0]
    for r in range(w):
        other[r] = -np.inf
    for c in range(k):
        g = G[c]
        for r in range(w):
            v = g[r] if lab[r] != c else -np.inf
            other[r] = v if v > other[r] else other[r]


def gap_bucket(gap):
    """:func:`gap_buckets` of one gap, in a compiled pass."""
    m, e = math.frexp(gap)  # gap = m·2^e, 0.5 <= m < 1
    b = 2 * (BUCKET_EMAX - e) + (1 if m < SQRT_HALF else 0)
    return min(max(b, 0), N_BUCKETS - 1)


def screen_chunk(Xt, D, labels, tol, margin, found, s, e, V, counts):
    """:func:`screen_kernel` over the rows ``s:e``: writes the moved rows from ``s``
    on into ``found`` (``idx, tgt, gap, bkt``) and returns how many."""
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
            for r in range(w):  # ‖xᵢ‖₁ in the order of row_l1
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


def screen_kernel(Xt, D, labels, tol, margin, idx, tgt, gap, bkt):
    """:func:`screen_rows` over all rows with buckets, compiled (unweighted):
    writes chunk ``c``'s moved rows from ``idx[c·chunk]`` on (``idx, tgt, gap,
    bkt``: row, target, gap, gap bucket) and, unless ``margin`` is empty, every
    row's margin into ``margin``; returns the number per chunk, the bucket sums
    (``N_BUCKETS·k × k``: row ``b·k + c``) and the rows per bucket."""
    k, n = Xt.shape
    chunk = (n + CHUNKS - 1) // CHUNKS
    Vp = np.zeros((CHUNKS, N_BUCKETS * k, k))
    cp = np.zeros((CHUNKS, N_BUCKETS), np.int64)
    found = np.zeros(CHUNKS, np.int64)
    for c in prange(CHUNKS):
        s = min(n, c * chunk)
        e = min(n, s + chunk)
        out = (idx, tgt, gap, bkt)
        found[c] = screen_chunk(Xt, D, labels, tol, margin, out, s, e, Vp[c], cp[c])
    V, counts = chunk_total(Vp, cp)
    return found, V, counts


# --------------------------------------------------------------------------- #
# Compiling the kernels
# --------------------------------------------------------------------------- #
#: Functions the kernels call: compiled first, and bound in the kernels' globals.
HELPERS = (
    "weight",
    "products",
    "row_maxima",
    "other_maxima",
    "gap_bucket",
    "chunk_total",
    "assign_chunk",
    "screen_chunk",
)
#: The kernels, with a parallel loop over the chunks of rows.
KERNELS = ("assign_kernel", "screen_kernel")


def available() -> bool:
    """Whether the compiled passes can be used (numba installed and not disabled
    by ``DMI_LIB_NO_NUMBA``)."""
    raw = os.environ.get("DMI_LIB_NO_NUMBA", "").strip().lower()
    if raw in ("1", "true", "yes", "on"):
        return False
    if raw not in ("", "0", "false", "no", "off"):
        raise ValueError(
            f"DMI_LIB_NO_NUMBA must be one of 1/true/yes/on (numba off) or "
            f"0/false/no/off/empty (numba on), got {os.environ['DMI_LIB_NO_NUMBA']!r}"
        )
    return importlib.util.find_spec("numba") is not None


_LOADED: dict = {}


def kernels():
    """The compiled passes (a namespace with ``assign_kernel`` and
    ``screen_kernel``), or None when numba is missing or disabled.

    The first call in a process imports numba and compiles the kernels (once per
    machine, 13-27 s: one signature for every ``k``), or loads them from numba's
    on-disk cache beside this module (``__pycache__``; numba falls back to a user
    cache directory when that is not writable, and ``NUMBA_CACHE_DIR`` overrides
    both), for the argument types the solver uses."""
    if "kernels" not in _LOADED:
        _LOADED["kernels"] = _compile() if available() else None
    return _LOADED["kernels"]


@contextmanager
def threads(n: int | None):
    """Run the compiled kernels on ``n`` threads (None: numba's default) in the
    calling thread (numba's setting is thread-local); nothing to do before the
    kernels are loaded."""
    if n is None or _LOADED.get("kernels") is None:
        yield
        return
    import numba

    old = numba.get_num_threads()
    numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    try:
        yield
    finally:
        numba.set_num_threads(old)


def _compile():
    import numba

    namespace = dict(vars(sys.modules[__name__]))
    namespace["prange"] = numba.prange

    def jit(name, **options):
        fn = namespace[name]
        # The same code with globals where the helpers are compiled: numba
        # resolves a kernel's globals when it compiles, so its calls reach
        # compiled code.  The cache still belongs to this file.
        rebound = types.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__)
        rebound.__qualname__ = fn.__qualname__
        return numba.njit(cache=True, nogil=True, boundscheck=False, **options)(rebound)

    for name in HELPERS:
        namespace[name] = jit(name)
    out = types.SimpleNamespace(**{name: jit(name, parallel=True) for name in KERNELS})
    # compile (or load from the cache) now, with the solver's argument types:
    # int32 labels and row indices, uint8 gap buckets
    k, n = 2, 3
    Xt, lab32 = np.ones((k, n)), np.zeros(n, np.int32)
    out.assign_kernel(Xt, np.eye(k), lab32, 0.0, lab32.copy(), True)
    gap, bkt = np.empty(n), np.empty(n, np.uint8)
    out.screen_kernel(Xt, np.eye(k), lab32, 0.0, np.empty(n), lab32.copy(), lab32.copy(), gap, bkt)
    return out
