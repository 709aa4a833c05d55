"""The Dask path equals the pandas path for every column dtype (properties).

Each example draws a small crowd whose ``task``, ``worker`` and ``label`` columns have
one of the dtypes a user's table may have -- integers, floats, strings, objects mixing
numbers and strings (ids that cannot be sorted included), categoricals -- splits it
into partitions, either with ``dask.dataframe.from_pandas`` (made without Dask's
string conversion, which would turn an object label ``1.0`` into ``'1.0'`` before
the library sees it) or by writing it to Parquet or CSV files read back with
``read_answers`` (under Dask's default string conversion), and checks that
``aggregate`` gives the same Series, or the same error, on both paths (for files:
the pandas path on the same files read by pandas).  The single-threaded scheduler
keeps the examples fast; the cluster tests are in ``test_scale_out.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")

from dmi_lib import aggregate  # noqa: E402
from dmi_lib.answers import answer_matrix  # noqa: E402
from dmi_lib.extras.scale_out import read_answers, task_counts  # noqa: E402

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
# Dask's own Parquet reader calls reset_index(inplace=True), which pandas deprecates; the
# warning is about Dask's code, not this library's.
pytestmark = pytest.mark.filterwarnings(
    "ignore:The inplace keyword in DataFrame.reset_index is deprecated"
)

#: Label columns: how the option codes 0, 1, 2, … are stored.
LABELS = {
    "int": lambda c: pd.Series(c, dtype=np.int64),
    "float": lambda c: pd.Series(c + 0.5, dtype=float),
    "str": lambda c: pd.Series([f"opt{v}" for v in c], dtype=object),
    "float-objects": lambda c: pd.Series([float(v) for v in c], dtype=object),
    "mixed": lambda c: pd.Series([v if v % 2 else f"s{v}" for v in c], dtype=object),
    "mixed-floats": lambda c: pd.Series([v + 0.5 if v % 2 else str(v) for v in c], dtype=object),
    "bool-objects": lambda c: pd.Series([bool(v % 2) for v in c], dtype=object),
    "categorical": lambda c: pd.Series(pd.Categorical([f"c{v}" for v in c])),
    "categorical-reversed": lambda c: pd.Series(
        pd.Categorical([f"c{v}" for v in c], categories=[f"c{j}" for j in range(9, -1, -1)])
    ),
    "categorical-numbers": lambda c: pd.Series(pd.Categorical([float(v) for v in c])),
}

#: Task columns: how the task numbers are stored.
TASKS = {
    "int": lambda t: pd.Series(t, dtype=np.int64),
    "str": lambda t: pd.Series([f"t{v:03d}" for v in t], dtype=object),
    "float-objects": lambda t: pd.Series([float(v) for v in t], dtype=object),
    "mixed": lambda t: pd.Series([v if v % 2 else f"t{v}" for v in t], dtype=object),
    "categorical": lambda t: pd.Series(pd.Categorical([f"t{v}" for v in t])),
}


@st.composite
def crowds(draw):
    n_tasks = draw(st.integers(1, 12))
    m = draw(st.integers(1, 4))
    C = draw(st.integers(1, 4))
    codes = draw(st.lists(st.integers(0, C - 1), min_size=n_tasks * m, max_size=n_tasks * m))
    task = np.repeat(np.arange(n_tasks), m)
    worker = np.tile(np.arange(m), n_tasks)
    order = draw(st.permutations(range(n_tasks * m)))
    label_kind = draw(st.sampled_from(sorted(LABELS)))
    task_kind = draw(st.sampled_from(sorted(TASKS)))
    worker_kind = draw(st.sampled_from(["int", "mixed"]))
    df = pd.DataFrame(
        {
            "task": TASKS[task_kind](task[list(order)]).to_numpy(),
            "worker": TASKS[worker_kind](worker[list(order)]).to_numpy(),
            "label": LABELS[label_kind](np.asarray(codes)[list(order)]).array,
        }
    )
    for col, kind in (("task", task_kind), ("worker", worker_kind)):
        if kind == "categorical":
            df[col] = df[col].astype("category")
    # some rows repeated (a pair answered twice), anywhere in the table
    repeat = draw(st.lists(st.integers(0, len(df) - 1), max_size=3))
    if repeat:
        df = pd.concat([df, df.iloc[repeat]], ignore_index=True)
        df = df.iloc[draw(st.permutations(range(len(df))))].reset_index(drop=True)
    # up to 20 partitions: more than one batch of partitions, added in a tree
    return df, draw(st.integers(1, 20)), (label_kind, task_kind, worker_kind)


def _outcome(fn):
    """The Series ``fn`` returns, or the type and message of the error it raises."""
    try:
        return fn()
    except (ValueError, TypeError) as exc:
        return (type(exc).__name__, str(exc))


def _tables(df, parts, source, folder):
    """The pandas table and the Dask table of one crowd from ``source``: made in
    memory (``from_pandas`` without string conversion), or written to ``parts``
    Parquet files or one CSV file and read back by pandas and by ``read_answers``."""
    if source == "pandas":
        with dask.config.set({"dataframe.convert-string": False}):
            return df, dd.from_pandas(df, npartitions=parts)
    if source == "parquet":
        # a-00, a-01, …: the files in one order for every reader (pandas sorts the
        # names as text, Dask as numbers), so the rows are in one order
        for i, chunk in enumerate(np.array_split(np.arange(len(df)), parts)):
            df.iloc[chunk].to_parquet(folder / f"a-{i:02d}.parquet", index=False)
        return pd.read_parquet(folder), read_answers(str(folder / "a-*.parquet"))
    df.to_csv(folder / "a.csv", index=False)
    # small blocks: one file, several partitions (dtypes read from its first block)
    return pd.read_csv(folder / "a.csv"), read_answers(str(folder / "a.csv"), blocksize=64)


def _check_equal(want, got, kinds):
    if isinstance(want, tuple) or isinstance(got, tuple):
        assert isinstance(got, tuple) and isinstance(want, tuple), (kinds, got, want)
        assert got == want, kinds
    else:
        pd.testing.assert_series_equal(got, want, obj=str(kinds))
        assert [type(v) for v in got] == [type(v) for v in want], kinds
        assert [type(v) for v in got.index] == [type(v) for v in want.index], kinds


@SETTINGS
@given(
    crowds(),
    st.sampled_from(["plurality", "dmi", "surprisingly-popular"]),
    st.sampled_from(["pandas", "parquet", "csv"]),
    st.sampled_from(["keep", "error"]),
)
def test_dask_path_equals_pandas_path_for_every_dtype(
    tmp_path_factory, crowd, method, source, duplicates
):
    """The same Series, or the same error -- type and message, repeated pairs under
    ``duplicates="error"`` included."""
    df, parts, kinds = crowd
    folder = tmp_path_factory.mktemp("answers")
    try:
        table, ddf = _tables(df, parts, source, folder)
    except (TypeError, ValueError) as exc:  # Arrow cannot store an object column mixing types
        assert source == "parquet" and any("mixed" in k for k in kinds), (kinds, exc)
        return
    # one seed for both: DMI's k-cofactors starts are random (random_state=None draws
    # fresh ones), and two starts may reach two local maxima
    want = _outcome(lambda: aggregate(table, method, duplicates=duplicates, random_state=0))
    with dask.config.set(scheduler="synchronous"):
        got = _outcome(lambda: aggregate(ddf, method, duplicates=duplicates, random_state=0))
    _check_equal(want, got, kinds + (source, duplicates))


def test_task_ids_that_cannot_be_sorted_are_accepted_in_the_pandas_order():
    """Task ids 1 and "a" in one column (Python cannot sort them): both paths give the
    same answer, tasks in pandas' order for such ids (numbers first, then strings)."""
    df = pd.DataFrame(
        {
            "task": pd.Series(["b", 1, 1, "b", 2.5, "a", 2.5, "a"], dtype=object),
            "worker": [1, 1, 2, 2, 1, 1, 2, 2],
            "label": [0, 1, 1, 0, 1, 0, 0, 0],
        }
    )
    want = aggregate(df, "plurality")
    assert want.index.tolist() == [1, 2.5, "a", "b"]
    for parts in (1, 2, 3, 4):
        with dask.config.set({"dataframe.convert-string": False, "scheduler": "synchronous"}):
            got = aggregate(dd.from_pandas(df, npartitions=parts, sort=False), "plurality")
            twice = dd.from_pandas(pd.concat([df, df.iloc[:2]]), npartitions=parts, sort=False)
            with pytest.raises(ValueError) as refused:
                aggregate(twice, "plurality")
            with pytest.raises(ValueError) as pandas_refused:
                aggregate(twice.compute(), "plurality")
            assert str(refused.value) == str(pandas_refused.value)
            assert "2 duplicate (task, worker) pair(s), e.g. task='b', worker=1" in str(
                refused.value
            )
        pd.testing.assert_series_equal(got, want)


