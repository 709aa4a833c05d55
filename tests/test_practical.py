"""Tests of dmi_lib.extras.practical: the beyond-the-paper DMI aggregation, the strategic-crowd
injections and the study helpers.  References: brute force over all namings, a
numerical integral, the paper's Corollary 3.4 on real binary data, hand-worked cases,
and properties over many seeds."""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad

from dmi_lib.aggregation import name_clusters, surprisingly_popular
from dmi_lib.core import dmi_cluster
from dmi_lib.extras.practical import (
    PracticalDMIResult,
    ValidatedDMIResult,
    log_gold_evidence,
    latent_class_mle,
    name_clusters_bayes,
    practical_dmi_aggregate,
    refine_multinomial,
    validated_dmi_aggregate,
)
from dmi_book.studies.attacks import cyclic_strategy, inject_low_effort, inject_strategy
from dmi_book.studies.real_crowds import (
    gold_masks,
    held_out_accuracy,
    load_study_datasets,
    plurality_random_ties_correct,
    to_reports,
    worker_accuracy,
)
from dmi_lib.tabular import aggregate
from dmi_lib.answers import answer_matrix


@functools.lru_cache(maxsize=None)
def _data(name):
    return load_study_datasets([name])[name]


def _counts_from_states(states, n_answers, rng):
    """Multinomial answer counts, one row per task state."""
    return np.stack([rng.multinomial(n_answers, p) for p in states])


# --------------------------------------------------------------------------- #
# name_clusters_bayes
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("a, m, C", [(0, 0, 2), (3, 3, 2), (2, 5, 3), (7, 9, 4), (0, 6, 5)])
def test_gold_evidence_matches_numerical_integral(a, m, C):
    val, _ = quad(lambda p: p**a * ((1 - p) / (C - 1)) ** (m - a), 1 / C, 1, epsabs=0, epsrel=1e-12)
    assert np.isclose(log_gold_evidence(a, m, C, None), np.log(val), rtol=1e-9)
    eps = 0.3
    assert np.isclose(
        log_gold_evidence(a, m, C, eps), a * np.log(1 - eps) + (m - a) * np.log(eps / (C - 1))
    )


def _posterior(names, default, labels, g, C, q, eps):
    """log prior + log likelihood of a naming (the model of the docstring)."""
    k = len(names)
    n_namings = math.perm(C, k)
    prior = np.log(q) if tuple(names) == tuple(default) else np.log((1 - q) / (n_namings - 1))
    known = g >= 0
    agree = int(np.sum(np.asarray(names)[labels[known]] == g[known]))
    return prior + log_gold_evidence(agree, int(known.sum()), C, eps)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10**6),
    C=st.integers(2, 4),
    n_gold=st.integers(0, 12),
    q=st.sampled_from([0.5, 0.9, 0.99]),
    eps=st.sampled_from([None, 0.1, 0.4]),
)
def test_bayes_naming_is_the_map_naming(seed, C, n_gold, q, eps):
    """Brute force over every injective naming: ours has the largest posterior."""
    rng = np.random.default_rng(seed)
    n = 14
    labels = np.r_[np.arange(C), rng.integers(0, C, n - C)]
    A = rng.dirichlet(np.ones(C), size=n)
    g = np.full(n, -1)
    idx = rng.choice(n, n_gold, replace=False)
    g[idx] = rng.integers(0, C, n_gold)
    ours = name_clusters_bayes(labels, A, gold=g, gold_error=eps, default_confidence=q)
    default = name_clusters(labels, A)
    best = max(
        _posterior(p, default, labels, g, C, q, eps) for p in itertools.permutations(range(C), C)
    )
    assert sorted(ours.tolist()) == list(range(C))
    assert np.isclose(_posterior(ours, default, labels, g, C, q, eps), best, rtol=0, atol=1e-9)


