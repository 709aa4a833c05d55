"""A long table of crowd answers as the paper's arrays: the layer under :mod:`dmi_lib.tabular`.

A practitioner's crowd data is a long table, one row per answer, with columns
``task``, ``worker``, ``label`` (and, where respondents also predicted the others'
answers, ``prediction``).  This module reads such a table and nothing more:

* :func:`answer_matrix` — the table → the paper's answer matrix ``A`` (row ``t``: the
  distribution of task ``t``'s answers, Algorithm 4, lines 1-2), its counts, and the
  task and option indexes (integer codes: sorted values, order of first appearance
  when the values cannot be sorted — the one rule of the package).
* gold labels as option codes, each prediction as a probability vector over the
  options (the single-task methods, Algorithms 5 and 6);
* :func:`task_groups` — tasks with the same answer counts are interchangeable for
  plurality, surprisingly popular and DMI-clustering, so those are decided once per
  group (by the methods of :data:`dmi_lib.tabular.METHODS`, on the pandas path and on
  the Dask path of :mod:`dmi_lib.extras.scale_out` alike).

Examples
--------
>>> import pandas as pd
>>> df = pd.DataFrame({"task": ["t2", "t1", "t1"], "worker": ["a", "a", "b"],
...                    "label": ["no", "yes", "no"]})
>>> am = answer_matrix(df)
>>> am.counts.tolist(), am.tasks.tolist(), am.options.tolist()
([[1, 1], [1, 0]], ['t1', 't2'], ['no', 'yes'])
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np
import pandas as pd
from pandas.api import types as pdt

from ._validation import DMI_METHODS, Settings, check_choice, is_number
from .labels import distinct_rows

__all__ = [
    "Aggregator",
    "AnswerMatrix",
    "Call",
    "MAX_DENSE_CELLS",
    "Method",
    "answer_matrix",
    "task_groups",
    "decide_groups",
    "PREDICTION_TYPES",
    "check_answers",
    "check_columns",
    "check_dense",
    "check_options",
    "duplicate_pairs_error",
    "factorize",
    "is_dask_table",
    "gold_codes",
    "prediction_matrix",
    "python_scalar",
    "read_table",
    "check_call",
    "label_series",
]

_REQUIRED = ("task", "worker", "label")
#: Ways to read the ``prediction`` column (``prediction_type`` of :func:`dmi_lib.tabular.aggregate`).
PREDICTION_TYPES = ("auto", "fraction", "label", "distribution")


class AnswerMatrix(NamedTuple):
    """The answer matrix of a long table (see :func:`answer_matrix`).

    Attributes
    ----------
    A : ndarray, shape (n_tasks, C)
        ``A[t, c]``: share of task ``t``'s answers that chose option ``c``.
    counts : ndarray of int, shape (n_tasks, C)
        The number of those answers.
    tasks : pandas.Index
        Task of each row (name ``"task"``).
    options : pandas.Index
        Label of each column (name ``"label"``).
    """

    A: np.ndarray
    counts: np.ndarray
    tasks: pd.Index
    options: pd.Index


# --------------------------------------------------------------------------- #
# Validation
# --------------------------------------------------------------------------- #
def python_scalar(value):
    """A numpy scalar as the Python scalar it holds (for readable messages)."""
    return value.item() if isinstance(value, np.generic) else value


def check_answers(answers, required=_REQUIRED) -> pd.DataFrame:
    """``answers`` itself when it is a non-empty long table with the ``required``
    columns, each once, holding hashable values and no missing ones; else a
    TypeError / ValueError naming the column and the value."""
    if not isinstance(answers, pd.DataFrame):
        raise TypeError(
            f"answers must be a pandas DataFrame with columns "
            f"{list(_REQUIRED)}, got {type(answers).__name__}"
        )
    check_columns(answers.columns, required)
    repeated = [c for c in required if int(np.sum(answers.columns == c)) > 1]
    if repeated:
        raise ValueError(
            f"answers has several columns named {repeated[0]!r}; give each of "
            f"{list(required)} one column"
        )
    if len(answers) == 0:
        raise ValueError("answers is empty: there is nothing to aggregate")
    for col in required:
        if answers[col].dtype == object:
            try:  # lists, dicts, sets: values that cannot be compared or counted
                pd.util.hash_array(answers[col].to_numpy())
            except TypeError:
                bad = next(v for v in answers[col] if not pdt.is_hashable(v))
                raise TypeError(
                    f"answers column {col!r} must hold hashable values (numbers, "
                    f"strings), got {type(bad).__name__} {bad!r}"
                ) from None
        na = answers[col].isna().to_numpy()
        if na.any():
            raise ValueError(
                f"answers has {int(na.sum())} missing value(s) in column {col!r} "
                f"(first at row index {python_scalar(answers.index[int(np.argmax(na))])!r})"
            )
    return answers


def check_columns(columns, required=_REQUIRED, note: str = "") -> None:
    """Refuse a table whose ``columns`` lack one of ``required``, naming the missing
    ones (``note``: more to say, e.g. the files read); the pandas and the Dask path's
    check."""
    missing = [c for c in required if c not in columns]
    if missing:
        raise ValueError(
            f"answers is missing column(s) {missing}; a long table needs "
            f"the columns {list(required)} (one row per answer){note}"
        )


def factorize(values, *, sort: bool = True):
    """``pd.factorize`` that sorts when the values are comparable (mixed types are
    numbered in order of first appearance instead)."""
    try:
        return pd.factorize(values, sort=sort)
    except TypeError:  # e.g. a column holding both ints and strings: not sortable
        return pd.factorize(values, sort=False)


#: Largest answer matrix (tasks × options) built densely: two such matrices
#: (counts and shares) take 16 bytes per cell, 1 GiB at this size.
MAX_DENSE_CELLS = 2**26


def check_dense(n_tasks: int, n_options: int, max_cells: int) -> None:
    """Refuse an answer matrix of more than ``max_cells`` cells (a free-text or id
    column read as ``label``), before it is built."""
    cells = n_tasks * n_options
    if cells > max_cells:
        raise ValueError(
            f"answers has {n_tasks} tasks and {n_options} distinct labels: the answer "
            f"matrix would have {cells} cells (about {16 * cells / 2**30:.1f} GiB), "
            f"more than max_cells = {max_cells}.  Is 'label' a free-text or "
            "id column?  Pass options=[...] with the real label set, or use a "
            "per-task method ('sp-single', 'spectral')"
        )


def _int_codes(values):
    """``(codes, size)`` with ``codes`` equal iff ``values`` are: integer values are
    offset by their minimum when the range is small (no hashing pass), anything
    else is factorised."""
    if values.dtype.kind in "iu" and values.size:
        lo, hi = int(values.min()), int(values.max())
        if hi - lo < 2**31:
            return values.astype(np.int64) - lo, hi - lo + 1
    codes, uniques = pd.factorize(values)
    return codes, len(uniques)


def check_options(options, labels) -> tuple:
    """Return ``(codes, options Index)``; ``codes[i]`` is row ``i``'s column."""
    if options is None:
        codes, uniques = factorize(labels)
        return codes, pd.Index(uniques, name="label")
    opts = pd.Index(options if not np.isscalar(options) else [options], name="label")
    if opts.size == 0:
        raise ValueError("options is empty")
    for i, o in enumerate(opts):
        if not isinstance(o, Hashable):  # e.g. a list: no label can equal it
            raise TypeError(f"options must be label values, got unhashable {o!r} at position {i}")
    if opts.hasnans:
        raise ValueError(f"options must not contain missing values, got {list(opts)}")
    if not opts.is_unique:
        dup = opts[opts.duplicated()].unique().tolist()
        raise ValueError(f"options must be distinct, got duplicate(s) {dup}")
    return _option_codes(labels, opts, "answers"), opts


