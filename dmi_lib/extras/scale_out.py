"""Crowd aggregation beyond one machine: long answer tables as Dask DataFrames.

DMI-clustering of crowd data needs only each task's answer *counts*: the answer
matrix (tasks × options), which the pandas path caps at ``MAX_DENSE_CELLS`` cells
whatever the number of answers.  So a log of 10⁸-10¹⁰ answers spread over many files
is aggregated in two steps:

1. **count** (distributed): each batch of partitions is counted where it lives (per
   task, the number of answers of each option), and the batches' counts are added
   in a tree -- no shuffle of the answers, and no worker holds more than a few
   batches' counts (each at most the answer matrix);
2. **decide** (one machine): the answer matrix is aggregated exactly as
   :func:`dmi_lib.tabular.aggregate` does with a pandas table (the same function on
   the same groups of tasks with equal counts, in the same order).

:func:`read_answers` opens partitioned Parquet or CSV files by glob;
:func:`aggregate_dask` aggregates them (``dmi_lib.aggregate`` checks the call against
its method table and, for a ``dask.dataframe.DataFrame``, decides it with
:func:`decide_dask`, the same decision).  Dask is an optional dependency (the ``dask``
extra): this module imports it, and the rest of the library imports this module only
when it is handed a Dask table.

Examples
--------
>>> import dask.dataframe as dd, pandas as pd
>>> df = pd.DataFrame({"task": [1, 1, 1, 2, 2, 2], "worker": list("abcabc"),
...                    "label": [0, 0, 1, 1, 1, 0]})
>>> from dmi_lib.tabular import METHODS, aggregate
>>> aggregate(dd.from_pandas(df, npartitions=2), "plurality").tolist()
[0, 1]
>>> lazy = aggregate_dask(dd.from_pandas(df, npartitions=2), METHODS["plurality"], compute=False)
>>> lazy.compute().sort_index().tolist()
[0, 1]
"""

from __future__ import annotations

import glob
from pathlib import Path

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pyarrow.parquet as pq

from .._validation import check_choice, check_int, check_random_state
from ..answers import (
    MAX_DENSE_CELLS,
    AnswerMatrix,
    Call,
    Method,
    check_call,
    check_columns,
    check_dense,
    check_options,
    decide_groups,
    duplicate_pairs_error,
    factorize,
    label_series,
)

__all__ = [
    "aggregate_dask",
    "decide_dask",
    "distinct_counts",
    "read_answers",
    "task_counts",
    "write_answer_log",
]

_COLUMNS = ("task", "worker", "label")


def read_answers(path, *, format: str | None = None, columns=_COLUMNS, **kwargs):
    """Open a long answer table spread over files, as a lazy Dask DataFrame.

    Parameters
    ----------
    path : str or list of str
        A glob (``"logs/answers-*.parquet"``), a directory of Parquet files, or a
        list of paths.  The rows are in the files' order, which Dask takes with the
        numbers in names compared as numbers (``a-2`` before ``a-10``), while
        ``pandas.read_parquet`` of a directory compares names as text (``a-10``
        first); name files with zero-padded numbers (``a-02``, ``a-10``) for one
        order.  The order decides which repeated pair the duplicate message names
        and, for task ids that cannot be sorted, the order of the tasks.
    format : {"parquet", "csv"}, optional
        Default: from the file ending (``.csv``/``.csv.gz`` → CSV, else Parquet).
    columns : sequence of str
        Columns to read (default ``task``, ``worker``, ``label``).
    **kwargs
        Passed to :func:`dask.dataframe.read_parquet` / :func:`~dask.dataframe.read_csv`.

    Returns
    -------
    dask.dataframe.DataFrame

    Raises
    ------
    TypeError
        ``path`` is not a string or a list of strings.
    ValueError
        An unknown ``format``; a Parquet file that cannot be read, or a CSV file with
        nothing to read, not even a header row (named); a missing column.
    FileNotFoundError
        A glob or directory that matches no file.
    """
    first = path[0] if isinstance(path, (list, tuple)) and path else path
    if not isinstance(first, str) or not first:
        raise TypeError(f"path must be a glob, a directory or a list of paths, got {path!r}")
    tsv = first.endswith((".tsv", ".tsv.gz"))
    if format is None:
        format = "csv" if tsv or first.endswith((".csv", ".csv.gz")) else "parquet"
    check_choice(format, "format", ("parquet", "csv"))
    files = _local_files(path)
    if format == "parquet":
        types = {}  # column -> the Arrow types the files store it as
        for f in files or ():  # a corrupt file is named now, not deep inside a compute
            try:
                schema = pq.read_schema(f)
            except Exception as exc:
                raise ValueError(f"{f} is not a readable Parquet file: {exc}") from exc
            for c in set(columns) & set(schema.names):
                types.setdefault(c, set()).add(str(schema.field(c).type))
        frame = dd.read_parquet(path, **kwargs)
        # Files that store a column as different types (ints in one, strings in
        # another) are read by Dask as stored; pandas reads them unified to one type,
        # the frame's.  Cast each partition to it, as pandas does.
        mixed = {c: frame[c].dtype for c, t in types.items() if len(t) > 1}
        if mixed:
            frame = frame.map_partitions(pd.DataFrame.astype, mixed)
    else:
        if tsv and "sep" not in kwargs and "delimiter" not in kwargs:
            kwargs["sep"] = "\t"
        try:
            frame = dd.read_csv(path, **kwargs)
        except pd.errors.EmptyDataError as exc:  # pandas' message names no file
            raise ValueError(_empty_csv_message(path, files, columns, kwargs)) from exc
    check_columns(frame.columns, columns, f"; {path!r} has {list(frame.columns)}")
    return frame[list(columns)]


