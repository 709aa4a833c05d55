"""Tests for dmi_lib.aggregation: plurality, SP (multi- and single-task), STS, DMI naming.

References are independent of the code under test: hand-worked numbers from the
paper, brute force over all namings, and a Bayesian model whose prior and posterior
predictions are derived here from first principles.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from dmi_lib.aggregation import (
    DMIAggregation,
    SpectralTruthSerumResult,
    SurprisinglyPopularResult,
    _rotated_sp_scores,
    dmi_aggregate,
    name_clusters,
    ncol,
    plurality,
    spectral_truth_serum,
    surprisingly_popular,
    surprisingly_popular_single,
)
from dmi_lib.core import dmi_cluster
from dmi_lib.problem import in_idxmax
from dmi_lib.labels import same_partition

GOOD, SOSO, BAD = 0, 1, 2
#: Example 1: row s = the crowd's answer distribution when the true state is s.
EXAMPLE1 = np.array([[0.56, 0.40, 0.04], [0.56, 0.34, 0.10], [0.46, 0.44, 0.10]])
#: Example 2: the strategy S (row = private answer, columns = report distribution).
STRATEGY_S = EXAMPLE1.copy()


def crowd(rng, truth, confusion, m):
    """Answer shares of ``m`` respondents per task, signals drawn from ``confusion``."""
    counts = np.stack([rng.multinomial(m, confusion[s]) for s in truth])
    return counts / m


# --------------------------------------------------------------------------- #
# Hand-worked: the Introduction, Examples 1 and 2
# --------------------------------------------------------------------------- #
def test_introduction_example_sp_so_so_plurality_good():
    feedback = [[0.56, 0.40, 0.04]]
    assert plurality(feedback).tolist() == [GOOD]
    assert surprisingly_popular(feedback, prior=[0.70, 0.26, 0.04]).tolist() == [SOSO]
    # the paper's ratios: 40/26 > 4/4 > 56/70
    ratios = np.array([0.56, 0.40, 0.04]) / np.array([0.70, 0.26, 0.04])
    assert ratios[SOSO] > ratios[BAD] > ratios[GOOD]


def test_example1_prior_and_sp_merges_so_so_and_bad():
    prior = EXAMPLE1.mean(axis=0)  # each state equally likely
    np.testing.assert_allclose(prior.round(3), [0.527, 0.393, 0.080])
    # SP sends both the "so so" and the "bad" state to "bad" (the paper's failure).
    assert surprisingly_popular(EXAMPLE1).tolist() == [GOOD, BAD, BAD]
    assert surprisingly_popular(EXAMPLE1, prior=[0.527, 0.393, 0.080]).tolist() == [GOOD, BAD, BAD]
    assert plurality(EXAMPLE1).tolist() == [GOOD, GOOD, GOOD]


def test_example1_dmi_separates_the_three_states():
    truth = np.repeat([GOOD, SOSO, BAD], 4)
    A = EXAMPLE1[truth]
    res = dmi_cluster(A)
    assert res.k == 3 and same_partition(res.labels, truth)
    assert not same_partition(surprisingly_popular(A), truth)
    # One gold "so so" task is enough: gold fixes that cluster, the default
    # (rotated SP) names the other two correctly.
    assert dmi_aggregate(A, gold={5: SOSO}).tolist() == truth.tolist()
    # Without gold the default names are the rotated-SP matching, which here swaps
    # "so so" and "bad" (hand-computed: log(.10/.08) + log(.44/.3933) beats
    # log(.34/.3933) + log(.10/.08)); it is a default, not ground truth.
    assert dmi_aggregate(A).tolist() == np.array([GOOD, BAD, SOSO])[truth].tolist()


def test_example2_strategy_reproduces_example1():
    honest = np.eye(3)  # state s -> everyone's private answer is s
    reported = honest @ STRATEGY_S  # rows a S (Theorem K-DMI proof)
    np.testing.assert_allclose(reported, EXAMPLE1)
    truth = np.repeat([GOOD, SOSO, BAD], 3)
    assert surprisingly_popular(honest[truth]).tolist() == truth.tolist()
    assert surprisingly_popular(reported[truth]).tolist() != truth.tolist()
    # DMI: the same clusters before and after the strategy; gold names them.
    lab_h = dmi_cluster(honest[truth]).labels
    lab_r = dmi_cluster(reported[truth]).labels
    assert same_partition(lab_h, truth) and same_partition(lab_r, truth)
    gold = {0: GOOD, 3: SOSO}
    assert dmi_aggregate(reported[truth], gold=gold).tolist() == truth.tolist()


# --------------------------------------------------------------------------- #
# plurality / multi-task SP
# --------------------------------------------------------------------------- #
def test_plurality_ties_and_counts():
    A = np.array([[0.4, 0.4, 0.2], [0, 1, 0], [3, 5, 5]])  # counts are fine too
    assert plurality(A).tolist() == [0, 1, 1]
    assert plurality(A, ties="all").tolist() == [
        [True, True, False],
        [False, True, False],
        [False, True, True],
    ]
    with pytest.raises(ValueError, match="ties"):
        plurality(A, ties="random")
    with pytest.raises(ValueError, match="non-negative"):
        plurality([[0.5, -0.1]])


def test_sp_default_prior_is_column_mean_and_scale_free():
    rng = np.random.default_rng(0)
    A = rng.dirichlet(np.ones(4), size=50)
    ref = np.argmax(A / A.mean(axis=0), axis=1)
    assert surprisingly_popular(A).tolist() == ref.tolist()
    assert surprisingly_popular(A, prior=A.mean(axis=0)).tolist() == ref.tolist()


def test_sp_option_nobody_chose_is_never_picked():
    A = np.array([[0.7, 0.3, 0.0], [0.2, 0.8, 0.0], [0.5, 0.5, 0.0]])
    out = surprisingly_popular(A)
    assert out.tolist() == [0, 1, 0]  # row 3: ratios (.5/.4667, .5/.5333, 0)
    with pytest.raises(ValueError, match="strictly positive"):
        surprisingly_popular(A, prior=[0.5, 0.5, 0.0])


@pytest.mark.parametrize(
    "A, prior, match",
    [
        ([[0.5, 0.6]], None, "sum to 1"),
        ([[1.2, -0.2]], None, "non-negative"),
        ([[0.5, 0.5]], [0.3, 0.3, 0.4], "entries"),
        ([[0.5, 0.5]], [0.7, 0.7], "sum to 1"),
        ([[0.5, 0.5]], [[0.5, 0.5]], "1-D"),
        ([0.5, 0.5], None, "2-D"),
    ],
)
def test_sp_bad_input(A, prior, match):
    with pytest.raises(ValueError, match=match):
        surprisingly_popular(A, prior)


def test_sp_rejects_strings():
    with pytest.raises(TypeError):
        surprisingly_popular([["a", "b"]])


# --------------------------------------------------------------------------- #
# Corollary (binary question): DMI-clustering = SP
# --------------------------------------------------------------------------- #
@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(0, 1, allow_subnormal=False), min_size=2, max_size=40))
def test_binary_corollary_dmi_equals_sp(p):
    p = np.array(p)
    assume(np.ptp(p) > 1e-6)
    A = np.column_stack([p, 1 - p])
    off = np.abs(p - p.mean()) > 1e-9 * max(1.0, np.ptp(p))  # not at the mean
    assume(len(set((p[off] > p.mean()).tolist())) == 2)
    sp = surprisingly_popular(A)
    res = dmi_cluster(A)
    assert res.k == 2
    assert same_partition(res.labels[off], sp[off])
    # with the default naming the aggregated options are SP's exactly
    assert dmi_aggregate(A)[off].tolist() == sp[off].tolist()
    # and SP is "a_1 > ā_1"
    assert sp[off].tolist() == (p[off] <= p.mean()).astype(int).tolist()


# --------------------------------------------------------------------------- #
# Corollary ("rotated" SP): SP = idxmax(ncol(A)), DMI = idxmax(ncol(A) D)
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("seed", range(25))
def test_rotated_sp_corollary(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 60))
    A = rng.dirichlet(rng.uniform(0.3, 3, size=3), size=n)
    N = ncol(A)
    np.testing.assert_allclose(N.sum(axis=0), 1.0)
    assert surprisingly_popular(A).tolist() == np.argmax(N, axis=1).tolist()
    res = dmi_cluster(A)
    assert res.k == 3 and res.columns == (0, 1, 2)  # Ã = A: [A 1]'s 1 = A's row sums
    # Ã D = A D = ncol(A) diag(s) D with s the column sums: D' = diag(s) D.
    D_prime = A.sum(axis=0)[:, None] * res.D
    G = N @ D_prime
    assert in_idxmax(res.labels, G, tol=1e-9 * np.abs(G).max())
    # D' is not a multiple of a permutation matrix in general, so DMI ≠ SP: the
    # "rotation".  (Checked on Example 1 above, where they do differ.)


def test_ncol_rejects_zero_column():
    with pytest.raises(ValueError, match=r"column\(s\) \[1\]"):
        ncol([[1.0, 0.0], [1.0, 0.0]])


# --------------------------------------------------------------------------- #
# Naming clusters
# --------------------------------------------------------------------------- #
def brute_force_naming(labels, A, gold):
    """Best injective naming by (gold agreement, support, Σ log(mean_c/ā)), by
    enumeration; returns the best key."""
    A = np.asarray(A, float)
    k, C = int(labels.max()) + 1, A.shape[1]
    means = np.array([A[labels == c].mean(axis=0) for c in range(k)])
    abar = A.mean(axis=0)
    best = None
    for names in itertools.permutations(range(C), k):
        names = np.array(names)
        agree = sum(int(names[labels[t]] == g) for t, g in enumerate(gold) if g >= 0)
        m = means[np.arange(k), names]
        support = int(np.sum(m > 0))
        score = float(np.sum(np.log(m[m > 0] / abar[names][m > 0])))
        key = (agree, support, score)
        if best is None or key[:2] > best[:2] or (key[:2] == best[:2] and key[2] > best[2]):
            best = key
    return best


def naming_key(names, labels, A, gold):
    A = np.asarray(A, float)
    k = names.size
    finite, zero = _rotated_sp_scores(labels, A, k)
    agree = sum(int(names[labels[t]] == g) for t, g in enumerate(gold) if g >= 0)
    rows = np.arange(k)
    return agree, int(np.sum(~zero[rows, names])), float(finite[rows, names].sum())


@pytest.mark.parametrize("seed", range(60))
def test_naming_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    C = int(rng.integers(2, 5))
    k = int(rng.integers(2, C + 1))
    n = int(rng.integers(k, 25))
    labels = np.concatenate([np.arange(k), rng.integers(0, k, n - k)])
    A = rng.dirichlet(np.ones(C), size=n)
    A[rng.random(A.shape) < 0.2] = 0  # zero shares: exercise the support level
    for c in np.flatnonzero(rng.random(k) < 0.4):  # a whole cluster never chose o
        A[labels == c, rng.integers(C)] = 0
    A[A.sum(axis=1) == 0, 0] = 1
    A /= A.sum(axis=1, keepdims=True)
    frac = [0, 0.1, 0.5, 1][seed % 4]  # none, scarce, half, full gold
    gold = np.where(rng.random(n) < frac, rng.integers(0, C, n), -1)
    names = name_clusters(labels, A, gold=gold)
    assert names.shape == (k,) and len(set(names.tolist())) == k
    assert set(names.tolist()) <= set(range(C))
    got = naming_key(names, labels, A, gold)
    ref = brute_force_naming(labels, A, gold)
    assert got[:2] == ref[:2]
    assert got[2] == pytest.approx(ref[2], abs=1e-9)


def test_naming_gold_as_dict_equals_array():
    rng = np.random.default_rng(3)
    A = rng.dirichlet(np.ones(3), size=12)
    labels = np.arange(12) % 3
    gold_arr = np.full(12, -1)
    gold_arr[[1, 5]] = [2, 0]
    assert (
        name_clusters(labels, A, gold={1: 2, 5: 0}).tolist()
        == name_clusters(labels, A, gold=gold_arr).tolist()
    )


def test_one_gold_task_does_not_collapse_naming():
    rng = np.random.default_rng(4)
    A = rng.dirichlet(np.ones(4), size=20)
    labels = np.arange(20) % 4
    for t in range(4):
        names = name_clusters(labels, A, gold={t: 3})
        assert sorted(names.tolist()) == [0, 1, 2, 3]
        assert names[labels[t]] == 3


@pytest.mark.parametrize(
    "gold, exc, match",
    [
        ({9: 0}, ValueError, "task index 9"),
        ({0: 3}, ValueError, "option 3"),
        ({0: 1.5}, TypeError, "integer"),
        ({"a": 1}, TypeError, "integer"),
        ([0, 1, 0], ValueError, "length"),
        ([0, 1, 0, -2], ValueError, r"gold\[3\] = -2"),
        ([0.0, 1.0, 0.0, 1.0], TypeError, "integer"),
    ],
)
def test_naming_bad_gold(gold, exc, match):
    A = [[0.9, 0.1, 0], [0.8, 0.2, 0], [0.5, 0.4, 0.1], [0.4, 0.6, 0]]
    with pytest.raises(exc, match=match):
        name_clusters([0, 0, 1, 1], A, gold=gold)
    with pytest.raises(exc, match=match):
        dmi_aggregate(A, gold=gold)


def test_naming_bad_labels():
    A = [[0.9, 0.1], [0.8, 0.2], [0.5, 0.5]]
    with pytest.raises(ValueError, match=r"cluster\(s\) \[1\] have no tasks"):
        name_clusters([0, 2, 2], A)
    with pytest.raises(ValueError, match="only C = 2 options"):
        name_clusters([0, 1, 2], A)
    with pytest.raises(ValueError, match="length"):
        name_clusters([0, 1], A)


# --------------------------------------------------------------------------- #
# DMI aggregation: permutation strategy, k < C
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("C", [3, 4])  # exact 2-D solver / k-cofactors
@pytest.mark.parametrize("seed", range(6))
def test_permutation_strategy(seed, C):
    rng = np.random.default_rng(seed)
    n, m = 60, 400
    confusion = np.full((C, C), 0.1) + np.eye(C) * 0.6  # signal = state w.p. ~.7-.8
    confusion /= confusion.sum(axis=1, keepdims=True)
    truth = np.concatenate([np.arange(C), rng.integers(0, C, n - C)])
    A = crowd(rng, truth, confusion, m)
    perm = rng.permutation(C)
    while np.any(perm == np.arange(C)):  # a derangement: every answer renamed
        perm = rng.permutation(C)
    A_perm = np.empty_like(A)
    A_perm[:, perm] = A  # everyone reports perm[c] when they think c
    lab = dmi_cluster(A, random_state=0).labels
    lab_perm = dmi_cluster(A_perm, random_state=0).labels
    assert same_partition(lab, truth)
    assert same_partition(lab_perm, lab)  # clusters unchanged by the strategy
    # C - 1 gold tasks from distinct states; the last name follows by elimination
    gold = {t: int(truth[t]) for t in range(C - 1)}
    assert dmi_aggregate(A, gold=gold, random_state=0).tolist() == truth.tolist()
    assert dmi_aggregate(A_perm, gold=gold, random_state=0).tolist() == truth.tolist()
    assert plurality(A).tolist() == truth.tolist()
    assert plurality(A_perm).tolist() == perm[truth].tolist()  # permuted, all wrong


@pytest.mark.parametrize("seed", range(10))
def test_any_invertible_strategy_keeps_the_clusters(seed):
    """Theorem (K-DMI): with many respondents a common strategy S maps each task's
    answer distribution a to a S; the DMI clusters do not move, and the same gold
    names them the same way."""
    rng = np.random.default_rng(seed)
    C, n = 3, 40
    confusion = np.full((C, C), 0.1) + np.eye(C) * 0.6
    confusion /= confusion.sum(axis=1, keepdims=True)
    truth = np.concatenate([np.arange(C), rng.integers(0, C, n - C)])
    A = crowd(rng, truth, confusion, 500)
    S = rng.dirichlet(np.ones(C), size=C)  # a random row-stochastic strategy
    assert abs(np.linalg.det(S)) > 1e-3  # invertible (the Theorem's assumption)
    lab, lab_S = dmi_cluster(A).labels, dmi_cluster(A @ S).labels
    assert same_partition(lab, lab_S)
    gold = {0: 0, 1: 1}
    assert dmi_aggregate(A @ S, gold=gold).tolist() == dmi_aggregate(A, gold=gold).tolist()


def test_k_less_than_C_option_never_chosen():
    rng = np.random.default_rng(7)
    confusion = np.array([[0.8, 0.1, 0.1, 0.0], [0.1, 0.8, 0.1, 0.0], [0.1, 0.1, 0.8, 0.0]])
    truth = np.concatenate([[0, 1, 2], rng.integers(0, 3, 27)])
    A = crowd(rng, truth, confusion, 300)
    out = dmi_aggregate(A, return_details=True)
    assert isinstance(out, DMIAggregation)
    assert out.clustering.k == 3 and out.names.size == 3
    assert 3 not in out.names.tolist()  # the unused option names no cluster
    assert out.options.tolist() == truth.tolist()
    assert out.options.tolist() == out.names[out.clustering.labels].tolist()
    # gold pointing at the unused option is obeyed (gold beats the default)
    forced = dmi_aggregate(A, gold={0: 3})
    assert forced[0] == 3 and np.all(forced[truth == 0] == 3)


def test_k_less_than_C_two_states_on_a_line():
    # three options, but only two states: the points lie on a segment, k = 2
    p0, p1 = np.array([0.6, 0.3, 0.1]), np.array([0.2, 0.3, 0.5])
    truth = np.array([0, 1, 1, 0, 1, 0, 0])
    A = np.where(truth[:, None] == 0, p0, p1)
    res = dmi_aggregate(A, return_details=True)
    assert res.clustering.k == 2 and res.names.size == 2
    assert res.options.tolist() == np.where(truth == 0, 0, 2).tolist()  # SP names
    assert dmi_aggregate(A, gold={1: 1}).tolist() == np.where(truth == 0, 0, 1).tolist()


def test_dmi_aggregate_identical_rows_raise():
    with pytest.raises(ValueError, match="identical"):
        dmi_aggregate([[0.5, 0.5], [0.5, 0.5]])


def test_dmi_aggregate_deterministic_with_seed():
    rng = np.random.default_rng(11)
    A = rng.dirichlet(np.ones(3), size=40)
    a = dmi_aggregate(A, random_state=0)
    b = dmi_aggregate(A, random_state=0)
    assert a.tolist() == b.tolist()


# --------------------------------------------------------------------------- #
# Single task: Algorithm 5 against a Bayesian model
# --------------------------------------------------------------------------- #
def bayesian_model(rng, S, C):
    """A common prior over states and signal distributions; the Bayesian posterior
    predictions of others' answers, derived from first principles."""
    pi = rng.dirichlet(np.ones(S))
    P = rng.dirichlet(np.ones(C), size=S)  # P[s, c] = Pr[signal c | state s]
    marginal = pi @ P  # Pr[c]
    post = (pi[:, None] * P) / marginal  # post[s, c] = Pr[s | c] (Bayes)
    pred = post.T @ P  # pred[c, c'] = Σ_s Pr[s|c] Pr[c'|s] = Pr[c'|c]
    return pi, P, marginal, pred