def _option_codes(values, options: pd.Index, what: str) -> np.ndarray:
    """The column of each of ``values`` among ``options``; a ValueError naming
    ``what`` (``"answers"``, ``"gold"``, ``"column 'prediction'"``), how many
    values are not among them and the first unknown values (up to ten, sorted)
    if some are not among them."""
    codes = options.get_indexer(values)
    unknown = codes < 0
    if unknown.any():
        bad = pd.unique(np.asarray(values)[unknown])
        shown = sorted(bad.tolist(), key=repr)[:10]
        raise ValueError(
            f"{what} has {int(unknown.sum())} label(s) not among options "
            f"{list(options)}: {shown}{' ...' if bad.size > 10 else ''}"
        )
    return codes


def answer_matrix(
    answers, *, options=None, duplicates: str = "error", max_cells: int = MAX_DENSE_CELLS
) -> AnswerMatrix:
    """Answer matrix of a long table: per task, the shares of each option.

    This is the paper's normalised ``A`` (Algorithm 4, lines 1-2: ``A = Σᵢ Rᵢ``,
    then each row divided by its sum), built in one pass with categorical codes
    and :func:`numpy.bincount` (O(N) for N answers).

    Parameters
    ----------
    answers : pandas.DataFrame
        Long table with columns ``task``, ``worker``, ``label`` (others ignored).
    options : sequence, optional
        The label values, in column order.  Default: the distinct labels, sorted
        (order of first appearance if they are not comparable).  Options nobody
        chose give all-zero columns.
    duplicates : {"error", "keep", "first"}
        What to do with several rows for one ``(task, worker)`` pair: raise
        (default), count every row as a vote, or keep only the first row.
    max_cells : int
        Largest ``tasks × options`` built (default :data:`MAX_DENSE_CELLS`, about
        1 GiB for the counts and the shares): a free-text or id column read as
        ``label`` is refused before it fills the memory.

    Returns
    -------
    AnswerMatrix
        ``(A, counts, tasks, options)``.  Tasks are sorted (order of first
        appearance if not comparable).  A task appears iff it has an answer: tasks
        known only from a gold list are not rows of ``A``.

    Raises
    ------
    TypeError
        ``answers`` is not a DataFrame.
    ValueError
        A missing column, an empty table, missing values in ``task``, ``worker`` or
        ``label``, a duplicated ``(task, worker)`` pair (``duplicates="error"``), a
        label not among ``options``, invalid ``options``, or a matrix of more than
        ``max_cells`` cells.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"task": [2, 2, 1, 1, 1], "worker": list("abcde"),
    ...                    "label": [1, 2, 2, 2, 1]})
    >>> am = answer_matrix(df)
    >>> am.A
    array([[0.33333333, 0.66666667],
           [0.5       , 0.5       ]])
    >>> am.counts.tolist(), am.tasks.tolist(), am.options.tolist()
    ([[1, 2], [1, 1]], [1, 2], [1, 2])
    >>> answer_matrix(df, options=[0, 1, 2]).counts.tolist()
    [[0, 1, 2], [0, 1, 1]]
    """
    return read_table(answers, options, duplicates, max_cells)[0]


