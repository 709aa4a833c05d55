"""sample_weight: a row of weight w counts as w identical rows (every solver).

References are independent of the weighted code paths: brute force over the
*expanded* matrix (each row repeated ``w`` times), where no weight is involved.
"""

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dmi_lib import DMIClustering, dmi_cluster, dmi_score, log_dmi_score
from dmi_lib.core import cluster_distinct
from dmi_lib.labels import distinct_rows
from dmi_lib.problem import prepare
from dmi_lib.exact import brute_force, cone_partition, mean_split
from dmi_lib.kcofactors import k_cofactors

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def weighted_points(draw, max_rows=6, max_dim=3, max_expanded=10):
    """Small integer points (distinct rows) with integer weights 1..3."""
    d = draw(st.integers(1, max_dim))
    n = draw(st.integers(3, max_rows))
    rows = draw(st.lists(st.tuples(*[st.integers(-4, 4)] * d), min_size=n, max_size=n, unique=True))
    w = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    assume(sum(w) <= max_expanded)
    A = np.array(rows, dtype=float)
    try:
        k = prepare(A).k
    except ValueError:
        assume(False)
    assume(k ** (sum(w) - 1) <= 2_000_000)
    return A, np.array(w)


def expanded(A, w):
    return np.repeat(A, w, axis=0)


@SETTINGS
@given(weighted_points())
def test_weighted_brute_force_equals_expanded_brute_force(data):
    """Identical rows can stay together at an optimum: the best clustering of the
    distinct rows with weights scores as the best clustering of all the copies."""
    A, w = data
    weighted = brute_force(A, sample_weight=w)
    full = brute_force(expanded(A, w))
    assert weighted.k == full.k
    assert weighted.log_score == pytest.approx(full.log_score, rel=1e-9, abs=1e-9)
    # and the weighted labels, repeated, are an optimal clustering of the copies
    assert log_dmi_score(expanded(A, w), np.repeat(weighted.labels, w)) == pytest.approx(
        full.log_score, rel=1e-9, abs=1e-9
    )


@SETTINGS
@given(weighted_points())
def test_weighted_auto_is_exact_where_it_claims(data):
    A, w = data
    res = dmi_cluster(A, sample_weight=w)
    full = brute_force(expanded(A, w))
    if res.exact:
        assert res.log_score == pytest.approx(full.log_score, rel=1e-9, abs=1e-9)
    else:  # a local maximum can only be lower
        assert res.log_score <= full.log_score + 1e-9


@SETTINGS
@given(weighted_points(), st.integers(0, 2**31))
def test_weighted_score_is_expanded_score(data, seed):
    A, w = data
    k = prepare(A).k
    labels = np.random.default_rng(seed).integers(0, k, size=len(A))
    assert dmi_score(A, labels, sample_weight=w) == pytest.approx(
        dmi_score(expanded(A, w), np.repeat(labels, w)), rel=1e-9, abs=1e-12
    )


def _weighted_move_factors(A, w, labels):
    p = prepare(A, sample_weight=w)
    M = (p.A_tilde * w[:, None]).T @ np.eye(p.k)[labels]
    D = np.linalg.inv(M.T)
    G = p.A_tilde @ D
    cur = G[np.arange(len(A)), labels]
    return 1.0 + w[:, None] * (G - cur[:, None]), G, cur


@SETTINGS
@given(weighted_points(max_rows=8, max_expanded=30), st.integers(0, 2**31))
def test_weighted_k_cofactors_ends_at_a_local_maximum(data, seed):
    """No move of a whole weighted row raises |det(CᵀWÃ)|, and the clustering is
    linearly partitioned (C ∈ idxmax(ÃD))."""
    A, w = data
    res = k_cofactors(A, sample_weight=w, n_init=3, random_state=seed)
    F, G, cur = _weighted_move_factors(A, w, res.labels)
    assert np.all(np.abs(F) <= 1 + 1e-7)
    assert np.all(cur >= G.max(axis=1) - 1e-7 * np.abs(G).max())


def test_fractional_weights_scale_free():
    rng = np.random.default_rng(3)
    A = rng.normal(size=(9, 2))
    w = rng.uniform(0.1, 5, size=9)
    a = dmi_cluster(A, sample_weight=w)
    b = dmi_cluster(A, sample_weight=w * 1e6)
    assert np.array_equal(a.labels, b.labels)
    assert b.log_score == pytest.approx(a.log_score + 3 * np.log(1e6), rel=1e-9)
    bf = brute_force(A, sample_weight=w)
    assert a.log_score == pytest.approx(bf.log_score, rel=1e-9)


