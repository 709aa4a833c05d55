"""Tests of dmi_lib.tabular: the long-table interface and its agreement with references."""

from __future__ import annotations

import collections
import functools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dmi_lib import aggregation
from dmi_lib.extras.crowd_data import load_dataset
from dmi_lib.labels import same_partition
from dmi_lib.tabular import METHODS, DMIAggregator, MajorityVote, SurprisinglyPopular, aggregate
from dmi_lib.answers import answer_matrix


@functools.lru_cache(maxsize=None)
def _load(name, study=None, treatment=None):
    return load_dataset(name, study=study, treatment=treatment)


def _acc(labels, gold):
    return float((labels == gold.reindex(labels.index)).mean())


def _table(tasks, workers, labels, **extra):
    return pd.DataFrame({"task": tasks, "worker": workers, "label": labels, **extra})


@st.composite
def long_tables(draw, max_tasks=8, max_workers=6, max_options=4):
    """Random long tables without duplicate (task, worker) pairs."""
    C = draw(st.integers(2, max_options))
    n = draw(st.integers(1, max_tasks))
    m = draw(st.integers(1, max_workers))
    mask = draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m), min_size=n, max_size=n))
    rows = [(t, w) for t in range(n) for w in range(m) if mask[t][w]]
    if not rows:
        rows = [(0, 0)]
    labels = draw(st.lists(st.integers(0, C - 1), min_size=len(rows), max_size=len(rows)))
    t, w = zip(*rows)
    return _table([f"t{i}" for i in t], [f"w{j}" for j in w], [10 * l for l in labels])


def _crosstab(df):
    return pd.crosstab(df["task"], df["label"])


# --------------------------------------------------------------------------- #
# answer_matrix
# --------------------------------------------------------------------------- #
def test_answer_matrix_hand_worked():
    df = _table(["b", "b", "a", "a", "a"], [1, 2, 1, 2, 3], [2, 2, 0, 2, 2])
    am = answer_matrix(df)
    assert am.tasks.tolist() == ["a", "b"] and am.tasks.name == "task"
    assert am.options.tolist() == [0, 2] and am.options.name == "label"
    assert am.counts.tolist() == [[1, 2], [0, 2]]
    np.testing.assert_allclose(am.A, [[1 / 3, 2 / 3], [0, 1]])
    A, counts, tasks, options = am  # unpacks like a tuple
    assert counts is am.counts


@settings(max_examples=60, deadline=None)
@given(long_tables())
def test_answer_matrix_matches_crosstab(df):
    am = answer_matrix(df)
    ref = _crosstab(df)
    assert am.tasks.tolist() == ref.index.tolist()
    assert am.options.tolist() == ref.columns.tolist()
    np.testing.assert_array_equal(am.counts, ref.to_numpy())
    np.testing.assert_allclose(am.A.sum(axis=1), 1.0)
    assert am.counts.sum() == len(df)


@settings(max_examples=30, deadline=None)
@given(long_tables(), st.randoms(use_true_random=False))
def test_answer_matrix_ignores_row_order(df, rnd):
    idx = list(range(len(df)))
    rnd.shuffle(idx)
    a, b = answer_matrix(df), answer_matrix(df.iloc[idx])
    np.testing.assert_array_equal(a.counts, b.counts)
    assert a.tasks.equals(b.tasks)


def test_answer_matrix_options_order_and_unused_options():
    df = _table([1, 1, 2], [1, 2, 1], ["x", "y", "y"])
    am = answer_matrix(df, options=["z", "y", "x"])
    assert am.options.tolist() == ["z", "y", "x"]
    assert am.counts.tolist() == [[0, 1, 1], [0, 1, 0]]


def test_answer_matrix_duplicates():
    df = _table(["t", "t", "t", "u"], ["w", "w", "v", "w"], [0, 1, 1, 0])
    with pytest.raises(
        ValueError,
        match=r"1 duplicate \(task, worker\) pair\(s\), "
        r"e\.g\. task='t', worker='w'",
    ):
        answer_matrix(df)
    assert answer_matrix(df, duplicates="keep").counts.tolist() == [[1, 2], [1, 0]]
    assert answer_matrix(df, duplicates="first").counts.tolist() == [[1, 1], [1, 0]]
    with pytest.raises(ValueError, match="duplicates must be one of"):
        answer_matrix(df, duplicates="last")


