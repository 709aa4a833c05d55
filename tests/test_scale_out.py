"""The Dask path of aggregation equals the pandas path, on a real two-worker cluster."""

from __future__ import annotations

import gzip
import re

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from dmi_lib import aggregate  # noqa: E402
from dmi_lib.extras.scale_out import (  # noqa: E402
    aggregate_dask,
    distinct_counts,
    read_answers,
    task_counts,
    write_answer_log,
)
from dmi_lib.answers import answer_matrix  # noqa: E402
from dmi_lib.tabular import METHODS  # noqa: E402


@pytest.fixture(scope="module")
def client():
    """A LocalCluster of two worker processes, started and closed by this module."""
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def crowd(n_tasks=600, m=7, C=3, seed=0, accuracy=0.6, string_ids=False):
    """A long table of ``n_tasks × m`` answers, rows shuffled (tasks span partitions)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, C, n_tasks)
    task = np.repeat(np.arange(n_tasks), m)
    worker = np.tile(np.arange(m), n_tasks)
    noise = rng.integers(0, C, n_tasks * m)
    label = np.where(rng.random(n_tasks * m) < accuracy, np.repeat(truth, m), noise)
    df = pd.DataFrame({"task": task, "worker": worker, "label": label})
    if string_ids:
        df["task"] = "t" + df["task"].astype(str)
    return df.sample(frac=1.0, random_state=seed).reset_index(drop=True), truth


@pytest.mark.parametrize("parts", [6, 70])
@pytest.mark.parametrize("string_ids", [False, True])
def test_task_counts_equal_the_answer_matrix(client, parts, string_ids):
    """Integer ids (dense counts over their range) and string ids; 70 partitions are
    counted in 9 batches, added in a tree of two levels."""
    df, _ = crowd(C=4, seed=1, string_ids=string_ids)
    counts, opts = task_counts(dd.from_pandas(df, npartitions=parts))
    got = counts.compute().sort_index()
    am = answer_matrix(df)
    assert list(opts) == list(am.options)
    assert np.array_equal(got.index.to_numpy(), am.tasks.to_numpy())
    assert np.array_equal(got.to_numpy(), am.counts)


def test_distinct_counts_are_the_distinct_rows_with_multiplicities(client):
    df, _ = crowd(C=3, m=5, seed=2)
    counts, _ = task_counts(dd.from_pandas(df, npartitions=4))
    rows, weights = distinct_counts(counts)
    ref_rows, ref_w = np.unique(answer_matrix(df).counts, axis=0, return_counts=True)
    assert np.array_equal(rows, ref_rows) and np.array_equal(weights, ref_w)
    assert weights.sum() == df["task"].nunique()


@pytest.mark.parametrize("C", [2, 3, 4])
@pytest.mark.parametrize("method", ["plurality", "surprisingly-popular", "dmi"])
def test_dask_equals_pandas(client, method, C):
    df, _ = crowd(C=C, seed=10 + C)
    want = aggregate(df, method, random_state=0)
    got = aggregate(dd.from_pandas(df, npartitions=5), method, random_state=0)
    assert isinstance(got, pd.Series) and got.name == "agg_label"
    pd.testing.assert_series_equal(got, want)


def test_gold_names_clusters_alike(client):
    df, truth = crowd(C=3, seed=4, string_ids=True)
    gold = pd.Series(truth[:10], index=[f"t{i}" for i in range(10)])
    want = aggregate(df, "dmi", gold=gold, random_state=0)
    got = aggregate(dd.from_pandas(df, npartitions=3), "dmi", gold=gold, random_state=0)
    pd.testing.assert_series_equal(got, want)


def test_method_keywords_reach_the_dask_path(client):
    """A method's own keywords (here surprisingly popular's ``prior=``) decide on Dask as
    with pandas; the prior changes the answer, so a keyword lost on the way is seen."""
    df, _ = crowd(C=3, seed=8)
    prior = pd.Series([0.2, 0.3, 0.5], index=[0, 1, 2])
    want = aggregate(df, "surprisingly-popular", prior=prior)
    assert not want.equals(aggregate(df, "surprisingly-popular"))
    got = aggregate(dd.from_pandas(df, npartitions=3), "surprisingly-popular", prior=prior)
    pd.testing.assert_series_equal(got, want)
    lazy = aggregate_dask(
        dd.from_pandas(df, npartitions=3),
        METHODS["surprisingly-popular"],
        kw={"prior": prior},
        compute=False,
    )
    pd.testing.assert_series_equal(lazy.compute().sort_index(), want)
    # a keyword the method does not take is refused on this entry point too
    with pytest.raises(TypeError, match=r"unexpected keyword argument\(s\) \['priors'\]"):
        aggregate_dask(
            dd.from_pandas(df, npartitions=3),
            METHODS["surprisingly-popular"],
            kw={"priors": prior},
        )


def test_lazy_result_computes_to_the_same(client):
    df, _ = crowd(C=2, seed=5)
    lazy = aggregate_dask(dd.from_pandas(df, npartitions=4), METHODS["plurality"], compute=False)
    assert dd.Series is type(lazy) or hasattr(lazy, "compute")
    pd.testing.assert_series_equal(lazy.compute().sort_index(), aggregate(df, "plurality"))


def test_read_answers_parquet_and_csv_globs(client, tmp_path):
    df, _ = crowd(C=3, seed=6)
    df["label"] = df["label"].astype(np.int8)  # the labels' dtype comes back unchanged
    for i, start in enumerate(range(0, len(df), len(df) // 4 + 1)):
        part = df.iloc[start : start + len(df) // 4 + 1]
        part.to_parquet(tmp_path / f"answers-{i}.parquet")
        part.to_csv(tmp_path / f"answers-{i}.csv", index=False)
    want = aggregate(df, "dmi", random_state=0)  # one seed: k-cofactors' starts are random
    got = aggregate(read_answers(str(tmp_path / "answers-*.parquet")), "dmi", random_state=0)
    pd.testing.assert_series_equal(got, want)
    got = aggregate(read_answers(str(tmp_path / "answers-*.csv")), "dmi", random_state=0)
    pd.testing.assert_series_equal(got, want.astype(np.int64))  # CSV has no int8


def test_errors_are_specific(client):
    df, _ = crowd(n_tasks=50, C=2, seed=7)
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(ValueError, match="not available for a dask table"):
        aggregate(ddf, "sp-single")
    # the Dask path itself refuses a method that does not run on Dask (METHODS says which),
    # with aggregate's message (one check, answers.check_call)
    with pytest.raises(ValueError, match="method 'dmi-practical' is not available for a dask"):
        aggregate_dask(ddf, METHODS["dmi-practical"])
    with pytest.raises(ValueError) as direct:
        aggregate_dask(ddf, METHODS["dmi-validated"])
    with pytest.raises(ValueError) as front:
        aggregate(ddf, "dmi-validated")
    assert (
        str(direct.value)
        == str(front.value)
        == (
            "method 'dmi-validated' is not available for a dask table; use one with dask=True "
            "in dmi_lib.tabular.METHODS (the others work task by task: run them with pandas)"
        )
    )
    assert [m for m, spec in METHODS.items() if spec.dask] == [
        "plurality",
        "surprisingly-popular",
        "dmi",
    ]
    with pytest.raises(ValueError, match="ties='random' is not available"):
        aggregate(ddf, "plurality", ties="random")
    with pytest.raises(ValueError, match=r"missing column\(s\) \['worker'\]"):
        aggregate(dd.from_pandas(df.drop(columns="worker"), npartitions=2))
    # a Dask Series or Array is not a table: say what is needed, not which columns lack
    for not_a_table, kind in ((ddf["label"], "Series"), (ddf.to_dask_array(), "Array")):
        with pytest.raises(
            TypeError,
            match=r"answers must be a dask DataFrame with columns \['task', 'worker', 'label'\], "
            f"got a dask {kind}$",
        ):
            aggregate(not_a_table)
    dup = pd.concat([df, df.iloc[:3]])
    # on a cluster, the pandas path's message: the count and the earliest repeated pair
    with pytest.raises(ValueError) as refused:
        aggregate(dd.from_pandas(dup, npartitions=2), "plurality")
    with pytest.raises(ValueError) as pandas_refused:
        aggregate(dup, "plurality")
    assert str(refused.value) == str(pandas_refused.value)
    task, worker = df.iloc[0][["task", "worker"]]
    assert f"3 duplicate (task, worker) pair(s), e.g. task={task!r}, worker={worker!r}" in str(
        refused.value
    )
    # the named pair is the repeated pair whose first row comes first, not the pair of
    # the first row to repeat one (row 2 here), in either partition layout
    crossed = pd.DataFrame({"task": [7, 8, 8, 7], "worker": [1, 2, 2, 1], "label": [0, 1, 1, 0]})
    for parts in (1, 2, 4):
        with pytest.raises(ValueError, match=r"2 duplicate .*e\.g\. task=7, worker=1;"):
            aggregate(dd.from_pandas(crossed, npartitions=parts), "plurality")
    # duplicates='keep' counts every row, as the pandas path does
    pd.testing.assert_series_equal(
        aggregate(dd.from_pandas(dup, npartitions=2), "plurality", duplicates="keep"),
        aggregate(dup, "plurality", duplicates="keep"),
    )
    na = df.astype({"label": float})
    na.loc[5, "label"] = np.nan
    with pytest.raises(ValueError, match="1 missing value.*'label'"):
        aggregate(dd.from_pandas(na, npartitions=2), "plurality")
    bad = df.assign(label=df["label"].where(df.index != 0, 7))
    with pytest.raises(ValueError, match=r"label\(s\) not among options \[0, 1\]: \[7\]"):
        aggregate(dd.from_pandas(bad, npartitions=2), "plurality", options=[0, 1])


def test_write_answer_log(tmp_path):
    truth = write_answer_log(tmp_path, 1000, n_files=3, answers_per_task=10, C=4, seed=3)
    files = sorted(tmp_path.glob("answers-*.parquet"))
    table = pd.concat([pd.read_parquet(f) for f in files])
    assert len(files) == 3 and len(table) == 1000 and truth.shape == (100,)
    assert table["label"].dtype == np.int8 and set(table["label"]) <= {0, 1, 2, 3}
    assert table["worker"].is_unique and table["task"].between(0, 99).all()
    # about 70 % of the answers (0.6 + 0.4/4) are the task's true option
    assert 0.6 < (table["label"].to_numpy() == truth[table["task"].to_numpy()]).mean() < 0.8
    with pytest.raises(ValueError, match="^n_files must be >= 1, got 0$"):
        write_answer_log(tmp_path, 10, n_files=0)


def test_mechanism_payments_on_the_cluster_equal_the_serial_path(client):
    """K-DMI and the DMI-Mechanism pay every agent through the cluster's executor."""
    from dmi_lib.kdmi import kdmi_mechanism
    from dmi_lib.mechanisms import dmi_mechanism
    from dmi_lib.simulation import random_states, simulate_crowd, truthful

    rng = np.random.default_rng(6)
    states = random_states(40, 3, kind="mixture", accuracy=0.75, noise=0.3, random_state=rng)
    rep = simulate_crowd(states, [truthful(3)] * 70, tasks_per_agent=10, random_state=rng)
    executor = client.get_executor()
    for kw in ({}, {"method": "exact"}, {"payment": "whole"}):
        serial = kdmi_mechanism(rep, random_state=2, **kw)
        par = kdmi_mechanism(rep, random_state=2, executor=executor, **kw)
        np.testing.assert_array_equal(serial.payments, par.payments)
        np.testing.assert_array_equal(serial.partitions, par.partitions)
        assert np.isfinite(serial.payments).any()
    serial = dmi_mechanism(rep, random_state=2)
    par = dmi_mechanism(rep, random_state=2, executor=executor)
    np.testing.assert_array_equal(serial.payments, par.payments)