def test_object_labels_keep_their_values():
    """``1.0`` stays the float ``1.0`` in a frame made without Dask's string conversion."""
    df = pd.DataFrame(
        {
            "task": [1, 1, 1, 2, 2, 2],
            "worker": [1, 2, 3, 1, 2, 3],
            "label": pd.Series([1.0, 1.0, "x", "x", "x", 2], dtype=object),
        }
    )
    with dask.config.set({"dataframe.convert-string": False, "scheduler": "synchronous"}):
        got = aggregate(dd.from_pandas(df, npartitions=2), "plurality")
    assert got.tolist() == [1.0, "x"] and isinstance(got.iloc[0], float)
    pd.testing.assert_series_equal(got, aggregate(df, "plurality"))


@pytest.mark.parametrize("parts", [1, 2, 3])
def test_mixed_labels_are_numbered_as_with_pandas(parts):
    """Labels mixing numbers and strings get the pandas path's option order (pandas
    sorts them, numbers first; values it cannot sort at all keep their order of first
    appearance, the partitions in order)."""
    df = pd.DataFrame(
        {
            "task": [1, 1, 2, 2, 3, 3],
            "worker": [1, 2, 1, 2, 1, 2],
            "label": pd.Series(["b", 1, 1, "b", 2.5, "b"], dtype=object),
        }
    )
    want = aggregate(df, "plurality")
    with dask.config.set({"dataframe.convert-string": False, "scheduler": "synchronous"}):
        ddf = dd.from_pandas(df, npartitions=parts)
        got = aggregate(ddf, "plurality")
        _, opts = task_counts(ddf)
    pd.testing.assert_series_equal(got, want)
    assert list(opts) == list(answer_matrix(df).options)