@pytest.mark.parametrize("C", [2, 3, 300])
def test_bayes_naming_decides_as_the_exact_count_of_namings(C):
    """The prior odds ``q (N - 1) / (1 - q)`` with ``N = C!/(C-k)!`` namings, which
    overflows a float from about 170 options on: the decision equals the one from
    the exact integer ``N`` (``math.log`` of a Python integer), on both sides of the
    threshold as the gold against the default grows."""
    rng = np.random.default_rng(C)
    n = 4 * C
    labels = np.arange(n) % C
    A = rng.random((n, C)) + 5 * np.eye(C)[labels]
    A /= A.sum(axis=1, keepdims=True)
    default = name_clusters(labels, A)
    outcomes = set()
    for q in (0.5, 0.9, 0.99):
        odds = math.log(q) - math.log1p(-q) + math.log(math.perm(C, C) - 1)
        for m in range(0, n + 1, max(1, n // 24)):
            g = np.full(n, -1)
            g[:m] = (default[labels[:m]] + 1) % C  # gold against the default names
            best = name_clusters(labels, A, gold=g)
            known = g >= 0
            evidence = log_gold_evidence(
                int(np.sum(best[labels[known]] == g[known])), m, C, None
            ) - log_gold_evidence(int(np.sum(default[labels[known]] == g[known])), m, C, None)
            want = best if evidence > odds else default
            ours = name_clusters_bayes(labels, A, gold=g, default_confidence=q)
            assert ours.tolist() == want.tolist(), (q, m)
            outcomes.add(ours.tolist() == default.tolist())
    assert outcomes == {True, False}  # both sides of the threshold were reached


def test_bayes_naming_reduces_to_default_and_to_gold():
    d = _data("dog")
    am = answer_matrix(d.answers)
    res = dmi_cluster(am.A, random_state=0)
    truth = am.options.get_indexer(d.gold.reindex(am.tasks).to_numpy())
    assert np.array_equal(name_clusters_bayes(res.labels, am.A), name_clusters(res.labels, am.A))
    # all 807 tasks gold: the gold evidence swamps any prior -> the paper's gold rule
    assert np.array_equal(
        name_clusters_bayes(res.labels, am.A, gold=truth),
        name_clusters(res.labels, am.A, gold=truth),
    )


def test_bayes_naming_binary_thresholds():
    """Default q = 0.9, binary: 2 gold votes against the default are not enough, 3
    are; with q = 0.8, 1 is not enough and 2 are."""
    A = [[0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.5, 0.5], [0.4, 0.6], [0.3, 0.7]]
    lab = [1, 1, 1, 0, 0, 0]
    assert name_clusters_bayes(lab, A).tolist() == [1, 0]
    assert name_clusters_bayes(lab, A, gold={4: 0, 5: 0}).tolist() == [1, 0]
    assert name_clusters_bayes(lab, A, gold={3: 0, 4: 0, 5: 0}).tolist() == [0, 1]
    assert name_clusters_bayes(lab, A, gold={5: 0}, default_confidence=0.8).tolist() == [1, 0]
    assert name_clusters_bayes(lab, A, gold={4: 0, 5: 0}, default_confidence=0.8).tolist() == [0, 1]
    # gold tasks that disagree with each other change nothing
    assert name_clusters_bayes(lab, A, gold={0: 0, 1: 0, 4: 0, 5: 0}).tolist() == [1, 0]
    # with a tiny prior confidence one vote decides; the paper's rule does too
    assert (
        name_clusters_bayes(lab, A, gold={5: 0}, default_confidence=0.51).tolist()
        == name_clusters(lab, A, gold={5: 0}).tolist()
        == [0, 1]
    )


def test_bayes_naming_errors():
    A = [[0.9, 0.1], [0.3, 0.7]]
    with pytest.raises(ValueError, match="gold_error must lie strictly between 0 and 0.5"):
        name_clusters_bayes([0, 1], A, gold={0: 0}, gold_error=0.5)
    with pytest.raises(ValueError, match="default_confidence must lie strictly between"):
        name_clusters_bayes([0, 1], A, default_confidence=1.0)
    with pytest.raises(TypeError, match="default_confidence must be a number"):
        name_clusters_bayes([0, 1], A, default_confidence="high")
    with pytest.raises(ValueError, match=r"gold\[1\] = 5 is out of range"):
        name_clusters_bayes([0, 1], A, gold=np.array([0, 5]))


# --------------------------------------------------------------------------- #
# refine_multinomial
# --------------------------------------------------------------------------- #
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), C=st.integers(2, 5))
def test_refinement_is_a_fixed_point_and_clamps_gold(seed, C):
    rng = np.random.default_rng(seed)
    n = 60
    N = rng.integers(0, 6, size=(n, C))
    N[:, 0] += 1  # every task has an answer
    init = rng.integers(0, C, n)
    gold = np.full(n, -1)
    gold[:5] = rng.integers(0, C, 5)
    lab, mu, pi, it, ok = refine_multinomial(N, init, gold=gold, smoothing=0.5)
    assert ok and it >= 1
    assert np.array_equal(lab[:5], gold[:5])
    assert np.allclose(mu.sum(axis=1), 1) and np.isclose(pi.sum(), 1)
    # mu and pi are the estimates of the final labels ...
    k = int(init.max()) + 1
    onehot = np.eye(k)[lab]
    assert np.allclose(pi, (onehot.sum(0) + 1) / (n + k))
    expect = onehot.T @ N + 0.5
    assert np.allclose(mu, expect / expect.sum(axis=1, keepdims=True))
    # ... and every free task is at its most probable class under them
    post = np.log(pi) + N @ np.log(mu).T
    free = gold < 0
    assert np.array_equal(lab[free], post[free].argmax(axis=1))