def respondents(rng, C, pred, state_dist, m):
    """``m`` respondents with answers from ``state_dist`` (each option at least once)
    and their Bayesian predictions."""
    ans = np.concatenate([np.arange(C), rng.choice(C, m - C, p=state_dist)])
    rng.shuffle(ans)
    return ans, pred[ans]


@pytest.mark.parametrize("seed", range(40))
def test_algorithm5_reconstructs_the_prior(seed):
    rng = np.random.default_rng(seed)
    S, C = int(rng.integers(2, 5)), int(rng.integers(2, 6))
    pi, P, marginal, pred = bayesian_model(rng, S, C)
    state = int(rng.integers(S))
    ans, preds = respondents(rng, C, pred, P[state], int(rng.integers(C, 200)))
    r = surprisingly_popular_single(ans, preds)
    assert isinstance(r, SurprisinglyPopularResult)
    np.testing.assert_allclose(r.prior, marginal, rtol=1e-10)  # Prelec's identity
    np.testing.assert_allclose(r.conditional, pred, rtol=1e-12)
    np.testing.assert_allclose(r.joint, r.joint.T, atol=1e-14)  # Bayesian => symmetric
    np.testing.assert_allclose(r.joint.sum(), 1.0)
    np.testing.assert_allclose(r.a, np.bincount(ans, minlength=C) / ans.size)
    assert r.answer == int(np.argmax(r.a / marginal))