def _local_files(path):
    """The local files ``path`` names (a glob, a directory or a list), or None for
    remote paths (``s3://`` …); a glob or directory that matches no file is refused."""
    paths = list(path) if isinstance(path, (list, tuple)) else [path]
    if any("://" in p for p in paths):
        return None
    files = []
    for p in paths:
        if Path(p).is_dir():
            found = sorted(
                str(f)
                for f in Path(p).iterdir()
                if f.is_file() and not f.name.startswith(("_", "."))
            )
        else:
            found = sorted(glob.glob(p))
        if not found:
            raise FileNotFoundError(f"path {p!r} matches no file")
        files += found
    return files


def _empty_csv_message(path, files, columns, kwargs) -> str:
    """Why Dask found no columns in the CSV files ``files`` of ``path`` (None: remote
    files): the files with nothing to read, not even a header row (read as Dask was
    asked to: ``kwargs``' compression and encoding)."""
    how = {k: kwargs[k] for k in ("compression", "encoding") if k in kwargs}

    def empty(f):
        try:
            pd.read_csv(f, nrows=0, **how)
        except pd.errors.EmptyDataError:
            return True
        return False

    empties = [f for f in files or () if empty(f)]
    if not empties:
        got = f"{path!r}, in which Dask found no columns"
    elif len(empties) == 1:
        got = f"the empty file {empties[0]!r}"
    else:
        got = f"{len(empties)} empty files, e.g. {empties[0]!r}"
    return (
        "path must name CSV files that start with a header row (the columns "
        f"{list(columns)}), got {got}"
    )


def _scan(answers, options):
    """One pass over the answers: refuse missing values, and return the label values in
    column order by the pandas path's rule (given, or the labels seen, sorted), the
    smallest and largest task id when they are integers (else None), and each
    partition's number of rows."""
    integer_tasks = pd.api.types.is_integer_dtype(answers["task"].dtype)
    # One read of each partition: its missing values, rows, task range, and distinct
    # labels in order of first appearance -- the partitions in order give the
    # table's first appearance (the pandas path's column order for labels that
    # cannot be sorted), with no shuffle.
    parts = dask.compute(*[dask.delayed(_summary)(p, integer_tasks) for p in answers.to_delayed()])
    na, labels, lengths, spans = zip(*parts)
    n_rows = sum(lengths)
    if n_rows == 0:
        raise ValueError("answers is empty: there is nothing to aggregate")
    na = sum(na)
    if na.any():
        col = na.index[int(np.argmax(na.to_numpy() > 0))]
        raise ValueError(f"answers has {int(na[col])} missing value(s) in column {col!r}")
    # (an empty partition may have other dtypes: it would change the labels' dtype)
    seen = [lab.to_numpy() for lab, rows in zip(labels, lengths) if rows]
    seen = pd.unique(np.concatenate(seen))  # as the pandas path: the values
    # The pandas path's size cap on tasks × options (its message): the tasks are
    # counted (one more pass) only when the rows alone do not rule it out.
    n_labels = len(seen) if options is None else len(pd.Index(options))
    # Integer ids in a range of at most MAX_DENSE_CELLS / n_labels values cannot be
    # too many tasks: no count (a distributed nunique shuffles every row).
    spans = [span for span in spans if span]  # integer ids: the partitions with rows
    lo = min(span[0] for span in spans) if spans else 0
    size = max(span[1] for span in spans) - lo + 1 if spans else 0
    in_range = 0 < size * n_labels <= MAX_DENSE_CELLS
    if n_rows * n_labels > MAX_DENSE_CELLS and not in_range:
        check_dense(int(answers["task"].nunique().compute()), n_labels, MAX_DENSE_CELLS)
    opts = check_options(options, seen)[1]
    return opts, (lo, size) if in_range else None, list(lengths)