def test_refinement_equivariant_to_task_order():
    rng = np.random.default_rng(3)
    N = rng.integers(0, 8, size=(40, 3)) + np.eye(3, dtype=int)[rng.integers(0, 3, 40)]
    init = rng.integers(0, 3, 40)
    perm = rng.permutation(40)
    a = refine_multinomial(N, init)[0]
    b = refine_multinomial(N[perm], init[perm])[0]
    assert np.array_equal(a[perm], b)


def test_refinement_weighs_answer_counts():
    """Same shares, more answers: the class prior matters less for the bigger task.

    Classes: 0 (common, answers 90 % option 0) and 1 (rare, 50:50).  A task
    answered (2, 1) goes to the common class; (20, 10), with the same shares, to the
    class whose answer distribution fits 2:1 best.
    """
    base = np.array([[9, 1]] * 30 + [[5, 5]] * 4)
    init = np.r_[np.zeros(30, int), np.ones(4, int)]
    small = refine_multinomial(np.vstack([base, [2, 1]]), np.r_[init, 0])[0][-1]
    large = refine_multinomial(np.vstack([base, [20, 10]]), np.r_[init, 0])[0][-1]
    assert small == 0 and large == 1


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**6), C=st.integers(2, 4), k=st.integers(2, 4))
def test_latent_class_mle_climbs_and_stops_at_a_fixed_point(seed, C, k):
    rng = np.random.default_rng(seed)
    n = 50
    N = rng.integers(0, 5, size=(n, C))
    N[:, 0] += 1
    init = np.r_[np.arange(k), rng.integers(0, k, n - k)]
    lab, post, mu, pi, ll, ok = latent_class_mle(N, init, max_iter=20000)
    assert np.all(np.diff(ll) >= -1e-9 * np.abs(ll[:-1]))  # EM never goes down
    if not ok:
        # EM can crawl along a flat ridge: then it must at least have stalled
        assert ll[-1] - ll[-1000] < 1e-6 * abs(ll[-1])
        return
    assert np.allclose(post.sum(axis=1), 1) and np.array_equal(lab, post.argmax(1))
    # the returned parameters are the M-step of the returned posteriors (to tol)
    assert np.allclose(pi, (post.sum(0) + 1) / (n + k), atol=1e-8)
    expect = post.T @ N + 0.5
    assert np.allclose(mu, expect / expect.sum(axis=1, keepdims=True), atol=1e-8)
    # and the posteriors are Bayes' rule under them, computed directly
    joint = pi * np.prod(mu[None, :, :] ** N[:, None, :], axis=2)
    assert np.allclose(post, joint / joint.sum(axis=1, keepdims=True), atol=1e-7)