def test_algorithm5_hand_example():
    # 2 say "yes" predicting 50 % yes, 1 says "no" predicting 20 % yes.
    r = surprisingly_popular_single([0, 0, 1], [[0.5, 0.5], [0.5, 0.5], [0.2, 0.8]])
    np.testing.assert_allclose(r.conditional, [[0.5, 0.5], [0.2, 0.8]])
    np.testing.assert_allclose(r.prior, [2 / 7, 5 / 7])  # 1/(1+.5/.2), 1/(.2/.5+1)
    np.testing.assert_allclose(r.joint, [[1 / 7, 1 / 7], [1 / 7, 4 / 7]])
    np.testing.assert_allclose(r.a, [2 / 3, 1 / 3])
    assert r.answer == 0 and r.counts.tolist() == [2, 1]
    # a majority of "no" with the same predictions: "no" is not surprising enough?
    # a = (1/4, 3/4) against v = (2/7, 5/7): 3/4 / (5/7) = 1.05 > (1/4)/(2/7) = .875
    r2 = surprisingly_popular_single([0, 1, 1, 1], [[0.5, 0.5]] + [[0.2, 0.8]] * 3)
    assert r2.answer == 1


def test_algorithm5_three_option_hand_example():
    # predictions consistent with the joint J (symmetric, sums to 1)
    J = np.array([[0.2, 0.05, 0.05], [0.05, 0.3, 0.05], [0.05, 0.05, 0.2]])
    v = J.sum(axis=1)  # (.3, .4, .3)
    cond = J / v[:, None]
    ans = np.array([0, 1, 2, 2, 2])
    r = surprisingly_popular_single(ans, cond[ans])
    np.testing.assert_allclose(r.prior, v)
    np.testing.assert_allclose(r.joint, J)
    assert r.answer == 2  # a = (.2, .2, .6): .6/.3 is the largest ratio