@pytest.mark.parametrize(
    "solver",
    [
        mean_split,
        cone_partition,
        brute_force,
        k_cofactors,
        # the front door sets the rows of weight 0 aside itself, for every solver
        dmi_cluster,
        functools.partial(dmi_cluster, method="brute-force"),
        functools.partial(dmi_cluster, method="k-cofactors", random_state=0),
    ],
    ids=["mean_split", "cone_partition", "brute_force", "k_cofactors", "auto", "bf", "kc"],
)
def test_zero_weight_rows_do_not_count(solver):
    rng = np.random.default_rng(0)
    d = 1 if solver is mean_split else 2
    A = rng.normal(size=(8, d))
    w = np.array([1, 0, 2, 1, 0, 1, 3, 1.0])
    res = solver(A, sample_weight=w)
    ref = solver(A[w > 0], sample_weight=w[w > 0])
    assert res.log_score == pytest.approx(ref.log_score, rel=1e-12)
    assert res.info["zero_weight_rows"] == 2
    # the rows of weight 0 are labelled by the partition: idxmax(ÃD)
    G = prepare(A, sample_weight=w).A_tilde @ res.D
    assert np.array_equal(res.labels[w == 0], G[w == 0].argmax(axis=1))


def test_zero_weight_rows_drop_out_of_an_initial_labeling():
    """An ``init`` labeling covers every row; k-cofactors starts from its rows of
    positive weight (the rows the solver sees)."""
    rng = np.random.default_rng(6)
    A = rng.normal(size=(12, 3))
    w = np.array([1, 0, 2, 1, 0, 1, 3, 1, 1, 2, 0, 1.0])
    init = rng.integers(0, 4, size=12)
    init[np.flatnonzero(w > 0)[:4]] = np.arange(4)  # every cluster starts non-empty
    kw = dict(method="k-cofactors", n_init=1, random_state=0)
    res = dmi_cluster(A, sample_weight=w, init=init, **kw)
    ref = dmi_cluster(A[w > 0], sample_weight=w[w > 0], init=init[w > 0], **kw)
    assert np.array_equal(res.labels[w > 0], ref.labels)
    assert res.info["zero_weight_rows"] == 3
    # the start matters on these data: another labeling of the same rows ends elsewhere
    other = dmi_cluster(A[w > 0], sample_weight=w[w > 0], init=np.roll(init, 1)[w > 0], **kw)
    assert other.log_score != ref.log_score


def test_k_cofactors_starts_from_the_positive_weight_rows_of_an_initial_labeling():
    """:func:`k_cofactors` itself (not through :func:`dmi_cluster`) also starts
    from the rows of positive weight of an ``init`` labeling of every row."""
    rng = np.random.default_rng(6)
    A = rng.normal(size=(12, 3))
    w = np.array([1, 0, 2, 1, 0, 1, 3, 1, 1, 2, 0, 1.0])
    init = rng.integers(0, 4, size=12)
    init[np.flatnonzero(w > 0)[:4]] = np.arange(4)  # every cluster starts non-empty
    res = k_cofactors(A, sample_weight=w, init=init)
    ref = k_cofactors(A[w > 0], sample_weight=w[w > 0], init=init[w > 0])
    assert np.array_equal(res.labels[w > 0], ref.labels)
    assert res.info["zero_weight_rows"] == 3
    other = k_cofactors(A[w > 0], sample_weight=w[w > 0], init=np.roll(init, 1)[w > 0])
    assert other.log_score != ref.log_score  # the start matters on these data


def test_zero_weight_rows_do_not_count_for_k():
    A = np.array([[0, 0], [1, 0], [2, 0], [5, 7.0]])  # the last row leaves the line
    assert dmi_cluster(A).k == 3
    assert dmi_cluster(A, sample_weight=[1, 1, 1, 0]).k == 2


@pytest.mark.parametrize(
    "bad, kind, match",
    [
        ([1, 1, -1, 1], ValueError, r"non-negative, got -1.0 at index 2"),
        ([1, np.nan, 1, 1], ValueError, r"got nan at index 1"),
        ([1, np.inf, 1, 1], ValueError, r"got inf at index 1"),
        ([0, 0, 0, 0], ValueError, r"positive sum"),
        ([1, 1, 1], ValueError, r"shape \(4,\)"),
        ([[1, 1, 1, 1]], ValueError, r"shape \(4,\)"),
        (["a", "b", "c", "d"], TypeError, r"sample_weight must be numeric"),
        ([True, False, True, True], TypeError, r"sample_weight must be numeric"),
        (np.ma.masked_array([1, 1, 1, 1], [0, 1, 0, 0]), TypeError, r"masked"),
    ],
)
def test_bad_sample_weight_is_refused(bad, kind, match):
    A = [[0.0], [1.0], [2.0], [5.0]]
    for fn in (dmi_cluster, brute_force, mean_split, k_cofactors):
        with pytest.raises(kind, match=match):
            fn(A, sample_weight=bad)
    with pytest.raises(kind, match=match):
        dmi_score(A, [0, 0, 1, 1], sample_weight=bad)


def test_estimator_takes_sample_weight():
    A = np.array([[0.0], [1.0], [7.0]])
    est = DMIClustering().fit(A, sample_weight=[2, 1, 1])
    assert est.labels_.tolist() == [0, 0, 1]
    assert est.fit_predict(A, sample_weight=[10, 1, 1]).tolist() == [0, 1, 1]
    assert DMIClustering().fit(np.repeat(A, [10, 1, 1], axis=0)).score_ == pytest.approx(est.score_)