def _pair_keys(answers: pd.DataFrame, task_codes: np.ndarray) -> pd.Series | None:
    """One int64 key per row, equal iff the rows' ``(task, worker)`` pairs are; None
    when every pair is distinct."""
    worker_codes, n_workers = _int_codes(answers["worker"].to_numpy())
    # One int64 key per (task, worker) pair; hashing it is far faster than
    # DataFrame.duplicated on two object columns.
    key = task_codes.astype(np.int64) * max(n_workers, 1) + worker_codes
    # Any duplicate at all?  A stable sort (timsort) is near-linear on the usual
    # task-grouped tables and far faster than hashing every pair; the keys are
    # hashed only when there is a duplicate to locate.
    srt = np.sort(key, kind="stable")
    return pd.Series(key) if np.any(srt[1:] == srt[:-1]) else None


def duplicate_pairs_error(n_repeated: int, task, worker) -> ValueError:
    """The error for answers that repeat (task, worker) pairs, the same on every path:
    ``n_repeated`` rows repeat an earlier row's pair; ``task``, ``worker`` is the
    repeated pair whose first row comes first."""
    return ValueError(
        f"answers has {n_repeated} duplicate (task, worker) pair(s), e.g. "
        f"task={python_scalar(task)!r}, worker={python_scalar(worker)!r}; pass "
        "duplicates='keep' to count every row as a vote (or, on a pandas table, "
        "duplicates='first' to keep each pair's first answer)"
    )


