"""Timing of :func:`dmi_lib.tabular.aggregate` on a synthetic long table.

n tasks × r answers each, C options; every task's answers are drawn from a Dirichlet
answer distribution (seeded).  The reference, timed in the same run, is a plain
pandas majority vote (``value_counts`` + ``idxmax``, crowd-kit's recipe), so the
ratios are comparable across noisy runs.  Medians over ``--repeat`` runs.

Usage::

    .venv/bin/python benchmarks/bench_aggregate.py --tasks 100000 --answers 10 \
        --options 2 3 4 --methods plurality surprisingly-popular dmi dmi-validated

``--gold m`` (default 10) passes a gold Series for the first ``m`` tasks (their most
frequent answer: for timing only) to the methods that use gold (``dmi``,
``dmi-practical``, ``dmi-validated``).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd

from dmi_lib.tabular import aggregate
from dmi_lib.answers import answer_matrix


def make_table(n: int, r: int, C: int, seed: int = 0, n_workers: int = 1000):
    """Long table with ``r`` distinct workers per task (no duplicate pairs)."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.full(C, 0.5), size=n)
    # Inverse-CDF sampling of r labels per task, vectorised.
    u = rng.random((n, r))
    labels = (u[:, :, None] > np.cumsum(P, axis=1)[:, None, :]).sum(axis=2)
    labels = np.minimum(labels, C - 1)
    tasks = np.repeat(np.arange(n), r)
    # Worker j of task t: (7t + 131j) mod W, distinct over j < W / gcd(131, W).
    workers = (7 * tasks + 131 * np.tile(np.arange(r), n)) % n_workers
    return pd.DataFrame({"task": tasks, "worker": workers, "label": labels.ravel()})


def pandas_mv(df: pd.DataFrame) -> pd.Series:
    """Reference: crowd-kit's majority vote recipe in plain pandas."""
    scores = df[["task", "label"]].value_counts()
    return scores.unstack("label", fill_value=0).idxmax(axis="columns")


def timeit(fn, repeat: int):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", type=int, nargs="+", default=[100_000])
    ap.add_argument("--answers", type=int, default=10)
    ap.add_argument("--options", type=int, nargs="+", default=[2, 3, 4])
    ap.add_argument("--methods", nargs="+", default=["plurality", "surprisingly-popular", "dmi"])
    ap.add_argument(
        "--dmi-method", default="auto", help="solver for method 'dmi': auto, exact, k-cofactors"
    )
    ap.add_argument(
        "--gold", type=int, default=10, help="gold tasks given to the DMI methods (timing only)"
    )
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    print(f"{'n':>8} {'C':>2} {'step':<24} {'median s':>9} {'vs pandas MV':>12}")
    for n in args.tasks:
        for C in args.options:
            df = make_table(n, args.answers, C, seed=args.seed)
            ref = timeit(lambda: pandas_mv(df), args.repeat)
            print(f"{n:>8} {C:>2} {'pandas MV (reference)':<24} {ref:9.3f} {1.0:12.2f}")
            t = timeit(lambda: answer_matrix(df), args.repeat)
            print(f"{n:>8} {C:>2} {'answer_matrix':<24} {t:9.3f} {t / ref:12.2f}")
            first = df[df["task"] < args.gold]
            gold = first.groupby("task")["label"].agg(lambda x: x.value_counts().idxmax())
            for m in args.methods:
                kw = {"dmi_method": args.dmi_method} if m == "dmi" else {}
                if m.startswith("dmi") and args.gold:
                    kw["gold"] = gold
                label = m if m != "dmi" else f"dmi ({args.dmi_method})"
                t = timeit(lambda: aggregate(df, m, random_state=0, **kw), args.repeat)
                print(f"{n:>8} {C:>2} {label:<24} {t:9.3f} {t / ref:12.2f}")


if __name__ == "__main__":
    main()
