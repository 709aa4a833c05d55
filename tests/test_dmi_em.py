"""DMI-EM (dmi_lib.extras.dmi_em): a hand-worked iteration, a slow reference EM written with
Python loops, invariances (workers, tasks, options, a common relabelling), weights as
repeated answers, many options, the objective's information form, gold on many options, bad input."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dmi_lib import ConvergenceWarning, log_dmi_score, same_partition
from dmi_lib.extras.dmi_em import DMIEM, _em, dmi_em
from dmi_lib.tabular import aggregate

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #
@st.composite
def crowds(draw, max_tasks=8, max_workers=4, max_options=3):
    """A small long table: every task answered by 1..workers workers."""
    C = draw(st.integers(2, max_options))
    n = draw(st.integers(3, max_tasks))
    W = draw(st.integers(1, max_workers))
    rows = []
    for t in range(n):
        who = draw(st.lists(st.integers(0, W - 1), min_size=1, max_size=W, unique=True))
        rows += [(t, w, draw(st.integers(0, C - 1))) for w in who]
    return pd.DataFrame(rows, columns=["task", "worker", "label"]), C


def reference_em(answers, n, W, C, R0, gold, pseudocount, tol, max_iter, pooled=False):
    """Smoothed Dawid–Skene EM with Python loops over answers, a dense W×C×C
    confusion array, and the full log prior (constant included).  The prior of row
    ``c`` has ``pseudocount`` pseudo-answers spread evenly, or (``pooled``)
    ``pseudocount · C`` spread like the crowd's pooled confusion row ``c`` at the start
    plus one answer spread evenly."""
    if pooled:
        pool = [[0.0] * C for _ in range(C)]
        for t, _, lab, x in answers:
            for c in range(C):
                pool[c][lab] += x * R0[t][c]
        alpha = [[pseudocount * C * (v + 1 / C) / (sum(row) + 1) for v in row] for row in pool]
    else:
        alpha = [[pseudocount / C] * C for _ in range(C)]
    R = [list(map(float, row)) for row in R0]
    trace = []
    for _ in range(max_iter):
        cnt = [[[0.0] * C for _ in range(C)] for _ in range(W)]
        for t, w, lab, x in answers:
            for c in range(C):
                cnt[w][c][lab] += x * R[t][c]
        theta = [
            [
                [
                    (cnt[w][c][lab] + alpha[c][lab]) / (sum(cnt[w][c]) + sum(alpha[c]))
                    for lab in range(C)
                ]
                for c in range(C)
            ]
            for w in range(W)
        ]
        mass = [sum(R[t][c] for t in range(n)) for c in range(C)]
        a_pi = pseudocount / C
        pi = [(mass[c] + a_pi) / (sum(mass) + a_pi * C) for c in range(C)]
        L = [[math.log(pi[c]) for c in range(C)] for _ in range(n)]
        for t, w, lab, x in answers:
            for c in range(C):
                L[t][c] += x * math.log(theta[w][c][lab])
        total = 0.0
        for t in range(n):
            top = max(L[t])
            norm = top + math.log(sum(math.exp(v - top) for v in L[t]))
            if gold[t] >= 0:
                norm = L[t][gold[t]]
                R[t] = [1.0 if c == gold[t] else 0.0 for c in range(C)]
            else:
                R[t] = [math.exp(v - norm) for v in L[t]]
            total += norm
        prior = sum(
            alpha[c][lab] * math.log(theta[w][c][lab])
            for w in range(W)
            for c in range(C)
            for lab in range(C)
        )
        trace.append(total + prior + a_pi * sum(math.log(p) for p in pi))
        if len(trace) > 1 and abs(trace[-1] - trace[-2]) <= tol * abs(total):
            break
    return np.array(R), np.array(trace)


def run_em(df, C, R0, gold, weight=None, pseudocount=1.0, tol=1e-9, max_iter=200, pooled=True):
    t = df["task"].to_numpy()
    w = df["worker"].to_numpy()
    lab = df["label"].to_numpy()
    x = np.ones(len(df)) if weight is None else np.asarray(weight, float)
    n, W = int(t.max()) + 1, int(w.max()) + 1
    return _em(t, w, lab, x, n, W, C, R0, gold, pseudocount, tol, max_iter, pooled=pooled)


# --------------------------------------------------------------------------- #
# A hand-worked iteration
# --------------------------------------------------------------------------- #
HAND = pd.DataFrame(
    {
        "task": [1, 1, 2, 2, 3, 3, 4, 4],
        "worker": ["a", "b"] * 4,
        "label": [0, 0, 0, 0, 1, 1, 0, 1],
    }
)


def test_one_iteration_by_hand():
    """Shares (1,0), (1,0), (0,1), (.5,.5); mean (.625, .375): surprisingly popular
    (= DMI, binary) puts task 4 with task 3, so the start is 0, 0, 1, 1.  Pooled
    confusion of the start: class 0 saw labels (4, 0), class 1 (1, 3); plus one
    answer spread evenly: P = [[.9, .1], [.3, .7]]; with pseudocount 1, C = 2
    pseudo-answers per row: α = 2P = [[1.8, .2], [.6, 1.4]].  π = (1/2, 1/2)
    (α_π = 1/2); θ_a = [[19/20, 1/20], [2/5, 3/5]], θ_b = [[19/20, 1/20],
    [3/20, 17/20]].  Posterior of class 1: task 1 (0, 0): (2/5·3/20) /
    (361/400 + 24/400) = 24/385; task 3 (1, 1): (3/5·17/20) / (1/400 + 204/400) =
    204/205; task 4 (0, 1): (2/5·17/20) / (19/400 + 136/400) = 136/155."""
    with pytest.warns(ConvergenceWarning, match="max_iter = 1"):
        res = dmi_em(HAND, max_iter=1)
    assert res.start.tolist() == [0, 0, 1, 1]
    np.testing.assert_allclose(
        res.posteriors[1].to_numpy(), [24 / 385, 24 / 385, 204 / 205, 136 / 155]
    )
    assert res.labels.tolist() == [0, 0, 1, 1]


def test_converges_and_objective_never_decreases():
    res = dmi_em(HAND)
    assert res.converged and res.n_iter > 2
    assert np.all(np.diff(res.log_likelihood) >= -1e-12 * abs(res.log_likelihood[0]))
    theta = res.confusion()
    np.testing.assert_allclose(theta.sum(axis=2), 1.0)
    assert theta.shape == (2, 2, 2)


# --------------------------------------------------------------------------- #
# Against the slow reference
# --------------------------------------------------------------------------- #
@SETTINGS
@given(crowds(), st.data())
def test_em_matches_the_reference(crowd, data):
    df, C = crowd
    n, W = int(df["task"].max()) + 1, int(df["worker"].max()) + 1
    R0 = np.zeros((n, C))
    R0[np.arange(n), data.draw(st.lists(st.integers(0, C - 1), min_size=n, max_size=n))] = 1.0
    gold = np.array(data.draw(st.lists(st.integers(-1, C - 1), min_size=n, max_size=n)))
    weight = np.array(
        data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0]), min_size=len(df), max_size=len(df)))
    )
    pc = data.draw(st.sampled_from([0.3, 1.0, 4.0]))
    pooled = data.draw(st.booleans())
    R, theta, log_pi, trace, it, _ = run_em(df, C, R0, gold, weight, pc, 1e-9, 30, pooled)
    rows = list(zip(df["task"], df["worker"], df["label"], weight))
    R_ref, trace_ref = reference_em(rows, n, W, C, R0, gold, pc, 1e-9, 30, pooled)
    np.testing.assert_allclose(R, R_ref, atol=1e-9)
    assert len(trace) == len(trace_ref)
    # ours leaves out the constant Σ α_cl log α_cl over the unobserved (w, l) pairs
    alpha = theta[3]
    seen = set(zip(df["worker"], df["label"]))
    const = sum(
        alpha[c, lab] * math.log(alpha[c, lab])
        for w in range(W)
        for lab in range(C)
        if (w, lab) not in seen
        for c in range(C)
    )
    np.testing.assert_allclose(trace + const, trace_ref, rtol=1e-9, atol=1e-9)
    assert np.all(np.diff(trace) >= -1e-9 * np.abs(trace[:-1]))  # EM: never decreases


# --------------------------------------------------------------------------- #
# Invariances
# --------------------------------------------------------------------------- #
def _fit(df, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return dmi_em(df, random_state=0, **kw)


@SETTINGS
@given(crowds(), st.randoms(use_true_random=False))
def test_renaming_workers_and_reordering_rows_changes_nothing(crowd, rnd):
    df, C = crowd
    base = _fit(df, options=range(C))
    ids = list(range(int(df["worker"].max()) + 1))
    rnd.shuffle(ids)
    other = df.assign(worker=[f"w{ids[w]}" for w in df["worker"]])
    other = other.sample(frac=1.0, random_state=rnd.randrange(2**31))
    res = _fit(other, options=range(C))
    np.testing.assert_allclose(res.posteriors.to_numpy(), base.posteriors.to_numpy(), atol=1e-8)


@SETTINGS
@given(crowds(), st.randoms(use_true_random=False))
def test_renaming_tasks_changes_nothing(crowd, rnd):
    df, C = crowd
    base = _fit(df, options=range(C))
    ids = list(range(int(df["task"].max()) + 1))
    rnd.shuffle(ids)
    res = _fit(df.assign(task=[ids[t] for t in df["task"]]), options=range(C))
    clusters = pd.Series(res.clusters, index=res.answer_matrix.tasks).loc[ids].to_numpy()
    if same_partition(clusters, base.clusters):
        got = res.posteriors.loc[ids].to_numpy()  # task t is now ids[t]
        np.testing.assert_allclose(got, base.posteriors.to_numpy(), atol=1e-8)
    else:  # the DMI optimum is tied: both starts score the same
        A = base.answer_matrix.A
        assert log_dmi_score(A, clusters) == pytest.approx(log_dmi_score(A, base.clusters))


@SETTINGS
@given(crowds(), st.randoms(use_true_random=False))
def test_em_is_equivariant_under_a_common_relabelling_of_the_answers(crowd, rnd):
    """A whole crowd reporting through a permutation σ, from the same start: the same
    posteriors (each θ_w absorbs σ; the smoothing is symmetric)."""
    df, C = crowd
    n = int(df["task"].max()) + 1
    sigma = list(range(C))
    rnd.shuffle(sigma)
    R0 = np.zeros((n, C))
    R0[np.arange(n), [rnd.randrange(C) for _ in range(n)]] = 1.0
    gold = np.array([rnd.randrange(-1, C) for _ in range(n)])
    R, *_ = run_em(df, C, R0, gold)
    R_sigma, *_ = run_em(df.assign(label=[sigma[v] for v in df["label"]]), C, R0, gold)
    np.testing.assert_allclose(R_sigma, R, atol=1e-9)


@SETTINGS
@given(crowds(), st.randoms(use_true_random=False))
def test_renaming_options_renames_the_answers(crowd, rnd):
    """Options renamed by a bijection (their order kept): the same posteriors, columns
    renamed."""
    df, C = crowd
    names = sorted(rnd.sample(range(100), C))
    base = _fit(df, options=range(C))
    res = _fit(df.assign(label=[names[v] for v in df["label"]]), options=names)
    np.testing.assert_allclose(res.posteriors.to_numpy(), base.posteriors.to_numpy(), atol=1e-8)
    assert res.labels.tolist() == [names[v] for v in base.labels]


@SETTINGS
@given(crowds(), st.data())
def test_integer_weights_are_repeated_answers(crowd, data):
    df, C = crowd
    w = np.array(data.draw(st.lists(st.integers(1, 3), min_size=len(df), max_size=len(df))))
    weighted = _fit(df, options=range(C), weights=w)
    repeated = _fit(df.loc[df.index.repeat(w)], options=range(C), duplicates="keep")
    np.testing.assert_allclose(
        weighted.posteriors.to_numpy(), repeated.posteriors.to_numpy(), atol=1e-8
    )
    # a weight column gives the same fit as the array
    by_column = _fit(df.assign(wt=w), options=range(C), weights="wt")
    np.testing.assert_allclose(by_column.posteriors.to_numpy(), weighted.posteriors.to_numpy())


def test_a_zero_weight_answer_is_no_answer():
    w = np.ones(len(HAND))
    w[-1] = 0.0  # worker b's answer to task 4
    weighted = _fit(HAND, weights=w)
    dropped = _fit(HAND.iloc[:-1])
    np.testing.assert_allclose(weighted.posteriors.to_numpy(), dropped.posteriors.to_numpy())


# --------------------------------------------------------------------------- #
# What it is for: a whole crowd relabelling, a few gold tasks
# --------------------------------------------------------------------------- #
def test_whole_crowd_swap_with_gold_gives_the_clean_answers():
    from dmi_lib.extras.crowd_data import load_dataset

    d = load_dataset("bluebirds")
    ans = d.answers[["task", "worker", "label"]]
    opts = list(d.options)
    swapped = ans.assign(label=ans["label"].map({opts[0]: opts[1], opts[1]: opts[0]}))
    gold = d.gold.iloc[:10]
    clean = dmi_em(ans, gold=gold, options=opts, random_state=0)
    attacked = dmi_em(swapped, gold=gold, options=opts, random_state=0)
    assert attacked.labels.equals(clean.labels)
    truth = d.gold.reindex(clean.labels.index)
    assert (clean.labels == truth).mean() > 0.85
    # plurality of the swapped crowd is mostly wrong: the check is not vacuous
    assert (aggregate(swapped, "plurality") == truth).mean() < 0.3


# --------------------------------------------------------------------------- #
# Many options
# --------------------------------------------------------------------------- #
def test_a_thousand_options():
    rng = np.random.default_rng(0)
    n, W, C, m = 300, 40, 1000, 6
    truth = rng.integers(0, C, n)
    t = np.repeat(np.arange(n), m)
    w = np.concatenate([rng.choice(W, m, replace=False) for _ in range(n)])
    good = rng.random(n * m) < 0.6
    lab = np.where(good, truth[t], rng.integers(0, C, n * m))
    df = pd.DataFrame({"task": t, "worker": w, "label": lab})
    res = _fit(df, options=range(C))
    assert res.start_method == "plurality" and res.posteriors.shape == (n, C)
    plural = np.argmax(res.answer_matrix.counts, axis=1)
    assert (res.codes == truth).mean() >= (plural == truth).mean() - 0.01
    theta = res.confusion([0, 5])
    assert theta.shape == (2, C, C)
    np.testing.assert_allclose(theta.sum(axis=2), 1.0)
    with pytest.raises(ValueError, match="cells"):
        res.confusion()
    # the estimator leaves the too-large array out rather than building it
    assert DMIEM(random_state=0, options=range(C)).fit(df).confusions_ is None


# --------------------------------------------------------------------------- #
# The objective, information-theoretically; the naming
# --------------------------------------------------------------------------- #
def xlogx(x):
    x = np.asarray(x, dtype=float)
    return np.where(x > 0, x * np.log(np.where(x > 0, x, 1.0)), 0.0)


def hard_em_objective(df, z, C):
    """The hard-EM objective of :func:`dmi_em`'s Notes at the assignment ``z`` (class
    of each task ``0..n-1``), two ways: ``"likelihood"``, ``Σ_t log π̂_{z_t} +
    Σ_answers log θ̂_w[z_t, l]`` summed answer by answer at the maximum-likelihood
    ``π̂ = n_c / n``, ``θ̂_w[c, l] = n_wcl / n_wc``; ``"information"``, the Notes'
    ``Σ_w n_w Î(L_w; Z) − n Ĥ(Z) − Σ_w n_w Ĥ(L_w)`` from the counts; and
    ``"mutual_information"``, its first sum."""
    task, label = df["task"].to_numpy(), df["label"].to_numpy()
    worker = np.unique(df["worker"].to_numpy(), return_inverse=True)[1]
    n, W = z.size, int(worker.max()) + 1
    zt = z[task]
    n_wcl = np.bincount((worker * C + zt) * C + label, minlength=W * C * C).reshape(W, C, C)
    n_wc, n_c = n_wcl.sum(axis=2), np.bincount(z, minlength=C)
    likelihood = float(np.log(n_c[z] / n).sum())
    for w, c, lab in zip(worker, zt, label):
        likelihood += math.log(n_wcl[w, c, lab] / n_wc[w, c])
    n_w, n_wl = n_wcl.sum(axis=(1, 2)), n_wcl.sum(axis=1)
    # n_w Î_w = Σ_cl n_wcl log(n_wcl n_w / (n_wc n_wl)); n_w Ĥ(L_w) = n_w log n_w − Σ_l n_wl log n_wl
    mi = xlogx(n_wcl).sum() + xlogx(n_w).sum() - xlogx(n_wc).sum() - xlogx(n_wl).sum()
    h_l = xlogx(n_w).sum() - xlogx(n_wl).sum()
    h_z = float(xlogx(n) - xlogx(n_c).sum())  # n Ĥ(Z)
    return {
        "likelihood": likelihood,
        "information": float(mi - h_z - h_l),
        "mutual_information": mi,
    }


@SETTINGS
@given(crowds(), st.data())
def test_hard_em_objective_is_mutual_information_minus_entropies(crowd, data):
    df, C = crowd
    n = int(df["task"].max()) + 1
    z = np.array(data.draw(st.lists(st.integers(0, C - 1), min_size=n, max_size=n)))
    out = hard_em_objective(df, z, C)
    assert out["likelihood"] == pytest.approx(out["information"], rel=1e-9, abs=1e-9)
    # brute force: Σ_w n_w I(L_w; Z) from each worker's empirical joint
    mi = 0.0
    for _, part in df.groupby("worker"):
        joint = pd.crosstab(z[part["task"]], part["label"].to_numpy()).to_numpy()
        p = joint / joint.sum()
        pz, pl = p.sum(axis=1, keepdims=True), p.sum(axis=0, keepdims=True)
        nz = p > 0
        mi += joint.sum() * float((p[nz] * np.log(p[nz] / (pz @ pl)[nz])).sum())
    assert out["mutual_information"] == pytest.approx(mi, rel=1e-9, abs=1e-9)


def test_many_options_with_gold_name_the_start():
    """Gold on a crowd with hundreds of options goes through the Bayes naming, whose
    number of namings C!/(C-k)! overflows a float there."""
    rng = np.random.default_rng(1)
    n, W, C, m = 400, 40, 300, 6
    truth = rng.integers(0, C, n)
    t = np.repeat(np.arange(n), m)
    w = np.concatenate([rng.choice(W, m, replace=False) for _ in range(n)])
    lab = np.where(rng.random(n * m) < 0.7, truth[t], rng.integers(0, C, n * m))
    df = pd.DataFrame({"task": t, "worker": w, "label": lab})
    gold = pd.Series(truth[:60], index=range(60))
    res = dmi_em(df, gold=gold, options=range(C), random_state=0)
    assert res.start_method == "plurality" and res.converged
    np.testing.assert_array_equal(res.labels.to_numpy()[:60], truth[:60])  # clamped
    assert (res.codes == truth).mean() > 0.9


# --------------------------------------------------------------------------- #
# Entry points agree
# --------------------------------------------------------------------------- #
def test_aggregate_estimator_and_function_agree():
    gold = pd.Series({1: 0})
    res = dmi_em(HAND, gold=gold, random_state=3)
    assert aggregate(HAND, "dmi-em", gold=gold, random_state=3).equals(res.labels)
    est = DMIEM(random_state=3).fit(HAND, gold)
    assert est.labels_.equals(res.labels)
    np.testing.assert_allclose(est.confusions_, res.confusion())
    assert est.probas_.equals(res.posteriors)
    assert "DMIEM(" in repr(est)


def test_estimator_passes_every_setting_to_its_method():
    """DMIEM runs ``aggregate(method="dmi-em")`` with its settings: each setting that
    changes the answer changes the estimator's alike, and ``set_params`` reaches it."""
    gold = pd.Series({1: 0})
    chosen = {"pseudocount": 5.0, "tol": 1e-3, "max_iter": 2, "default_confidence": 0.6}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        want = dmi_em(HAND, gold=gold, random_state=3, **chosen)
        assert not DMIEM(random_state=3).fit(HAND, gold).probas_.equals(want.posteriors)
        est = DMIEM(random_state=3, **chosen).fit(HAND, gold)
        assert est.n_iter_ == want.n_iter and est.probas_.equals(want.posteriors)
        est = DMIEM(random_state=3).set_params(**chosen).fit(HAND, gold)
        assert est.probas_.equals(want.posteriors)
    assert est.get_params()["pseudocount"] == 5.0
    with pytest.raises(ValueError, match="invalid parameter 'smoothness' for DMIEM"):
        DMIEM().set_params(smoothness=1)