def test_latent_class_mle_recovers_sampled_classes():
    rng = np.random.default_rng(7)
    mu = np.array([[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])
    z = rng.choice(3, size=400, p=[0.5, 0.3, 0.2])
    N = np.stack([rng.multinomial(12, mu[c]) for c in z])
    start = N.argmax(axis=1)  # a rough start
    lab, _, mu_hat, pi_hat, _, ok = latent_class_mle(N, start)
    assert ok and np.mean(lab == z) > 0.97
    assert np.abs(mu_hat - mu).max() < 0.05 and np.abs(pi_hat - [0.5, 0.3, 0.2]).max() < 0.05


def test_latent_class_mle_errors():
    with pytest.raises(ValueError, match="labels must be non-negative, found -1 at position 1"):
        latent_class_mle([[1, 1], [2, 0]], [0, -1])
    with pytest.raises(ValueError, match="smoothing must be a positive number"):
        latent_class_mle([[1, 1], [2, 0]], [0, 1], smoothing=0)
    with pytest.raises(ValueError, match="^max_iter must be >= 1, got 0$"):
        latent_class_mle([[1, 1], [2, 0]], [0, 1], max_iter=0)


def test_refinement_errors():
    with pytest.raises(ValueError, match="counts must be non-negative"):
        refine_multinomial([[1, -1], [2, 0]], [0, 1])
    with pytest.raises(ValueError, match=r"task\(s\) \[1\] have no answers"):
        refine_multinomial([[1, 1], [0, 0]], [0, 1])
    with pytest.raises(ValueError, match="labels has length 1 but there are 2 rows"):
        refine_multinomial([[1, 1], [2, 0]], [0])
    with pytest.raises(TypeError, match="labels must hold whole numbers, found 0.5 at position 0"):
        refine_multinomial([[1, 1], [2, 0]], [0.5, 1.0])
    # whole floats are cluster ids like everywhere in the library
    assert (
        refine_multinomial([[1, 1], [2, 0]], [0.0, 1.0])[0].tolist()
        == refine_multinomial([[1, 1], [2, 0]], [0, 1])[0].tolist()
    )
    with pytest.raises(ValueError, match="smoothing must be a positive number"):
        refine_multinomial([[1, 1], [2, 0]], [0, 1], smoothing=0)
    with pytest.raises(ValueError, match="^max_iter must be >= 1, got 0$"):
        refine_multinomial([[1, 1], [2, 0]], [0, 1], max_iter=0)


# --------------------------------------------------------------------------- #
# practical_dmi_aggregate
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    "name", ["bluebirds", "rte", "temp", "prelec2017_sp/1a", "prelec2017_sp/4a"]
)
def test_no_gold_no_refinement_is_surprisingly_popular_on_binary_data(name):
    """Corollary 3.4 on real binary data: DMI-clustering with its default naming is
    surprisingly popular, task by task."""
    am = answer_matrix(_data(name).answers)
    out = practical_dmi_aggregate(am.counts, refine=False)
    assert np.array_equal(out, surprisingly_popular(am.A))


def test_pipeline_pieces_agree():
    d = _data("face")
    am = answer_matrix(d.answers)
    truth = am.options.get_indexer(d.gold.reindex(am.tasks).to_numpy())
    gold = np.where(gold_masks(len(truth), 20, 1, random_state=0)[0], truth, -1)
    res = dmi_cluster(am.A, random_state=0)
    det = practical_dmi_aggregate(am.counts, gold=gold, clustering=res, return_details=True)
    assert isinstance(det, PracticalDMIResult) and det.converged
    names = name_clusters_bayes(res.labels, am.A, gold=gold)
    assert np.array_equal(det.names, names)
    assert np.array_equal(det.paper_options, names[res.labels])
    assert np.array_equal(
        practical_dmi_aggregate(am.counts, gold=gold, random_state=0), det.options
    )
    known = gold >= 0
    assert np.array_equal(det.options[known], gold[known])  # gold tasks are clamped
    # the long-table interface gives the same labels
    g = pd.Series(am.options[gold[known]], index=am.tasks[known])
    s = aggregate(d.answers, "dmi-practical", gold=g, random_state=0)
    assert np.array_equal(am.options.get_indexer(s.to_numpy()), det.options)


