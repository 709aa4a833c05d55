"""Crowd aggregation beyond one machine: long answer tables as Dask DataFrames.

DMI-clustering of crowd data needs only each task's answer *counts*, and those
collapse to few distinct count vectors: with ``m`` answers per task and ``C``
options there are at most ``C(m + C - 1, C - 1)`` of them, whatever the number of
tasks.  So a log of 10⁸-10¹⁰ answers spread over many files is aggregated in three
steps:

1. **count** (distributed): one pass over the answers gives, per task, the number of
   answers for each option (a group-by on ``task``, combined across partitions);
2. **cluster** (one machine, tiny): the distinct count vectors with their
   multiplicities are aggregated exactly as :func:`dmi_lib.tabular.aggregate` does
   with a pandas table (the same code runs on the same distinct rows);
3. **map back** (distributed): every task gets the label of its count vector.

:func:`read_answers` opens partitioned Parquet or CSV files by glob;
:func:`aggregate_dask` aggregates them (``dmi_lib.aggregate`` checks the call against
its method table and calls it for a ``dask.dataframe.DataFrame``).  Dask is an optional dependency (the ``dask``
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

from .._validation import check_positive, check_random_state
from ..answers import MAX_DENSE_CELLS, Method, check_dense, check_options, gold_labels

__all__ = [
    "aggregate_dask",
    "distinct_counts",
    "read_answers",
    "task_counts",
    "write_answer_log",
    "is_dask_frame",
]

_COLUMNS = ("task", "worker", "label")


def is_dask_frame(obj) -> bool:
    """True for a Dask DataFrame (a type from a ``dask`` package with partitions and columns)."""
    return (
        type(obj).__module__.startswith("dask")
        and hasattr(obj, "npartitions")
        and hasattr(obj, "columns")
    )


def read_answers(path, *, format: str | None = None, columns=_COLUMNS, **kwargs):
    """Open a long answer table spread over files, as a lazy Dask DataFrame.

    Parameters
    ----------
    path : str or list of str
        A glob (``"logs/answers-*.parquet"``), a directory of Parquet files, or a
        list of paths.
    format : {"parquet", "csv"}, optional
        Default: from the file ending (``.csv``/``.csv.gz`` → CSV, else Parquet).
    columns : sequence of str
        Columns to read (default ``task``, ``worker``, ``label``).
    **kwargs
        Passed to :func:`dask.dataframe.read_parquet` / :func:`~dask.dataframe.read_csv`.

    Returns
    -------
    dask.dataframe.DataFrame
    """
    first = path[0] if isinstance(path, (list, tuple)) and path else path
    if not isinstance(first, str) or not first:
        raise TypeError(f"path must be a glob, a directory or a list of paths, got {path!r}")
    if format is None:
        format = "csv" if first.endswith((".csv", ".csv.gz", ".tsv", ".tsv.gz")) else "parquet"
    if format not in ("parquet", "csv"):
        raise ValueError(f"format must be 'parquet' or 'csv', got {format!r}")
    files = _local_files(path)
    if format == "parquet":
        for f in files or ():  # a corrupt file is named now, not deep inside a compute
            try:
                pq.read_metadata(f)
            except Exception as exc:
                raise ValueError(f"{f} is not a readable Parquet file: {exc}") from exc
        frame = dd.read_parquet(path, **kwargs)
    else:
        if (
            first.endswith((".tsv", ".tsv.gz"))
            and "sep" not in kwargs
            and "delimiter" not in kwargs
        ):
            kwargs["sep"] = "\t"
        frame = dd.read_csv(path, **kwargs)
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"answers is missing column(s) {missing}; a long table needs the columns "
            f"{list(columns)} (one row per answer); {path!r} has {list(frame.columns)}"
        )
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


def _scan(answers, options):
    """One pass over the answers: refuse missing values, and return the label values in
    column order by the pandas path's rule (given, or the labels seen, sorted), and
    the smallest and largest task id when they are integers (else None)."""
    integer_tasks = pd.api.types.is_integer_dtype(answers["task"].dtype)
    extra = (answers["task"].min(), answers["task"].max()) if integer_tasks else ()
    label, task = answers["label"], answers["task"]
    # One task id of each Python type (object ids only): ids that cannot be sorted
    # are refused below, before a group-by would fail on them.
    samples = [task.map_partitions(_one_per_type, meta=task._meta)] if task.dtype == object else []
    # Each partition's distinct labels in order of first appearance, the partitions
    # in order: no shuffle, and the table's global first appearance (the pandas
    # path's column order for labels that cannot be sorted).
    firsts = label.map_partitions(_first_appearances, meta=label._meta)
    na, seen, n_rows, *task_range = dask.compute(
        answers[list(_COLUMNS)].isna().sum(),
        firsts,  # the partitions concatenated in order
        answers.shape[0],
        *samples,
        *extra,
    )
    if samples:
        _check_sortable_tasks(task_range.pop(0))
    if n_rows == 0:
        raise ValueError("answers is empty: there is nothing to aggregate")
    if na.any():
        col = na.index[int(np.argmax(na.to_numpy() > 0))]
        raise ValueError(f"answers has {int(na[col])} missing value(s) in column {col!r}")
    seen = pd.unique(seen.to_numpy())  # as the pandas path: the values
    # The pandas path's size cap on tasks × options (its message): the tasks are
    # counted (one more pass) only when the rows alone do not rule it out.
    n_labels = len(seen) if options is None else len(pd.Index(options))
    # Integer ids in a range of at most MAX_DENSE_CELLS / n_labels values cannot be
    # too many tasks: no count (a distributed nunique shuffles every row).
    in_range = bool(task_range) and (
        (int(task_range[1]) - int(task_range[0]) + 1) * n_labels <= MAX_DENSE_CELLS
    )
    if n_rows * n_labels > MAX_DENSE_CELLS and not in_range:
        check_dense(int(answers["task"].nunique().compute()), n_labels, MAX_DENSE_CELLS)
    opts = check_options(options, seen)[1]
    return opts, (tuple(int(v) for v in task_range) if task_range else None)


def _first_appearances(labels: pd.Series) -> pd.Series:
    """The distinct values of one partition's labels, in order of first appearance."""
    return labels.drop_duplicates()