def _summary(part: pd.DataFrame, integer_tasks: bool):
    """What :func:`_scan` reads of one partition."""
    task = part["task"]
    span = (int(task.min()), int(task.max())) if integer_tasks and len(part) else ()
    return part[list(_COLUMNS)].isna().sum(), part["label"].drop_duplicates(), len(part), span


def _check_duplicates(answers, lengths) -> None:
    """Raise if some (task, worker) pair answers twice (a distributed group-by), with
    the pandas path's message: the repeated rows' count and the repeated pair whose
    first row comes first, rows in partition order (``lengths``: each partition's
    rows, from :func:`_scan`)."""
    # Dask splits a large group-by's output by a hash of the keys; for an object
    # column that hash depends on which types a partition holds (ints alone, or ints
    # and strings), so one pair could land in two outputs and be missed.  One output
    # for object keys; other dtypes hash the same in every partition.
    split = 1 if object in (answers["task"].dtype, answers["worker"].dtype) else None
    by = dict(by=["task", "worker"], sort=False, observed=True)
    sizes = answers.groupby(**by).size(split_out=split)
    n_repeated = int((sizes - 1).clip(lower=0).sum().compute())
    if not n_repeated:
        return
    # Only when refusing: number the rows and find the earliest first row of a
    # repeated pair (a second group-by).
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])

    def numbered(part, partition_info=None):
        start = starts[partition_info["number"]] if partition_info else 0
        return part.assign(row=np.arange(start, start + len(part)))

    rows = answers[["task", "worker"]].map_partitions(numbered)
    pairs = rows.groupby(**by)["row"].agg(["count", "min"], split_out=split)
    task, worker = pairs[pairs["count"] > 1].nsmallest(1, "min").compute().index[0]
    raise duplicate_pairs_error(n_repeated, task, worker)


def _batch_counts(opts: pd.Index, span, *parts: pd.DataFrame):
    """``(tasks, counts)`` of some partitions: their distinct task ids in order of first
    appearance and each one's answer count per option (a ``(tasks, C)`` array); for
    integer ids in ``span = (lo, size)``, tasks None and row ``t`` is task ``lo + t``."""
    parts = [p for p in parts if len(p)] or parts[:1]  # an empty one may have other dtypes
    task, label = (np.concatenate([p[c].to_numpy() for p in parts]) for c in ("task", "label"))
    C = len(opts)
    if span is None:
        codes, tasks = pd.factorize(task)
        size = len(tasks)
    else:
        tasks, size = None, span[1]
        codes = task.astype(np.int64) - span[0]
    key = codes.astype(np.int64) * C + opts.get_indexer(label)
    return tasks, np.bincount(key, minlength=size * C).reshape(size, C)


def _add_counts(*batches):
    """Batches of :func:`_batch_counts` (in partition order) added into one: the tasks
    in order of first appearance over all of them."""
    if batches[0][0] is None:  # one dense array each
        return None, sum(counts for _, counts in batches)
    codes, tasks = pd.factorize(np.concatenate([t for t, _ in batches]))
    out = np.zeros((len(tasks), batches[0][1].shape[1]), dtype=np.int64)
    np.add.at(out, codes, np.concatenate([c for _, c in batches]))
    return tasks, out


