"""The library's edges: many-option crowds, exact solvers beyond k = 3, the Dask path
against the pandas path, file-reading errors and argument checks.

Every refusal must name the argument (or file) and come quickly; every answer must
equal what an independent computation gives.
"""

import os
import time

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import dmi_lib
from dmi_lib import exact, mechanisms, problem, simulation
from dmi_lib.extras import crowd_data
from dmi_lib._kc_engine import Engine
from dmi_lib.labels import distinct_rows
from dmi_lib.linear_partitions import estimated_programs, linear_partition_optimum
from dmi_lib.mechanisms import Reports

dd = pytest.importorskip("dask.dataframe")
scale_out = pytest.importorskip("dmi_lib.extras.scale_out")

SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def crowd(n_tasks, C, seed, answers=10, accuracy=0.6):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, C, n_tasks)
    task = np.repeat(np.arange(n_tasks), answers)
    right = rng.random(task.size) < accuracy
    label = np.where(right, truth[task], rng.integers(0, C, task.size))
    df = pd.DataFrame(
        {"task": task, "worker": np.tile(np.arange(answers), n_tasks), "label": label}
    )
    return df, truth


# --------------------------------------------------------------------------- #
# Many options
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("n_tasks, C, seed", [(1000, 100, 0), (600, 40, 1)])
def test_many_option_crowds_aggregate_to_a_local_maximum(n_tasks, C, seed):
    """1,000 tasks × 10 answers over 100 options made k-cofactors' line search empty
    a cluster; now the DMI clustering ends at a local maximum of the weighted
    distinct rows and names most tasks right."""
    df, truth = crowd(n_tasks, C, seed)
    out = dmi_lib.aggregate(df, method="dmi", random_state=seed)
    assert (out.to_numpy() == truth).mean() > 0.9
    res = assert_local_maximum_of_distinct_rows(df, seed, n_init=2)
    assert res.k > 32  # the LU and (C = 100) one-at-a-time paths


def assert_local_maximum_of_distinct_rows(df, seed, n_init):
    """DMI-clustering of the crowd's distinct answer rows (weighted by their counts,
    as ``aggregate`` clusters them) converges, and no single move of a row raises
    ``|det(CᵀWÃ)|``: moving row ``t`` to cluster ``c`` multiplies it by
    ``1 + w_t (ÃD)[t, c] - w_t (ÃD)[t, C(t)]``."""
    am = dmi_lib.answer_matrix(df)
    index, _, counts = distinct_rows(am.A)
    res = dmi_lib.dmi_cluster(am.A[index], sample_weight=counts, random_state=seed, n_init=n_init)
    assert res.converged
    p = problem.prepare(am.A[index], sample_weight=counts)
    G = p.A_tilde @ res.D
    gain = G - G[np.arange(p.n), res.labels][:, None]
    F = 1 + counts[:, None] * gain
    assert np.all(np.abs(F) <= 1 + 1e-7)
    return res


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# k = 187 clusters: a repaired start that the 2-norm rank test passed and the
# many-cluster state's 1-norm test refused (the batch phase then had no D)
@example(n_tasks=236, C=205, answers=8, accuracy=0.83203125, seed=179)
@given(
    n_tasks=st.integers(30, 300),
    C=st.integers(20, 1000),
    answers=st.integers(2, 10),
    accuracy=st.floats(0.2, 0.9),
    seed=st.integers(0, 2**16),
)
def test_many_option_crowds_aggregate_without_error(n_tasks, C, answers, accuracy, seed):
    """Any crowd of up to 1,000 options: every task gets one of the labels the crowd
    gave (its cluster's name, which its own workers need not have chosen), and the
    clustering behind it ends at a local maximum."""
    df, _ = crowd(n_tasks, C, seed, answers=answers, accuracy=accuracy)
    out = dmi_lib.aggregate(df, method="dmi", random_state=seed)
    assert out.index.tolist() == list(range(n_tasks))
    assert set(out) <= set(df["label"])
    assert_local_maximum_of_distinct_rows(df, seed, n_init=1)


def test_line_search_never_empties_a_cluster():
    """With ``M`` given, a candidate set that empties a cluster scores 0."""
    A = np.random.default_rng(3).normal(size=(60, 2))
    eng = Engine(problem.prepare(A))
    labels = np.zeros(60, dtype=np.intp)
    labels[:2], labels[2:4] = 1, 2  # clusters 1 and 2 hold two rows each
    st_ = eng.state(labels)
    # moving rows 0 and 1 empties cluster 1: a bucket holding exactly them
    V = np.zeros((2, 3, 3))
    V[0] = np.outer(np.eye(3)[0] - np.eye(3)[1], eng.Xt[:, 0] + eng.Xt[:, 1])
    # A D spoiled by rounding (as at k = 1,000) can make the emptying set look
    # like a gain through det(I + D·ΔM); the cluster sizes in M rule it out.
    spoiled = 10.0 * np.eye(3)
    assert eng._line_search(V, np.array([2, 0]), spoiled, 0.0)[0] == 0
    assert eng._line_search(V, np.array([2, 0]), spoiled, 0.0, st_.M)[0] is None