def _one_per_type(tasks: pd.Series) -> pd.Series:
    """One value of each Python type among one partition's task ids."""
    kinds = tasks.map(type)
    return tasks[~kinds.duplicated().to_numpy()]


def _check_sortable_tasks(samples: pd.Series) -> None:
    """Refuse task ids of types that cannot be compared (the answer is sorted by task)."""
    values = list(dict.fromkeys(samples.tolist()))
    try:
        sorted(values)
    except TypeError as exc:
        kinds = sorted({type(v).__name__ for v in values})
        raise TypeError(
            f"task ids of mixed types {kinds} cannot be sorted ({exc}); a dask table "
            "is aggregated in sorted task order: give the task ids one type, e.g. "
            "answers.assign(task=answers['task'].astype(str))"
        ) from exc


def _keep_object_values(answers):
    """``answers`` made from pandas tables without Dask's string conversion.

    ``dask.dataframe.from_pandas`` turns object columns into strings by default
    (``dataframe.convert-string``), so a label ``1.0`` would arrive as ``'1.0'`` and
    ``1`` and ``'1'`` would merge.  The conversion is a parameter of the lazy
    expression: where a source pandas table has object columns it is switched off,
    so the values are the table's own, as on the pandas path.
    """
    expr = getattr(answers, "expr", None)
    if expr is None:
        return answers
    from dask.dataframe.dask_expr._collection import new_collection
    from dask.dataframe.dask_expr.io.io import FromPandas

    for node in list(expr.find_operations(FromPandas)):
        frame = getattr(node.frame, "_data", node.frame)
        if node.pyarrow_strings_enabled and _has_objects(frame):
            expr = expr.substitute(
                node, node.substitute_parameters({"pyarrow_strings_enabled": False})
            )
    return answers if expr is answers.expr else new_collection(expr)


def _has_objects(frame) -> bool:
    dtypes = [frame.dtype] if isinstance(frame, pd.Series) else list(frame.dtypes)
    return any(d == object for d in dtypes + [frame.index.dtype])


def _task_values(tasks: pd.Series) -> pd.Series:
    """A categorical task column as its values (object: one dtype in every partition)."""
    return pd.Series(np.asarray(tasks, dtype=object), index=tasks.index, name="task")


