"""Property tests over classes of input: offsets, scales, duplicates, ties, dtypes,
masks, id types and bad options.  References are independent of the code path
under test: an itertools enumeration of every labeling on small, well-scaled
integer data (no offset, no scale), evaluated with ``np.linalg.det``.
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from dmi_lib import dmi_cluster, dmi_score, log_dmi_score
from dmi_lib.problem import IDENTICAL_RTOL
from dmi_lib.problem import idxmax, in_idxmax, is_linearly_partitioned, is_local_maximum, prepare
from dmi_lib.exact import brute_force, cone_partition, mean_split
from dmi_lib.kcofactors import k_cofactors
from dmi_lib.tabular import aggregate

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def enumerate_optimum(A):
    """Largest |det(CᵀÃ)| over every labeling, Ã = [A 1] restricted to a basis of its
    column space, each determinant from np.linalg.det: no solver code involved."""
    A = np.asarray(A, dtype=float)
    n = A.shape[0]
    Aug = np.hstack([A, np.ones((n, 1))])
    k = np.linalg.matrix_rank(Aug)
    cols = []
    for j in range(Aug.shape[1]):  # first independent columns, as the library
        if np.linalg.matrix_rank(Aug[:, cols + [j]]) == len(cols) + 1:
            cols.append(j)
    At = Aug[:, cols]
    best = 0.0
    for rest in itertools.product(range(k), repeat=n - 1):
        C = np.eye(k)[list((0,) + rest)]
        best = max(best, abs(np.linalg.det(C.T @ At)))
    return k, np.log(best)


@st.composite
def small_integer_data(draw, max_rows=7, max_dim=3, dup=False):
    d = draw(st.integers(1, max_dim))
    n = draw(st.integers(3, max_rows))
    rows = draw(st.lists(st.tuples(*[st.integers(-3, 3)] * d), min_size=n, max_size=n))
    A = np.array(rows, dtype=float)
    if dup:  # force duplicates
        A = np.vstack([A, A[: draw(st.integers(1, n))]])
    Aug = np.hstack([A, np.ones((len(A), 1))])
    k = np.linalg.matrix_rank(Aug)
    assume(k >= 2 and k ** (len(A) - 1) <= 20_000)
    return A


# --------------------------------------------------------------------------- #
# Offsets and scales cannot change the answer
# --------------------------------------------------------------------------- #
@SETTINGS
@given(
    small_integer_data(),
    st.sampled_from([1e-300, 1e-200, 1e-150, 1e-8, 1.0, 3.0, 1e8, 1e150, 1e200, 1e300]),
    st.sampled_from([0.0, 1.0, -7.5, 1e3, 1e6]),
    st.sampled_from(["auto", "brute-force"]),
)
def test_offset_and_scale_do_not_change_the_optimum(A, scale, offset, method):
    """(Offsets up to 1e6 times the spread: beyond 1e10 the spread is below the
    documented IDENTICAL_RTOL of the magnitude and counts as rounding noise.)"""
    k, ref = enumerate_optimum(A)
    with np.errstate(over="ignore"):
        B = (A + offset) * scale
    assume(np.all(np.isfinite(B)))
    res = dmi_cluster(B, method=method)
    assert res.k == k
    assert res.exact
    # the clustering found on the shifted, scaled data is optimal for the original
    assert log_dmi_score(A, res.labels) == pytest.approx(ref, rel=1e-9, abs=1e-9)


@SETTINGS
@given(
    small_integer_data(max_rows=9, max_dim=2), st.sampled_from([1e-300, 1e-170, 1.0, 1e160, 1e300])
)
def test_exact_1d_2d_at_extreme_magnitudes(A, scale):
    k, ref = enumerate_optimum(A)
    assume(k in (2, 3))
    res = (mean_split if k == 2 else cone_partition)(A * scale)
    assert log_dmi_score(A, res.labels) == pytest.approx(ref, rel=1e-9, abs=1e-9)


@SETTINGS
@given(
    small_integer_data(max_rows=9, max_dim=3),
    st.sampled_from([1e-300, 1.0, 1e300]),
    st.integers(0, 2**31),
)
def test_k_cofactors_local_maximum_at_any_scale(A, scale, seed):
    res = k_cofactors(A * scale, n_init=2, random_state=seed)
    assert is_local_maximum(A, res.labels, tol=1e-7)
    assert is_linearly_partitioned(A, res.labels, tol=1e-7)


# --------------------------------------------------------------------------- #
# Duplicates and ties
# --------------------------------------------------------------------------- #
@SETTINGS
@given(small_integer_data(max_rows=5, dup=True))
def test_duplicates_exact(A):
    k, ref = enumerate_optimum(A)
    res = dmi_cluster(A)
    if res.exact:
        assert res.log_score == pytest.approx(ref, rel=1e-9, abs=1e-9)
    else:
        assert res.log_score <= ref + 1e-9


def test_large_offset_on_an_integer_matrix():
    """dmi_cluster(A + 1e9) on an 8 × 3 integer matrix: the same optimum as A."""
    A = np.random.default_rng(1).integers(0, 10, size=(8, 3)).astype(float)
    k, ref = enumerate_optimum(A)
    for method in ("auto", "brute-force"):
        res = dmi_cluster(A + 1e9, method=method)
        assert res.k == k and res.exact
        assert log_dmi_score(A, res.labels) == pytest.approx(ref, rel=1e-12)
        assert res.log_score == pytest.approx(ref, rel=1e-6)  # Ã carries the offset


def test_rows_identical_up_to_tolerance_give_the_documented_error():
    for A in (
        np.tile([0.1, 0.9], (3, 1)),
        np.tile([0.2, 0.3, 0.5], (6, 1)) + 1e-12 * np.random.default_rng(0).standard_normal((6, 3)),
        np.full((4, 2), 1e300),
        np.full((4, 1), 7),
    ):
        with pytest.raises(ValueError, match="are identical"):
            dmi_cluster(A)
    # just above the tolerance the rows are distinct
    A = np.array([[1.0], [1.0 + 1e3 * IDENTICAL_RTOL], [1.0]])
    assert dmi_cluster(A).k == 2


# --------------------------------------------------------------------------- #
# dtypes, memory layouts, masks
# --------------------------------------------------------------------------- #
@SETTINGS
@given(
    small_integer_data(max_rows=7, max_dim=2),
    st.sampled_from([np.int8, np.int16, np.int64, np.uint8, np.float32, np.float64]),
)
def test_dtype_and_layout_do_not_change_the_answer(A, dtype):
    if np.dtype(dtype).kind == "u":
        A = A + 3  # non-negative for unsigned types (an offset: same optimum)
    ref = dmi_cluster(A)
    X = A.astype(dtype)
    for variant in (X, np.asfortranarray(X), np.repeat(X, 2, axis=1)[:, ::2]):
        res = dmi_cluster(variant)
        assert res.log_score == pytest.approx(ref.log_score, rel=1e-6)
        assert np.array_equal(res.labels, ref.labels)


def test_masked_arrays():
    A = np.array([[0.0], [1.0], [2.0], [7.0]])
    unmasked = np.ma.masked_array(A, mask=False)
    assert dmi_cluster(unmasked).labels.tolist() == dmi_cluster(A).labels.tolist()
    masked = np.ma.masked_array(A, mask=[[0], [1], [0], [0]])
    for fn in (dmi_cluster, brute_force, mean_split, k_cofactors, prepare):
        with pytest.raises(
            ValueError,
            match=r"A is a masked array with 1 masked entry "
            r"\(first at index \(1, 0\)\)",
        ):
            fn(masked)
    with pytest.raises(ValueError, match="masked"):
        dmi_score(masked, [0, 0, 1, 1])


# --------------------------------------------------------------------------- #
# Every tolerance and option is validated, naming the argument and value
# --------------------------------------------------------------------------- #
BAD_TOL = [
    (float("nan"), ValueError),
    (-1e-9, ValueError),
    ("1e-9", TypeError),
    (True, TypeError),
    (None, TypeError),
    (float("inf"), ValueError),
]


@pytest.mark.parametrize("bad, kind", BAD_TOL)
def test_bad_tolerances(bad, kind):
    A = [[0.0], [1.0], [5.0]]
    for call in (
        lambda: is_linearly_partitioned(A, [0, 0, 1], tol=bad),
        lambda: is_local_maximum(A, [0, 0, 1], tol=bad),
        lambda: idxmax([[1, 2]], tol=bad),
        lambda: in_idxmax([1], [[1, 2]], tol=bad),
    ):
        with pytest.raises(
            kind, match=r"tol must be .*got " + repr(bad).replace("(", r"\(").replace(")", r"\)")
        ):
            call()


@pytest.mark.parametrize("bad", [float("nan"), -0.1, 1.0, "0.1", True])
def test_bad_rank_tol(bad):
    with pytest.raises((TypeError, ValueError), match=r"rank_tol must be .*got"):
        dmi_cluster([[0.0], [1.0], [5.0]], rank_tol=bad)


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"method": "fast"}, r"method must be one of .* got 'fast'"),
        ({"method": 3}, r"method must be one of .* got 3"),
        ({"n_init": 0, "method": "k-cofactors"}, r"n_init"),
        ({"n_init": 2.5, "method": "k-cofactors"}, r"n_init"),
        ({"max_iter": -1, "method": "k-cofactors"}, r"max_iter"),
        ({"init": "best", "method": "k-cofactors"}, r"init"),
        ({"random_state": "seed", "method": "k-cofactors"}, r"random_state"),
    ],
)
def test_bad_options(kw, match):
    A = np.random.default_rng(0).normal(size=(20, 3))
    with pytest.raises((TypeError, ValueError), match=match):
        dmi_cluster(A, **kw)


@pytest.mark.parametrize(
    "kw, match",
    [
        ({"ties": "last"}, r"ties must be one of"),
        ({"duplicates": "drop"}, r"duplicates must be one of"),
        ({"smoothing": float("nan")}, r"smoothing must be a number in \[0, 1\], got nan"),
        ({"smoothing": True}, r"smoothing must be a number in \[0, 1\], got True"),
        ({"smoothing": -0.5}, r"smoothing must be a number in \[0, 1\], got -0.5"),
    ],
)
def test_bad_aggregate_options(kw, match):
    df = pd.DataFrame({"task": [1, 1, 2, 2], "worker": [1, 2, 1, 2], "label": [0, 1, 1, 1]})
    with pytest.raises((TypeError, ValueError), match=match):
        aggregate(df, "plurality", **kw)


# --------------------------------------------------------------------------- #
# Task id types: the same table under int, str and float-like ids
# --------------------------------------------------------------------------- #
@st.composite
def crowd_tables(draw):
    n = draw(st.integers(4, 12))
    C = draw(st.integers(2, 3))
    m = draw(st.integers(3, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2**31)))
    labels = rng.integers(0, C, size=(n, m))
    df = pd.DataFrame(
        {
            "task": np.repeat(np.arange(n), m),
            "worker": np.tile(np.arange(m), n),
            "label": labels.ravel(),
        }
    )
    gold_tasks = rng.choice(n, size=min(n, 3), replace=False)
    gold = pd.Series(rng.integers(0, C, size=gold_tasks.size), index=gold_tasks)
    return df, gold, list(range(C))


@SETTINGS
@given(crowd_tables(), st.sampled_from(["dmi", "dmi-practical", "dmi-validated"]))
def test_task_id_type_does_not_change_the_answer(data, method):
    df, gold, options = data
    try:
        ref = aggregate(df, method, gold=gold, options=options, random_state=0)
    except ValueError as exc:  # all tasks with the same answers: nothing to cluster
        assume("the same answer shares" not in str(exc) and "identical" not in str(exc))
        raise
    for conv in (lambda t: f"t{t:03d}", lambda t: t + 0.5, lambda t: np.int32(t)):
        df2 = df.assign(task=[conv(t) for t in df["task"]])
        gold2 = pd.Series(gold.to_numpy(), index=[conv(t) for t in gold.index])
        out = aggregate(df2, method, gold=gold2, options=options, random_state=0)
        # tasks sorted the same way (monotone conversions): same answers in order
        assert out.tolist() == ref.tolist()
    with pytest.raises(ValueError, match="task ids are str but the answers' task ids"):
        aggregate(
            df,
            method,
            options=options,
            gold=pd.Series(gold.to_numpy(), index=[str(t) for t in gold.index]),
        )