# --------------------------------------------------------------------------- #
# Exact solvers beyond k = 3
# --------------------------------------------------------------------------- #
def test_exact_method_brute_forces_k4_within_the_bound():
    A = np.random.default_rng(0).normal(size=(11, 3))  # 4**10 ≈ 1.05e6 labelings
    res = dmi_lib.dmi_cluster(A, method="exact")
    assert res.exact and res.method == "brute-force"
    assert np.isclose(res.log_score, exact.brute_force(A).log_score)
    t = time.perf_counter()
    with pytest.raises(ValueError, match=r"= 4 with n = 13 rows.*10000000 labelings"):
        dmi_lib.dmi_cluster(np.random.default_rng(0).normal(size=(13, 3)), method="exact")
    assert time.perf_counter() - t < 1.0


def test_linear_partition_optimum_refuses_quickly_beyond_its_estimate():
    for n, d in [(11, 3), (200, 1), (200, 2)]:
        X = np.random.default_rng(0).normal(size=(n, d))
        t = time.perf_counter()
        with pytest.raises(ValueError, match="max_programs = "):
            linear_partition_optimum(X, enumeration="linear-partitions")
        assert time.perf_counter() - t < 1.0
    # the estimate bounds the programs actually solved
    import dmi_lib.linear_partitions as lp

    calls = []
    orig = lp.linprog
    try:
        lp.linprog = lambda *a, **k: calls.append(1) or orig(*a, **k)
        X = np.random.default_rng(1).normal(size=(6, 2))
        linear_partition_optimum(X, enumeration="linear-partitions")
    finally:
        lp.linprog = orig
    assert 0 < len(calls) <= estimated_programs(6, 3)


def test_brute_force_refuses_a_huge_table_quickly():
    t = time.perf_counter()
    with pytest.raises(ValueError, match="GiB"):
        exact.brute_force(np.random.default_rng(1).normal(size=(40, 1)), max_labelings=10**30)
    assert time.perf_counter() - t < 1.0


# --------------------------------------------------------------------------- #
# Argument checks
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize(
    "kw, err, match",
    [
        ({"init": "bogus"}, ValueError, "init must be one of"),
        ({"n_init": 0}, ValueError, "n_init must be >= 1"),
        ({"max_iter": 0}, ValueError, "max_iter must be >= 1"),
        ({"random_state": -1}, ValueError, "random_state must be None, a non-negative"),
        ({"init": [0, 1]}, ValueError, "init has length 2"),
    ],
)
def test_exact_paths_check_the_k_cofactors_options(kw, err, match):
    for method in ("auto", "exact"):
        with pytest.raises(err, match=match):
            dmi_lib.dmi_cluster([[0.0], [1.0], [2.0]], method=method, **kw)


def test_small_argument_checks():
    with pytest.raises(ValueError, match=r"columns must be distinct indices, got \[0, 0, 2\]"):
        problem.assign([[0.0, 1.0]], np.eye(3), [0, 0, 2])
    with pytest.raises(TypeError, match="columns must hold integer indices, got 1.0"):
        problem.assign([[0.0, 1.0]], np.eye(3), [0, 1.0, 2])
    with pytest.raises(TypeError, match="U must be a numeric joint-distribution matrix"):
        mechanisms.dmi([["a", "b"], ["c", "d"]])
    with pytest.raises(ValueError, match=r"alpha must be a number or have one entry per option"):
        simulation.random_states(5, 3, alpha=[1, 2])
    t = time.perf_counter()
    with pytest.raises(ValueError, match=r"counts\(\) would build an n_tasks × n_options"):
        Reports.from_arrays([10**12], [0], [0]).counts()
    assert time.perf_counter() - t < 1.0
    df = pd.DataFrame(
        {"task": [0, 0, 1, 1, 2, 2], "worker": [0, 1] * 3, "label": [0, 1, 1, 1, 0, 0]}
    )
    with pytest.raises(TypeError, match="refine must be True or False, got 'yes'"):
        dmi_lib.aggregate(df, "dmi-practical", refine="yes")
    lists = df.assign(label=[[v] for v in df["label"]])
    with pytest.raises(TypeError, match="answers column 'label' must hold hashable values"):
        dmi_lib.aggregate(lists)
    twice = pd.concat([df, df[["label"]]], axis=1)
    with pytest.raises(ValueError, match="several columns named 'label'"):
        dmi_lib.aggregate(twice)


