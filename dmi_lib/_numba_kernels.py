"""numba kernels of :mod:`dmi_lib._compiled` (imported only when numba is installed).

Top-level functions, so that numba's on-disk cache (``cache=True``) finds them again
in the next process.
"""

import numba as nb
import numpy as np

from ._compiled import _BLOCK, _CHUNKS, _HASH_SEED

u64 = np.uint64


@nb.njit(inline="always", cache=True)
def weight(i):  # _compiled.hash_weights(n)[i]
    z = u64(i) * u64(0x9E3779B97F4A7C15) + u64(_HASH_SEED)
    z = (z ^ (z >> u64(30))) * u64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> u64(27))) * u64(0x94D049BB133111EB)
    return z ^ (z >> u64(31))


@nb.njit(parallel=True, boundscheck=False, cache=True, nogil=True)
def sweep(Xt, D, labels, tol, out, new_sums, l1, margin):
    """One pass of ``_Engine.sweep(D, labels, tol, hashes=True, out=out,
    new_sums=new_sums, margins=l1.size > 0)`` over all rows; returns
    ``(moved, V, fingerprint change)``.  ``Xt``'s last row is all ones."""
    k, n = Xt.shape
    want_margin = l1.size > 0
    Vp = np.zeros((_CHUNKS, k, k))
    moved = np.zeros(_CHUNKS, np.int64)
    hd = np.zeros(_CHUNKS, np.uint64)
    chunk = (n + _CHUNKS - 1) // _CHUNKS
    for c in nb.prange(_CHUNKS):
        s = c * chunk
        e = min(n, s + chunk)
        V = np.zeros((k, k))
        G = np.empty((k, _BLOCK))
        hi = np.empty(_BLOCK)
        tg = np.empty(_BLOCK)  # argmax as float64: same lanes as hi
        nl = np.empty(_BLOCK, np.int32)
        m = 0
        hh = u64(0)
        for s0 in range(s, e, _BLOCK):
            w = min(e, s0 + _BLOCK) - s0
            # G = (XD)ᵀ of the block: the ones column first, then three
            # coordinates per sweep over G (a third of the loads and stores).
            for a in range(k):
                g = G[a]
                da = D[k - 1, a]
                for r in range(w):
                    g[r] = da
            j = 0
            while j + 3 <= k - 1:
                x0 = Xt[j, s0:s0 + w]
                x1 = Xt[j + 1, s0:s0 + w]
                x2 = Xt[j + 2, s0:s0 + w]
                for a in range(k):
                    g = G[a]
                    d0, d1, d2 = D[j, a], D[j + 1, a], D[j + 2, a]
                    for r in range(w):
                        g[r] += d0 * x0[r] + d1 * x1[r] + d2 * x2[r]
                j += 3
            while j < k - 1:
                x0 = Xt[j, s0:s0 + w]
                for a in range(k):
                    g = G[a]
                    d0 = D[j, a]
                    for r in range(w):
                        g[r] += d0 * x0[r]
                j += 1
            # first maximum of each row, vectorised over the block
            g = G[0]
            for r in range(w):
                hi[r] = g[r]
                tg[r] = 0.0
            for a in range(1, k):
                g = G[a]
                fa = float(a)
                for r in range(w):
                    v = g[r]
                    b = v > hi[r]
                    hi[r] = v if b else hi[r]
                    tg[r] = fa if b else tg[r]
            for r in range(w):
                i = s0 + r
                lab = labels[i]
                cur = G[lab, r]
                t = np.int32(tg[r]) if cur < hi[r] - tol else lab
                nl[r] = t
                out[i] = t
                if t != lab:
                    m += 1
                    hh += weight(i) * (u64(t) - u64(lab))  # wraps mod 2**64
                if want_margin:
                    other = -np.inf
                    for a in range(k):
                        if a != lab and G[a, r] > other:
                            other = G[a, r]
                    margin[i] = (cur - other) / l1[i]
            if new_sums:  # CᵀX of the new labels
                for r in range(w):
                    t = nl[r]
                    for jj in range(k - 1):
                        V[t, jj] += Xt[jj, s0 + r]
                    V[t, k - 1] += 1.0
            else:  # Σ (e_new − e_old) xᵢᵀ over the moved rows
                for r in range(w):
                    i = s0 + r
                    t = nl[r]
                    lab = labels[i]
                    if t != lab:
                        for jj in range(k - 1):
                            x = Xt[jj, i]
                            V[t, jj] += x
                            V[lab, jj] -= x
                        V[t, k - 1] += 1.0
                        V[lab, k - 1] -= 1.0
        Vp[c] = V
        moved[c] = m
        hd[c] = hh
    Vt = np.zeros((k, k))
    mt = 0
    ht = u64(0)
    for c in range(_CHUNKS):
        Vt += Vp[c]
        mt += moved[c]
        ht += hd[c]
    return mt, Vt, ht