# --------------------------------------------------------------------------- #
# validated_dmi_aggregate
# --------------------------------------------------------------------------- #
def _validated_reference(N, gold, res, folds=10):
    """The rule written out directly: leave-one-out / k-fold DMI practical vs
    plurality (ties towards DMI practical's answer) on the gold tasks."""
    dmi = practical_dmi_aggregate(N, gold=gold, clustering=res)
    plur = np.array([d if row[d] == row.max() else int(np.argmax(row)) for row, d in zip(N, dmi)])
    known = np.flatnonzero(gold >= 0)
    if known.size == 0:
        return dmi
    right_dmi = 0
    for f in range(min(folds, known.size)):
        held = known[f :: min(folds, known.size)]
        g = gold.copy()
        g[held] = -1
        right_dmi += np.sum(practical_dmi_aggregate(N, gold=g, clustering=res)[held] == gold[held])
    right_plur = np.sum(plur[known] == gold[known])
    return dmi if right_dmi > right_plur else plur


@pytest.mark.parametrize(
    "name", ["bluebirds", "weather_cf", "prelec2017_sp/4a", "prelec2017_sp/1c", "wsd"]
)
@pytest.mark.parametrize("m", [0, 1, 3, 10, 25])
def test_validated_matches_the_rule_written_out(name, m):
    d = load_study_datasets([name])[name]
    am = answer_matrix(d.answers, options=d.options)
    truth = am.options.get_indexer(d.gold.reindex(am.tasks).to_numpy())
    gold = (
        np.where(gold_masks(truth.size, m, 1, random_state=m)[0], truth, -1)
        if m
        else np.full(truth.size, -1)
    )
    res = dmi_cluster(am.A, random_state=0)
    det = validated_dmi_aggregate(am.counts, gold=gold, clustering=res, return_details=True)
    assert isinstance(det, ValidatedDMIResult) and det.n_gold == m
    np.testing.assert_array_equal(det.options, _validated_reference(am.counts, gold, res))
    assert det.choice in ("DMI practical", "plurality")
    if m == 0:
        assert det.choice == "DMI practical"
    else:  # the choice follows the gold counts
        c = det.gold_correct
        assert (det.choice == "DMI practical") == (c["DMI practical"] > c["plurality"])
    np.testing.assert_array_equal(
        det.options, det.dmi_options if det.choice == "DMI practical" else det.plurality_options
    )


def test_validated_keeps_dmi_when_the_crowd_is_pushed_off():
    """Every worker reports through a near-permutation: plurality is wrong on most
    tasks, the gold shows it, and the robust DMI answer is kept."""
    rng = np.random.default_rng(0)
    n, C = 120, 3
    z = rng.integers(0, C, n)
    mu = np.full((C, C), 0.1) + 0.7 * np.eye(C)
    S = 0.1 * np.eye(C) + 0.9 * np.roll(np.eye(C), 1, axis=1)  # relabel c -> c+1
    N = np.stack([rng.multinomial(15, mu[c] @ S) for c in z])
    gold = np.full(n, -1)
    gold[:10] = z[:10]
    det = validated_dmi_aggregate(N, gold=gold, random_state=0, return_details=True)
    assert np.mean(det.plurality_options == z) < 0.3
    assert det.choice == "DMI practical" and np.mean(det.options[10:] == z[10:]) > 0.9