def _in_batches(items, size=8):
    return [items[i : i + size] for i in range(0, len(items), size)]


def _answer_matrix(answers, options, duplicates: str) -> AnswerMatrix:
    """The answer matrix of a Dask table, on this machine (tasks × options, at most
    ``MAX_DENSE_CELLS`` cells as on the pandas path), counted where the data lives:
    each batch of partitions is counted, and the batches are added in a tree."""
    if not isinstance(answers, dd.DataFrame):
        kind = type(answers)
        package = kind.__module__.partition(".")[0]  # "got a pandas DataFrame", "got list"
        got = kind.__name__ if package == "builtins" else f"a {package} {kind.__name__}"
        hint = (
            "; a pandas table is aggregated in memory by dmi_lib.tabular.aggregate "
            "(or wrap it with dask.dataframe.from_pandas)"
            if isinstance(answers, pd.DataFrame)
            else ""
        )
        raise TypeError(
            f"answers must be a dask DataFrame with columns {list(_COLUMNS)}, got {got}{hint}"
        )
    check_columns(answers.columns)
    if not isinstance(duplicates, str) or duplicates not in ("error", "keep"):
        why = (
            " (keeping each pair's first answer needs a global row order, which a "
            "partitioned table does not have)"
            if isinstance(duplicates, str) and duplicates == "first"
            else ""
        )
        raise ValueError(
            f"duplicates must be one of ['error', 'keep'] for a dask table, got {duplicates!r}{why}"
        )
    opts, span, lengths = _scan(answers, options)
    if duplicates == "error":
        _check_duplicates(answers, lengths)
    parts = answers[["task", "label"]].to_delayed()
    batches = [dask.delayed(_batch_counts)(opts, span, *b) for b in _in_batches(parts)]
    while len(batches) > 1:  # a tree: each worker holds a few batches' counts at a time
        batches = [dask.delayed(_add_counts)(*b) for b in _in_batches(batches)]
    tasks, counts = batches[0].compute()
    if span is not None:  # the answered ids of the range, in sorted order
        rows = np.flatnonzero(counts.sum(axis=1))
        tasks, counts = (rows + span[0]).astype(answers["task"].dtype), counts[rows]
    else:  # the pandas path's task order: sorted, or (ids that cannot be sorted)
        # the order of first appearance, which the tree kept
        codes, tasks = factorize(tasks)
        counts = counts[np.argsort(codes, kind="stable")]
    A = counts / counts.sum(axis=1, keepdims=True)
    return AnswerMatrix(A=A, counts=counts, tasks=pd.Index(tasks, name="task"), options=opts)


def task_counts(answers, *, options=None, duplicates: str = "error"):
    """Each task's answer counts, computed where the data lives.

    Parameters
    ----------
    answers : dask.dataframe.DataFrame
        Columns ``task``, ``worker``, ``label``.
    options : sequence, optional
        Label values in column order (default: the labels seen, sorted — one pass).
    duplicates : {"error", "keep"}
        ``"error"`` checks that no ``(task, worker)`` pair answers twice (one more
        distributed group-by); ``"keep"`` counts every row.

    Returns
    -------
    counts : dask.dataframe.DataFrame
        Index ``task`` (one row per task, in sorted order as on the pandas path),
        integer columns ``c0 … c{C-1}``: the number of answers of each option.
    options : pandas.Index

    Raises
    ------
    TypeError
        ``answers`` is not a Dask DataFrame (the message says what it is: a pandas
        table goes to :func:`dmi_lib.tabular.aggregate`).
    ValueError
        ``duplicates`` other than ``"error"`` or ``"keep"`` (``"first"`` needs a
        global row order, which a partitioned table does not have); what the pandas
        path rejects: a missing column or value, an empty table, labels not among
        ``options``, a repeated pair, too many cells.
    """
    am = _answer_matrix(answers, options, duplicates)
    columns = [f"c{j}" for j in range(len(am.options))]
    frame = pd.DataFrame(am.counts, index=am.tasks, columns=columns)
    return dd.from_pandas(
        frame, npartitions=max(1, min(answers.npartitions, len(frame)))
    ), am.options