@SETTINGS
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=30
    )
)
def test_distinct_rows(rows):
    A = np.array(rows, dtype=float)
    index, inverse, counts = distinct_rows(A)
    np.testing.assert_array_equal(A[index][inverse], A)
    assert len({tuple(r) for r in A[index]}) == index.size  # really distinct
    assert counts.sum() == len(A)
    np.testing.assert_array_equal(np.bincount(inverse), counts)
    # order of first appearance
    assert np.all(np.diff(index) > 0) and np.all(inverse[index] == np.arange(index.size))
    assert index.tolist() == [int(np.flatnonzero(inverse == j)[0]) for j in range(index.size)]


@SETTINGS
@given(weighted_points(max_rows=5, max_expanded=12))
def test_clustering_distinct_rows_is_exact(data):
    A, w = data
    X = expanded(A, w)[np.random.default_rng(0).permutation(int(w.sum()))]
    res = cluster_distinct(X, method="brute-force")
    assert res.labels.shape == (len(X),)
    assert res.info["n_distinct_rows"] == len(A)
    assert res.log_score == pytest.approx(brute_force(X).log_score, rel=1e-9, abs=1e-9)
    assert log_dmi_score(X, res.labels) == pytest.approx(res.log_score, rel=1e-9, abs=1e-9)


# --------------------------------------------------------------------------- #
# The practical methods on grouped tasks equal the methods on every task
# --------------------------------------------------------------------------- #
from dmi_lib.extras.practical import (  # noqa: E402
    practical_dmi_aggregate,
    refine_multinomial,
    validated_dmi_aggregate,
)
from dmi_lib.aggregation import name_clusters  # noqa: E402


def _validated_reference(N, g, clustering, folds=10):
    """The definition of validated_dmi_aggregate, task by task (no grouping)."""
    n = len(N)
    dmi = practical_dmi_aggregate(N, gold=g, clustering=clustering)
    tied = N == N.max(axis=1, keepdims=True)
    plur = np.where(tied[np.arange(n), dmi], dmi, np.argmax(N, axis=1))
    known = np.flatnonzero(g >= 0)
    right = {"DMI practical": 0, "plurality": int(np.sum(plur[known] == g[known]))}
    if known.size:
        fold_of = np.arange(known.size) % min(folds, known.size)
        for f in np.unique(fold_of):
            held = known[fold_of == f]
            g_minus = g.copy()
            g_minus[held] = -1
            pred = practical_dmi_aggregate(N, gold=g_minus, clustering=clustering)
            right["DMI practical"] += int(np.sum(pred[held] == g[held]))
    use = known.size == 0 or right["DMI practical"] > right["plurality"]
    return (dmi if use else plur), right


@st.composite
def crowd_counts(draw):
    C = draw(st.integers(2, 3))
    m = draw(st.integers(2, 4))  # answers per task: few distinct rows, many repeats
    n = draw(st.integers(6, 40))
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    N = rng.multinomial(m, rng.dirichlet(np.ones(C)), size=n)
    n_gold = draw(st.integers(0, min(n, 12)))
    g = np.full(n, -1)
    gold_tasks = rng.choice(n, size=n_gold, replace=False)
    g[gold_tasks] = rng.integers(0, C, size=n_gold)
    return N, g


def _clustered(N):
    """Shares of the counts ``N`` and their DMI-clustering (inputs with nothing to
    cluster are skipped)."""
    A = N / N.sum(axis=1, keepdims=True)
    try:
        return A, dmi_cluster(A)
    except ValueError:
        assume(False)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowd_counts(), st.sampled_from([2, 3, 10]))
def test_validated_on_groups_equals_task_by_task(data, folds):
    N, g = data
    A, clustering = _clustered(N)
    res = validated_dmi_aggregate(
        N, gold=g, clustering=clustering, folds=folds, return_details=True
    )
    ref, right = _validated_reference(N, g, clustering, folds)
    np.testing.assert_array_equal(res.options, ref)
    assert res.gold_correct == right


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(crowd_counts())
def test_weighted_practical_steps_equal_expanded(data):
    N, g = data
    A, clustering = _clustered(N)
    w = np.random.default_rng(len(N)).integers(1, 4, size=len(N))
    Ne, ge, le = (np.repeat(x, w, axis=0) for x in (N, g, clustering.labels))
    Ae = Ne / Ne.sum(axis=1, keepdims=True)
    np.testing.assert_array_equal(
        name_clusters(clustering.labels, A, gold=g, sample_weight=w), name_clusters(le, Ae, gold=ge)
    )
    k = clustering.k
    cg = np.where(g >= 0, g % k, -1)
    lab, mu, pi, _, _ = refine_multinomial(N, clustering.labels, gold=cg, sample_weight=w)
    lab_e, mu_e, pi_e, _, _ = refine_multinomial(Ne, le, gold=np.repeat(cg, w))
    np.testing.assert_array_equal(np.repeat(lab, w), lab_e)
    np.testing.assert_allclose(mu, mu_e)
    np.testing.assert_allclose(pi, pi_e)