def test_validated_errors():
    with pytest.raises(ValueError, match="folds must be >= 2, got 1"):
        validated_dmi_aggregate([[1, 2], [2, 1]], folds=1)
    with pytest.raises(TypeError, match="folds must be an integer, got float 2.5"):
        validated_dmi_aggregate([[1, 2], [2, 1]], folds=2.5)
    with pytest.raises(ValueError, match="counts must be non-negative"):
        validated_dmi_aggregate([[1, -2], [2, 1]])


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10**6), C=st.integers(2, 4))
def test_recovers_truth_under_a_common_strategy(seed, C):
    """Theorem 3.2's regime: three well-separated classes, every answer through one
    cyclic strategy S (invertible, non-permutation), many answers per task.  Plurality
    is fooled; DMI practical with 10 gold tasks is not."""
    rng = np.random.default_rng(seed)
    n = 90
    truth = rng.integers(0, C, n)
    truth[:C] = np.arange(C)
    states = 0.8 * np.eye(C)[truth] + 0.2 / C
    S = cyclic_strategy(C, 0.7)
    N = _counts_from_states(states @ S, 300, rng)
    gold = np.full(n, -1)
    gold[rng.choice(n, 10, replace=False)] = -2  # placeholder, set below
    gold = np.where(gold == -2, truth, -1)
    out = practical_dmi_aggregate(N, gold=gold, random_state=0)
    assert np.mean(out == truth) >= 0.97
    assert np.mean(N.argmax(axis=1) == truth) < 0.5


def test_practical_errors():
    N = np.array([[3, 1], [1, 3], [2, 2]])
    with pytest.raises(TypeError, match="clustering must be a DMIResult"):
        practical_dmi_aggregate(N, clustering=[0, 1, 0])
    res = dmi_cluster(N[:2] / 4)
    with pytest.raises(ValueError, match="clustering has 2 labels but counts has 3 tasks"):
        practical_dmi_aggregate(N, clustering=res)
    with pytest.raises(ValueError, match=r"gold\[0\] = 3 is out of range"):
        practical_dmi_aggregate(N, gold=np.array([3, -1, -1]))
    with pytest.raises(ValueError, match="counts must be non-negative"):
        practical_dmi_aggregate(-N)


# --------------------------------------------------------------------------- #
# Strategic crowds
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("C", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("lam", [0.0, 0.25, 0.6, 1.0])
def test_cyclic_strategy(C, lam):
    S = cyclic_strategy(C, lam)
    assert np.allclose(S.sum(axis=1), 1) and np.all(S >= 0)
    assert np.isclose(np.linalg.det(S), (1 - lam) ** C - (-lam) ** C)


def _toy(seed=0, m=40, n=30, C=3):
    rng = np.random.default_rng(seed)
    rows = [(t, w) for t in range(n) for w in range(m) if rng.random() < 0.5]
    t, w = map(np.array, zip(*rows))
    return pd.DataFrame(
        {"task": t, "worker": [f"w{j}" for j in w], "label": rng.integers(0, C, t.size) * 10}
    )


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), share=st.floats(0, 1))
def test_low_effort_injection(seed, share):
    df = _toy(seed % 50)
    out = inject_low_effort(df, share, 20, random_state=seed)
    changed_workers = set(df.loc[out["label"] != df["label"], "worker"])
    workers = df["worker"].unique()
    bad = out.groupby("worker")["label"].apply(lambda s: bool((s == 20).all()))
    # exactly round(share * m) workers answer 20 everywhere (others may by chance)
    assert bad.sum() >= round(share * len(workers)) >= len(changed_workers)
    assert out[["task", "worker"]].equals(df[["task", "worker"]])
    again = inject_low_effort(df, share, 20, random_state=seed)
    assert again.equals(out)