def read_table(answers, options, duplicates, max_cells=MAX_DENSE_CELLS):
    """:func:`answer_matrix` and the rows of ``answers`` it counted."""
    answers = check_answers(answers)
    check_choice(duplicates, "duplicates", ("error", "keep", "first"))
    task_codes, tasks = factorize(answers["task"].to_numpy())
    key = _pair_keys(answers, task_codes) if duplicates != "keep" else None
    if key is not None:
        dup = key.duplicated().to_numpy()  # the rows whose pair occurred on an earlier row
        if duplicates == "error":
            i = int(np.argmax(key.duplicated(keep=False).to_numpy()))  # a repeated pair's first row
            raise duplicate_pairs_error(
                int(dup.sum()), answers["task"].iloc[i], answers["worker"].iloc[i]
            )
        answers = answers.loc[~dup]  # "first"
        task_codes = task_codes[~dup]
    n = len(tasks)
    if options is None:  # before factorising a label column that may be free text
        check_dense(n, int(answers["label"].nunique()), max_cells)
    label_codes, opts = check_options(options, answers["label"].to_numpy())
    C = len(opts)
    check_dense(n, C, max_cells)
    cell = task_codes.astype(np.int64) * C + label_codes  # row-major (task, option) cell
    counts = np.bincount(cell, minlength=n * C).reshape(n, C)
    A = counts / counts.sum(axis=1, keepdims=True)
    am = AnswerMatrix(A=A, counts=counts, tasks=pd.Index(tasks, name="task"), options=opts)
    return am, answers, task_codes, label_codes


# --------------------------------------------------------------------------- #
# Predictions (single-task methods)
# --------------------------------------------------------------------------- #
def _fraction_predictions(pred: pd.Series, opts: pd.Index) -> np.ndarray:
    """A predicted share of the larger of two options → ``(1 - p, p)`` in column order."""
    C = len(opts)
    if C != 2:
        raise ValueError(
            f"prediction_type 'fraction' (a predicted share of one of two options) "
            f"needs exactly 2 options, got {C}: {list(opts)}"
        )
    # The share is of the larger label (0/1 votes: the share voting 1), whatever
    # the column order of ``options``.
    hi = opts.get_loc(max(opts))
    try:
        p = pred.to_numpy(dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"column 'prediction' must hold numbers for prediction_type 'fraction': {exc}"
        ) from exc
    bad = ~((p >= 0.0) & (p <= 1.0))
    if bad.any():
        raise ValueError(
            f"prediction must be a fraction in [0, 1] (the predicted share of "
            f"option {python_scalar(opts[hi])!r}), found {python_scalar(p[bad][0])!r}; if the "
            "predictions are labels pass prediction_type='label'"
        )
    return np.column_stack([1.0 - p, p] if hi == 1 else [p, 1.0 - p])


def _distribution_predictions(pred: pd.Series, opts: pd.Index, index: pd.Index) -> np.ndarray:
    """A probability vector over ``opts`` per row, checked."""
    C = len(opts)
    try:
        P = np.array(pred.tolist(), dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"column 'prediction' must hold equal-length numeric "
            f"vectors for prediction_type 'distribution': {exc}"
        ) from exc
    if P.ndim != 2 or P.shape[1] != C:
        raise ValueError(
            f"each prediction must have one entry per option ({C}: "
            f"{list(opts)}), got shape {P.shape}"
        )
    bad = ~np.isfinite(P).all(axis=1) | (P < 0).any(axis=1) | (np.abs(P.sum(axis=1) - 1.0) > 1e-6)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"prediction of row {python_scalar(index[i])!r} is not a probability vector: {P[i].tolist()}"
        )
    return P


def prediction_matrix(answers: pd.DataFrame, opts: pd.Index, kind: str) -> np.ndarray:
    """Each row's prediction as a probability vector over ``opts`` (N × C)."""
    pred = answers["prediction"]
    na = pred.isna().to_numpy()
    if na.any():
        i = int(np.argmax(na))
        raise ValueError(
            f"column 'prediction' has {int(na.sum())} missing value(s), e.g. "
            f"task={python_scalar(answers['task'].iloc[i])!r}, "
            f"worker={python_scalar(answers['worker'].iloc[i])!r}: the single-task methods need "
            "every respondent's prediction; drop those rows (hosseini2021_spvoting: keep the treatments that elicit a prediction)"
        )
    if kind == "auto":  # read from the column: float → fraction, integer → label,
        # sequences → distribution
        if pdt.is_bool_dtype(pred):
            raise TypeError("column 'prediction' is boolean; pass prediction_type")
        if pdt.is_float_dtype(pred):
            kind = "fraction"
        elif not pdt.is_integer_dtype(pred) and pdt.is_list_like(pred.iloc[0]):
            kind = "distribution"
        else:
            kind = "label"
    # ``kind`` was checked against PREDICTION_TYPES by check_call
    if kind == "distribution":
        return _distribution_predictions(pred, opts, answers.index)
    if kind == "fraction":
        return _fraction_predictions(pred, opts)
    # "label": a predicted answer of the others → its one-hot vector over ``opts``
    return np.eye(len(opts))[_option_codes(pred.to_numpy(), opts, "column 'prediction'")]