@pytest.mark.parametrize(
    "answers, predictions, kw, exc, match",
    [
        ([0, 2], [[0.5, 0.5], [0.5, 0.5]], {}, ValueError, r"answers must lie in 0\.\.1"),
        ([0, -1], [[0.5, 0.5], [0.5, 0.5]], {}, ValueError, "non-negative"),
        ([0, 1], [[0.5, 0.5], [1.2, -0.2]], {}, ValueError, "non-negative"),
        ([0, 1], [[0.5, 0.5], [0.5, 0.6]], {}, ValueError, "sum to 1"),
        (
            [0, 1, 1],
            [[0.5, 0.5], [0.5, 0.5]],
            {},
            ValueError,
            "answers has length 3 but there are 2 rows",
        ),
        ([0, 0], [[0.5, 0.5], [0.5, 0.5]], {}, ValueError, r"option\(s\) \[1\] were answered"),
        ([0, 1], [[0.5, 0.5], [0.5, 0.5]], {"n_options": 3}, ValueError, "n_options = 3"),
        ([0, 1], [[0.5, 0.5], [0.5, 0.5]], {"n_options": 2.0}, TypeError, "n_options"),
        ([0, 0.5], [[0.5, 0.5], [0.5, 0.5]], {}, TypeError, "whole numbers"),
        ([True, False], [[0.5, 0.5], [0.5, 0.5]], {}, TypeError, "integers"),
        ([[0, 1]], [[0.5, 0.5], [0.5, 0.5]], {}, ValueError, "1-D"),
        ([0, 1], [0.5, 0.5], {}, ValueError, "2-D"),
        ([0, 1], [[1.0, 0.0], [0.5, 0.5]], {}, ValueError, r"Pr\[1\|0\] = 0"),
    ],
)
def test_single_task_errors(answers, predictions, kw, exc, match):
    with pytest.raises(exc, match=match):
        surprisingly_popular_single(answers, predictions, **kw)
    with pytest.raises(exc, match=match):
        spectral_truth_serum(answers, predictions, **kw)


