"""Input checks shared by every public function, and the settings of the estimators.

Each check raises a ``ValueError`` or ``TypeError`` whose message names the
offending argument and value, so that bad input never turns into a silent wrong
answer or a raw ``LinAlgError`` further down.  :class:`Settings` is the estimators'
common base (their parameters, as scikit-learn's ``get_params`` / ``set_params``).
"""

from __future__ import annotations

import inspect
import numbers

import numpy as np

__all__ = [
    "check_matrix",
    "check_labels",
    "check_distribution",
    "check_random_state",
    "check_sample_weight",
    "check_tol",
]


def check_matrix(
    A, name: str = "A", *, min_rows: int = 1, min_cols: int = 1, ndim: int = 2, dtype=np.float64
) -> np.ndarray:
    """Return ``A`` as a finite float array with ``ndim`` dimensions.

    Raises
    ------
    TypeError
        If ``A`` cannot be read as a numeric array (strings, objects, None).
    ValueError
        If ``A`` has the wrong number of dimensions, too few rows/columns, or
        contains NaN or infinity.
    """
    if A is None:
        raise TypeError(f"{name} must be an array-like of numbers, got None")
    if hasattr(A, "toarray") and hasattr(A, "nnz"):  # scipy.sparse: no dense view
        raise TypeError(
            f"{name} must be a dense array, got a sparse {type(A).__name__}: pass {name}.toarray()"
        )
    if type(A).__module__.startswith("pandas") and hasattr(A, "to_numpy"):  # nullable dtypes too
        try:
            A = A.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"{name} must hold numbers in every column: {exc}") from exc
    if isinstance(A, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(A)
        if mask.any():
            bad, count = np.argwhere(mask)[0], int(mask.sum())
            raise ValueError(
                f"{name} is a masked array with {count} masked "
                f"entr{'y' if count == 1 else 'ies'} (first at index "
                f"{tuple(int(i) for i in bad)}): a masked entry has no value to "
                "cluster; drop those rows (or fill them) first"
            )
        A = np.ma.getdata(A)
    try:
        arr = np.asarray(A)
    except Exception as exc:  # ragged lists etc.
        raise ValueError(f"{name} could not be read as an array: {exc}") from exc
    if arr.dtype == object or arr.dtype.kind in "USVmM":  # not dates or durations either
        raise TypeError(f"{name} must be numeric, got an array of dtype {arr.dtype}")
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must be real, got a complex array")
    if arr.ndim != ndim:
        raise ValueError(
            f"{name} must be a {ndim}-D array, got {arr.ndim}-D with shape {arr.shape}"
        )
    if arr.shape[0] < min_rows:
        raise ValueError(f"{name} needs at least {min_rows} row(s), got shape {arr.shape}")
    if ndim == 2 and arr.shape[1] < min_cols:
        raise ValueError(f"{name} needs at least {min_cols} column(s), got shape {arr.shape}")
    arr = np.asarray(arr, dtype=dtype)
    # min and max are NaN or infinite iff some entry is (no n × d mask unless so).
    if arr.size and not (np.isfinite(arr.min()) and np.isfinite(arr.max())):
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(
            f"{name} must be finite, found {arr[tuple(bad)]} at index {tuple(int(i) for i in bad)}"
        )
    return arr


def check_labels(
    labels, n: int | None = None, k: int | None = None, name: str = "labels"
) -> np.ndarray:
    """Return ``labels`` as a 1-D int array of whole numbers ``>= 0``.

    The one check of a labeling or an id array: with ``n`` its length must be
    ``n``, with ``k`` its values must lie in ``0..k-1``.  Floats are accepted when
    they hold whole numbers (``2.0``); the messages name ``name`` and the first
    offending value with its position.
    """
    arr = np.asarray(labels)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has length {arr.shape[0]} but there are {n} rows")
    if arr.size == 0:
        return np.zeros(0, dtype=np.intp)
    if arr.dtype.kind not in "iuf":  # not bool either
        raise TypeError(f"{name} must hold integers, got dtype {arr.dtype}")
    bad = np.flatnonzero(~np.isfinite(arr) | (arr != np.round(arr)))
    if bad.size:
        raise TypeError(
            f"{name} must hold whole numbers, found {arr[bad[0]].item()!r} at position {bad[0]}"
        )
    bad = np.flatnonzero(np.abs(arr) >= 2**62)  # would wrap as an index
    if bad.size:
        raise ValueError(
            f"{name} must be less than 2**62 in absolute value, found {arr[bad[0]].item()!r} at position {bad[0]}"
        )
    arr = arr.astype(np.intp)
    if arr.min() < 0:
        bad = int(np.argmin(arr))
        raise ValueError(f"{name} must be non-negative, found {int(arr[bad])} at position {bad}")
    if k is not None and arr.max() >= k:
        bad = int(np.argmax(arr))
        raise ValueError(
            f"{name} must lie in 0..{k - 1} (k = {k} clusters), found {int(arr[bad])} "
            f"at position {bad}"
        )
    return arr


def check_distribution(
    P, name: str = "P", *, axis: int = -1, atol: float = 1e-6, ndim: int | None = None
) -> np.ndarray:
    """Check that ``P`` holds probability vectors along ``axis``.

    Entries must be finite, non-negative, and sum to one within ``atol``.
    """
    try:
        arr = np.asarray(P, dtype=np.float64) if not isinstance(P, np.ndarray) else P
    except (TypeError, ValueError) as exc:  # e.g. a string: name the argument
        raise TypeError(f"{name} must be numeric probabilities, got {P!r:.80}") from exc
    if arr.dtype.kind not in "iuf":  # not object either
        raise TypeError(f"{name} must be numeric, got dtype {arr.dtype}")
    arr = np.asarray(arr, dtype=np.float64)
    if ndim is not None and arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite")
    if np.any(arr < -atol):
        bad = np.argwhere(arr < -atol)[0]
        raise ValueError(
            f"{name} must be non-negative (a probability), found {arr[tuple(bad)]:.6g} "
            f"at index {tuple(int(i) for i in bad)}"
        )
    sums = arr.sum(axis=axis)
    off = np.abs(sums - 1.0) > atol
    if np.any(off):
        idx = np.argwhere(np.atleast_1d(off))[0]
        val = np.atleast_1d(sums)[tuple(idx)]
        raise ValueError(
            f"{name} must sum to 1 along axis {axis}, found sum {val:.6g} at index "
            f"{tuple(int(i) for i in idx)}"
        )
    return np.clip(arr, 0.0, None)


def check_random_state(seed) -> np.random.Generator:
    """Turn ``None``, an int, or a Generator into a ``numpy.random.Generator``."""
    if isinstance(seed, (bool, np.bool_)):
        raise TypeError(f"random_state must be None, an int or a numpy Generator, got {seed!r}")
    if seed is None or isinstance(seed, numbers.Integral):  # numpy integers too
        if seed is not None and seed < 0:
            raise ValueError(
                f"random_state must be None, a non-negative int or a numpy Generator, got {seed!r}"
            )
        return np.random.default_rng(seed)
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, np.random.RandomState):
        return np.random.default_rng(seed.randint(0, 2**31 - 1))
    raise TypeError(
        f"random_state must be None, an int or a numpy Generator, got {type(seed).__name__}"
    )