def test_duplicate_message_names_the_pair_whose_first_row_comes_first():
    # rows: (a, 1), (b, 2), (b, 2), (a, 1) -- the first row to repeat a pair is row 2,
    # of (b, 2), but the repeated pair that appears first is (a, 1), at row 0
    df = _table(["a", "b", "b", "a"], [1, 2, 2, 1], [0, 1, 1, 0])
    with pytest.raises(ValueError, match=r"2 duplicate .*e\.g\. task='a', worker=1;"):
        answer_matrix(df)
    # the same for integer ids (the sorted-key path) listed in descending order
    df = _table([5, 3, 3, 5], [9, 4, 4, 9], [0, 1, 1, 0])
    with pytest.raises(ValueError, match=r"e\.g\. task=5, worker=9;"):
        answer_matrix(df)


def test_answer_matrix_errors():
    good = _table([1, 2], [1, 1], [0, 1])
    with pytest.raises(TypeError, match="must be a pandas DataFrame"):
        answer_matrix(good.to_numpy())
    with pytest.raises(ValueError, match=r"missing column\(s\) \['worker'\]"):
        answer_matrix(good.drop(columns="worker"))
    with pytest.raises(ValueError, match="answers is empty"):
        answer_matrix(good.iloc[:0])
    with pytest.raises(
        ValueError,
        match=r"1 missing value\(s\) in column 'label' "
        r"\(first at row index 1\)",
    ):
        answer_matrix(good.assign(label=[0, np.nan]))
    with pytest.raises(ValueError, match=r"missing value\(s\) in column 'task'"):
        answer_matrix(good.assign(task=[None, 2]))
    with pytest.raises(ValueError, match=r"missing value\(s\) in column 'worker'"):
        answer_matrix(good.assign(worker=[1, None]))
    with pytest.raises(ValueError, match=r"1 label\(s\) not among options \[0, 2\]: \[1\]"):
        answer_matrix(good, options=[0, 2])
    with pytest.raises(ValueError, match=r"not among options \['0', '1'\]"):
        answer_matrix(good, options=["0", "1"])  # strings are not the int labels
    with pytest.raises(ValueError, match=r"duplicate\(s\) \[0\]"):
        answer_matrix(good, options=[0, 1, 0])
    with pytest.raises(ValueError, match="options is empty"):
        answer_matrix(good, options=[])


def test_gold_for_unknown_tasks_is_refused():
    df = _table(["a", "a", "b", "b"], [1, 2, 1, 2], [0, 0, 1, 1])
    gold = pd.Series({"a": 0, "b": 1, "zzz": 1})
    with pytest.raises(
        ValueError,
        match=r"gold names 1 task\(s\) that have no answers, "
        r"e.g. \['zzz'\]",
    ):
        aggregate(df, "dmi", gold=gold)
    assert aggregate(df, "dmi", gold=gold.drop("zzz")).tolist() == [0, 1]


@pytest.mark.parametrize("method", ["dmi", "dmi-practical", "dmi-validated", "dmi-em"])
def test_a_gold_task_without_a_label_is_unknown(method):
    """A missing gold label (NaN, None) says nothing about its task: the answer is the
    one without that entry."""
    df = _table(list("aabbccdd"), [1, 2] * 4, [0, 0, 1, 1, 0, 1, 1, 1])
    for missing in (np.nan, None):
        gold = pd.Series({"a": missing, "b": 1}, dtype=object)
        got = aggregate(df, method, gold=gold, random_state=0)
        assert got.tolist() == aggregate(df, method, gold={"b": 1}, random_state=0).tolist()
    only = pd.Series({"a": np.nan})
    got = aggregate(df, method, gold=only, random_state=0)
    assert got.tolist() == aggregate(df, method, random_state=0).tolist()


@pytest.mark.parametrize("method", ["dmi", "dmi-practical", "dmi-validated"])
def test_gold_task_ids_of_another_type_are_refused(method):
    """'1' is not 1: such gold used to be dropped silently (clusters misnamed)."""
    df = _table([1, 1, 2, 2, 3, 3], [1, 2, 1, 2, 1, 2], [0, 0, 1, 1, 0, 1])
    with pytest.raises(
        ValueError,
        match=r"gold's task ids are str but the answers' "
        r"task ids are int",
    ):
        aggregate(df, method, gold=pd.Series({"1": 1, "2": 0}))
    with pytest.raises(
        ValueError,
        match=r"task ids are int but the answers' task ids "
        r"are str",
    ):
        aggregate(df.assign(task=df["task"].astype(str)), method, gold=pd.Series({1: 1, 2: 0}))