# --------------------------------------------------------------------------- #
# Bad input
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    "kw, match",
    [
        ({"pseudocount": 0}, "pseudocount must be a positive number, got 0"),
        ({"pseudocount": float("nan")}, "pseudocount must be .* got nan"),
        ({"pseudocount": True}, "pseudocount must be .* got True"),
        ({"tol": -1e-3}, "tol must be a positive number, got -0.001"),
        ({"max_iter": 0}, "max_iter must be >= 1, got 0"),
        ({"max_dmi_options": 0}, "max_dmi_options must be .* got 0"),
        (
            {"default_confidence": 1.0},
            r"default_confidence must lie strictly between 0 and 1 \(a probability\), got 1.0",
        ),
        ({"weights": [1, 2]}, r"weights must have one entry per row of answers \(8\)"),
        ({"weights": [1, 1, 1, -1, 1, 1, 1, 1]}, "weights must be finite and non-negative, got -1"),
        ({"weights": "wt"}, "weights='wt' names no column"),
        (
            {"weights": [1e308] * 8},
            r"^weights sum to more than the float range \(largest 1e\+308\)",
        ),
        ({"weights": [1, 1, 0, 0, 1, 1, 1, 1]}, "task 2: all its answers have weight 0"),
        ({"gold": pd.Series({9: 0})}, r"gold names 1 task\(s\) that have no answers"),
        ({"gold": pd.Series({1: 7})}, r"gold has 1 label\(s\) not among options \[0, 1\]: \[7\]"),
        ({"dmi_method": "bogus"}, r"^dmi_method must be one of \['auto', .*\], got 'bogus'$"),
    ],
)
def test_bad_input_names_argument_and_value(kw, match):
    with pytest.raises(ValueError, match=match):
        dmi_em(HAND, **kw)