@pytest.mark.parametrize("ids", ["int", "str"])
def test_the_size_cap_and_its_message_are_the_pandas_paths(ids):
    """9,000 tasks with 9,000 distinct labels: an answer matrix of 8.1·10⁷ cells, more
    than the pandas path holds; both paths refuse with the same message."""
    n = 9000
    task = np.arange(n) if ids == "int" else np.array([f"t{i}" for i in range(n)], dtype=object)
    df = pd.DataFrame({"task": task, "worker": np.zeros(n, dtype=int), "label": np.arange(n)})
    with pytest.raises(ValueError, match="would have 81000000 cells") as want:
        aggregate(df, "plurality")
    with dask.config.set(scheduler="synchronous"):
        with pytest.raises(ValueError) as got:
            aggregate(dd.from_pandas(df, npartitions=3), "plurality")
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("ids", ["int", "str"])
def test_gold_tasks_are_groups_of_their_own_as_with_pandas(ids):
    """Gold that renames the clusters (each gold task told the option its answers did
    not favour): the Dask path gives the pandas path's answer, which gold changed."""
    rng = np.random.default_rng(3)
    n_tasks, m = 60, 5
    truth = rng.integers(0, 2, n_tasks)
    task = np.repeat(np.arange(n_tasks), m)
    label = np.where(rng.random(n_tasks * m) < 0.8, truth[task], 1 - truth[task])
    df = pd.DataFrame({"task": task, "worker": np.tile(np.arange(m), n_tasks), "label": label})
    if ids == "str":
        df["task"] = [f"t{t:02d}" for t in df["task"]]
    first = df["task"].drop_duplicates().iloc[:6]
    gold = pd.Series(1 - truth[:6], index=first.to_numpy())
    want = aggregate(df, "dmi", gold=gold)
    assert not want.equals(aggregate(df, "dmi"))  # the gold matters here
    with dask.config.set(scheduler="synchronous"):
        got = aggregate(
            dd.from_pandas(df.sample(frac=1, random_state=0), npartitions=11), "dmi", gold=gold
        )
    pd.testing.assert_series_equal(got, want)


def test_parquet_files_storing_a_column_as_different_types_read_as_pandas_reads_them(tmp_path):
    """One file stores the labels as strings, another as integers: pandas reads the
    folder with one type (strings), and so does ``read_answers``."""
    df = pd.DataFrame(
        {
            "task": [0, 1, 2, 3, 4, 5],
            "worker": [0] * 6,
            "label": pd.Series(["s0"] * 5 + [1], dtype=object),
        }
    )
    df.iloc[:5].to_parquet(tmp_path / "a-0.parquet", index=False)
    df.iloc[5:].to_parquet(tmp_path / "a-1.parquet", index=False)
    ddf = read_answers(str(tmp_path / "a-*.parquet"))
    assert ddf.compute()["label"].tolist() == ["s0"] * 5 + ["1"]
    with dask.config.set(scheduler="synchronous"):
        got = aggregate(ddf, "plurality")
    pd.testing.assert_series_equal(got, aggregate(pd.read_parquet(tmp_path), "plurality"))
    assert got.tolist() == ["s0"] * 5 + ["1"]