def test_label_space_too_large_for_a_dense_matrix_is_refused():
    df = _table(list(range(20)), [1] * 20, [f"free text {i}" for i in range(20)])
    with pytest.raises(
        ValueError,
        match=r"20 tasks and 20 distinct labels: the answer "
        r"matrix would have 400 cells \(about 0.0 GiB\), more than max_cells = 100",
    ):
        answer_matrix(df, max_cells=100)
    assert answer_matrix(df, max_cells=400).counts.shape == (20, 20)


# --------------------------------------------------------------------------- #
# aggregate: output contract
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("method", METHODS)
def test_aggregate_returns_series_of_options(method):
    d = _load("prelec2017_sp", "1a")
    out = aggregate(d.answers, method, random_state=0)
    assert isinstance(out, pd.Series) and out.name == "agg_label"
    assert out.index.name == "task" and out.index.is_unique
    assert set(out.index) == set(d.answers["task"]) and out.index.is_monotonic_increasing
    assert set(out.unique()) <= set(d.options)
    assert out.dtype.kind == "i"


@pytest.mark.parametrize("name", ["dog", "wsd", "weather_cf", "temp"])
@pytest.mark.parametrize("method", ["plurality", "surprisingly-popular", "dmi"])
def test_aggregate_multi_task_real_data(name, method):
    d = _load(name)
    out = aggregate(d.answers, method, random_state=0)
    assert len(out) == d.n_tasks and set(out.unique()) <= set(d.options)
    assert _acc(out, d.gold) > 0.5  # every method beats chance on these data sets


def test_the_method_table_is_what_aggregate_accepts():
    """METHODS is the one description of aggregate's methods: every name and keyword it
    lists is accepted, any other keyword is refused naming the method, and the
    estimators run their method from it."""
    df = _table([1, 1, 2, 2, 3, 3], [1, 2, 1, 2, 1, 2], [0, 1, 1, 1, 0, 0])
    assert list(METHODS) == [m.name for m in METHODS.values()]
    for name, spec in METHODS.items():
        with pytest.raises(TypeError, match=rf"aggregate\(method='{name}'\) got unexpected"):
            aggregate(df, name, not_a_keyword=1)
        assert spec.groups is None or spec.dask  # what runs per group runs on Dask
    assert METHODS["dmi"].keywords == {"dmi_method", "rank_tol"}
    assert METHODS["surprisingly-popular"].keywords == {"prior"}
    out = aggregate(df, "surprisingly-popular", prior=[0.9, 0.1])
    assert out.tolist() == SurprisinglyPopular(prior=[0.9, 0.1]).fit_predict(df).tolist()
    agg = DMIAggregator(method="brute-force").fit(df)
    assert agg.result_.clustering.method == "brute-force"
    assert repr(DMIAggregator(rank_tol=0.1)).startswith("DMIAggregator(method='auto'")
    with pytest.raises(ValueError, match="invalid parameter 'prior' for MajorityVote"):
        MajorityVote().set_params(prior=1)


