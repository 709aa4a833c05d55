"""Per-iteration time of k-cofactors (Algorithm 2) against scikit-learn's Lloyd k-means.

Run it from the repository root as

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/bench_kcofactors.py

``OPENBLAS_CORETYPE`` / ``OPENBLAS_L2_SIZE``, when set, pin OpenBLAS to a generic
kernel and slow numpy's matrix products; the script prints the kernel threadpoolctl
reports so that a table can be read with its setting.  The machine may be shared
and noisy: every repeat times scikit-learn and k-cofactors back to back on the same
data, and the table reports medians over repeats and the ratio of the medians.

What is timed, on ``n`` points in ``d`` dimensions drawn from a mixture of
``k = d + 1`` overlapping Gaussians (so both methods have ``k`` clusters):

* k-cofactors, the paper's batch phase (``_Engine.batch``, as ``k_cofactors`` runs
  it, from the paper's initialisation): each iteration is the assignment
  ``C ← idxmax(ÃD)`` with the paper's tie rule, the update of ``CᵀÃ`` from the rows
  that moved, ``D = (CᵀÃ)⁻¹`` and the cycle check.  ``ms/it`` is the phase's time
  divided by its iterations; late iterations are cheaper because margin bounds
  certify most rows (as in Hamerly's / Elkan's k-means).  ``1st it`` is the first
  iteration alone (every row scanned).
* scikit-learn, one Lloyd iteration: ``KMeans(algorithm="lloyd", n_init=1, tol=0,
  init=<fixed centres>)`` fitted with ``max_iter=M`` and ``max_iter=1``; the time
  difference divided by the difference in ``n_iter_`` (this removes input checks
  and set-up; Lloyd's iterations all cost the same).

Then one full run of each to convergence (``k_cofactors(X)`` with its defaults,
``KMeans`` with its default ``tol`` from the same centres): iterations, single-row
moves of k-cofactors' finishing ascent and its passes, whether the batch phase
cycled or met a singular step, and wall time.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np


def blas_report() -> str:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover
        return "threadpoolctl not installed"
    rows = []
    for lib in threadpool_info():
        if lib.get("user_api") == "blas":
            rows.append(f"{lib.get('internal_api')} {lib.get('version')} "
                        f"kernel={lib.get('architecture')} "
                        f"threads={lib.get('num_threads')} "
                        f"({os.path.basename(lib.get('filepath', ''))})")
    return "; ".join(rows) or "no BLAS found"


def make_data(n: int, d: int, rng) -> np.ndarray:
    k = d + 1
    centres = rng.normal(size=(k, d)) * 2.0
    return centres[rng.integers(k, size=n)] + rng.normal(size=(n, d))


def time_sklearn(X, centres, max_iter):
    from sklearn.cluster import KMeans

    km = KMeans(n_clusters=len(centres), algorithm="lloyd", n_init=1, tol=0.0,
                init=centres, max_iter=max_iter)
    t0 = time.perf_counter()
    km.fit(X)
    return time.perf_counter() - t0, km.n_iter_


def time_kcofactors_batch(problem, max_iter):
    """Seconds for the first batch iteration, for the whole batch phase, and its
    iteration count and flags."""
    from dmi_lib import kcofactors as kc

    with kc._workers(problem.n) as (pool, block):  # as k_cofactors sets it up
        eng = kc._Engine(problem, pool, block)
        st = eng.state(kc._paper_init(problem))
        if st.D is None:  # the paper's start can leave a cluster empty in high d
            st = eng.state(eng.make_nonsingular(st.labels)[0])
        eng.label_hash(st.labels)  # build the fingerprint weights outside the timing
        t0 = time.perf_counter()
        eng.batch(st, 1, {})
        first = time.perf_counter() - t0
        info = {"cycled": False, "singular_step": False, "batch_converged": False}
        t0 = time.perf_counter()
        eng.batch(st, max_iter, info)
        return first, time.perf_counter() - t0, info["batch_iterations"], info


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--dims", type=int, nargs="+", default=[2, 4, 9])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--iters", type=int, default=11,
                    help="M: scikit-learn iterations per timed run")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    from dmi_lib import core
    from dmi_lib.kcofactors import k_cofactors

    env = {v: os.environ.get(v, "<unset>") for v in ("OPENBLAS_CORETYPE",
                                                      "OPENBLAS_L2_SIZE")}
    print(f"python {platform.python_version()}, numpy {np.__version__}, "
          f"{os.cpu_count()} CPUs; env {env}")
    print(f"BLAS: {blas_report()}")
    print(f"n = {args.n}, repeats = {args.repeats}, scikit-learn M = {args.iters}")
    head = (f"{'d':>2} {'k':>2} | {'kcof ms/it':>10} {'1st it':>7} {'sk ms/it':>8} "
            f"{'ratio':>5} | {'its':>4} {'moves':>7} {'passes':>6} {'cycled':>6} "
            f"{'singular':>8} {'kcof s':>7} | {'km its':>6} {'km s':>6}")
    print(head)
    print("-" * len(head))
    from sklearn.cluster import KMeans

    for d in args.dims:
        rng = np.random.default_rng(args.seed + d)
        X = make_data(args.n, d, rng)
        k = d + 1
        centres = X[rng.choice(args.n, size=k, replace=False)]
        problem = core.prepare(X)
        assert problem.k == k
        kc_t, kc_first, km_t = [], [], []
        for _ in range(args.repeats):
            t_long, it_long = time_sklearn(X, centres, args.iters)
            t_one, it_one = time_sklearn(X, centres, 1)
            if it_long > it_one:
                km_t.append((t_long - t_one) / (it_long - it_one))
            first, total, its, _ = time_kcofactors_batch(problem, 300)
            kc_first.append(first)
            if its:
                kc_t.append(total / its)
        kc_ms = 1e3 * float(np.median(kc_t)) if kc_t else float("nan")
        first_ms = 1e3 * float(np.median(kc_first))
        km_ms = 1e3 * float(np.median(km_t)) if km_t else float("nan")
        t0 = time.perf_counter()
        res = k_cofactors(X)
        kc_total = time.perf_counter() - t0
        t0 = time.perf_counter()
        km = KMeans(n_clusters=k, algorithm="lloyd", n_init=1, init=centres).fit(X)
        km_total = time.perf_counter() - t0
        print(f"{d:>2} {k:>2} | {kc_ms:>10.1f} {first_ms:>7.1f} {km_ms:>8.1f} "
              f"{kc_ms / km_ms:>5.2f} | {res.info['batch_iterations']:>4} "
              f"{res.info['single_moves']:>7} {res.info['single_move_passes']:>6} "
              f"{str(res.cycled):>6} {str(res.info['singular_step']):>8} "
              f"{kc_total:>7.2f} | {km.n_iter_:>6} {km_total:>6.2f}", flush=True)
    print("ratio = kcof ms/it / sk ms/it (medians over repeats; target <= 1.0)")


if __name__ == "__main__":  # pragma: no cover
    main()