def test_bad_arguments_are_named():
    """Each argument of the Dask path that is wrong is refused by name, with the value
    given (before any work: no cluster needed)."""
    df, _ = crowd(n_tasks=20, C=2, seed=9)
    ddf = dd.from_pandas(df, npartitions=2)
    # a method by name: the table of names is dmi_lib.tabular's, which sits above this module
    with pytest.raises(TypeError) as by_name:
        aggregate_dask(ddf, "plurality")
    assert str(by_name.value) == (
        "method must be a dmi_lib.answers.Method (an entry of dmi_lib.tabular.METHODS, "
        "e.g. METHODS['dmi']), got 'plurality'; for a method by name call "
        "dmi_lib.tabular.aggregate(answers, 'plurality')"
    )
    with pytest.raises(TypeError, match=r"method must be a dmi_lib\.answers\.Method .*got None$"):
        aggregate_dask(ddf, None)
    # what was passed instead of a Dask table, said as it is (not "a dask DataFrame")
    for call in (task_counts, lambda a: aggregate_dask(a, METHODS["plurality"])):
        with pytest.raises(TypeError) as pandas_table:
            call(df)
        assert str(pandas_table.value) == (
            "answers must be a dask DataFrame with columns ['task', 'worker', 'label'], "
            "got a pandas DataFrame; a pandas table is aggregated in memory by "
            "dmi_lib.tabular.aggregate (or wrap it with dask.dataframe.from_pandas)"
        )
    with pytest.raises(TypeError, match=r"\['task', 'worker', 'label'\], got list$"):
        task_counts([1, 2])
    with pytest.raises(TypeError, match=r"\['task', 'worker', 'label'\], got a numpy ndarray$"):
        task_counts(df.to_numpy())
    # duplicates: the accepted values and the value given; why not 'first', only for 'first'
    with pytest.raises(ValueError) as unknown:
        task_counts(ddf, duplicates="x")
    assert str(unknown.value) == (
        "duplicates must be one of ['error', 'keep'] for a dask table, got 'x'"
    )
    with pytest.raises(
        ValueError,
        match=r"^duplicates must be one of \['error', 'keep'\] for a dask table, got "
        r"'first' \(keeping each pair's first answer needs a global row order, which a "
        r"partitioned table does not have\)$",
    ):
        aggregate(ddf, "plurality", duplicates="first")  # the front door's Dask path
    with pytest.raises(ValueError, match=r"for a dask table, got array\(\['error', 'keep'\]"):
        task_counts(ddf, duplicates=np.array(["error", "keep"]))
    with pytest.raises(
        ValueError, match=r"^format must be one of \['parquet', 'csv'\], got 'xlsx'$"
    ):
        read_answers("answers-*.xlsx", format="xlsx")