def test_aggregate_argument_errors():
    df = _table([1, 1, 2, 2], [1, 2, 1, 2], [0, 1, 1, 1])
    with pytest.raises(ValueError, match="method must be one of"):
        aggregate(df, "em")
    with pytest.raises(ValueError, match="ties must be one of"):
        aggregate(df, "plurality", ties="last")
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['prior'\]"):
        aggregate(df, "plurality", prior=[0.5, 0.5])
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['n_init'\]"):
        aggregate(df, "dmi", n_init=3)
    # dmi_cluster's `method` is named as the caller wrote it, by every method that takes it
    for method in ("dmi", "dmi-practical", "dmi-validated", "dmi-em"):
        with pytest.raises(
            ValueError,
            match=r"^dmi_method must be one of \['auto', 'exact', 'k-cofactors', "
            r"'brute-force'\], got 'bogus'$",
        ):
            aggregate(df, method, dmi_method="bogus")
    with pytest.raises(ValueError, match="needs a 'prediction' column"):
        aggregate(df, "sp-single")
    with pytest.raises(ValueError, match="smoothing must be a number in"):
        aggregate(df.assign(prediction=0.5), "sp-single", smoothing=2)
    with pytest.raises(TypeError, match="gold must be a pandas Series"):
        aggregate(df, "dmi", gold=[0, 1])
    with pytest.raises(
        ValueError, match=r"gold has 1 label\(s\) not among options \[0, 1\]: \[7\]"
    ):
        aggregate(df, "dmi", gold=pd.Series({1: 7}))
    with pytest.raises(ValueError, match="lists task 1 more than once"):
        aggregate(df, "dmi", gold=pd.Series([0, 1], index=[1, 1]))
    with pytest.raises(ValueError, match=r"prior has no entry for option\(s\) \[1\]"):
        aggregate(df, "surprisingly-popular", prior=pd.Series({0: 1.0}))


# --------------------------------------------------------------------------- #
# plurality and surprisingly popular against references
# --------------------------------------------------------------------------- #
def _tops(df, score):
    """Reference: task -> set of labels maximising score(counter, label)."""
    votes = collections.defaultdict(collections.Counter)
    for t, l in zip(df["task"], df["label"]):
        votes[t][l] += 1
    labels = sorted(set(df["label"]))
    out = {}
    for t, c in votes.items():
        s = {l: score(c, l) for l in labels}
        best = max(s.values())
        out[t] = {l for l in labels if s[l] == best}
    return out, votes


@settings(max_examples=60, deadline=None)
@given(long_tables(), st.integers(0, 2**32 - 1))
def test_plurality_matches_counter(df, seed):
    tops, _ = _tops(df, lambda c, l: c[l])
    first = aggregate(df, "plurality")
    rand = aggregate(df, "plurality", ties="random", random_state=seed)
    for t in first.index:
        assert first[t] == min(tops[t])  # ties="first": smallest label
        assert rand[t] in tops[t]
    again = aggregate(df, "plurality", ties="random", random_state=seed)
    assert rand.equals(again)


def test_random_ties_reach_every_tied_option():
    df = _table(["t"] * 3, [1, 2, 3], [0, 1, 2])
    seen = {
        int(aggregate(df, "plurality", ties="random", random_state=s).iloc[0]) for s in range(40)
    }
    assert seen == {0, 1, 2}


@settings(max_examples=60, deadline=None)
@given(long_tables())
def test_surprisingly_popular_matches_definition(df):
    """Definition (Surprisingly popular): argmax_c a_c / ā_c with ā the mean of A."""
    _, votes = _tops(df, lambda c, l: c[l])
    labels = sorted(set(df["label"]))
    shares = {t: {l: c[l] / sum(c.values()) for l in labels} for t, c in votes.items()}
    abar = {l: np.mean([s[l] for s in shares.values()]) for l in labels}
    out = aggregate(df, "surprisingly-popular")
    for t, s in shares.items():
        ratio = {l: s[l] / abar[l] for l in labels}
        best = max(ratio.values())
        # rounding may split exact mathematical ties; compare with a tolerance
        assert ratio[out[t]] >= best * (1 - 1e-12)
    # an option nobody chose, listed in options=, is never surprisingly popular and
    # changes nothing (its prior is 0: it used to be refused as an explicit prior)
    unseen = aggregate(df, "surprisingly-popular", options=labels + [max(labels) + 1])
    assert unseen.equals(out)


def test_surprisingly_popular_paper_example():
    """Introduction: 56/40/4 against the prior 70/26/4 is surprisingly "so so"."""
    df = _table(["q"] * 25, range(25), ["good"] * 14 + ["so so"] * 10 + ["bad"] * 1)
    prior = pd.Series({"good": 0.70, "so so": 0.26, "bad": 0.04})
    assert aggregate(df, "surprisingly-popular", prior=prior).iloc[0] == "so so"
    assert aggregate(df, "plurality").iloc[0] == "good"
    sp = SurprisinglyPopular(prior=prior).fit(df)
    assert sp.labels_.iloc[0] == "so so"
    assert sp.prior_["good"] == 0.70


