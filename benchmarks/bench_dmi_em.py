"""Timing of DMI-EM against a fully run Dawid–Skene on the largest shipped data set.

The largest multi-task set shipped in ``dmi_lib/data`` by number of answers is
``dog`` (807 tasks, 109 workers, 4 options, 8,070 answers).  In the same run, with
medians over ``--repeat`` runs (CPU time of this process, so other jobs on the machine
count less than in wall time):

* ``dmi-em`` — :func:`dmi_lib.extras.dmi_em.dmi_em` (DMI-clustering start, EM to its own
  convergence test), without gold and with 10 gold tasks;
* ``DS (crowd-kit, N iterations)`` — crowd-kit's ``DawidSkene(n_iter=N, tol=-inf)``,
  the fully run peer of book chapter 13 (needs crowd-kit: ``python3 dev.py setup``);
* ``DS (own EM)`` — :func:`dmi_book.studies.fair_peers.own_dawid_skene`, the same
  model run to a relative change of ``1e-13``.

The target is DMI-EM in at most twice the fully run DawidSkene's time.

Usage::

    .venv/bin/python benchmarks/bench_dmi_em.py [--dataset dog] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from dmi_lib.extras.crowd_data import load_dataset
from dmi_lib.extras.dmi_em import dmi_em
from dmi_book.studies.fair_peers import DS_FULL, full_ds, own_dawid_skene


def cpu_median(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", default="dog")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    d = load_dataset(args.dataset)
    ans = d.answers[["task", "worker", "label"]]
    gold = d.gold.iloc[:10]
    print(
        f"{args.dataset}: {ans['task'].nunique()} tasks, {ans['worker'].nunique()} workers, "
        f"{len(d.options)} options, {len(ans)} answers; median CPU s over {args.repeat} runs"
    )
    runs = {
        "dmi-em": lambda: dmi_em(ans, options=d.options, random_state=0),
        "dmi-em, 10 gold": lambda: dmi_em(ans, gold=gold, options=d.options, random_state=0),
        "DS (own EM)": lambda: own_dawid_skene(ans, d.options),
        DS_FULL: lambda: full_ds(ans),
    }
    times = {name: cpu_median(fn, args.repeat) for name, fn in runs.items()}
    for name, t in times.items():
        print(f"{name:32s} {t:8.3f} s   {t / times[DS_FULL]:6.2f} x {DS_FULL}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
