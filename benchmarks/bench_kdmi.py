"""Benchmark the K-DMI mechanism (Algorithm 4) and the crowd simulator.

Default instance: 10⁴ agents, 2·10³ tasks, C = 3 options, 20 tasks per agent
(~2·10⁵ reports); tasks drawn from C ground-truth worlds blurred by noise; 70% of
agents truthful, 20% random mixed strategies, 10% always report option 0.

Prints median wall-clock times over ``--repeats`` runs of

* the simulation (``simulate_crowd``) of this instance, and of 10⁵ tasks / 10⁶
  reports (``--large-sim``);
* the reference: one DMI-clustering of the full answer matrix (``dmi_cluster``),
  which K-DMI must do anyway — the ratio K-DMI / reference is less sensitive to
  the load of this shared machine than the seconds;
* ``kdmi_mechanism(method="warm")``, with how many agents needed the local search
  (each agent starts from the partition learned without her group of agents, 8 extra
  DMI-clusterings, and her ``D*_{-i}`` is rebuilt from her ``T_{-i}`` rows: this
  makes payments exactly invariant to her relabelling; measured on this machine,
  3.9 s with a pass over every agent's rows, 0.8 s with exact sums of all rows
  minus hers; 0.51 s for the former start from the full-data optimum, whose
  payments could change when an agent relabelled her answers);
* with ``--threads N``: the same through ``executor=ThreadPoolExecutor(N)``;
* with ``--compare-exact N``: ``method="exact"`` on N sampled agents, its time per
  agent, and how often its payments and partitions agree with ``"warm"``;
* with ``--dmi``: the DMI-Mechanism on the same reports.

Usage::

    python benchmarks/bench_kdmi.py [--agents 10000] [--tasks 2000] [--options 3]
        [--tasks-per-agent 20] [--noise 0.3] [--repeats 5] [--compare-exact 40]
        [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from dmi_lib.problem import assign, cluster_sums
from dmi_lib.core import dmi_cluster
from dmi_lib.kdmi import kdmi_mechanism
from dmi_lib.mechanisms import dmi_mechanism
from dmi_lib.simulation import always, random_states, random_strategy, simulate_crowd, truthful


def _timed(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, out


def _crowd(args, seed):
    rng = np.random.default_rng(seed)
    C = args.options
    states = random_states(
        args.tasks, C, kind="mixture", accuracy=args.accuracy, noise=args.noise, random_state=rng
    )
    n_truth = int(round(0.7 * args.agents))
    n_mixed = int(round(0.2 * args.agents))
    S = np.concatenate(
        [
            np.broadcast_to(truthful(C), (n_truth, C, C)),
            np.stack([random_strategy(C, rng) for _ in range(n_mixed)]).reshape(-1, C, C),
            np.broadcast_to(always(C, 0), (args.agents - n_truth - n_mixed, C, C)),
        ]
    )
    return states, S


def _log_score_on(A, D, columns, keep):
    """log|det(CᵀÃ)| of the clustering that partition D induces on A[keep]."""
    lab = assign(A[keep], D, columns)
    At = np.hstack([A[keep], np.ones((int(keep.sum()), 1))])[:, list(columns)]
    return np.linalg.slogdet(cluster_sums(At, lab, D.shape[0]))[1]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--agents", type=int, default=10_000)
    p.add_argument("--tasks", type=int, default=2_000)
    p.add_argument("--options", type=int, default=3)
    p.add_argument("--tasks-per-agent", type=int, default=20)
    p.add_argument("--accuracy", type=float, default=0.7)
    p.add_argument("--noise", type=float, default=0.3)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument(
        "--compare-exact",
        type=int,
        default=0,
        metavar="N",
        help="also run method='exact' on N sampled agents",
    )
    p.add_argument(
        "--large-sim", action="store_true", help="also time simulating 10^5 tasks / 10^6 reports"
    )
    p.add_argument("--dmi", action="store_true", help="also time dmi_mechanism")
    p.add_argument(
        "--threads",
        type=int,
        default=0,
        metavar="N",
        help="also time executor=ThreadPoolExecutor(N)",
    )
    args = p.parse_args(argv)

    states, S = _crowd(args, args.seed)
    print(
        f"instance: {args.agents} agents, {args.tasks} tasks, C = {args.options}, "
        f"{args.tasks_per_agent} tasks/agent, accuracy {args.accuracy}, noise "
        f"{args.noise}; {args.repeats} repeats; times are medians"
    )

    t_sim, _, rep = _timed(
        lambda: simulate_crowd(
            states, S, tasks_per_agent=args.tasks_per_agent, random_state=args.seed
        ),
        args.repeats,
    )
    print(f"simulate_crowd          {t_sim:8.3f} s   ({rep.n_reports} reports)")

    if args.large_sim:
        big_states = random_states(100_000, args.options, random_state=1)
        big_S = np.broadcast_to(truthful(args.options), (50_000, args.options, args.options))
        t_big, _, big = _timed(
            lambda: simulate_crowd(big_states, big_S, tasks_per_agent=20, random_state=1),
            args.repeats,
        )
        print(
            f"simulate_crowd (large)  {t_big:8.3f} s   ({big.n_reports} reports, "
            f"{big.n_tasks} tasks, {big.n_workers} agents)"
        )

    A, answered = rep.answer_matrix()
    A = A[answered]
    t_ref, _, ref = _timed(lambda: dmi_cluster(A), args.repeats)
    print(f"reference dmi_cluster   {t_ref:8.3f} s   (method {ref.method}, n = {A.shape[0]})")

    t_kdmi, all_t, res = _timed(lambda: kdmi_mechanism(rep, random_state=args.seed), args.repeats)
    print(
        f"kdmi_mechanism (warm)   {t_kdmi:8.3f} s   = {t_kdmi / t_ref:.1f} x reference;"
        f" runs: {', '.join(f'{t:.2f}' for t in all_t)}"
    )
    print(
        f"  paid {int(res.paid.sum())}/{rep.n_workers}; local search needed by "
        f"{int(res.local_search.sum())} agents ({int(res.n_moves.sum())} moves in all,"
        f" at most {int(res.n_moves.max(initial=0))} for one agent); exact fall-back "
        f"for {int(res.exact_fallback.sum())}"
    )
    if args.threads:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=args.threads) as pool:
            t_pool, _, res_pool = _timed(
                lambda: kdmi_mechanism(rep, random_state=args.seed, executor=pool), args.repeats
            )
        same = np.array_equal(res_pool.payments, res.payments, equal_nan=True)
        print(
            f"  with executor=ThreadPoolExecutor({args.threads}): {t_pool:8.3f} s; "
            f"payments identical: {same}"
        )
    groups = {
        "truthful": slice(0, int(round(0.7 * args.agents))),
        "random mixed": slice(int(round(0.7 * args.agents)), int(round(0.9 * args.agents))),
        "always 0": slice(int(round(0.9 * args.agents)), args.agents),
    }
    for name, sl in groups.items():
        pay = res.payments[sl]
        pay = pay[np.isfinite(pay)]
        if pay.size:
            print(
                f"  mean payment {name:13s} {pay.mean():9.3f} ± "
                f"{pay.std(ddof=1) / np.sqrt(pay.size) if pay.size > 1 else 0:.3f}"
                f"  ({pay.size} agents)"
            )

    if args.compare_exact:
        rng = np.random.default_rng(args.seed + 1)
        sample = np.sort(
            rng.choice(
                np.flatnonzero(res.paid),
                size=min(args.compare_exact, int(res.paid.sum())),
                replace=False,
            )
        )
        t0 = time.perf_counter()
        ex = kdmi_mechanism(rep, method="exact", random_state=args.seed, agents=sample)
        t_ex = time.perf_counter() - t0
        warm = kdmi_mechanism(rep, random_state=args.seed, agents=sample)
        same_pay = np.sum(warm.payments[sample] == ex.payments[sample])
        gaps = []
        for a in sample:
            keep = np.ones(A.shape[0], dtype=bool)
            rows = np.cumsum(answered) - 1
            keep[rows[rep.worker_tasks(int(a))]] = False
            gaps.append(
                _log_score_on(A, ex.partitions[a], ex.partition_columns[a], keep)
                - _log_score_on(A, warm.partitions[a], warm.partition_columns[a], keep)
            )
        gaps = np.array(gaps)
        print(
            f"exact on {sample.size} agents    {t_ex:8.3f} s   = {t_ex / sample.size:.3f} s"
            f" per agent (all {int(res.paid.sum())} agents: ~"
            f"{t_ex / sample.size * res.paid.sum():.0f} s)"
        )
        print(
            f"  warm == exact payments for {same_pay}/{sample.size} agents; "
            f"log-score gap exact - warm: max {gaps.max():.2e}, "
            f"{int(np.sum(gaps > 1e-9))} agents with gap > 1e-9"
        )

    if args.dmi:
        t_dmi, _, dres = _timed(
            lambda: dmi_mechanism(rep, random_state=args.seed), max(1, args.repeats // 2)
        )
        print(
            f"dmi_mechanism           {t_dmi:8.3f} s   (paid {int(dres.paid.sum())}, "
            f"{len(dres.pairs)} eligible pairs)"
        )


if __name__ == "__main__":
    main()