def test_rank_tol_zero_keeps_the_identical_rows_floor():
    """dmi_rank's docstring: rank_tol=0 counts singular values above numpy's
    threshold and above IDENTICAL_RTOL times the magnitude."""
    A = np.array([[1.0, 0.0], [1.0, 1e-12], [0.0, 1.0]])
    k, sv, _ = dmi_lib.problem.dmi_rank(A, rank_tol=0)
    # 1e-12 relative is below IDENTICAL_RTOL = 1e-10: rows 0 and 1 are identical
    assert k == 2 and sv[1] > 0


@pytest.mark.parametrize(
    "value, available", [("false", None), ("0", None), ("no", None), ("1", False), ("true", False)]
)
def test_no_numba_switch(monkeypatch, value, available):
    from dmi_lib import _kc_passes

    monkeypatch.setenv("DMI_LIB_NO_NUMBA", value)
    if available is False:
        assert _kc_passes.available() is False
    else:
        monkeypatch.delenv("DMI_LIB_NO_NUMBA")
        expected = _kc_passes.available()
        monkeypatch.setenv("DMI_LIB_NO_NUMBA", value)
        assert _kc_passes.available() == expected
    monkeypatch.setenv("DMI_LIB_NO_NUMBA", "maybe")
    with pytest.raises(ValueError, match="DMI_LIB_NO_NUMBA must be one of"):
        _kc_passes.available()


@pytest.mark.parametrize(
    "content, match",
    [
        (b"\xff\xfe\x00binary", "is not text"),
        (b"abc  rte/answers.csv\n", "line 1 is not"),
        (b"0" * 64 + b"\n", "line 1 is not"),
    ],
)
def test_malformed_manifest_is_named(monkeypatch, tmp_path, content, match):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "SHA256SUMS").write_bytes(content)
    monkeypatch.setattr(crowd_data, "_path", lambda *parts: tmp_path.joinpath("data", *parts))
    with pytest.raises(ValueError, match=f"SHA256SUMS {match}" if "line" in match else match):
        crowd_data._manifest()


# --------------------------------------------------------------------------- #
# Dask against pandas
# --------------------------------------------------------------------------- #
def _table(draw_tasks, draw_labels, rng, n=120):
    task = rng.integers(0, 15, n)
    worker = np.arange(n)
    label = rng.integers(0, 3, n)
    return pd.DataFrame({"task": draw_tasks(task), "worker": worker, "label": draw_labels(label)})


TASKS = {
    "int": lambda t: t,
    "int-offset": lambda t: (t * 7 + 1000).astype(np.int32),
    "str": lambda t: np.array([f"t{v:02d}" for v in t], dtype=object),
    "category": lambda t: pd.Categorical(t),
    "category-str": lambda t: pd.Categorical([f"t{v:02d}" for v in t]),
}
LABELS = {
    "int": lambda x: x,
    "int8": lambda x: x.astype(np.int8),
    "str": lambda x: np.array(["no", "maybe", "yes"], dtype=object)[x],
    "category": lambda x: pd.Categorical(x),
    "float-object": lambda x: x.astype(float).astype(object),
}


@SETTINGS
@given(
    seed=st.integers(0, 2**16),
    tasks=st.sampled_from(sorted(TASKS)),
    labels=st.sampled_from(sorted(LABELS)),
    method=st.sampled_from(["dmi", "plurality"]),
    parts=st.integers(1, 4),
)
def test_dask_equals_pandas_for_every_dtype(seed, tasks, labels, method, parts):
    """The Dask path returns exactly the pandas path's Series (values, index and
    dtypes) for task and label columns of every dtype the pandas path accepts.
    Object columns keep their values when the frame is made without Dask's
    string conversion (see aggregate_dask)."""
    import dask

    df = _table(TASKS[tasks], LABELS[labels], np.random.default_rng(seed))
    expected = dmi_lib.aggregate(df, method, random_state=0)
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(df, npartitions=parts)
    got = dmi_lib.aggregate(ddf, method, random_state=0)
    pd.testing.assert_series_equal(got, expected)