# --------------------------------------------------------------------------- #
# Algorithm 6: spectral truth serum
# --------------------------------------------------------------------------- #
def test_sts_hand_example_binary():
    r = spectral_truth_serum([0, 0, 1], [[0.5, 0.5], [0.5, 0.5], [0.2, 0.8]])
    assert isinstance(r, SpectralTruthSerumResult)
    # Cov = M - vᵀv = [[1/7 - 4/49, 1/7 - 10/49], ...] = 3/49 [[1, -1], [-1, 1]]
    np.testing.assert_allclose(r.cov, 3 / 49 * np.array([[1, -1], [-1, 1]]), atol=1e-15)
    np.testing.assert_allclose(r.eigenvalues, [6 / 49, 0], atol=1e-15)
    np.testing.assert_allclose(r.e, [2**-0.5, -(2**-0.5)])
    assert r.lead == 0 and r.sign == 1
    np.testing.assert_allclose(r.projection, (2 / 3 - 2 / 7) * 2**0.5)


def test_sts_sign_convention():
    rng = np.random.default_rng(5)
    for _ in range(30):
        C = int(rng.integers(2, 6))
        _, P, _, pred = bayesian_model(rng, int(rng.integers(2, 4)), C)
        ans, preds = respondents(rng, C, pred, P[0], 50)
        r = spectral_truth_serum(ans, preds)
        lead = int(np.argmax(np.abs(r.e)))
        assert r.e[r.lead] > 0 and abs(r.e[r.lead]) == pytest.approx(abs(r.e[lead]))
        np.testing.assert_allclose(np.linalg.norm(r.e), 1.0)
        # deterministic: the order of the respondents does not matter
        order = rng.permutation(ans.size)
        r2 = spectral_truth_serum(ans[order], preds[order])
        np.testing.assert_allclose(r2.e, r.e, atol=1e-12)
        assert r2.sign == r.sign
        # and e* is an eigenvector of the symmetrised Cov for the top eigenvalue
        S = (r.cov + r.cov.T) / 2
        np.testing.assert_allclose(S @ r.e, r.eigenvalue * r.e, atol=1e-12)
        assert r.eigenvalue == pytest.approx(np.linalg.eigvalsh(S).max())