def _partition_counts(part: pd.DataFrame, opts: pd.Index) -> pd.DataFrame:
    """Answer counts per task of one partition (tasks as index, one column per option)."""
    C = len(opts)
    label_codes = opts.get_indexer(part["label"].to_numpy())  # checked by _options
    task_codes, tasks = pd.factorize(part["task"].to_numpy())
    n = len(tasks)
    counts = np.bincount(task_codes.astype(np.int64) * C + label_codes, minlength=n * C).reshape(
        n, C
    )
    return pd.DataFrame(
        counts, index=pd.Index(tasks, name="task"), columns=[f"c{j}" for j in range(C)]
    )


def _check_duplicates(answers) -> None:
    """Raise if some (task, worker) pair answers twice (a distributed group-by)."""
    sizes = answers.groupby(["task", "worker"]).size()
    n_dup = int((sizes > 1).sum().compute())
    if n_dup:
        raise ValueError(
            f"answers has {n_dup} (task, worker) pair(s) with several rows; "
            "pass duplicates='keep' to count every row as a vote"
        )


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
        Index ``task`` (one row per task, in no particular order), integer columns
        ``c0 … c{C-1}``: the number of answers of each option.
    options : pandas.Index
    """
    if not is_dask_frame(answers):
        raise TypeError(f"answers must be a dask DataFrame, got {type(answers).__name__}")
    missing = [c for c in _COLUMNS if c not in answers.columns]
    if missing:
        raise ValueError(
            f"answers is missing column(s) {missing}; a long table needs "
            f"the columns {list(_COLUMNS)} (one row per answer)"
        )
    if duplicates not in ("error", "keep"):
        raise ValueError(
            f"duplicates must be 'error' or 'keep' for a dask table, got "
            f"{duplicates!r} ('first' needs a global row order)"
        )
    answers = _keep_object_values(answers)
    if isinstance(answers["task"].dtype, pd.CategoricalDtype):
        # The pandas path counts a categorical task column by its values: so here
        # (its categories may differ between partitions, or be unknown in Parquet).
        answers = answers.assign(
            task=answers["task"].map_partitions(_task_values, meta=("task", object))
        )
    opts, task_range = _scan(answers, options)
    if duplicates == "error":
        _check_duplicates(answers)
    C = len(opts)
    if task_range is not None and (task_range[1] - task_range[0] + 1) * C <= MAX_DENSE_CELLS:
        # Integer task ids in a range the pandas path could hold densely: each
        # partition counts into a dense (range × C) array and the arrays are
        # summed in a tree -- no shuffle of one partial row per (task, partition).
        return _dense_counts(answers, opts, task_range), opts
    meta = pd.DataFrame(
        {f"c{j}": pd.Series(dtype=np.int64) for j in range(len(opts))},
        index=pd.Index([], name="task", dtype=answers["task"].dtype),
    )
    partial = answers.map_partitions(_partition_counts, opts, meta=meta)
    # A task may span partitions: sum its partial counts (a tree reduction that
    # keeps the result partitioned, so no single machine holds every task).
    counts = partial.groupby(partial.index).sum(split_out=answers.npartitions)
    return counts, opts


def _dense_partition(part: pd.DataFrame, opts: pd.Index, lo: int, size: int) -> np.ndarray:
    """Answer counts of one partition as a dense ``(size, C)`` array (task ``lo + t``)."""
    C = len(opts)
    key = (part["task"].to_numpy().astype(np.int64) - lo) * C + opts.get_indexer(
        part["label"].to_numpy()
    )
    return np.bincount(key, minlength=size * C).reshape(size, C)


def _dense_counts(answers, opts: pd.Index, task_range):
    """:func:`task_counts` for integer task ids in ``task_range``: per-partition dense
    counts summed in a tree (memory per worker: one ``range × C`` array, at most
    ``MAX_DENSE_CELLS`` cells as on the pandas path), the answered tasks kept."""
    lo, hi = task_range
    size = hi - lo + 1
    sums = [dask.delayed(_dense_partition)(p, opts, lo, size) for p in answers.to_delayed()]
    while len(sums) > 1:  # a tree of pairwise sums
        sums = [
            dask.delayed(np.add)(sums[i], sums[i + 1]) if i + 1 < len(sums) else sums[i]
            for i in range(0, len(sums), 2)
        ]
    total = sums[0].compute()
    answered = np.flatnonzero(total.sum(axis=1))
    index = pd.Index((answered + lo).astype(answers["task"].dtype), name="task")
    columns = [f"c{j}" for j in range(len(opts))]
    frame = pd.DataFrame(total[answered].astype(np.int64), index=index, columns=columns)
    return dd.from_pandas(frame, npartitions=max(1, min(answers.npartitions, len(frame))))


def distinct_counts(counts):
    """The distinct count vectors of ``counts`` and how many tasks have each.

    Returns
    -------
    rows : ndarray of int, shape (u, C)
        Distinct count vectors, in lexicographic order.
    weights : ndarray of int, shape (u,)
        The number of tasks with each vector.
    """
    groups = _count_groups(counts, pd.Index([])).sort_values(list(counts.columns))
    return (
        groups[list(counts.columns)].to_numpy(dtype=np.int64),
        groups["n"].to_numpy(dtype=np.int64),
    )


def _gold_tasks(counts, gold, opts: pd.Index):
    """The gold tasks' answer counts and option codes (gold is small: one machine)."""
    gold, codes = gold_labels(gold, opts)
    keys = list(gold.index)
    found = counts.map_partitions(lambda p: p[p.index.isin(keys)]).compute().sort_index()
    if len(found) < len(gold):
        missing = [t for t in keys if t not in set(found.index)][:5]
        raise ValueError(
            f"gold names {len(gold) - len(found)} task(s) that have no "
            f"answers, e.g. {missing} (check the task ids' type)"
        )
    return found, pd.Series(codes, index=gold.index).reindex(found.index).to_numpy()


