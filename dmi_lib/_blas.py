"""One BLAS thread for the row-block products of large inputs.

The solvers pass over the rows in blocks of about 65,536 rows and multiply each
block by a small ``d × r`` or ``k × k`` matrix.  OpenBLAS threading such a product
costs more in synchronisation than it saves, and on a loaded machine it can be ten
times slower (measured on a loaded 2-core machine: a k-cofactors pass at
``k = 10``, ``n = 10⁶`` took 0.8-1 s with two BLAS threads instead of 0.08 s);
scikit-learn's Lloyd k-means runs its blocks on one BLAS thread for the same
reason.  Small inputs keep the caller's setting.
"""

from __future__ import annotations

from contextlib import contextmanager

from threadpoolctl import ThreadpoolController

#: From this many rows on, the row-block products run on one BLAS thread.
SINGLE_THREAD_MIN_ROWS = 1 << 16

_CONTROLLER = None


@contextmanager
def single_thread_blas(n: int, min_rows: float = SINGLE_THREAD_MIN_ROWS):
    """Limit BLAS to one thread inside the block when ``n >= min_rows``."""
    global _CONTROLLER
    if n < min_rows:
        yield
        return
    if _CONTROLLER is None:  # finding the BLAS libraries takes a while: once
        _CONTROLLER = ThreadpoolController()
    with _CONTROLLER.limit(limits=1, user_api="blas"):
        yield
