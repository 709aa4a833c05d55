"""Reports: the long-form ``(task, worker, label)`` table the mechanisms are paid on.

The elicitation mechanisms (:mod:`dmi_lib.mechanisms`, :mod:`dmi_lib.kdmi`) take a
:class:`Reports`; :mod:`dmi_lib.simulation` draws them from the paper's model
(Section "Multi-task & Invariant Clustering"), and real answer tables become one with
:meth:`Reports.from_arrays`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import check_int

__all__ = ["Reports"]


# --------------------------------------------------------------------------- #
# Reports
# --------------------------------------------------------------------------- #
def _int_array(x, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.intp)
    if arr.dtype.kind == "b" or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            bad = int(np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)))[0])
            raise TypeError(
                f"{name} must hold whole numbers, found {float(arr[bad])} at position {bad}"
            )
    arr = arr.astype(np.intp)
    if arr.min() < 0:
        bad = int(np.argmin(arr))
        raise ValueError(f"{name} must be non-negative, found {int(arr[bad])} at position {bad}")
    return arr


#: Largest count matrix :meth:`Reports.counts` builds (cells; 512 MiB of int64), as
#: ``dmi_lib.answers.MAX_DENSE_CELLS`` for answer tables.
_MAX_COUNT_CELLS = 2**26


@dataclass(frozen=True, eq=False)
class Reports:
    """Answers of a crowd: one row per report, in long ``(task, worker, label)`` form.

    The paper's report matrix ``Rᵢ`` (``n × C``, one-hot rows for the tasks agent
    ``i`` did, zero rows elsewhere) is :meth:`report_matrix`; ``A = Σᵢ Rᵢ`` is
    :meth:`counts` and its row-normalised form is :meth:`answer_matrix`
    (Algorithm 4, lines 1-2).

    Build it with :meth:`from_arrays` (which infers the sizes); the constructor
    validates too.  The arrays are stored read-only.

    Attributes
    ----------
    task, worker, label : ndarray of int, shape (N,)
        Report ``r`` says that ``worker[r]`` chose option ``label[r]`` on task
        ``task[r]``.  Each (task, worker) pair occurs at most once.
    n_tasks, n_workers, n_options : int
        ``n``, ``m`` and ``C``; ids lie in ``0..n-1``, ``0..m-1``, ``0..C-1``.

    Examples
    --------
    >>> rep = Reports.from_arrays(task=[0, 0, 1, 2], worker=[0, 1, 1, 0],
    ...                           label=[1, 1, 0, 2], n_options=3)
    >>> rep.counts()
    array([[0, 2, 0],
           [1, 0, 0],
           [0, 0, 1]])
    >>> rep.worker_tasks(1)
    array([0, 1])
    """

    task: np.ndarray
    worker: np.ndarray
    label: np.ndarray
    n_tasks: int
    n_workers: int
    n_options: int

    def __post_init__(self):
        task = _int_array(self.task, "task")
        worker = _int_array(self.worker, "worker")
        label = _int_array(self.label, "label")
        if not task.size == worker.size == label.size:
            raise ValueError(
                "task, worker and label must have the same length, got "
                f"{task.size}, {worker.size} and {label.size}"
            )
        n, m, C = (
            check_int(self.n_tasks, "n_tasks", 0),
            check_int(self.n_workers, "n_workers", 0),
            check_int(self.n_options, "n_options", 0),
        )
        for arr, size, name, size_name in (
            (task, n, "task", "n_tasks"),
            (worker, m, "worker", "n_workers"),
            (label, C, "label", "n_options"),
        ):
            if arr.size and arr.max() >= size:
                bad = int(np.argmax(arr))
                raise ValueError(
                    f"{name} ids must lie in 0..{size - 1} ({size_name} = {size}), found "
                    f"{int(arr[bad])} at position {bad}"
                )
        if task.size > 1:
            key = worker * n + task  # < m*n, fits in intp for any realistic crowd
            order = np.argsort(key, kind="stable")
            dup = np.flatnonzero(key[order][1:] == key[order][:-1])
            if dup.size:
                first, second = sorted(order[dup[0] : dup[0] + 2])
                raise ValueError(
                    f"duplicate report: worker {int(worker[first])} answered task "
                    f"{int(task[first])} twice (positions {int(first)} and {int(second)})"
                )
        for name, arr in (("task", task), ("worker", worker), ("label", label)):
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        object.__setattr__(self, "n_tasks", n)
        object.__setattr__(self, "n_workers", m)
        object.__setattr__(self, "n_options", C)

    @classmethod
    def from_arrays(
        cls,
        task,
        worker,
        label,
        *,
        n_tasks: int | None = None,
        n_workers: int | None = None,
        n_options: int | None = None,
    ) -> "Reports":
        """Validate and wrap three parallel id arrays.

        Sizes default to ``max(id) + 1``; pass ``n_options`` explicitly when an
        option may never have been chosen (otherwise ``C`` is underestimated).

        Raises
        ------
        TypeError
            Non-integer ids.
        ValueError
            Negative ids, ids beyond the given sizes, arrays of different lengths,
            or a (task, worker) pair that occurs twice.
        """
        arrays = {
            name: _int_array(x, name)
            for name, x in (("task", task), ("worker", worker), ("label", label))
        }
        sizes = {}
        for name, size_name, given in (
            ("task", "n_tasks", n_tasks),
            ("worker", "n_workers", n_workers),
            ("label", "n_options", n_options),
        ):
            arr = arrays[name]
            sizes[size_name] = (int(arr.max()) + 1 if arr.size else 0) if given is None else given
        return cls(task=arrays["task"], worker=arrays["worker"], label=arrays["label"], **sizes)

    # -- shapes ------------------------------------------------------------- #
    @property
    def n_reports(self) -> int:
        """``N``, the number of reports."""
        return int(self.task.size)

    def __len__(self) -> int:
        return self.n_reports

    def __repr__(self) -> str:
        return (
            f"Reports(n_reports={self.n_reports}, n_tasks={self.n_tasks}, "
            f"n_workers={self.n_workers}, n_options={self.n_options})"
        )

    # -- aggregates --------------------------------------------------------- #
    def counts(self) -> np.ndarray:
        """``A = Σᵢ Rᵢ``: ``n × C`` matrix, entry ``(t, c)`` = how many chose ``c`` on ``t``.

        One ``bincount`` over ``t·C + c`` (Algorithm 4, line 1).
        """
        C = self.n_options
        cells = self.n_tasks * C
        if cells > _MAX_COUNT_CELLS:
            raise ValueError(
                f"counts() would build an n_tasks × n_options = {self.n_tasks} × {C} matrix "
                f"({cells} cells, about {8 * cells / 2**30:.3g} GiB), more than "
                f"{_MAX_COUNT_CELLS} cells; are the task ids dense (0..n_tasks-1)?"
            )
        return np.bincount(self.task * C + self.label, minlength=self.n_tasks * C).reshape(
            self.n_tasks, C
        )

    def answer_matrix(self):
        """Row-normalised counts (Algorithm 4, line 2) and the mask of answered tasks.

        Returns
        -------
        A : ndarray, shape (n_tasks, n_options)
            Row ``t`` is the share of each option among the answers to task ``t``.
            A task nobody answered has no answer distribution: its row is NaN, so
            that passing the whole matrix on to :func:`dmi_lib.dmi_cluster` fails
            loudly instead of clustering made-up rows.  Use ``A[answered]``.
        answered : ndarray of bool, shape (n_tasks,)

        Examples
        --------
        >>> rep = Reports.from_arrays([0, 0, 2], [0, 1, 0], [1, 0, 1], n_options=2)
        >>> A, answered = rep.answer_matrix()
        >>> A
        array([[0.5, 0.5],
               [nan, nan],
               [0. , 1. ]])
        >>> answered
        array([ True, False,  True])
        """
        counts = self.counts().astype(float)
        totals = counts.sum(axis=1)
        answered = totals > 0
        A = np.full_like(counts, np.nan)
        A[answered] = counts[answered] / totals[answered, None]
        return A, answered

    def tasks_per_worker(self) -> np.ndarray:
        """``|Tᵢ|`` for every worker, shape (n_workers,)."""
        return np.bincount(self.worker, minlength=self.n_workers)

    def workers_per_task(self) -> np.ndarray:
        """Number of answers each task received, shape (n_tasks,)."""
        return np.bincount(self.task, minlength=self.n_tasks)

    # -- one worker --------------------------------------------------------- #
    def _check_worker(self, i) -> int:
        i = check_int(i, "worker id", 0)
        if i >= self.n_workers:
            raise ValueError(f"worker id must lie in 0..{self.n_workers - 1}, got {i}")
        return i

    def worker_tasks(self, i) -> np.ndarray:
        """``Tᵢ``: the tasks worker ``i`` answered, ascending."""
        return self.worker_reports(i)[0]

    def worker_reports(self, i):
        """``(tasks, labels)`` of worker ``i``, ordered by task."""
        i = self._check_worker(i)
        rows = np.flatnonzero(self.worker == i)
        order = np.argsort(self.task[rows], kind="stable")
        return self.task[rows][order].copy(), self.label[rows][order].copy()

    def report_matrix(self, i) -> np.ndarray:
        """The paper's ``Rᵢ``: ``n × C`` 0-1 matrix, ``(t, c) = 1`` iff ``i`` chose ``c`` on ``t``.

        Examples
        --------
        >>> Reports.from_arrays([0, 2], [0, 0], [1, 0], n_tasks=3, n_options=2).report_matrix(0)
        array([[0, 1],
               [0, 0],
               [1, 0]])
        """
        tasks, labels = self.worker_reports(i)
        R = np.zeros((self.n_tasks, self.n_options), dtype=int)
        R[tasks, labels] = 1
        return R