def _groups_of_partition(part: pd.DataFrame, gold_index) -> pd.DataFrame:
    """Per count vector of the non-gold tasks of one partition: tasks and first task."""
    part = part[~part.index.isin(gold_index)]
    cols = list(part.columns)
    out = (
        part.reset_index().groupby(cols, sort=False).agg(n=("task", "size"), first=("task", "min"))
    )
    return out.reset_index()


def _count_groups(counts, gold_index) -> pd.DataFrame:
    """The count vectors of the tasks not in ``gold_index``, with their number of tasks
    ``n`` and first task ``first`` (grouped in each partition, then combined)."""
    cols = list(counts.columns)
    meta = pd.DataFrame(
        {
            **{c: pd.Series(dtype=np.int64) for c in cols},
            "n": pd.Series(dtype=np.int64),
            "first": pd.Series(dtype=counts.index.dtype),
        }
    )
    parts = counts.map_partitions(_groups_of_partition, gold_index, meta=meta).compute()
    groups = parts.groupby(cols, sort=False).agg(n=("n", "sum"), first=("first", "min"))
    return groups.reset_index()


def _map_back(part: pd.DataFrame, rows, values, gold_values) -> pd.Series:
    table = pd.MultiIndex.from_arrays(np.asarray(rows).T)
    ids = table.get_indexer(pd.MultiIndex.from_arrays(part.to_numpy(dtype=np.int64).T))
    out = pd.Series(values[np.maximum(ids, 0)], index=part.index, name="agg_label")
    is_gold = part.index.isin(gold_values.index)
    if is_gold.any():  # gold tasks are groups of their own
        out[is_gold] = gold_values.reindex(part.index[is_gold]).to_numpy()
    if (ids[~is_gold] < 0).any():  # cannot happen: the groups come from these counts
        raise RuntimeError("a task's count vector is missing from the groups")
    return out