@pytest.mark.parametrize(
    "name, study",
    [
        ("rte", None),
        ("temp", None),
        ("bluebirds", None),
        ("prelec2017_sp", "1b"),
        ("prelec2017_sp", "3"),
    ],
)
def test_binary_dmi_equals_surprisingly_popular(name, study):
    """Corollary (Binary question: DMI-clustering = surprisingly popular), on real data:
    every task off the mean gets the same label from both."""
    d = _load(name, study)
    dmi = aggregate(d.answers, "dmi")
    sp = aggregate(d.answers, "surprisingly-popular")
    A = answer_matrix(d.answers).A
    off_mean = np.abs(A[:, 1] - A[:, 1].mean()) > 1e-12
    assert off_mean.sum() > 0.9 * len(A)
    assert (dmi[off_mean] == sp[off_mean]).all()


# --------------------------------------------------------------------------- #
# DMI: plumbing, gold naming, strategy invariance
# --------------------------------------------------------------------------- #
def test_dmi_matches_dmi_aggregate_on_the_matrix():
    d = _load("wsd")
    am = answer_matrix(d.answers)
    ref = aggregation.dmi_aggregate(am.A, random_state=0)
    out = aggregate(d.answers, "dmi", random_state=0)
    assert out.tolist() == am.options[ref].tolist()
    g = am.options.get_indexer(d.gold.reindex(am.tasks))
    ref_g = aggregation.dmi_aggregate(am.A, gold=g, random_state=0)
    assert (
        aggregate(d.answers, "dmi", gold=d.gold, random_state=0).tolist()
        == am.options[ref_g].tolist()
    )


@pytest.mark.parametrize("name", ["rte", "wsd", "face", "weather_cf"])
def test_gold_naming_never_loses_to_default(name):
    """Naming maximises gold agreement over all matchings, the default's included."""
    d = _load(name)
    with_gold = _acc(aggregate(d.answers, "dmi", gold=d.gold, random_state=0), d.gold)
    without = _acc(aggregate(d.answers, "dmi", random_state=0), d.gold)
    assert with_gold >= without


def _permutations(options, n_seeds=2):
    """The cyclic shift and seeded random permutations, all different from identity."""
    opts = list(options)
    perms = [dict(zip(opts, opts[1:] + opts[:1]))]
    rng = np.random.default_rng(0)
    while len(perms) < 1 + n_seeds:
        p = dict(zip(opts, rng.permutation(opts).tolist()))
        if any(k != v for k, v in p.items()):
            perms.append(p)
    return perms


@pytest.mark.parametrize("name", ["rte", "temp", "wsd", "dog", "face", "weather_cf"])
def test_permutation_strategy_leaves_dmi_partition_unchanged(name):
    """Every worker relabels through one permutation (the Introduction's strategy):
    the DMI partition is the same (Theorem, affine-invariant), gold naming recovers the
    same accuracy, and the default (gold-free) names are permuted along."""
    d = _load(name)
    base = DMIAggregator(random_state=0).fit(d.answers, gold=d.gold)
    base_free = DMIAggregator(random_state=0).fit(d.answers)
    for perm in _permutations(d.options):
        inv = {v: k for k, v in perm.items()}
        moved = d.answers.assign(label=d.answers["label"].map(perm))
        agg = DMIAggregator(random_state=0).fit(moved, gold=d.gold)
        assert same_partition(base.clusters_, agg.clusters_)
        assert _acc(agg.labels_, d.gold) == _acc(base.labels_, d.gold)
        free = DMIAggregator(random_state=0).fit(moved)
        assert (free.labels_.map(inv) == base_free.labels_).all()
        # plurality is not robust: its labels simply follow the permutation
        mv = aggregate(moved, "plurality", options=[perm[o] for o in d.options])
        assert (mv.map(inv) == aggregate(d.answers, "plurality")).all()


def test_dmi_aggregator_attributes():
    d = _load("face")
    agg = DMIAggregator(random_state=0).fit(d.answers, gold=d.gold)
    assert agg.labels_.name == "agg_label" and agg.clusters_.name == "cluster"
    assert agg.names_.is_unique and set(agg.names_) <= set(d.options)
    assert (agg.names_[agg.clusters_].to_numpy() == agg.labels_.to_numpy()).all()
    assert agg.result_.clustering.method == "k-cofactors"  # 4 options: k = 4
    assert (
        DMIAggregator(method="exact").fit(_load("wsd").answers).result_.clustering.method
        == "exact-2d"
    )
    assert (
        DMIAggregator()
        .fit_predict(d.answers, gold=d.gold)
        .equals(DMIAggregator().fit(d.answers, gold=d.gold).labels_)
    )
    assert "DMIAggregator(method='auto'" in repr(agg)