@settings(max_examples=200, deadline=None)
@given(
    x=st.floats(0.01, 0.99), y=st.floats(0.01, 0.99), n0=st.integers(1, 30), n1=st.integers(1, 30)
)
def test_sts_binary_agrees_with_sp_iff_positive_association(x, y, n0, n1):
    """C = 2: with x = Pr[1|0], y = Pr[0|1], v = (y, x)/(x+y) always sums to 1 and M
    is symmetric, so Cov = λ[[1,-1],[-1,1]] with λ = xy(1-x-y)/(x+y)².  If x + y < 1
    (those who answer 0 expect more 0s than those who answer 1 do, as in any
    informative Bayesian model) e* = (1,-1)/√2 and STS '+' ⇔ SP picks 0.  If
    x + y > 1 the top eigenvector is (1,1)/√2, orthogonal to a - v: STS says 0."""
    assume(abs(1 - x - y) > 1e-3)
    ans = np.array([0] * n0 + [1] * n1)
    preds = np.where(ans[:, None] == 0, [1 - x, x], [y, 1 - y])
    r = spectral_truth_serum(ans, preds)
    sp = surprisingly_popular_single(ans, preds)
    np.testing.assert_allclose(r.prior, np.array([y, x]) / (x + y))
    lam = x * y * (1 - x - y) / (x + y) ** 2
    np.testing.assert_allclose(r.cov, lam * np.array([[1, -1], [-1, 1]]), atol=1e-14)
    a0, v0 = n0 / (n0 + n1), y / (x + y)
    assume(abs(a0 - v0) > 1e-9)
    if x + y < 1:
        np.testing.assert_allclose(r.e, [2**-0.5, -(2**-0.5)])
        assert r.sign == (1 if sp.answer == 0 else -1)
        assert (r.sign == 1) == (a0 > v0)
    else:
        np.testing.assert_allclose(r.e, [2**-0.5, 2**-0.5])
        assert r.sign == 0


def test_sts_no_signal_raises():
    # predictions independent of the answer: Cov = 0, e* undefined
    with pytest.raises(ValueError, match="not unique"):
        spectral_truth_serum([0, 1, 1], [[0.3, 0.7]] * 3)


@pytest.mark.parametrize("seed", range(30))
def test_sts_two_worlds(seed):
    """Two states (the paper's 'two worlds'), Bayesian predictions: Cov is rank one,
    e* ∝ p₁ - p₀ (the exact-moment form of the Lemma), and the sign tells the
    worlds apart when the answers are each world's expected shares."""
    rng = np.random.default_rng(seed)
    C = int(rng.integers(2, 7))
    pi, P, marginal, pred = bayesian_model(rng, 2, C)
    signs = []
    for s in (0, 1):
        cnt = np.maximum(np.round(P[s] * 10_000).astype(int), 1)
        ans = np.repeat(np.arange(C), cnt)
        r = spectral_truth_serum(ans, pred[ans])
        d = P[1] - P[0]
        np.testing.assert_allclose(abs(r.e @ d), np.linalg.norm(d), rtol=1e-8)
        assert np.linalg.matrix_rank(r.cov, tol=1e-10 * np.abs(r.cov).max()) == 1
        np.testing.assert_allclose(r.cov, r.cov.T, atol=1e-15)
        signs.append(r.sign)
        # literal (non-symmetrised) eigenvector agrees for Bayesian predictions
        r_lit = spectral_truth_serum(ans, pred[ans], symmetrize=False)
        np.testing.assert_allclose(r_lit.e, r.e, atol=1e-8)
        assert r_lit.sign == r.sign and not r_lit.symmetrized
    assert sorted(signs) == [-1, 1]
    # '+' is the world that e* points to
    assert signs[int(np.sign(r.e @ (P[1] - P[0])) > 0)] == 1