def _group_table(counts, gold, opts: pd.Index) -> pd.DataFrame:
    """The groups of interchangeable tasks (:func:`dmi_lib.answers.task_groups`), in the
    pandas path's order: count columns, ``n`` tasks, ``first`` task and ``gold`` option
    (``-1``: none; a gold task is a group of its own)."""
    cols = list(counts.columns)
    if gold is not None:
        gold_counts, gold_codes = _gold_tasks(counts, gold, opts)
    else:
        gold_counts, gold_codes = counts.head(0), np.empty(0, dtype=np.intp)
    gold_index = gold_counts.index
    groups = _count_groups(counts, gold_index)
    table = pd.concat(
        [
            groups,
            pd.DataFrame(
                {
                    **{c: gold_counts[c].to_numpy() for c in cols},
                    "n": 1,
                    "first": gold_index.to_numpy(),
                    "gold": gold_codes,
                }
            ),
        ],
        ignore_index=True,
    )
    table["gold"] = table["gold"].fillna(-1).astype(np.intp)
    # The pandas path's order: groups by their first task, tasks in sorted order.
    return table.sort_values("first", kind="stable").reset_index(drop=True)


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

    ``aggregate`` takes this path for a Dask table, after checking the call against
    its method table (:data:`dmi_lib.tabular.METHODS`): the methods that run on Dask
    (``"plurality"``, ``"surprisingly-popular"``, ``"dmi"``) give every task with the
    same answer counts the same label (:func:`dmi_lib.answers.task_groups`), so the
    groups are formed where the data lives, decided on one machine by the same
    function as the pandas path (the method's ``groups``, in the same order) and the
    labels mapped back: the answer equals the pandas path's exactly.  Ties go to
    the first option (``ties="random"`` draws once per task in the global task order,
    which a partitioned table does not have; ``aggregate`` refuses it).

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
        answer) or a lazy Dask Series (one row per task, partitioned, unsorted).

    Notes
    -----
    Dtypes: the answer equals the pandas path's for task and label columns of
    every dtype it accepts -- integers, floats, strings, categoricals, objects
    mixing numbers and strings (tested as a property).  Object columns of a frame
    made by ``dask.dataframe.from_pandas`` keep their values: Dask's default string
    conversion (which would turn a label ``1.0`` into ``'1.0'``) is switched off
    for such source tables.  Labels that cannot be sorted are numbered by first
    appearance in the partitions' order, as the pandas path does.  Task ids of
    types that cannot be sorted (ints and strings) are refused (``TypeError``):
    the answer is sorted by task.

    Returns
    -------
    pandas.Series or dask.dataframe.Series
        Index ``task``, name ``"agg_label"``.

    Raises
    ------
    ValueError
        A method that does not run on Dask: ``"dmi-practical"`` and
        ``"dmi-validated"`` refine each task by its own counts and cross-validate over
        gold tasks, ``"dmi-em"`` follows each worker, and ``"sp-single"``/``"spectral"``
        need each task's predictions — run those on the pandas table of the tasks
        concerned; everything the pandas path rejects.
    """
    if not method.dask:
        raise ValueError(f"method {method.name!r} is not available for a dask table")
    rng = check_random_state(random_state)
    task_dtype = answers["task"].dtype if "task" in answers.columns else None
    counts, opts = task_counts(answers, options=options, duplicates=duplicates)
    counts = counts.persist()  # read twice: the groups, then the map back
    cols = list(counts.columns)
    table = _group_table(counts, gold if method.name == "dmi" else None, opts)
    rows = table[cols].to_numpy(dtype=np.int64)
    row_gold = table["gold"].to_numpy()
    plain = row_gold < 0
    codes, _ = method.groups(
        rows, table["n"].to_numpy(), opts, None if plain.all() else row_gold, rng, kw or {}
    )
    values = opts[codes].to_numpy()
    gold_values = pd.Series(values[~plain], index=table["first"][~plain].to_numpy())
    meta = pd.Series(
        dtype=values.dtype,
        name="agg_label",
        index=pd.Index([], name="task", dtype=counts.index.dtype),
    )
    labels = counts.map_partitions(_map_back, rows[plain], values[plain], gold_values, meta=meta)
    if not compute:
        return labels
    out = labels.compute().sort_index()
    if (
        pd.api.types.is_string_dtype(task_dtype)
        or task_dtype == object
        or isinstance(task_dtype, pd.CategoricalDtype)
    ):
        # Dask reads strings as Arrow strings (missing value pd.NA), and a
        # categorical task column arrives as objects; build the index as the
        # pandas path does: pd.Index of the column's NumPy values (for a
        # categorical, the NumPy form of its categories).
        values = np.asarray(out.index.to_numpy(), dtype=object)
        if isinstance(task_dtype, pd.CategoricalDtype):
            values = np.asarray(pd.Index(values.tolist()))
        out.index = pd.Index(values, name="task")
    return out


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

    for name, value in (
        ("n_answers", n_answers),
        ("n_files", n_files),
        ("answers_per_task", answers_per_task),
        ("C", C),
    ):
        check_positive(value, name, integer=True)
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
