"""The numbers printed in Kong, *Information Elicitation Meets Clustering*, loadable by name.

Every matrix below is copied digit for digit from the paper's LaTeX source (the
appendix "Synthetic Data Used for Demonstration" and the introduction's examples); the
text blocks keep the paper's spelling of each number (``0.0045001``, ``.56``) so a
reader can compare them with the source line by line.  One data set, ``"cycle"``, is
*not* from the paper and says so.

Figure numbers are those of the compiled paper, found by counting the nine ``figure``
environments of the ``.tex`` in order: ``fig:reduction`` 1, ``fig:dmigoal`` 2,
``fig:prop`` 3, ``fig:kco2d`` 4, ``fig:empirical`` 5, two unlabelled K-DMI figures 6
and 7, ``fig:svsd`` 8, ``fig:sts`` 9.  The paper's two introductory examples are
"Example 1" and "Example 2" here; in the compiled paper they read Example 1.1 and 1.2
(examples share the theorem counter, which is reset in each section).

See the book chapter ``book/15_appendix.ipynb``, which loads and checks every data set.

Examples
--------
>>> paper_data_names()
('affine', 'kcofactors', 'svsd', 'example1', 'example2', 'intro', 'cycle')
>>> d = load_paper_data("affine")
>>> d.A.shape, d.T.shape, d.b.tolist()
((7, 2), (2, 2), [0.05, 0.02])
>>> d.A.flags.writeable
False
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Mapping

import numpy as np

from ._validation import check_choice

__all__ = ["PAPER_DATA", "PaperData", "load_paper_data", "paper_data_names"]


# --------------------------------------------------------------------------- #
# The numbers, as printed (one row per line, entries separated by spaces).
# --------------------------------------------------------------------------- #
# Appendix, "Affine-invariance in Figure 3" (fig:prop).
_AFFINE_A = """
0.96536243 0.83582504
0.02223537 0.97962069
0.18576474 0.09306992
0.60073919 0.06909198
0.21115965 0.04303247
0.24518684 0.46305449
0.0045001 0.73335878
"""
_AFFINE_T = """
0.7384872 0.39051911
0.75115812 0.90684574
"""

# Appendix, "An empirical run of k-cofactors in Figure 5" (fig:empirical).
_KCOFACTORS_A = """
0.32786192 0.75198752
0.24789876 0.40110656
0.64860833 0.05877561
0.13688932 0.89837639
0.51958647 0.69553312
0.57106034 0.39534018
0.25602628 0.5299542
0.66521762 0.25370157
0.49647253 0.51707767
0.00649304 0.78141629
0.93642378 0.00550147
0.08014735 0.94850578
0.54978178 0.66296321
0.57201864 0.7952191
0.11499522 0.59186407
0.11681198 0.90701099
0.01623413 0.59313684
0.31841007 0.43924738
0.60377183 0.96489354
0.48738826 0.17097179
0.49460288 0.81759015
0.27831212 0.76869342
0.22953897 0.43809347
0.03654411 0.6203217
0.90628651 0.45924219
0.92525839 0.69213278
0.17723574 0.12487727
0.21277346 0.34931579
0.84758762 0.05452689
0.65204294 0.82808225
"""

# Appendix, "DMI-clustering in Figure 8" (fig:svsd): 20 answer distributions over 3
# options, printed to 8 decimals (rows sum to 1 only up to that rounding).
_SVSD_A = """
0.20727033 0.56209307 0.2306366
0.55235357 0.26311054 0.18453589
0.06826729 0.51504916 0.41668355
0.40863481 0.45383908 0.13752611
0.30463115 0.19875226 0.49661659
0.40387463 0.1261351 0.46999028
0.30097293 0.32668147 0.3723456
0.0530016 0.41863456 0.52836383
0.53632014 0.08514494 0.37853491
0.34180366 0.57497414 0.08322221
0.20603456 0.67360041 0.12036503
0.35331477 0.28461216 0.36207308
0.23868633 0.38453375 0.37677992
0.098419 0.67327932 0.22830168
0.33219443 0.0159078 0.65189777
0.40376774 0.39908311 0.19714915
0.08966334 0.40876422 0.50157244
0.51224362 0.01623191 0.47152447
0.04907822 0.30059226 0.65032952
0.50445751 0.20957023 0.28597227
"""

_OPTIONS = ("good", "so so", "bad")

# Example 1 (introduction): feedback distribution under each ground-truth state, in
# percent, rows = states "good", "so so", "bad"; columns = options.
_EXAMPLE1_STATES_PCT = """
56 40 4
56 34 10
46 44 10
"""

# Example 2 (introduction): the strategy matrix, as printed.
_EXAMPLE2_S = """
.56 .4 .04
.56 .34 .1
.46 .44 .1
"""


# Not from the paper: a case constructed for this book.
_CYCLE_A = """
2 -3
2 0
-2 -1
0 0
-1 -2
"""


def _parse(text: str) -> np.ndarray:
    """Parse a whitespace/newline table into a float array (1-D if one line)."""
    arr = np.array([line.split() for line in text.strip().splitlines()], dtype=float)
    return arr[0] if arr.shape[0] == 1 else arr


# --------------------------------------------------------------------------- #
# Container
# --------------------------------------------------------------------------- #
@dataclass(frozen=True, repr=False, eq=False)
class PaperData:
    """One named data set from the paper; its values are attributes (``d.A``).

    Attributes
    ----------
    name : str
        The key passed to :func:`load_paper_data`.
    source : str
        Where in the paper the numbers are printed.
    description : str
        What the numbers are and how the paper uses them.
    values : mapping
        Field name -> value.  Arrays are fresh read-only copies for each
        :func:`load_paper_data` call; each field is also an attribute.
    """

    name: str
    source: str
    description: str
    values: Mapping[str, Any]

    @property
    def fields(self) -> tuple:
        """Names of the data fields, in order."""
        return tuple(self.values)

    def __getattr__(self, attr):
        # Only reached when normal lookup fails; read __dict__ directly so a
        # half-built instance (copy, pickle) cannot recurse.
        values = self.__dict__.get("values", {})
        if attr in values:
            return values[attr]
        raise AttributeError(
            f"paper data {self.__dict__.get('name', '?')!r} has no field {attr!r}; "
            f"fields: {', '.join(values)}"
        )

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.values))

    def __repr__(self) -> str:
        parts = [
            f"{key}{tuple(val.shape)}" if isinstance(val, np.ndarray) else f"{key}={val!r}"
            for key, val in self.values.items()
        ]
        return f"PaperData({self.name!r}: {', '.join(parts)})"


def _frozen(x) -> np.ndarray:
    arr = np.array(x, dtype=float)  # always a copy
    arr.flags.writeable = False
    return arr


_EXAMPLE1_STATES = _parse(_EXAMPLE1_STATES_PCT) / 100.0

# Each entry: (source, description, fields); load_paper_data hands out read-only
# copies of the array fields.
_REGISTRY = {
    "affine": (
        "Appendix 'Synthetic Data Used for Demonstration', paragraph 'Affine-invariance "
        "in Figure 3' (Figure 3 = fig:prop)",
        "7 points in the plane (A, 7x2), an invertible 2x2 matrix T and a shift "
        "b = [.05, .02]: the clustering of A and of A @ T + b agree (Theorem 2.2, "
        "affine-invariant).",
        {"A": _parse(_AFFINE_A), "T": _parse(_AFFINE_T), "b": _parse(".05 .02")},
    ),
    "kcofactors": (
        "Appendix 'Synthetic Data Used for Demonstration', paragraph 'An empirical run "
        "of k-cofactors in Figure 5' (Figure 5 = fig:empirical)",
        "30 points in the plane (A, 30x2) on which the paper runs k-cofactors "
        "(Algorithm 2) from C <- idxmax(Ã - mean(Ã)).",
        {"A": _parse(_KCOFACTORS_A)},
    ),
    "svsd": (
        "Appendix 'Synthetic Data Used for Demonstration', paragraph 'DMI-clustering "
        "in Figure 8' (Figure 8 = fig:svsd)",
        "20 tasks' answer distributions over 3 options (A, 20x3, rows sum to 1 up to "
        "8-decimal rounding): DMI-clustering vs surprisingly popular.",
        {"A": _parse(_SVSD_A)},
    ),
    "example1": (
        "Introduction, Example 1 (Example 1.1 in the compiled paper)",
        "Feedback distribution under each ground-truth state 'good', 'so so', 'bad' "
        "(states, rows, as probabilities), equal state probabilities (state_prior), "
        "the resulting prior (their mean) and the prior as printed, ~(52.7, 39.3, 8)% "
        "(prior_printed). Surprisingly popular answers 'bad' for both the 'so so' and "
        "the 'bad' state.",
        {
            "states": _EXAMPLE1_STATES,
            "state_prior": np.full(3, 1.0 / 3.0),
            # Equal state probabilities: the prior is the plain mean of the states.
            "prior": _EXAMPLE1_STATES.mean(axis=0),
            # The prior as the paper prints it: "approximately (52.7%, 39.3%, 8%)".
            "prior_printed": _parse("52.7 39.3 8") / 100.0,
            "options": _OPTIONS,
        },
    ),
    "example2": (
        "Introduction, Example 2 (Example 1.2 in the compiled paper)",
        "Honest signal distributions: the identity (signals, rows = states); every "
        "agent reports through the row-stochastic strategy matrix S, which turns them "
        "into Example 1's distributions (signals @ S).",
        {"signals": np.eye(3), "S": _parse(_EXAMPLE2_S), "options": _OPTIONS},
    ),
    "intro": (
        "Introduction, paragraph on plurality vote and surprisingly popular",
        "Feedback (56%, 40%, 4%) against the prior (70%, 26%, 4%): plurality answers "
        "'good', surprisingly popular answers 'so so' (40/26 > 56/70, 4/4).",
        {
            # Introduction, paragraph before Example 1, in percent.
            "feedback": _parse("56 40 4") / 100.0,
            "prior": _parse("70 26 4") / 100.0,
            "options": _OPTIONS,
            "plurality_answer": "good",
            "sp_answer": "so so",
        },
    ),
    "cycle": (
        "NOT from the paper: a case constructed for this book",
        "A case where the paper's batch iteration cycles: 5 points in the plane on "
        "which k-cofactors (Algorithm 2, batch assignment with its footnote's tie "
        "rule), started at the paper's C <- idxmax(Ã - mean(Ã)), alternates between "
        "the two clusterings in 'orbit' (exact arithmetic; the second step passes "
        "through an exact tie, so floating point may break it either way).",
        {
            "A": _parse(_CYCLE_A),
            # The two clusterings the batch iteration alternates between (0-based).
            "orbit": ((0, 0, 1, 1, 2), (2, 0, 2, 1, 2)),
        },
    ),
}

#: Name -> one-line description (source: description) of each data set.
PAPER_DATA: Mapping[str, str] = MappingProxyType(
    {name: f"{src}: {desc}" for name, (src, desc, _) in _REGISTRY.items()}
)


def paper_data_names() -> tuple:
    """Names accepted by :func:`load_paper_data`, in the order of the paper.

    Examples
    --------
    >>> "svsd" in paper_data_names()
    True
    """
    return tuple(_REGISTRY)


def load_paper_data(name: str) -> PaperData:
    """Load one of the paper's printed data sets by name.

    Parameters
    ----------
    name : str
        One of :func:`paper_data_names`:

        ``"affine"``
            Fields ``A`` (7×2), ``T`` (2×2), ``b`` (2,): appendix data of
            Figure 3 (``fig:prop``), Theorem 2.2's affine invariance.
        ``"kcofactors"``
            Field ``A`` (30×2): appendix data of Figure 5 (``fig:empirical``), an
            empirical run of k-cofactors (Algorithm 2).
        ``"svsd"``
            Field ``A`` (20×3, rows sum to 1 up to 8-decimal rounding): appendix
            data of Figure 8 (``fig:svsd``), DMI-clustering vs surprisingly popular.
        ``"example1"``
            Fields ``states`` (3×3, row ``s`` = feedback distribution under state
            ``s``), ``state_prior`` (3,), ``prior`` (3,) = ``state_prior @ states``,
            ``prior_printed`` (3,) = the paper's rounded (0.527, 0.393, 0.08),
            ``options``.  Probabilities, not percent.
        ``"example2"``
            Fields ``signals`` (3×3 identity), ``S`` (3×3 strategy), ``options``.
        ``"intro"``
            Fields ``feedback`` (3,), ``prior`` (3,), ``options``, and the answers the
            paper states, ``plurality_answer`` and ``sp_answer``.
        ``"cycle"``
            Fields ``A`` (5×2) and ``orbit`` (the two alternating clusterings).  Not
            from the paper.

    Returns
    -------
    PaperData
        Frozen; array fields are fresh read-only copies on every call.

    Raises
    ------
    ValueError
        If ``name`` is not a known data set (the message lists the valid names).
    TypeError
        If ``name`` is not a string.

    Examples
    --------
    >>> d = load_paper_data("example2")
    >>> bool((d.signals @ d.S == load_paper_data("example1").states).all())
    True
    >>> load_paper_data("intro").sp_answer
    'so so'
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name).__name__}")
    source, description, fields = _REGISTRY[check_choice(name, "name", _REGISTRY)]
    values = {k: _frozen(v) if isinstance(v, np.ndarray) else v for k, v in fields.items()}
    return PaperData(
        name=name, source=source, description=description, values=MappingProxyType(values)
    )
