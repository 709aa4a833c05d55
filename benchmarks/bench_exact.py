"""Benchmark the exact 2-D DMI-clustering solver (``dmi_lib.exact.cone_partition``).

Times the full call (``prepare`` + solver + result) at several ``n`` on three kinds of
data, takes the median of ``--repeats`` runs, fits the scaling exponent
``time ∝ n^p`` by least squares on log-log, and reports references timed in the
same run (the machine is shared and noisy, so ratios matter more than seconds):

* ``argsort``: ``np.argsort`` of ``n`` random angles — the sort the solver cannot
  avoid, an O(n log n) yardstick (the target: ``exact-2d`` within 5x of it);
* ``kmeans``: scikit-learn ``KMeans(n_clusters=3, n_init=10)`` on the same data
  (``--kmeans``; slow at 10⁶ rows).

Peak memory (tracemalloc, per input size) is measured by ``benchmarks/bench_memory.py``.

Usage::

    .venv/bin/python benchmarks/bench_exact.py
    .venv/bin/python benchmarks/bench_exact.py --sizes 10000 100000 1000000 \
        --kinds dirichlet-3opt --repeats 5
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from dmi_lib.exact import cone_partition


def make_data(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "gauss-2d":  # random 2-D points
        return rng.normal(size=(n, 2))
    if kind == "dirichlet-3opt":  # 3-option answer distributions, all distinct
        return rng.dirichlet(np.ones(3), size=n)
    if kind == "crowd20-3opt":  # shares of 20 answers per task: many duplicate rows
        p = rng.dirichlet(np.ones(3) * 2, size=n)
        return rng.multinomial(20, p) / 20.0
    raise ValueError(kind)


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--kinds", nargs="+", default=["gauss-2d", "dirichlet-3opt", "crowd20-3opt"]
    )
    parser.add_argument("--kmeans", action="store_true", help="time the KMeans reference")
    args = parser.parse_args(argv)
    args.no_kmeans = not args.kmeans

    if not args.no_kmeans:
        from sklearn.cluster import KMeans

    rng = np.random.default_rng(args.seed)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"median of {args.repeats} runs; times in seconds; load average {load} (1, 5, 15 min)")
    header = (
        f"{'data':<16}{'n':>8}{'rays':>8}{'exact-2d':>11}{'argsort':>9}"
        f"{'ratio':>7}{'kmeans':>9}{'ratio':>7}"
    )
    print(header)
    print("-" * len(header))
    for kind in args.kinds:
        ns, ts = [], []
        for n in args.sizes:
            A = make_data(kind, n, rng)
            res = cone_partition(A)  # warm-up, and the ray count
            t = median_time(lambda: cone_partition(A), args.repeats)
            keys = rng.uniform(0, 2 * np.pi, size=n)
            t_sort = median_time(lambda: np.argsort(keys), args.repeats)
            if args.no_kmeans:
                t_km, km_txt, kmr_txt = float("nan"), f"{'-':>9}", f"{'-':>7}"
            else:
                km = KMeans(n_clusters=3, n_init=10, random_state=0)
                t_km = median_time(lambda: km.fit(A), args.repeats)
                km_txt, kmr_txt = f"{t_km:9.4f}", f"{t / t_km:7.2f}"
            print(
                f"{kind:<16}{n:>8}{res.info['n_rays']:>8}{t:11.4f}{t_sort:9.4f}"
                f"{t / t_sort:7.2f}{km_txt}{kmr_txt}"
            )
            ns.append(n)
            ts.append(t)
        if len(ns) >= 2:
            p = np.polyfit(np.log(ns), np.log(ts), 1)[0]
            print(f"{kind:<16} scaling exponent p (time ∝ n^p): {p:.2f}")
        print()


if __name__ == "__main__":
    main()