# --------------------------------------------------------------------------- #
# Gold labels
# --------------------------------------------------------------------------- #
def gold_codes(gold, am: AnswerMatrix) -> np.ndarray:
    """Gold (Series task → label) as option indexes aligned with ``am.tasks``; -1 =
    unknown.  Tasks are matched by value; a gold task with no answers (often a type
    mismatch: ``"7"`` vs ``7``) is an error, not silently ignored."""
    if isinstance(gold, dict):
        gold = pd.Series(gold)
    if not isinstance(gold, pd.Series):
        raise TypeError(
            f"gold must be a pandas Series (index: task, values: label) or "
            f"a dict, got {type(gold).__name__}"
        )
    if not gold.index.is_unique:
        dup = gold.index[gold.index.duplicated()][0]
        raise ValueError(f"gold lists task {python_scalar(dup)!r} more than once")
    # Checked gold: the Series task → label without missing labels, and its option codes.
    g = gold.dropna()
    idx = _option_codes(g.to_numpy(), am.options, "gold")
    out = np.full(len(am.tasks), -1, dtype=np.intp)
    pos = am.tasks.get_indexer(g.index)
    unknown = pos < 0
    if unknown.any():
        bad = [python_scalar(t) for t in g.index[unknown][:5]]
        gold_types = sorted({type(python_scalar(t)).__name__ for t in g.index})
        task_types = sorted({type(python_scalar(t)).__name__ for t in am.tasks[:1000]})
        hint = (
            f"; gold's task ids are {'/'.join(gold_types)} but the answers' task "
            f"ids are {'/'.join(task_types)}: convert one to the other"
            if set(gold_types).isdisjoint(task_types)
            else ""
        )
        raise ValueError(
            f"gold names {int(unknown.sum())} task(s) that have no answers, e.g. {bad}{hint}"
        )
    out[pos] = idx
    return out


# --------------------------------------------------------------------------- #
# Groups of interchangeable tasks (plurality, surprisingly popular, DMI)
# --------------------------------------------------------------------------- #
def task_groups(counts, gold_codes=None):
    """Group interchangeable tasks: the same answer counts and no gold label.

    Plurality, surprisingly popular and DMI-clustering give every task of a group the
    same answer (DMI: identical rows can stay together at an optimum, see
    :func:`dmi_lib.core.dmi_cluster`), so they are decided once per group; a gold task
    is a group of its own (its label names a cluster).  Crowd data with ``m`` answers
    per task over ``C`` options has at most ``C(m+C−1, C−1)`` groups besides the gold
    tasks, however many tasks.  The pandas path and the Dask path
    (:mod:`dmi_lib.extras.scale_out`) both decide on these groups, in this order.

    Parameters
    ----------
    counts : ndarray of int, shape (n_tasks, C)
        Answer counts, tasks in sorted order.
    gold_codes : ndarray of int, shape (n_tasks,), optional
        Gold option per task, ``-1`` where unknown.

    Returns
    -------
    index : ndarray of int, shape (u,)
        First task of each group; groups are in order of their first task.
    inverse : ndarray of int, shape (n_tasks,)
        Group of each task.
    weights : ndarray of int, shape (u,)
        Number of tasks per group.
    """
    key = np.asarray(counts)
    if gold_codes is not None:
        alone = np.where(np.asarray(gold_codes) >= 0, np.arange(len(key)), -1)
        key = np.column_stack([key, alone])
    return distinct_rows(key)