def check_sample_weight(sample_weight, n: int, name: str = "sample_weight") -> np.ndarray:
    """Return ``sample_weight`` as a float array of ``n`` finite, non-negative weights
    with a positive sum (row ``i`` counts as ``sample_weight[i]`` identical rows)."""
    if sample_weight is None:
        raise TypeError(f"{name} must be an array-like of n = {n} numbers, got None")
    if isinstance(sample_weight, np.ma.MaskedArray):
        raise TypeError(
            f"{name} must not be a masked array (masked weights are "
            "ambiguous: drop the masked rows, or give them weight 0)"
        )
    arr = np.asarray(sample_weight)
    if arr.dtype.kind not in "iuf":  # not object either
        raise TypeError(f"{name} must be numeric (not bool, str or object), got dtype {arr.dtype}")
    if arr.ndim != 1 or arr.shape[0] != n:
        raise ValueError(
            f"{name} must have shape ({n},) (one weight per row of A), got shape {arr.shape}"
        )
    arr = arr.astype(np.float64)
    bad = ~np.isfinite(arr) | (arr < 0)
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(
            f"{name} must be finite and non-negative, got {float(arr[i])!r} at index {i}"
        )
    with np.errstate(over="ignore"):
        total = arr.sum()
    if not total > 0:
        raise ValueError(f"{name} must have a positive sum (some row must count), got all zeros")
    if not np.isfinite(total):
        raise ValueError(
            f"{name} sums to more than the float range (largest weight "
            f"{float(arr.max())!r}): divide every weight by one constant (the clustering "
            "does not depend on the weights' scale)"
        )
    return arr


def is_number(value, kind=numbers.Real) -> bool:
    """Whether ``value`` is a number of ``kind`` (``numbers.Real`` or ``numbers.Integral``,
    numpy's scalars included); a bool is not a number here (``True`` is no count,
    tolerance or probability)."""
    return isinstance(value, kind) and not isinstance(value, (bool, np.bool_))