def test_strategy_injection_matches_s():
    df = _toy(1, m=200, n=200, C=3)
    S = np.array([[0.5, 0.3, 0.2], [0.1, 0.8, 0.1], [0, 0.4, 0.6]])
    out = inject_strategy(df, S, 1.0, options=[0, 10, 20], random_state=0)
    freq = pd.crosstab(df["label"], out["label"], normalize="index").to_numpy()
    assert np.abs(freq - S).max() < 0.03  # ~6600 answers per row
    assert inject_strategy(df, np.eye(3), 1.0, options=[0, 10, 20]).equals(df)
    perm = inject_strategy(df, np.roll(np.eye(3), 1, axis=1), 1.0, options=[0, 10, 20])
    assert np.array_equal(perm["label"], (df["label"] + 10) % 30)
    none = inject_strategy(df, S, 0.0, options=[0, 10, 20], random_state=0)
    assert none.equals(df)


def test_injection_errors():
    df = _toy()
    with pytest.raises(ValueError, match="share must be in"):
        inject_low_effort(df, 1.5, 0)
    with pytest.raises(TypeError, match="answers must be a pandas DataFrame"):
        inject_low_effort(df.to_numpy(), 0.5, 0)
    with pytest.raises(ValueError, match="must be 3 x 3"):
        inject_strategy(df, np.eye(2), 0.5)
    with pytest.raises(ValueError, match=r"not among options \[0, 1\]: \[10, 20\]"):
        inject_strategy(df, np.eye(2), 0.5, options=[0, 1])
    with pytest.raises(ValueError, match="lam must be in"):
        cyclic_strategy(3, 1.5)


# --------------------------------------------------------------------------- #
# Study helpers
# --------------------------------------------------------------------------- #
def test_gold_masks_are_uniform_subsets():
    m = gold_masks(10, 4, 4000, random_state=0)
    assert np.all(m.sum(axis=1) == 4)
    freq = m.mean(axis=0)
    assert np.abs(freq - 0.4).max() < 0.04
    assert np.array_equal(m, gold_masks(10, 4, 4000, random_state=0))
    with pytest.raises(ValueError, match="size = 11 gold tasks but there are only 10"):
        gold_masks(10, 11, 1)


def test_plurality_random_ties_expectation():
    N = np.array([[2, 2, 1], [3, 0, 0], [1, 1, 1], [0, 4, 4]])
    truth = np.array([0, 1, 2, 2])
    assert np.allclose(plurality_random_ties_correct(N, truth), [0.5, 0, 1 / 3, 0.5])
    d = _data("rte")
    am = answer_matrix(d.answers)
    t = am.options.get_indexer(d.gold.reindex(am.tasks).to_numpy())
    exact = plurality_random_ties_correct(am.counts, t).mean()
    sims = []
    for s in range(40):
        out = aggregate(d.answers, "plurality", ties="random", random_state=s)
        sims.append(np.mean(am.options.get_indexer(out.to_numpy()) == t))
    # 65 tied tasks: the mean of 40 random tie-breaks is within 4 sd of the expectation
    assert abs(np.mean(sims) - exact) < 4 * np.sqrt(65 * 0.25 / 40) / len(t)


def test_held_out_and_worker_accuracy():
    assert held_out_accuracy([1, 1, 0], [1, 0, 0]) == pytest.approx(2 / 3)
    assert held_out_accuracy([1, 1, 0], [1, 0, 0], [False, True, False]) == 1.0
    with pytest.raises(ValueError, match="every task is gold"):
        held_out_accuracy([1], [1], [True])
    d = _data("temp")
    acc = worker_accuracy(d.answers, d.gold)
    merged = d.answers.assign(
        ok=d.answers["label"].to_numpy() == d.gold.reindex(d.answers["task"]).to_numpy()
    )
    ref = merged.groupby("worker")["ok"].mean()
    assert np.allclose(acc["accuracy"], ref.reindex(acc.index))
    assert acc["n_answers"].sum() == len(d.answers)


def test_to_reports_counts_match_answer_matrix():
    d = _data("face")
    rep, tasks, workers, opts = to_reports(d.answers)
    am = answer_matrix(d.answers)
    assert list(tasks) == list(am.tasks) and list(opts) == list(am.options)
    assert np.array_equal(rep.counts(), am.counts)
    assert rep.n_workers == d.n_workers