def decide_groups(method: Method, am: AnswerMatrix, gold, rng, kw: dict):
    """A method's decision for every task, taken once per group of interchangeable
    tasks (:func:`task_groups`; a gold task, for ``"dmi"``, a group of its own).

    The one decision of plurality, surprisingly popular and DMI-clustering: the pandas
    path (:func:`dmi_lib.tabular.aggregate`) and the Dask path
    (:mod:`dmi_lib.extras.scale_out`) both call it on their answer matrix, so their
    answers are equal.

    Parameters
    ----------
    method : Method
        A method with ``groups`` (an entry of :data:`dmi_lib.tabular.METHODS`).
    am : AnswerMatrix
    gold : pandas.Series, dict or None
        Names DMI's clusters (:func:`gold_codes`); the other methods ignore it.
    rng : numpy.random.Generator
    kw : dict
        The method's own keywords.

    Returns
    -------
    codes : ndarray of int, shape (n_tasks,)
        The option (column of ``am``) of each task.
    details : object or None
        The method's details (DMI: a :class:`~dmi_lib.aggregation.DMIAggregation`),
        per task.
    """
    g = None if gold is None or method.name != "dmi" else gold_codes(gold, am)
    index, inverse, weights = task_groups(am.counts, g)
    row_gold = None if g is None else g[index]
    codes, details = method.groups(am.counts[index], weights, am.options, row_gold, rng, kw)
    codes = codes[inverse]
    if details is not None:  # per task, as the callers read it
        details = dataclasses.replace(
            details,
            options=codes,
            clustering=dataclasses.replace(
                details.clustering, labels=details.clustering.labels[inverse]
            ),
        )
    return codes, details


# --------------------------------------------------------------------------- #
# The methods of dmi_lib.tabular.aggregate: a call, a method, and the call's checks
# --------------------------------------------------------------------------- #
@dataclass(frozen=True)
class Call:
    """One call of :func:`dmi_lib.tabular.aggregate` (or an estimator's ``fit``): the table and every
    setting, as a method's ``decide`` reads them."""

    answers: object
    gold: object = None
    options: object = None
    ties: str = "first"
    random_state: object = None
    duplicates: str = "error"
    prediction_type: str = "auto"
    smoothing: float = 0.0
    kw: dict = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class Method:
    """A method of :func:`dmi_lib.tabular.aggregate`: how it decides and what it accepts.

    Attributes
    ----------
    name : str
        The ``method`` argument that selects it.
    decide : callable
        ``decide(method, call) -> (answer_matrix, codes, details)``: the option code
        of every task of ``call.answers`` (a :class:`Call`), and the method's details
        (a result object, or None).
    keywords : frozenset of str
        The method's own keywords (``**kw`` of :func:`dmi_lib.tabular.aggregate`); any other is refused.
    groups : callable or None
        For methods that give every task with the same answer counts the same
        label: ``groups(rows, weights, options, row_gold, rng, kw) -> (codes,
        details)`` decides once per group of interchangeable tasks
        (:func:`~dmi_lib.answers.task_groups`); the pandas path and the Dask path
        (:mod:`dmi_lib.extras.scale_out`) both call it through
        :func:`decide_groups`.  Plurality's and surprisingly popular's also take
        ``ties`` (``"first"``, or ``"random"``: one seeded draw per row among its
        maximal options, which the pandas path uses per task).
        None: per task only.
    dask : bool
        Whether it runs on a Dask table.
    predictions : bool
        Whether it needs the ``prediction`` column (the single-task methods).
    shared_space : bool
        Whether it compares tasks with each other (all tasks must then share one
        label space).
    """

    name: str
    decide: Callable
    keywords: frozenset = frozenset()
    groups: Callable | None = None
    dask: bool = False
    predictions: bool = False
    shared_space: bool = True


# --------------------------------------------------------------------------- #
# A call's checks, its answer, and the estimators' base
# --------------------------------------------------------------------------- #
def is_dask_table(answers) -> bool:
    """Whether ``answers`` is a Dask collection (its type comes from a ``dask``
    package): the front door then takes the distributed path of
    :mod:`dmi_lib.extras.scale_out`, and dask, an optional dependency, is never
    imported to ask."""
    return type(answers).__module__.startswith("dask")