# --------------------------------------------------------------------------- #
# Classes
# --------------------------------------------------------------------------- #
def test_majority_vote_class():
    d = _load("dog")
    mv = MajorityVote()
    assert mv.fit(d.answers) is mv
    assert mv.labels_.equals(aggregate(d.answers, "plurality"))
    am = answer_matrix(d.answers)
    np.testing.assert_array_equal(mv.probas_.to_numpy(), am.A)
    assert mv.probas_.columns.tolist() == d.options
    assert mv.fit_predict(d.answers).equals(mv.labels_)
    assert mv.fit_predict_proba(d.answers).equals(mv.probas_)
    r1 = MajorityVote(ties="random", random_state=3).fit_predict(d.answers)
    r2 = MajorityVote(ties="random", random_state=3).fit_predict(d.answers)
    assert r1.equals(r2)


def test_surprisingly_popular_class():
    d = _load("face")
    sp = SurprisinglyPopular().fit(d.answers)
    assert sp.labels_.equals(aggregate(d.answers, "surprisingly-popular"))
    np.testing.assert_allclose(sp.prior_.to_numpy(), answer_matrix(d.answers).A.mean(0))
    assert sp.fit_predict(d.answers).equals(sp.labels_)


# --------------------------------------------------------------------------- #
# Single-task methods
# --------------------------------------------------------------------------- #
def _closed_form_sp_binary(df):
    """Algorithm 5 for two options in closed form: with m_c the mean predicted share
    of 1 among those voting c, Pr[1|0] = m_0, Pr[0|1] = 1 - m_1 and
    Pr[0] = Pr[0|1] / (Pr[0|1] + Pr[1|0])."""
    out = {}
    for t, g in df.groupby("task"):
        a1 = (g["label"] == 1).mean()
        if a1 in (0.0, 1.0):
            out[t] = int(a1)
            continue
        m0 = g.loc[g["label"] == 0, "prediction"].mean()
        m1 = g.loc[g["label"] == 1, "prediction"].mean()
        v0 = (1 - m1) / ((1 - m1) + m0)
        out[t] = int(a1 / (1 - v0) > (1 - a1) / v0)
    return pd.Series(out)


@pytest.mark.parametrize("study", ["1a", "1b", "2", "4a", "4b"])
def test_sp_single_matches_closed_form_on_prelec(study):
    d = _load("prelec2017_sp", study)
    out = aggregate(d.answers, "sp-single")
    ref = _closed_form_sp_binary(d.answers)
    assert (out == ref.reindex(out.index)).all()


def test_spectral_matches_direct_calls():
    d = _load("prelec2017_sp", "2")
    out = aggregate(d.answers, "spectral")
    for t, g in d.answers.groupby("task"):
        if g["label"].nunique() == 1:
            assert out[t] == g["label"].iloc[0]
            continue
        p = g["prediction"].to_numpy()
        r = aggregation.spectral_truth_serum(g["label"].to_numpy(), np.column_stack([1 - p, p]))
        assert out[t] == int(np.argmax(r.sign * r.e))


def test_spectral_sign_zero_names_both_ends_of_e():
    # Sign 0 (a - v orthogonal to e*): e* = (-0.41, 0.82, -0.41) says nothing about which
    # end the answers moved to, so the maxima of e* (option 1) and of -e* (options 0
    # and 2) all tie: 'first' takes option 0, 'random' each of the three.
    P = [[0.25, 0.25, 0.5], [0.5, 0.25, 0.25], [0.25, 0.5, 0.25]]
    r = aggregation.spectral_truth_serum([0, 2, 1], P)
    assert r.sign == 0 and np.argmax(r.e) == 1
    df = pd.DataFrame({"task": 0, "worker": [1, 2, 3], "label": [0, 2, 1], "prediction": P})
    assert aggregate(df, "spectral", ties="first").tolist() == [0]
    seen = {aggregate(df, "spectral", ties="random", random_state=s).iloc[0] for s in range(40)}
    assert seen == {0, 1, 2}