def distinct_counts(counts):
    """The distinct count vectors of ``counts`` and how many tasks have each.

    Returns
    -------
    rows : ndarray of int, shape (u, C)
        Distinct count vectors, in lexicographic order.
    weights : ndarray of int, shape (u,)
        The number of tasks with each vector.
    """
    rows, weights = np.unique(counts.compute().to_numpy(), axis=0, return_counts=True)
    return rows.astype(np.int64), weights.astype(np.int64)


def aggregate_dask(
    answers,
    method: Method,
    *,
    gold=None,
    options=None,
    random_state=None,
    duplicates: str = "error",
    compute: bool = True,
    kw=None,
):
    """:func:`dmi_lib.tabular.aggregate` for a Dask DataFrame (data larger than one machine).

    ``aggregate`` takes this path for a Dask table (:func:`decide_dask`), after
    checking the call against its method table (:data:`dmi_lib.tabular.METHODS`;
    this function makes the same check, :func:`dmi_lib.answers.check_call`): the
    methods that run on Dask (``"plurality"``, ``"surprisingly-popular"``,
    ``"dmi"``) give every task with the same answer counts the same label
    (:func:`dmi_lib.answers.task_groups`), so the answer matrix is counted where the
    data lives (:func:`task_counts`) and decided on one machine by the same function
    as the pandas path (:func:`dmi_lib.answers.decide_groups`: the method's
    ``groups``, on the same groups in the same order): the answer equals the pandas
    path's exactly.  Ties go to the first option (``ties="random"`` draws once per
    task in the global task order, which a partitioned table does not have;
    ``aggregate`` refuses it).

    Parameters
    ----------
    answers : dask.dataframe.DataFrame
        Columns ``task``, ``worker``, ``label`` (see :func:`read_answers`).
    method : dmi_lib.answers.Method
        An entry of :data:`dmi_lib.tabular.METHODS` with ``dask=True``, e.g.
        ``METHODS["dmi"]``.
    gold, options, random_state
        As in :func:`dmi_lib.tabular.aggregate`; ``gold`` is a (small) pandas Series
        indexed by task.
    kw : dict, optional
        The method's own keywords (``**kw`` of :func:`dmi_lib.tabular.aggregate`).
    duplicates : {"error", "keep"}
        See :func:`task_counts`.
    compute : bool
        Return a pandas Series sorted by task (default, equal to the pandas path's
        answer) or the same answer as a Dask Series, partitioned like ``answers``
        (the answers are counted and the labels decided either way: the answer has
        one row per task, at most ``MAX_DENSE_CELLS`` cells' worth, as on the
        pandas path).

    Notes
    -----
    Dtypes: the answer equals the pandas path's for task, worker and label columns
    of every dtype it accepts -- integers, floats, strings, categoricals, objects
    mixing numbers and strings, task ids Python cannot sort (``1`` and ``"a"``:
    pandas' order, numbers first) -- for frames made in memory and for files read
    by :func:`read_answers` (tested as a property).  The library sees the values
    Dask gives it: ``dask.dataframe.from_pandas`` under Dask's default string
    conversion (``dataframe.convert-string``) turns every object column into
    strings before any of this runs (a label ``1.0`` becomes ``'1.0'``, and ``1``
    and ``'1'`` merge); make such frames inside
    ``dask.config.set({"dataframe.convert-string": False})``.  Labels that cannot
    be sorted are numbered by first appearance in the partitions' order, as the
    pandas path does.

    Memory: each worker holds a batch of partitions and a few partial answer
    matrices (for integer task ids in a range, dense arrays over the range), each
    at most ``MAX_DENSE_CELLS`` cells as on the pandas path; this process holds the
    answer matrix, as the pandas path does.

    Returns
    -------
    pandas.Series or dask.dataframe.Series
        Index ``task``, name ``"agg_label"``.

    Raises
    ------
    TypeError
        ``method`` is not a :class:`~dmi_lib.answers.Method` -- a name such as
        ``"dmi"`` is looked up by :func:`dmi_lib.tabular.aggregate` (the table of
        names, :data:`dmi_lib.tabular.METHODS`, sits above this module); ``answers``
        is not a Dask DataFrame (see :func:`task_counts`).
    ValueError
        A method that does not run on Dask: ``"dmi-practical"`` and
        ``"dmi-validated"`` refine each task by its own counts and cross-validate over
        gold tasks, ``"dmi-em"`` follows each worker, and ``"sp-single"``/``"spectral"``
        need each task's predictions — run those on the pandas table of the tasks
        concerned; a ``duplicates`` the Dask path does not take (see
        :func:`task_counts`); everything the pandas path rejects.
    """
    if not isinstance(method, Method):  # the table of names is dmi_lib.tabular's
        hint = (
            f"; for a method by name call dmi_lib.tabular.aggregate(answers, {method!r})"
            if isinstance(method, str)
            else ""
        )
        raise TypeError(
            "method must be a dmi_lib.answers.Method (an entry of "
            f"dmi_lib.tabular.METHODS, e.g. METHODS['dmi']), got {method!r}{hint}"
        )
    call = Call(
        answers,
        gold=gold,
        options=options,
        random_state=random_state,
        duplicates=duplicates,
        kw=kw or {},
    )
    check_call(call, method)  # aggregate's check: a method that runs on Dask, its keywords
    am, codes, _ = decide_dask(method, call)
    out = label_series(am, codes)
    return out if compute else dd.from_pandas(out, npartitions=answers.npartitions)