def check_call(call: Call, spec: Method) -> Method:
    """``spec`` (the method of ``call``), after refusing a bad ``ties``,
    ``prediction_type``, ``smoothing`` or keyword, and a table the method cannot
    read (a Dask table: a method that does not run on Dask, ``spec.dask`` false),
    before any work.  The one home of these checks: :func:`dmi_lib.tabular.aggregate`,
    the estimators and the Dask path (:mod:`dmi_lib.extras.scale_out`) call it."""
    method = spec.name
    check_choice(call.ties, "ties", ("first", "random"))
    check_choice(call.prediction_type, "prediction_type", PREDICTION_TYPES)
    unknown = sorted(set(call.kw) - spec.keywords)
    if unknown:
        raise TypeError(
            f"aggregate(method={method!r}) got unexpected keyword "
            f"argument(s) {unknown}; it accepts {sorted(spec.keywords) or 'none'}"
        )
    if "dmi_method" in call.kw:  # dmi_cluster's `method`, named as the caller wrote it
        check_choice(call.kw["dmi_method"], "dmi_method", DMI_METHODS)
    smoothing = call.smoothing
    if not (is_number(smoothing) and 0.0 <= smoothing <= 1.0):
        raise ValueError(f"smoothing must be a number in [0, 1], got {smoothing!r}")
    answers = call.answers
    if is_dask_table(answers):
        if not spec.dask:
            raise ValueError(
                f"method {method!r} is not available for a dask table; use one with "
                "dask=True in dmi_lib.tabular.METHODS (the others work task by task: run "
                "them with pandas)"
            )
        if call.ties == "random" and method != "dmi":
            raise ValueError(
                "ties='random' is not available for a dask table: random "
                "tie-breaking draws in the global task order; use ties='first'"
            )
    if not isinstance(answers, pd.DataFrame):
        return spec  # answer_matrix (or the Dask path) says what it needs
    if spec.predictions and "prediction" not in answers.columns:
        raise ValueError(
            f"method {method!r} needs a 'prediction' column (each "
            "respondent's prediction of the others' answers)"
        )
    if spec.shared_space and answers.attrs.get("label_space") == "per-task":
        raise ValueError(
            f"method {method!r} treats every task's answers as points in one shared "
            "option space, but these answers mark their labels as per-task (e.g. "
            "hosseini2021_spvoting: option ids differ per question); use 'plurality' "
            "or a single-task method ('sp-single', 'spectral')"
        )
    return spec


def label_series(am: AnswerMatrix, codes) -> pd.Series:
    """The option of each task (``codes``: column indexes of ``am``) as
    :func:`dmi_lib.tabular.aggregate` returns it: a Series indexed by task, named
    ``"agg_label"``."""
    return pd.Series(am.options[codes].to_numpy(), index=am.tasks, name="agg_label")


class Aggregator(Settings):
    """What the aggregators share (:class:`~dmi_lib.tabular.MajorityVote`,
    :class:`~dmi_lib.tabular.SurprisinglyPopular`, :class:`~dmi_lib.tabular.DMIAggregator`,
    :class:`~dmi_lib.extras.dmi_em.DMIEM`): their settings (the parameters of
    ``__init__``, with ``get_params`` / ``set_params``) and ``fit`` through their
    method, an entry of :data:`dmi_lib.tabular.METHODS`.

    A subclass names its method (``_method``, a :class:`Method`) and maps the
    method's keywords to its settings (``_keywords``: keyword → attribute).
    """

    _method: Method
    _keywords: dict = {}

    def _fit(self, answers, gold, **kw):
        """Run the method on ``answers`` with this estimator's settings; ``kw`` are
        keywords of this fit only (DMI-EM's ``weights``)."""
        call = Call(
            answers,
            gold=gold,
            options=self.options,
            ties=getattr(self, "ties", "first"),
            random_state=self.random_state,
            duplicates=self.duplicates,
            kw={**{k: getattr(self, a) for k, a in self._keywords.items()}, **kw},
        )
        spec = check_call(call, self._method)
        am, codes, details = spec.decide(spec, call)
        self.labels_ = label_series(am, codes)
        return am, details

    def fit_predict(self, answers, gold=None) -> pd.Series:
        """Fit and return :attr:`labels_` (a Series indexed by task)."""
        return self.fit(answers, gold).labels_