def test_prelec_single_task_needs_smoothing_where_a_conditional_is_zero():
    d = _load("prelec2017_sp", "1c")
    with pytest.raises(
        ValueError,
        match=r"task 'Massachusetts \| Boston' \(sp-single\): "
        r"Pr\[0\|0\] = 0",
    ):
        aggregate(d.answers, "sp-single")
    out = aggregate(d.answers, "sp-single", smoothing=0.01)
    assert len(out) == 50


def test_single_task_drops_unchosen_options_and_renormalises():
    # options 0, 1, 2; nobody chose 2; predictions over all three
    P = [[0.5, 0.3, 0.2], [0.4, 0.4, 0.2], [0.2, 0.6, 0.2], [0.1, 0.7, 0.2]]
    df = _table(["q"] * 4, [1, 2, 3, 4], [0, 0, 1, 1], prediction=P)
    out = aggregate(df, "sp-single", options=[0, 1, 2])
    Q = np.array(P)[:, :2]
    ref = aggregation.surprisingly_popular_single([0, 0, 1, 1], Q / Q.sum(1, keepdims=True))
    assert out.iloc[0] == ref.answer


def test_single_task_label_predictions_and_errors():
    # predicted top choices (labels), as in hosseini2021's Top-Top format
    df = _table(
        ["q"] * 5, range(5), [7, 7, 7, 9, 9], prediction=pd.array([7, 9, 9, 9, 7], dtype="Int64")
    )
    P = np.array([[1, 0], [0, 1], [0, 1], [0, 1], [1, 0]], float)
    assert (
        aggregate(df, "sp-single").iloc[0]
        == [7, 9][aggregation.surprisingly_popular_single([0, 0, 0, 1, 1], P).answer]
    )
    with pytest.raises(
        ValueError, match=r"column 'prediction' has 1 label\(s\) not among options \[7, 9\]: \[8\]"
    ):
        aggregate(df.assign(prediction=pd.array([8, 9, 9, 9, 7], dtype="Int64")), "sp-single")
    with pytest.raises(
        ValueError,
        match=r"column 'prediction' has 1 missing value\(s\), "
        r"e\.g\. task='q', worker=0",
    ):
        aggregate(df.assign(prediction=pd.array([None, 9, 9, 9, 7], dtype="Int64")), "spectral")
    with pytest.raises(ValueError, match=r"prediction must be a fraction in \[0, 1\]"):
        aggregate(df.assign(prediction=[7.0, 9.0, 9.0, 9.0, 7.0]), "sp-single")
    with pytest.raises(ValueError, match="'fraction'.* needs exactly 2 options"):
        aggregate(_table(["q"] * 3, [1, 2, 3], [0, 1, 2], prediction=[0.1, 0.2, 0.3]), "sp-single")


def test_single_task_one_hot_needs_smoothing():
    d = _load("hosseini2021_spvoting", treatment="Top-Top")
    with pytest.raises(
        ValueError,
        match=r"^task '1:01': worker 6 predicted only options nobody chose in this task "
        r"\(\[19, 1, 7\] were chosen\); pass smoothing > 0 \(e\.g\. 0\.01\) to mix every "
        r"prediction with the uniform distribution$",
    ):
        aggregate(d.answers, "sp-single", ties="random", random_state=0)
    out = aggregate(d.answers, "sp-single", ties="random", random_state=0, smoothing=0.01)
    assert len(out) == 60
    assert all(
        out[t] in d.task_options[t] or out[t] in set(d.answers.loc[d.answers["task"] == t, "label"])
        for t in out.index
    )


def test_distribution_predictions():
    P = [(0.6, 0.4), (0.5, 0.5), (0.2, 0.8)]
    df = _table(["q"] * 3, [1, 2, 3], [0, 0, 1], prediction=P)
    ref = aggregation.surprisingly_popular_single([0, 0, 1], np.array(P))
    assert aggregate(df, "sp-single").iloc[0] == ref.answer
    # the same numbers as fractions of option 1
    frac = df.assign(prediction=[p[1] for p in P])
    assert aggregate(frac, "sp-single").iloc[0] == ref.answer
    with pytest.raises(ValueError, match="is not a probability vector"):
        aggregate(df.assign(prediction=[(0.6, 0.6), (0.5, 0.5), (0.2, 0.8)]), "sp-single")
    with pytest.raises(ValueError, match="one entry per option"):
        aggregate(df.assign(prediction=[(1.0,), (1.0,), (1.0,)]), "sp-single")