def test_a_count_that_is_not_an_integer_is_a_type_error():
    with pytest.raises(TypeError, match="^max_iter must be an integer, got float 2.5$"):
        dmi_em(HAND, max_iter=2.5)


def test_bad_tables_and_keywords():
    with pytest.raises(TypeError, match="answers must be a pandas DataFrame"):
        dmi_em([[1, 2, 3]])
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['smoothness'\]"):
        aggregate(HAND, "dmi-em", smoothness=1)
    with pytest.raises(ValueError, match="duplicate"):
        dmi_em(pd.concat([HAND, HAND.iloc[:1]]))
    with pytest.raises(TypeError, match="weights must be numbers"):
        dmi_em(HAND, weights=[object()] * 8)
    for bad in (True, "0.5"):
        with pytest.raises(TypeError, match=f"default_confidence must be a number, got {bad!r}"):
            dmi_em(HAND, default_confidence=bad)


def test_dask_table_is_refused_by_name():
    dd = pytest.importorskip("dask.dataframe")
    with pytest.raises(ValueError, match="method 'dmi-em' is not available for a dask table"):
        aggregate(dd.from_pandas(HAND, npartitions=2), "dmi-em")


def test_posterior_ties_go_to_the_first_option():
    import dataclasses

    res = dmi_em(HAND)
    tied = dataclasses.replace(res, posteriors=res.posteriors * 0 + 0.5)
    assert tied.codes.tolist() == [0, 0, 0, 0]
    assert res.codes.tolist() == res.answer_matrix.options.get_indexer(res.labels).tolist()