# --------------------------------------------------------------------------- #
# aggregate() on every shipped data set
# --------------------------------------------------------------------------- #
def _every_dataset():
    from dmi_lib.extras.crowd_data import HOSSEINI_TREATMENTS, PRELEC_STUDIES, load_dataset

    out = [
        (n, load_dataset(n))
        for n in ["bluebirds", "dog", "face", "rte", "temp", "wsd", "weather_cf"]
    ]
    out += [(f"prelec2017_sp/{s}", load_dataset("prelec2017_sp", study=s)) for s in PRELEC_STUDIES]
    out += [
        (f"hosseini2021_spvoting/{t}", load_dataset("hosseini2021_spvoting", treatment=t))
        for t in HOSSEINI_TREATMENTS
    ]
    return out


@pytest.mark.parametrize(
    "method",
    [
        "plurality",
        "surprisingly-popular",
        "dmi",
        "dmi-practical",
        "dmi-validated",
        "sp-single",
        "spectral",
    ],
)
def test_aggregate_works_on_every_dataset(method):
    """Every method on every shipped data set it applies to: multi-task methods on
    the multi-task data (not Hosseini: option ids differ between its questions),
    single-task methods wherever respondents predicted (with 1 % smoothing, which
    Algorithm 5 needs on real predictions), ties at random on Hosseini (its truth is
    the smallest id)."""
    ran = 0
    for name, d in _every_dataset():
        single = method in ("sp-single", "spectral")
        if single and "prediction" not in d.answers:
            continue
        if not single and name.startswith("hosseini"):
            continue
        answers = d.answers
        if single:
            answers = answers[answers["prediction"].notna()]
        ties = "random" if name.startswith("hosseini") else "first"
        out = aggregate(
            answers, method, ties=ties, random_state=0, smoothing=0.01 if single else 0.0
        )
        assert out.index.is_unique and len(out) == answers["task"].nunique()
        assert set(out.unique()) <= set(d.options), name
        assert (out == d.gold.reindex(out.index)).mean() > 0.25, name
        ran += 1
    assert ran >= (11 if method in ("sp-single", "spectral") else 14)


def test_hundreds_of_options_with_gold_aggregate():
    """300 options: the number of namings overflows a float, and the Bayes naming of
    DMI practical and of the validated choice still decides (it used to raise
    OverflowError from `aggregate`)."""
    rng = np.random.default_rng(5)
    n, C, m = 400, 300, 6
    truth = rng.integers(0, C, n)
    t = np.repeat(np.arange(n), m)
    lab = np.where(rng.random(n * m) < 0.7, truth[t], rng.integers(0, C, n * m))
    df = pd.DataFrame({"task": t, "worker": np.arange(n * m) % 50, "label": lab})
    gold = pd.Series(truth[:80], index=range(80))
    practical = aggregate(df, "dmi-practical", gold=gold, options=range(C), random_state=0)
    validated = aggregate(df, "dmi-validated", gold=gold, options=range(C), random_state=0)
    plurality = aggregate(df, "plurality", options=range(C))
    assert (practical.to_numpy()[:80] == truth[:80]).all()  # gold tasks stay clamped
    assert (practical.to_numpy() == truth).mean() > 0.8
    # both answer every gold task, so the validated choice is plurality (ties broken
    # towards DMI practical's answer), about as accurate as plain plurality
    acc = (validated.to_numpy() == truth).mean()
    assert acc >= (plurality.to_numpy() == truth).mean() - 0.01


@pytest.mark.parametrize("fit", [refine_multinomial, latent_class_mle])
def test_cluster_ids_beyond_the_tasks_are_refused(fit):
    """A start naming cluster 10**8 for 2 tasks would size a model of 10**8 classes."""
    with pytest.raises(ValueError, match=r"^labels name cluster 100000000, but 2 tasks fill"):
        fit([[1, 1], [2, 0]], [0, 10**8])
    assert fit([[1, 1], [2, 0]], [1, 0])[0].shape == (2,)  # two tasks, two clusters: fine
