"""Tests for the paths k-cofactors takes on large inputs, exercised on small ones by
small :class:`~dmi_lib._kc_engine.KCOptions`: starts run on a sample of the rows,
the watched rows scanned by margin, the uncertified scans of stale watched rows,
and the problem's passes by blocks (``Ã`` never formed).

The references are independent of the code under test: the Theorem's two
characterisations of a local maximum through ``core``'s checks, numpy's ``argmax``
and plain sums over a formed ``Ã``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dmi_lib import _kc_engine, problem
from dmi_lib._kc_engine import Bounds, Engine, KCOptions, paper_init, sp_init
from dmi_lib.kcofactors import _ascent_from_sample, _k_cofactors_result

FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: Starts on a sample of 24 rows from 40 rows on.
SAMPLED = KCOptions(subsample_min_rows=40, subsample_rows=24)


def mixture(seed, d, n):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(d + 1, d)) * 3.0
    return centres[rng.integers(d + 1, size=n)] + rng.normal(size=(n, d))


def check_local_max(A, res):
    assert res.converged
    assert problem.is_local_maximum(A, res.labels)
    assert problem.is_linearly_partitioned(A, res.labels)
    assert np.isclose(res.log_score, problem.log_dmi_score(A, res.labels), atol=1e-9)


@FAST
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 4), n=st.integers(40, 160))
def test_sampled_starts_end_at_a_local_maximum_of_all_rows(seed, d, n):
    A = mixture(seed, d, n)
    res = _k_cofactors_result(problem.prepare(A), options=SAMPLED, n_init=3, random_state=seed)
    check_local_max(A, res)
    info = res.info
    if info["sample_rows"]:  # else the sample missed a direction: all rows
        assert info["sample_rows"] == 24
    scores = info["restart_log_scores"]
    assert len(scores) == len(info["restarts"]) == 3
    assert info["best_restart"] == int(np.argmax(scores))
    assert [r["init"] for r in info["restarts"]] == ["paper", "random", "random"]
    assert info["init"] == info["restarts"][info["best_restart"]]["init"]


@FAST
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 4), n=st.integers(40, 160))
def test_after_a_sampled_start_the_ascent_alone_reaches_a_local_maximum(seed, d, n):
    """The run on all rows after a sampled start makes no batch iteration; its
    passes and moves are those of the result, which is a local maximum."""
    A = mixture(seed, d, n)
    res = _k_cofactors_result(problem.prepare(A), options=SAMPLED, random_state=seed)
    check_local_max(A, res)
    if res.info["sample_rows"]:
        assert res.info["batch_iterations"] == 0
        assert not (res.info["cycled"] or res.info["batch_converged"])
        assert res.n_iter == res.info["single_move_passes"]


@pytest.mark.parametrize("seed", range(6))
def test_the_ascent_from_a_sample_repairs_a_singular_start(seed):
    """A sample's ``D`` whose partition of all rows leaves clusters empty (here:
    every row in one cluster) is repaired, then climbed to a local maximum."""
    A = mixture(seed, 1 + seed % 3, 120)
    p = problem.prepare(A)
    eng = Engine(p, SAMPLED)
    final, info = _ascent_from_sample(eng, np.zeros(p.n, dtype=eng.ldtype), 300)
    assert info.repaired and info.repair_moves >= p.k - 1
    assert info.converged and info.batch_iterations == 0
    assert np.bincount(final.labels, minlength=p.k).min() > 0
    assert problem.is_local_maximum(A, final.labels)
    assert problem.is_linearly_partitioned(A, final.labels)


def test_a_sample_that_misses_a_direction_falls_back_to_all_rows():
    """300 rows on a line and one row off it: a sample of 24 rows almost never
    spans the plane; the starts then run on all rows."""
    rng = np.random.default_rng(0)
    A = np.column_stack([rng.normal(size=300), np.zeros(300)])
    A[137, 1] = 1.0
    eng = Engine(problem.prepare(A), SAMPLED)
    assert eng.sample() is None
    res = _k_cofactors_result(problem.prepare(A), options=SAMPLED, n_init=2, random_state=0)
    assert res.info["sample_rows"] == 0
    check_local_max(A, res)


def test_partition_is_numpys_first_argmax():
    A = mixture(2, 4, 3000)
    eng = Engine(problem.prepare(A), KCOptions(block=256))
    D = np.linalg.inv(eng.Xt[:, :5] @ np.random.default_rng(0).normal(size=(5, 5)))
    expected = np.argmax(eng.Xt.T @ D, axis=1)
    assert np.array_equal(eng.partition(D), expected)
    D[:, 1] = D[:, 0]  # exact ties between clusters 0 and 1: the first wins
    assert not np.any(eng.partition(D) == 1)


@pytest.mark.parametrize("columns_of_A", [True, False])
def test_passes_by_blocks_match_the_formed_tilde(columns_of_A):
    """Above one block of rows ``Ã`` is not formed: its mean, smallest entry, cluster
    sums and the starts, computed by blocks, match those over ``Ã`` itself."""
    rng = np.random.default_rng(3)
    n = (1 << 16) + 4321
    if columns_of_A:  # answer shares: Ã is a view of A
        A = rng.dirichlet([1, 1, 1], size=n)
    else:  # Ã = [A 1]: a copy, made only on access
        A = rng.normal(size=(n, 2)) + 0.5
    p = problem.prepare(A)
    w = rng.uniform(0.5, 2.0, size=n)
    pw = problem.prepare(A, sample_weight=w)
    labels = rng.integers(0, p.k, size=n)
    rows = np.sort(rng.choice(n, size=500, replace=False))
    got = {
        "mean": p.tilde_mean(),
        "wmean": pw.tilde_mean(),
        "umean": pw.tilde_mean(weighted=False),
        "min": p.tilde_min(),
        "sums": p.cluster_sums(labels),
        "wsums": pw.cluster_sums(labels),
        "paper": paper_init(p),
        "paper_rows": paper_init(p, rows),
        "sp": sp_init(p),
    }
    At = p.A_tilde  # formed now (or the view)
    assert "A_tilde" in p.__dict__
    assert np.allclose(got["mean"], At.mean(axis=0), rtol=1e-13, atol=0)
    assert np.allclose(got["wmean"], w @ At / w.sum(), rtol=1e-13, atol=0)
    assert np.allclose(got["umean"], At.mean(axis=0), rtol=1e-13, atol=0)
    assert got["min"] == At.min()
    M = np.stack([np.bincount(labels, weights=At[:, j], minlength=p.k) for j in range(p.k)], 1)
    Mw = np.stack([np.bincount(labels, weights=w * At[:, j], minlength=p.k) for j in range(p.k)], 1)
    assert np.allclose(got["sums"], M, rtol=1e-12)
    assert np.allclose(got["wsums"], Mw, rtol=1e-12)
    ref = np.argmax(At - At.mean(axis=0), axis=1)
    assert np.array_equal(got["paper"], ref)
    assert np.array_equal(got["paper_rows"], ref[rows])
    if columns_of_A:
        assert np.array_equal(got["sp"], np.argmax(At / At.mean(axis=0), axis=1))
    else:  # Ã has negative entries: sp falls back to the paper's start
        assert np.array_equal(got["sp"], ref)


@FAST
@given(
    seed=st.integers(0, 2**32 - 1),
    n_touched=st.integers(0, 30),
    drift=st.floats(0.0, 0.2),
)
def test_the_watched_rows_a_pass_scans_are_exactly_the_uncertified_ones(seed, n_touched, drift):
    """``Bounds.rows``: every watched row whose margin does not exceed ``2δ + tol``
    and every row touched since the reset, each once; the rows it leaves out have
    a margin above ``2δ + tol`` (so they cannot change cluster)."""
    rng = np.random.default_rng(seed)
    n = 500
    margin = rng.exponential(0.1, size=n)
    Xt = rng.normal(size=(3, n))
    bounds = Bounds(n, KCOptions(watch_min=50, watch_fraction=4))
    D0 = rng.normal(size=(3, 3))
    bounds.reset(D0, margin, Xt)
    touched = rng.integers(0, n, size=n_touched)
    bounds.touch(touched[: n_touched // 2])
    bounds.touch(touched[n_touched // 2 :])
    D = D0 + drift * rng.uniform(-1, 1, size=(3, 3))
    tol = 1e-3
    segments = bounds.rows(D, tol)
    rows = np.concatenate([idx for idx, _ in segments])
    assert len(set(rows.tolist())) == rows.size  # no row twice
    bound = 2 * np.abs(D - D0).max() + tol
    watched = set(np.flatnonzero(margin <= bounds.theta).tolist())
    expected = {i for i in watched if margin[i] <= bound} | set(touched.tolist())
    assert set(rows.tolist()) == expected
    for idx, Xs in segments:  # the gathered rows are the rows' columns of Xt
        if Xs is not None:
            assert np.array_equal(Xs, Xt[:, idx])
    every = np.concatenate([idx for idx, _ in bounds.rows(None, tol)])
    assert set(every.tolist()) == watched | set(touched.tolist())


def test_uncertified_scans_of_stale_watched_rows_still_end_at_a_local_maximum(monkeypatch):
    """With tiny watch sets the bounds go stale at once; the ascent then scans the
    stale watched rows first, and declares a local maximum only after a certified
    pass.  The scans happen (counted) and every result is a local maximum."""
    stale = []
    rows = Bounds.rows

    def spy(self, D, tol):
        stale.append(D is None)
        return rows(self, D, tol)

    monkeypatch.setattr(Bounds, "rows", spy)
    for seed in range(16):
        d = (2, 3, 5)[seed % 3]
        rng = np.random.default_rng(seed)
        A = mixture(seed, d, 600) if seed % 2 else rng.normal(size=(600, d))
        for scan in (True, False):
            # a random start and no patience: the ascent does most of the work
            opts = KCOptions(batch_patience=1, watch_min=8, watch_fraction=64)
            monkeypatch.setattr(_kc_engine, "SCAN_STALE_WATCH", scan)
            res = _k_cofactors_result(
                problem.prepare(A), options=opts, init="random", random_state=seed
            )
            check_local_max(A, res)
    assert any(stale)


def test_sampled_runs_need_fewer_passes_over_all_rows():
    """What the sample is for: on a mixture of 5 Gaussians in 4-D the run on all
    rows after the sample's start makes fewer batch iterations and passes than the
    run from the paper's start on all rows (same data, same local maximum
    criterion)."""
    A = mixture(11, 4, 20_000)
    p = problem.prepare(A)
    plain = _k_cofactors_result(p, options=KCOptions(), n_init=1)
    sampled = _k_cofactors_result(
        p, options=KCOptions(subsample_min_rows=10_000, subsample_rows=2_000), n_init=1
    )
    check_local_max(A, plain)
    check_local_max(A, sampled)
    assert sampled.info["sample_rows"] == 2_000
    assert sampled.n_iter < plain.n_iter


@FAST
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 3), n=st.integers(40, 120))
def test_weighted_sampled_starts_end_at_a_local_maximum(seed, d, n):
    """Weights and a sample: no move of a whole weighted row raises ``|det(CᵀWÃ)|``
    (the determinant lemma's factors, from a plain inverse)."""
    A = mixture(seed, d, n)
    w = np.random.default_rng(seed).uniform(0.2, 5.0, size=n)
    p = problem.prepare(A, sample_weight=w)
    res = _k_cofactors_result(p, options=SAMPLED, n_init=2, random_state=seed)
    At = p.A_tilde
    D = np.linalg.inv(np.eye(p.k)[res.labels].T @ (At * w[:, None]))
    G = At @ D
    cur = G[np.arange(n), res.labels]
    F = 1.0 + w[:, None] * (G - cur[:, None])
    assert np.all(np.abs(F) <= 1 + 1e-7)
    assert res.info["sample_rows"] in (0, 24)
