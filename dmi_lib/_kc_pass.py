"""One pass of k-cofactors over the rows, in numpy: the assignment ``C ← idxmax(XD)``.

A pass finds the rows whose cluster is more than ``tol`` below their row's
maximum of ``XD`` -- the rows the paper's assignment (Algorithm 2, with the
footnote's tie rule) moves, and the rows with an improving single move -- and, in
the same pass while a block of rows is in cache, what the solver needs from them:
the change of ``CᵀX``, the change of the clustering's fingerprint, gap buckets for
the line search and margins for the bounds (:mod:`dmi_lib._kc_engine`).

It runs over blocks of rows of ``X`` stored transposed (``Xt``, shape ``(k, n)``,
last row the weights or all ones): one small BLAS product ``DᵀXᵀ`` per block, the
row maxima over the short axis, and ``bincount`` sums.  The compiled pass
(:mod:`dmi_lib._numba_kernels`) does the same work fused per row.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._kc_common import N_BUCKETS, gap_buckets, row_hash_weights, row_l1

#: Up to this many clusters, :func:`first_index` replaces ``argmax(axis=0)``; up to
#: ``_LUT_MAX_K`` it uses a table of ``2**k`` entries.
_FAST_ARGMAX_MAX_K = 16
_LUT_MAX_K = 12
_LUTS: dict = {}


class Sweep(NamedTuple):
    """What one pass over the rows found (see :func:`sweep`)."""

    moved: int  # rows whose cluster is more than tol below their maximum
    V: np.ndarray  # Σ (e_tgt − e_src) xᵢᵀ over them: (k, k), or by gap
    # bucket (nb, k, k); with new_sums CᵀX of the new labels
    counts: np.ndarray | None  # rows per gap bucket
    idx: np.ndarray | None  # the rows (global indices), their targets, sources,
    tgt: np.ndarray | None  # gaps and gap buckets, if collected
    src: np.ndarray | None
    gap: np.ndarray | None
    bucket: np.ndarray | None
    hdelta: int  # change of the label fingerprint if they all move
    margin: np.ndarray | None
    compiled: bool = False  # made by the compiled pass


class PassSpec(NamedTuple):
    """The arguments of one pass that every block shares."""

    DT: np.ndarray  # Dᵀ, C-contiguous
    tol: float
    k: int
    weighted: bool  # the last row of Xt holds weights, not ones
    buckets: bool
    collect: bool
    hashes: bool  # the fingerprint change is wanted
    out: np.ndarray | None
    new_sums: bool
    labels: np.ndarray  # the whole labels array (to tell out apart from it)


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


def first_max_labels(Xt, D, block: int, dtype=np.intp) -> np.ndarray:
    """``idxmax(XD)``, the first maximum of each row: the partition ``D`` makes,
    in blocks of ``block`` rows (no tie rule, nothing else collected)."""
    DT = np.ascontiguousarray(D.T)
    labels = np.empty(Xt.shape[1], dtype=dtype)
    for s in range(0, Xt.shape[1], block):
        G = DT @ Xt[:, s : s + block]
        labels[s : s + block] = first_index(G >= G.max(axis=0))
    return labels


def label_sums(lab, Xs, k: int, weighted: bool) -> np.ndarray:
    """``CᵀX`` of a block of rows (``Xs``: ``k × B``); without weights the last
    column holds the exact, integer cluster sizes."""
    M = np.empty((k, k))
    for j in range(k - 1):
        M[:, j] = np.bincount(lab, weights=Xs[j], minlength=k)
    M[:, -1] = np.bincount(lab, weights=Xs[-1] if weighted else None, minlength=k)
    return M


def _pair_change(Xs, hit, key, k: int, weighted: bool, groups: int):
    """``Σ_i (e_tgt − e_src) xᵢᵀ`` per group, from ``key = (group·k + tgt, group·k
    + src)``: one ``bincount`` per column and side, shape ``(k, groups·k)``."""
    kt, ks = key
    xh = Xs.take(hit, axis=1)
    size = groups * k
    V = np.empty((k, size))
    for j in range(k):
        w = xh[j] if (j < k - 1 or weighted) else None
        V[j] = np.bincount(kt, weights=w, minlength=size) - np.bincount(
            ks, weights=w, minlength=size
        )
    return V


def _margins(G, Gf, flat, cur, l1):
    """``νᵢ = (g_cur − max_{c≠cur} g_c) / ‖xᵢ‖₁``: hides the current entry (in place)."""
    Gf[flat] = -np.inf
    margin = cur - G.max(axis=0)
    margin /= l1
    return margin


def _block(spec: PassSpec, Xs, lab, l1, base, ridx, arange):
    """The pass over one block of rows ``Xs`` (``k × B``) with labels ``lab``;
    ``base`` is the first row's index (full passes) or ``ridx`` the rows' indices."""
    k = spec.k
    G = spec.DT @ Xs  # (XD)ᵀ of the block, shape (k, B)
    width = G.shape[1]
    # Reductions over the short axis 0 of a C-ordered (k, B) block run as k
    # vectorised passes; the argmax is needed only for the rows that move.
    flat = lab.astype(np.intp)  # G[lab[i], i] as a flat take: 2x take_along_axis
    flat *= width
    flat += arange[:width]
    Gf = G.reshape(-1)
    cur = Gf.take(flat)
    hi = G.max(axis=0)
    hit = np.flatnonzero(cur < hi - spec.tol)
    h = hit.size
    glob = hit + base if ridx is None else ridx.take(hit)
    V = counts = tgt = src = gap = bkt = None
    hd = 0
    if h:
        # (take: several times faster than fancy indexing)
        hi_h = hi.take(hit)
        if 2 * h < width:
            tgt = first_index(G.take(hit, axis=1) >= hi_h)
        else:  # most rows move (early iterations): skip the gather
            tgt = first_index(G >= hi).take(hit)
        src = lab.take(hit)
        if spec.collect or spec.buckets:
            gap = hi_h - cur.take(hit)
        if spec.buckets:
            bkt = gap_buckets(gap)
            V = _pair_change(Xs, hit, (bkt * k + tgt, bkt * k + src), k, spec.weighted, N_BUCKETS)
            V = V.reshape(k, N_BUCKETS, k).transpose(1, 2, 0)
            counts = np.bincount(bkt, minlength=N_BUCKETS)
        elif not spec.new_sums:
            V = _pair_change(Xs, hit, (tgt, src), k, spec.weighted, 1).T
        if spec.hashes:
            delta = (tgt - src).astype(np.uint64)  # wraps modulo 2**64
            hd = int((row_hash_weights(glob) * delta).sum(dtype=np.uint64))
    out = spec.out
    if out is not None:
        if ridx is None and out is not spec.labels:
            out[base : base + width] = lab
        if h:
            out[glob] = tgt
    if spec.new_sums:
        V = label_sums(out[base : base + width], Xs, k, spec.weighted)
    margin = None if l1 is None else _margins(G, Gf, flat, cur, l1)
    # What is collected is kept in small types (up to n rows early on); the
    # sources are the labels of the rows (read once, in _combine).
    if spec.collect and h:
        glob, tgt = glob.astype(_index_type(spec.labels.size)), tgt.astype(np.int32)
        bkt = None if bkt is None else bkt.astype(np.uint8)
    else:
        glob = tgt = gap = bkt = None
    return h, V, counts, glob, tgt, None, gap, bkt, hd, margin


def _index_type(n: int):
    """The type of the row indices a pass collects: int32 below 2³¹ rows."""
    return np.int32 if n < 2**31 else np.intp


def _combine(parts, spec: PassSpec, margin) -> Sweep:
    """The blocks' results in block order (the result does not depend on how the
    rows were cut into blocks, up to the order of floating-point sums)."""
    k, nb = spec.k, (N_BUCKETS if spec.buckets else 1)
    V = np.zeros((nb, k, k) if spec.buckets else (k, k))
    counts = np.zeros(nb, dtype=np.int64) if spec.buckets else None
    hd = 0
    for p in parts:
        if p[0] or spec.new_sums:
            V += p[1]
            if spec.buckets:
                counts += p[2]
            hd += p[8]
    got = [p for p in parts if p[0]]

    def cat(j, dtype):
        if not spec.collect:
            return None
        if not got:
            return np.empty(0, dtype=dtype)
        return np.concatenate([p[j] for p in got])

    idx = cat(3, _index_type(spec.labels.size))
    return Sweep(
        sum(p[0] for p in parts),
        V,
        counts,
        idx,
        cat(4, np.int32),
        None if idx is None else spec.labels.take(idx),
        cat(6, np.float64),
        cat(7, np.uint8) if spec.buckets else None,
        hd % 2**64,
        margin,
    )


def sweep(
    Xt,
    D,
    labels,
    tol,
    *,
    block: int,
    weighted: bool = False,
    rows=None,
    margins=False,
    collect=False,
    buckets=False,
    hashes=False,
    out=None,
    new_sums=False,
) -> Sweep:
    """One pass over the rows of ``X`` (or over ``rows``) at ``D``, in blocks of
    ``block`` rows.  ``rows`` is an index array, or a list of segments ``(idx,
    Xs)`` with ``Xs`` the rows' columns of ``Xt`` gathered already (or None).

    Finds the rows whose cluster is more than ``tol`` below their row's maximum
    of ``XD``.  Sums ``V = Σ (e_tgt − e_src) xᵢᵀ`` over them (the change of
    ``CᵀX`` if they all move; with ``buckets``, one ``V`` per gap bucket, for the
    line search); with ``hashes`` the fingerprint change; with ``margins``
    (a full pass) the margins ``νᵢ = (g_cur − max_{c≠cur} g_c) / ‖xᵢ‖₁``; with
    ``collect`` the rows, targets, sources and gaps.  Writes the moved labels into
    ``out`` (which must hold ``labels`` already when ``rows`` is given).  With
    ``new_sums`` (a full pass with ``out``, when most rows move) ``V`` is instead
    ``CᵀX`` of the new labels, summed afresh: cheaper than gathering the movers.
    """
    if new_sums and (out is None or rows is not None or buckets):
        raise ValueError("new_sums needs a full pass that writes the labels (out)")
    spec = PassSpec(
        np.ascontiguousarray(D.T),
        float(tol),
        Xt.shape[0],
        weighted,
        buckets,
        collect,
        hashes,
        out,
        new_sums,
        labels,
    )
    segments = [(rows, None)] if isinstance(rows, np.ndarray) else rows
    n_rows = Xt.shape[1] if rows is None else sum(idx.size for idx, _ in segments)
    arange = np.arange(min(block, max(n_rows, 1)))
    want_margin = margins and rows is None
    margin = np.empty(Xt.shape[1]) if want_margin else None
    parts = []
    if rows is None:
        for s in range(0, Xt.shape[1], block):
            e = min(s + block, Xt.shape[1])
            l1 = row_l1(Xt[:, s:e]) if want_margin else None
            p = _block(spec, Xt[:, s:e], labels[s:e], l1, s, None, arange)
            if want_margin:
                margin[s:e] = p[9]
            parts.append(p[:9])
    else:
        for idx, Xr in segments:
            for s in range(0, idx.size, block):
                r = idx[s : s + block]
                Xs = Xt.take(r, axis=1) if Xr is None else Xr[:, s : s + block]
                parts.append(_block(spec, Xs, labels.take(r), None, 0, r, arange))
    return _combine(parts, spec, margin)