def decide_dask(method: Method, call: Call):
    """A method's ``decide`` (:attr:`dmi_lib.answers.Method.decide`) for a Dask table:
    the answer matrix counted where the data lives, then the pandas path's decision
    (:func:`dmi_lib.answers.decide_groups`, once per group of tasks with the same
    answer counts).  :func:`dmi_lib.tabular.aggregate` calls it for a Dask table, after
    :func:`~dmi_lib.answers.check_call`.

    Returns
    -------
    am : dmi_lib.answers.AnswerMatrix
    codes : ndarray of int
        The option (column of ``am``) of each task.
    details : object or None
    """
    rng = check_random_state(call.random_state)
    am = _answer_matrix(call.answers, call.options, call.duplicates)
    return am, *decide_groups(method, am, call.gold, rng, call.kw)


def write_answer_log(
    folder,
    n_answers: int,
    *,
    n_files: int = 1,
    answers_per_task: int = 10,
    C: int = 3,
    accuracy: float = 0.6,
    seed=0,
) -> np.ndarray:
    """Write a simulated answer log as Parquet files; return the true option per task.

    Each answer picks its task uniformly at random (so a task's answers spread over the
    files, as in a log kept in time order) and is the task's true option with
    probability ``accuracy``, else a uniform guess.  Each answer has its own worker id.
    For benchmarks and the book's out-of-core example.

    Parameters
    ----------
    folder : str or path
        Existing directory; files ``answers-00000.parquet``, … are written into it.
    n_answers, n_files : int
        Rows in all, and files to spread them over (about equal sizes).
    answers_per_task : int
        Mean answers per task (``n_answers // answers_per_task`` tasks).
    C : int
        Number of options (labels ``0 … C-1``, stored as int8).
    accuracy : float in [0, 1]
    seed : int or numpy Generator

    Returns
    -------
    ndarray of int, shape (n_tasks,)
        The true option of task ``t`` (task ids are ``0 … n_tasks-1``).
    """

    check_int(n_answers, "n_answers", 1)
    check_int(n_files, "n_files", 1)
    check_int(answers_per_task, "answers_per_task", 1)
    check_int(C, "C", 1)
    if not 0.0 <= accuracy <= 1.0:
        raise ValueError(f"accuracy must be in [0, 1], got {accuracy!r}")
    rng = check_random_state(seed)
    n_tasks = max(n_answers // answers_per_task, 1)
    truth = rng.integers(0, C, n_tasks)
    bounds = np.linspace(0, n_answers, n_files + 1).astype(np.int64)
    for f, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        task = rng.integers(0, n_tasks, hi - lo)
        right = rng.random(hi - lo) < accuracy
        label = np.where(right, truth[task], rng.integers(0, C, hi - lo)).astype(np.int8)
        pd.DataFrame({"task": task, "worker": np.arange(lo, hi), "label": label}).to_parquet(
            Path(folder) / f"answers-{f:05d}.parquet", index=False
        )
    return truth