def test_an_empty_csv_file_is_named(tmp_path):
    """A CSV file with nothing to read (0 bytes, or blank lines) is named; a header-only
    file and a glob that matches nothing keep their own messages."""
    df, _ = crowd(n_tasks=20, C=2, seed=9)
    head = "path must name CSV files that start with a header row (the columns " + (
        "['task', 'worker', 'label']), got "
    )
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError) as refused:
        read_answers(str(empty))
    assert str(refused.value) == head + f"the empty file {str(empty)!r}"
    blank = tmp_path / "blank.csv"
    blank.write_text("\n\n")
    with pytest.raises(ValueError, match=re.escape(f"got the empty file {str(blank)!r}") + "$"):
        read_answers(str(blank))
    # compressed as Dask was told (a name pandas cannot infer the compression from)
    packed = tmp_path / "empty.log"
    gzip.open(packed, "wb").close()
    with pytest.raises(ValueError, match=re.escape(f"got the empty file {str(packed)!r}") + "$"):
        read_answers(str(packed), format="csv", compression="gzip", blocksize=None)
    # Dask reads the header from the first file: an empty one there is named among many
    df.to_csv(tmp_path / "full.csv", index=False)
    files = [str(empty), str(tmp_path / "full.csv"), str(blank)]
    with pytest.raises(ValueError) as refused:
        read_answers(files)
    assert str(refused.value) == head + f"2 empty files, e.g. {str(empty)!r}"
    header_only = tmp_path / "header.csv"
    df.head(0).to_csv(header_only, index=False)
    with pytest.raises(ValueError, match="answers is empty: there is nothing to aggregate"):
        aggregate(read_answers(str(header_only)), "plurality")
    (tmp_path / "none").mkdir()
    with pytest.raises(FileNotFoundError, match=r"path '.*none' matches no file$"):
        read_answers(str(tmp_path / "none"), format="csv")