def check_choice(value, name, allowed):
    """``value`` when it is one of the strings ``allowed``, else a ValueError naming
    the argument ``name`` and the value."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name} must be one of {list(allowed)}, got {value!r}")
    return value


def check_tol(tol, name: str = "tol") -> float:
    """Return ``tol`` as a float: a real, finite, non-negative number (not a bool)."""
    if not is_number(tol):
        raise TypeError(f"{name} must be a non-negative real number, got {tol!r}")
    if not np.isfinite(tol) or tol < 0:
        raise ValueError(f"{name} must be a finite non-negative number, got {tol!r}")
    return float(tol)


def check_int(value, name: str, minimum: int, maximum: int | None = None) -> int:
    """``value`` as an int ``>= minimum`` (and ``<= maximum`` if given: an index into
    ``maximum + 1`` things), or a TypeError / ValueError naming ``name``."""
    if not is_number(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must lie in {minimum}..{maximum}, got {int(value)}")
    return int(value)


def check_between(value, name: str, lo: float, hi: float, why: str) -> float:
    """``value`` as a float strictly between ``lo`` and ``hi``, or a TypeError (not a
    real number; bools are refused) / ValueError naming ``name``, the value and
    ``why`` the bounds hold (e.g. ``"a probability"``)."""
    if not is_number(value):
        raise TypeError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not lo < value < hi:
        raise ValueError(
            f"{name} must lie strictly between {lo:g} and {hi:g} ({why}), got {value!r}"
        )
    return value


def check_positive(value, name: str) -> float:
    """``value`` as a positive finite float, or a ValueError naming ``name`` and the
    value (bools are refused; a positive integer is :func:`check_int`'s)."""
    if not is_number(value) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    return float(value)


#: The solvers ``dmi_cluster(method=...)`` offers (``dmi_method=`` of ``aggregate``).
DMI_METHODS = ("auto", "exact", "k-cofactors", "brute-force")

#: Largest ratio of the largest to the smallest positive ``sample_weight`` the
#: library accepts (:func:`dmi_lib.problem.prepare` checks it, for every solver and
#: score).  The weighted mean lies within about ``1/ratio`` of the spread
#: from a heavy row, so that row's centred coordinates keep about ``16 -
#: log10(ratio)`` digits in float64, and ``CᵀWÃ``'s condition grows with the ratio
#: (a cluster of light rows only).  Compared with an exact rational brute force on
#: small integer data (``tests/test_weights_extreme.py``), the exact solvers gave
#: wrong optima from ratios of 1e16 on, none up to 1e15; k-cofactors met singular
#: states at 1e30; scores of 2-D data lost their rank ``k`` (or all their digits)
#: from 1e21 on.  The bound keeps a margin.
MAX_WEIGHT_RATIO = 1e12


def check_weight_ratio(weights) -> None:
    """Refuse weights whose positive values span more than :data:`MAX_WEIGHT_RATIO`."""
    if weights is None:
        return
    pos = weights[weights > 0]
    ratio = float(pos.max() / pos.min())
    if not ratio <= MAX_WEIGHT_RATIO:
        raise ValueError(
            f"sample_weight spans a ratio of {ratio:.3g} (largest / smallest positive "
            f"weight), more than MAX_WEIGHT_RATIO = {MAX_WEIGHT_RATIO:g}: the "
            "weighted mean then lies so close to the heaviest rows that their centred "
            "coordinates lose the digits the optimum depends on (float64 keeps about 16), "
            "and CᵀWÃ becomes numerically singular; use weights closer together (for "
            "instance drop the rows whose weight is negligible)"
        )


def check_rank_tol(rank_tol) -> float:
    """``rank_tol`` as a float in ``[0, 1)`` (relative to the largest singular value),
    or a TypeError / ValueError naming it."""
    if not is_number(rank_tol):
        raise TypeError(f"rank_tol must be a real number in [0, 1), got {rank_tol!r}")
    if not np.isfinite(rank_tol) or not 0 <= rank_tol < 1:
        raise ValueError(
            f"rank_tol must be in [0, 1) (relative to the largest singular value), got {rank_tol!r}"
        )
    return float(rank_tol)


class Settings:
    """What every estimator of the library shares (scikit-learn's convention): its
    settings are the parameters of ``__init__``, stored under the same names, read by
    :meth:`get_params`, changed by :meth:`set_params` and shown by ``repr``."""

    @classmethod
    def _names(cls) -> list:
        return [p for p in inspect.signature(cls.__init__).parameters if p != "self"]

    def _store(self, values: dict) -> None:
        """Store the parameters of ``__init__`` (its ``locals()``) under their names."""
        for name in self._names():
            setattr(self, name, values[name])

    def get_params(self, deep: bool = True) -> dict:
        """The estimator's settings, by name."""
        return {p: getattr(self, p) for p in self._names()}

    def set_params(self, **params):
        """Change settings by name (an unknown name is a ValueError); returns self."""
        valid = self.get_params()
        for key, value in params.items():
            if key not in valid:
                raise ValueError(f"invalid parameter {key!r} for {type(self).__name__}")
            setattr(self, key, value)
        return self

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"