def test_unanimous_task_gets_its_answer():
    df = _table(
        ["q"] * 3 + ["r"] * 2,
        [1, 2, 3, 1, 2],
        [1, 1, 1, 0, 1],
        prediction=[0.9, 0.9, 0.9, 0.4, 0.6],
    )
    for method in ("sp-single", "spectral"):
        assert aggregate(df, method)["q"] == 1


def test_unsortable_tasks_keep_first_appearance_order():
    df = _table([1, "a", 1, "a"], [1, 1, 2, 2], [0, 1, 0, 1])
    am = answer_matrix(df)
    assert am.tasks.tolist() == [1, "a"]
    assert aggregate(df, "plurality").to_dict() == {1: 0, "a": 1}


def test_fraction_refers_to_the_larger_label_whatever_the_column_order():
    d = _load("prelec2017_sp", "1a")
    a = aggregate(d.answers, "sp-single")
    b = aggregate(d.answers, "sp-single", options=[1, 0])
    assert a.equals(b)
    with pytest.raises(ValueError, match="prediction_type must be one of"):
        aggregate(d.answers, "sp-single", prediction_type="share")


@pytest.mark.parametrize(
    "method", ["surprisingly-popular", "dmi", "dmi-practical", "dmi-validated"]
)
def test_multi_task_methods_refuse_per_task_label_spaces(method):
    from dmi_lib import aggregate
    from dmi_lib.extras.crowd_data import load_dataset

    ds = load_dataset("hosseini2021_spvoting", treatment="Top-Top")
    with pytest.raises(ValueError, match="per-task"):
        aggregate(ds.answers, method=method)
    assert (
        aggregate(ds.answers, method="plurality", ties="random", random_state=0).index.size
        == ds.gold.size
    )


@pytest.mark.parametrize("method", ["dmi", "dmi-practical", "dmi-validated"])
def test_dmi_methods_refuse_a_table_with_nothing_to_separate(method):
    """Every task with the same answer shares (one option chosen, one task, or the same
    shares everywhere): the message speaks of the table, not of DMI-clustering's
    internal matrices."""
    one_option = _table([1, 1, 2, 2], [1, 2, 1, 2], [5, 5, 5, 5])
    with pytest.raises(
        ValueError,
        match=rf"^method='{method}': all 2 tasks have the same answer shares \{{5: 1.0\}}, so "
        r"DMI-clustering has nothing to separate",
    ):
        aggregate(one_option, method)
    one_task = _table([1, 1, 1], [1, 2, 3], [0, 1, 1])
    with pytest.raises(
        ValueError,
        match=rf"^method='{method}': the table's single task has answer shares "
        r"\{0: 0.333333, 1: 0.666667\}",
    ):
        aggregate(one_task, method)
    same = _table([1, 1, 2, 2, 3, 3, 3, 3], [1, 2, 1, 2, 1, 2, 3, 4], [0, 1, 1, 0, 0, 1, 0, 1])
    with pytest.raises(ValueError, match=r"all 3 tasks have the same answer shares"):
        aggregate(same, method, options=[0, 1, 2])
    # DMI-EM and plurality answer such tables
    assert aggregate(one_option, "dmi-em").tolist() == [5, 5]
    assert aggregate(one_task, "dmi-em").tolist() == [1]


def test_a_prior_that_is_not_numbers_is_named():
    df = _table([1, 1, 2, 2], [1, 2, 1, 2], [0, 1, 1, 1])
    with pytest.raises(TypeError, match=r"^prior must be numeric probabilities, got 'uniform'$"):
        aggregate(df, "surprisingly-popular", prior="uniform")


def test_unhashable_options_are_named():
    df = _table([1, 1, 2, 2], [1, 2, 1, 2], [0, 1, 1, 1])
    with pytest.raises(TypeError, match=r"^options must be label values, got unhashable \[0\] at "):
        aggregate(df, "plurality", options=[[0], [1]])