def test_sts_second_moment_indexing():
    """M[c, c'] = Pr[c, c'] = Pr[c|c'] Pr[c'] (Algorithm 5's Pr[c', c] transposed);
    checked on non-Bayesian predictions, where the two orders differ."""
    ans = np.array([0, 1, 2, 2])
    preds = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])
    cond = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.2, 0.2, 0.6]])  # mean per answer
    v = 1 / (cond / cond.T).sum(axis=1)  # v_c = (Σ_c' Pr[c'|c]/Pr[c|c'])⁻¹
    r = spectral_truth_serum(ans, preds)
    np.testing.assert_allclose(r.conditional, cond)
    np.testing.assert_allclose(r.prior, v)
    np.testing.assert_allclose(r.joint[0, 1], 0.3 * v[0])  # Pr[c'=1 | c=0] Pr[0]
    np.testing.assert_allclose(r.M[1, 0], 0.3 * v[0])  # M[c, c'] = Pr[c|c'] Pr[c']
    np.testing.assert_allclose(r.M, (cond * v[:, None]).T)
    np.testing.assert_allclose(r.cov, r.M - np.outer(v, v))
    assert not np.allclose(r.M, r.M.T)
    assert v.sum() != pytest.approx(1.0)  # Algorithm 5's v is not a distribution here
    r_lit = spectral_truth_serum(ans, preds, symmetrize=False)
    w, V = np.linalg.eig(r.M - np.outer(v, v))
    top = np.argmax(w.real)
    e = np.real(V[:, top]) / np.linalg.norm(np.real(V[:, top]))
    np.testing.assert_allclose(abs(r_lit.e @ e), 1.0)
    assert r_lit.eigenvalue == pytest.approx(w.real.max())


def test_sts_non_bayesian_literal_eigenvector():
    rng = np.random.default_rng(9)
    ans = rng.integers(0, 3, 60)
    ans[:3] = [0, 1, 2]
    preds = rng.dirichlet(np.ones(3) * 2, size=60)
    r = spectral_truth_serum(ans, preds, symmetrize=False)
    assert not np.allclose(r.M, r.M.T)  # not Bayesian: M is not symmetric
    np.testing.assert_allclose(r.cov @ r.e, r.eigenvalue * r.e, atol=1e-12)
    r_sym = spectral_truth_serum(ans, preds)
    assert r_sym.symmetrized and r_sym.sign in (-1, 0, 1)


def test_blum_lemma_two_spherical_gaussians():
    """Lemma (Blum et al.): the top eigenvector of a well-separated mixture of two
    spherical Gaussians is along the difference of the means; projecting on it
    and splitting at the overall mean separates the components."""
    rng = np.random.default_rng(0)
    d, n = 6, 4000
    mu0, mu1 = rng.normal(size=d), rng.normal(size=d)
    mu1 = mu0 + 8 * (mu1 - mu0) / np.linalg.norm(mu1 - mu0)
    z = rng.random(n) < 0.3
    X = np.where(z[:, None], mu1, mu0) + rng.normal(size=(n, d))
    w, V = np.linalg.eigh(np.cov(X.T))
    e = V[:, -1]
    cos = abs(e @ (mu1 - mu0)) / np.linalg.norm(mu1 - mu0)
    assert cos > 0.99
    side = (X - X.mean(axis=0)) @ e > 0
    assert max(np.mean(side == z), np.mean(side != z)) > 0.99


def test_spectral_truth_serum_rounding_level_cov_raises():
    # Binary x + y = 1: Cov is zero in exact arithmetic, ~1e-16 in floats.
    from dmi_lib.aggregation import spectral_truth_serum

    answers = np.r_[np.zeros(70, int), np.ones(30, int)]
    predictions = np.tile([0.6, 0.4], (100, 1))
    with pytest.raises(ValueError, match="not unique"):
        spectral_truth_serum(answers, predictions)


def test_naming_does_not_depend_on_how_clusters_are_numbered_symmetric_crowd():
    # Each task's two answers are the other two options: the two cyclic namings tie
    # exactly, and which one wins must not depend on the order of the tasks.
    A = np.array([[0, 0.5, 0.5], [0.5, 0, 0.5], [0.5, 0.5, 0]])
    for perm in itertools.permutations(range(3)):
        pi = np.array(perm)
        np.testing.assert_array_equal(name_clusters(pi, A)[pi], [2, 0, 1])