def test_a_weights_column_that_is_not_numbers_is_quoted_as_given():
    with pytest.raises(
        ValueError, match=r"^weights must be finite and non-negative, got 'x' at row"
    ):
        dmi_em(HAND.assign(wt=["x"] + [1] * 7), weights="wt")


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=1, max_size=7),
    st.integers(1, 5),
    st.permutations(range(4)),
)
def test_one_cluster_is_named_by_its_most_chosen_option(answers, n_tasks, sigma):
    """Every task with the same answers: no DMI clusters and no surprise, so the start
    (and the answer) is the most chosen option; relabelling the options relabels it."""
    counts = np.bincount(answers, minlength=4)
    assume(np.sum(counts == counts.max()) == 1)  # no tie for the most chosen
    W = len(answers)
    df = pd.DataFrame(
        {
            "task": np.repeat(np.arange(n_tasks), W),
            "worker": np.tile(np.arange(W), n_tasks),
            "label": np.tile(answers, n_tasks),
        }
    )
    res = dmi_em(df, options=range(4))
    assert res.start_method == "one cluster"
    assert set(res.labels) == {int(np.argmax(counts))}
    moved = dmi_em(df.assign(label=[sigma[v] for v in df["label"]]), options=range(4))
    assert set(moved.labels) == {sigma[int(np.argmax(counts))]}


def test_a_single_option():
    df = pd.DataFrame({"task": [1, 1, 2, 2], "worker": [1, 2, 1, 2], "label": [5, 5, 5, 5]})
    assert dmi_em(df).labels.tolist() == [5, 5]
    assert dmi_em(df, gold=pd.Series({1: 5})).labels.tolist() == [5, 5]
    assert dmi_em(df, options=[5, 6]).labels.tolist() == [5, 5]


def test_confusion_of_one_worker_by_id():
    res = dmi_em(HAND.assign(worker=HAND["worker"].map({"a": "ab", "b": "b"})), random_state=0)
    np.testing.assert_array_equal(res.confusion("ab"), res.confusion(["ab"]))
    assert res.confusion("b").shape == (1, 2, 2)
    with pytest.raises(ValueError, match=r"workers \['a'\] are not among the fitted workers"):
        res.confusion("a")  # a string is one id, not a sequence of ids
    ints = dmi_em(HAND.assign(worker=HAND["worker"].map({"a": 7, "b": 8})), random_state=0)
    np.testing.assert_array_equal(ints.confusion(7), ints.confusion([7]))