def test_categorical_tasks_through_parquet(tmp_path):
    df, _ = crowd(50, 3, 0)
    df = df.assign(task=pd.Categorical(df["task"]))
    df.to_parquet(tmp_path / "a.parquet")
    got = dmi_lib.aggregate(scale_out.read_answers(str(tmp_path / "*.parquet")), "dmi")
    pd.testing.assert_series_equal(got, dmi_lib.aggregate(df, "dmi"), check_index_type=False)
    assert got.index.tolist() == sorted(df["task"].unique().tolist())


def test_dask_same_messages_as_pandas():
    df, _ = crowd(20, 3, 0)
    empty = df.head(0)
    with pytest.raises(ValueError, match="answers is empty: there is nothing to aggregate"):
        dmi_lib.aggregate(empty)
    with pytest.raises(ValueError, match="answers is empty: there is nothing to aggregate"):
        dmi_lib.aggregate(dd.from_pandas(empty, npartitions=1))
    big = pd.DataFrame(
        {
            "task": np.repeat(np.arange(10**4), 10),
            "worker": np.arange(10**5),
            "label": np.arange(10**5) % 10**4,
        }
    )
    for table in (big, dd.from_pandas(big, npartitions=4)):
        t = time.perf_counter()
        with pytest.raises(ValueError, match="10000 tasks and 10000 distinct labels"):
            dmi_lib.aggregate(table, "plurality")
        assert time.perf_counter() - t < 5.0


# --------------------------------------------------------------------------- #
# Reading files
# --------------------------------------------------------------------------- #
@st.composite
def broken_files(draw):
    kind = draw(st.sampled_from(["corrupt", "no-worker", "empty-glob", "tsv"]))
    junk = draw(st.binary(min_size=0, max_size=64))
    return kind, junk


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=broken_files())
def test_file_reading_errors_name_the_file(tmp_path_factory, case):
    kind, junk = case
    d = tmp_path_factory.mktemp("files")
    df, _ = crowd(20, 3, 0)
    if kind == "corrupt":
        df.to_parquet(d / "a-0.parquet")
        (d / "a-1.parquet").write_bytes(b"PAR1" + junk)
        with pytest.raises(ValueError, match=r"a-1\.parquet is not a readable Parquet file"):
            scale_out.read_answers(str(d / "a-*.parquet"))
    elif kind == "no-worker":
        df[["task", "label"]].to_parquet(d / "b.parquet")
        # the message names the files read and the columns they have
        with pytest.raises(
            ValueError,
            match=r"missing column\(s\) \['worker'\]; .*b\.parquet' has \['task', 'label'\]$",
        ):
            scale_out.read_answers(str(d / "b.parquet"))
    elif kind == "empty-glob":
        with pytest.raises(FileNotFoundError, match="matches no file"):
            scale_out.read_answers(str(d / "none-*.parquet"))
    else:
        df.to_csv(d / "c.tsv", sep="\t", index=False)
        got = dmi_lib.aggregate(scale_out.read_answers(str(d / "c.tsv")), "plurality")
        pd.testing.assert_series_equal(got, dmi_lib.aggregate(df, "plurality"))
    assert os.path.isdir(d)


# --------------------------------------------------------------------------- #
# K-DMI: cluster sums of T₋ᵢ that do not depend on her own rows
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("seed", range(5))
def test_kdmi_exact_sums_depend_on_the_others_rows_only(seed):
    """Agent 0's cluster sums at the start labels, computed as all rows minus her
    own, are bit for bit the same whatever values her own rows hold, and equal
    the exact rational sum over her T₋ᵢ rounded once."""
    from fractions import Fraction

    from dmi_lib import _kdmi_partitions as kp

    rng = np.random.default_rng(seed)
    n, k, b = 300, 3, 4
    counts = rng.integers(0, 7, size=(n, k)) + 1
    At = counts / counts.sum(axis=1, keepdims=True)
    start = rng.integers(0, k, n)
    gone = np.zeros((b, n), dtype=bool)
    for a in range(b):
        gone[a, rng.choice(n, 20, replace=False)] = True
    M = kp._exact_total(kp._exact_start_sums(kp._exact_levels(At), start, gone))
    other = At.copy()
    mine = gone[0]
    fresh = rng.integers(1, 9, size=(int(mine.sum()), k))
    other[mine] = fresh / fresh.sum(axis=1, keepdims=True)
    M2 = kp._exact_total(kp._exact_start_sums(kp._exact_levels(other), start, gone))
    assert np.array_equal(M[0], M2[0])
    for c in range(k):
        for j in range(k):
            rows = np.flatnonzero(~mine & (start == c))
            exact_sum = sum((Fraction(float(At[t, j])) for t in rows), Fraction(0))
            assert abs(Fraction(float(M[0, c, j])) - exact_sum) <= abs(exact_sum) * Fraction(
                2, 2**53
            )