@settings(max_examples=200, deadline=None)
@given(
    st.integers(2, 4).flatmap(
        lambda C: st.tuples(
            st.just(C),
            st.lists(
                st.lists(st.integers(0, 2), min_size=C, max_size=C).filter(any),
                min_size=C,
                max_size=7,
            ),
            st.randoms(use_true_random=False),
        )
    )
)
def test_naming_is_invariant_under_renumbering_tasks_and_clusters(case):
    # Small integer counts make tied namings common; renumbering the clusters (as a
    # reordering of the tasks does) must rename them, not change their options.  The
    # clusters of a DMI-clustering have distinct mean answers (else CᵀÃ is singular);
    # two clusters with the same mean could only be told apart by their numbers.
    C, counts, rnd = case
    N = np.array(counts, dtype=float)
    A = N / N.sum(axis=1, keepdims=True)
    n = len(A)
    k = rnd.randint(1, min(C, n))
    labels = np.array(list(range(k)) + [rnd.randrange(k) for _ in range(n - k)])
    means = np.array([A[labels == c].mean(axis=0) for c in range(k)])
    gaps = [np.abs(a - b).max() for a, b in itertools.combinations(means, 2)]
    assume(min(gaps, default=1.0) > 1e-9)
    pi = np.array(rnd.sample(range(k), k))
    tasks = np.array(rnd.sample(range(n), n))
    base = name_clusters(labels, A)
    np.testing.assert_array_equal(name_clusters(pi[labels][tasks], A[tasks])[pi], base)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.integers(1, 6), st.data())
def test_a_single_cluster_is_named_by_its_most_chosen_option(C, n, data):
    """One cluster is the whole crowd: no option is surprisingly popular in it, so it
    is named by the option with the largest mean share (plurality of the mean)."""
    rows = data.draw(
        st.lists(st.lists(st.integers(0, 5), min_size=C, max_size=C), min_size=n, max_size=n)
    )
    A = np.array(rows, dtype=float) + np.eye(C)[0]  # every row has an answer
    A /= A.sum(axis=1, keepdims=True)
    mean = A.mean(axis=0)
    assume(np.sum(mean >= mean.max() * (1 - 1e-9)) == 1)  # one most chosen option
    assert name_clusters(np.zeros(n, dtype=int), A).tolist() == [int(np.argmax(mean))]
    w = np.arange(1, n + 1, dtype=float)
    wmean = w @ A / w.sum()
    assume(np.sum(wmean >= wmean.max() * (1 - 1e-9)) == 1)
    got = name_clusters(np.zeros(n, dtype=int), A, sample_weight=w)
    assert got.tolist() == [int(np.argmax(wmean))]


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 4), st.integers(2, 8), st.sampled_from([1e-6, 0.01, 1.0, 1e6]), st.data())
def test_weighted_naming_is_the_naming_of_the_repeated_tasks(C, n, scale, data):
    """Row t stands for sample_weight[t] identical tasks (same answers, same gold):
    whole-number weights, at any common scale, give the naming of the repeated rows."""
    k = data.draw(st.integers(1, min(C, n)))
    labels = np.r_[
        np.arange(k), data.draw(st.lists(st.integers(0, k - 1), min_size=n - k, max_size=n - k))
    ].astype(int)
    raw = np.array(
        data.draw(
            st.lists(st.lists(st.integers(0, 4), min_size=C, max_size=C), min_size=n, max_size=n)
        )
    )
    A = (raw + np.eye(C)[labels % C]) / (raw + np.eye(C)[labels % C]).sum(axis=1, keepdims=True)
    gold = np.array(data.draw(st.lists(st.integers(-1, C - 1), min_size=n, max_size=n)))
    w = np.array(data.draw(st.lists(st.integers(1, 4), min_size=n, max_size=n)))
    rep = np.repeat(np.arange(n), w)
    want = name_clusters(labels[rep], A[rep], gold=gold[rep])
    got = name_clusters(labels, A, gold=gold, sample_weight=w * scale)
    assert got.tolist() == want.tolist()


def test_gold_counts_whole_tasks_at_any_scale():
    """Three gold tasks say 1 and two say 0: gold names the cluster 1 whatever the
    common scale of the weights (the support level, which favours the chosen option
    0, must not outweigh one gold task)."""
    for scale in (1e-6, 0.01, 1.0, 1e6):
        w = [3 * scale, 2 * scale]
        assert name_clusters([0, 0], [[1.0, 0.0], [1.0, 0.0]], gold=[1, 0], sample_weight=w) == [1]
    A = [[0.9, 0.1], [0.8, 0.2], [0.5, 0.5], [0.4, 0.6]]
    for w in ([1.0] * 4, [0.01] * 4, [1e-9] * 4):  # one gold task overrides the default
        assert name_clusters([1, 1, 0, 0], A, gold={3: 0}, sample_weight=w).tolist() == [0, 1]
        assert dmi_aggregate(A, gold={3: 0}, sample_weight=w).tolist() == [1, 1, 0, 0]


def test_symmetrize_must_be_a_bool():
    with pytest.raises(TypeError, match=r"^symmetrize must be True or False, got 'no'$"):
        spectral_truth_serum([0, 0, 1], [[0.5, 0.5], [0.5, 0.5], [0.2, 0.8]], symmetrize="no")
