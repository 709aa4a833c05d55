"""Tests of dmi_lib.datasets: the paper's printed numbers, and the claims made with them."""

from __future__ import annotations

import hashlib
import itertools
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from dmi_lib import datasets
from dmi_lib.problem import dmi_score, prepare
from dmi_lib.datasets import PAPER_DATA, PaperData, load_paper_data, paper_data_names

NAMES = ("affine", "kcofactors", "svsd", "example1", "example2", "intro", "cycle")

SHAPES = {
    ("affine", "A"): (7, 2),
    ("affine", "T"): (2, 2),
    ("affine", "b"): (2,),
    ("kcofactors", "A"): (30, 2),
    ("svsd", "A"): (20, 3),
    ("example1", "states"): (3, 3),
    ("example1", "state_prior"): (3,),
    ("example1", "prior"): (3,),
    ("example1", "prior_printed"): (3,),
    ("example2", "signals"): (3, 3),
    ("example2", "S"): (3, 3),
    ("intro", "feedback"): (3,),
    ("intro", "prior"): (3,),
    ("cycle", "A"): (5, 2),
}

# Exact decimal checksums of the appendix matrices, summed by hand from the LaTeX
# source's digits: (sum of entries, sum of (i+1)(j+1) a_ij) — the weighted sum
# catches swapped entries — and SHA-256 of the float64 little-endian bytes.
CHECKSUMS = {
    ("affine", "A"): (
        "5.45200169",
        "29.48379384",
        "8043917e28c2471a8c4cb46e81f07e8e8287eb616e321cec2aedae71ff34d001",
    ),
    ("affine", "T"): (
        "2.78701017",
        "6.64922462",
        "74dec7aab9442954fadc008be3db8d11ac6c8c540857edb4900cffa10f6dba41",
    ),
    ("kcofactors", "A"): (
        "28.94773958",
        "706.10062165",
        "b4c49a4ac59b4de01aa1623add80ce841cd6d955927f8be8ec6ef1ac9b4b6f51",
    ),
    ("svsd", "A"): (
        "20.00000002",
        "438.49133321",
        "d2aad07d4cd9d7d85fd8bed028465e39cc5860b3d2a6a2b87f5a3221110609c6",
    ),
}

# Spot values read off the LaTeX source: (name, field, index, value as printed).
SPOT = [
    ("affine", "A", (0, 0), 0.96536243),
    ("affine", "A", (6, 0), 0.0045001),
    ("affine", "A", (6, 1), 0.73335878),
    ("affine", "T", (0, 0), 0.7384872),
    ("affine", "T", (1, 1), 0.90684574),
    ("affine", "b", (0,), 0.05),
    ("affine", "b", (1,), 0.02),
    ("kcofactors", "A", (0, 0), 0.32786192),
    ("kcofactors", "A", (6, 1), 0.5299542),
    ("kcofactors", "A", (10, 1), 0.00550147),
    ("kcofactors", "A", (29, 1), 0.82808225),
    ("svsd", "A", (0, 2), 0.2306366),
    ("svsd", "A", (13, 0), 0.098419),
    ("svsd", "A", (14, 1), 0.0159078),
    ("svsd", "A", (19, 2), 0.28597227),
    ("example2", "S", (0, 2), 0.04),
    ("example2", "S", (2, 1), 0.44),
    ("cycle", "A", (0, 1), -3.0),
    ("cycle", "A", (4, 0), -1.0),
]


# --------------------------------------------------------------------------- #
# API
# --------------------------------------------------------------------------- #
def test_names_and_descriptions():
    assert paper_data_names() == NAMES
    assert tuple(PAPER_DATA) == NAMES
    for name in NAMES:
        assert isinstance(PAPER_DATA[name], str) and len(PAPER_DATA[name]) > 40
    with pytest.raises(TypeError):
        PAPER_DATA["new"] = "x"  # read-only mapping


@pytest.mark.parametrize("name, field", sorted(SHAPES))
def test_shapes(name, field):
    assert getattr(load_paper_data(name), field).shape == SHAPES[(name, field)]


@pytest.mark.parametrize("name", NAMES)
def test_arrays_are_fresh_read_only_copies(name):
    d1, d2 = load_paper_data(name), load_paper_data(name)
    assert isinstance(d1, PaperData) and d1.name == name
    arrays = [f for f in d1.fields if isinstance(getattr(d1, f), np.ndarray)]
    assert arrays
    for f in arrays:
        a1, a2 = getattr(d1, f), getattr(d2, f)
        assert a1.dtype == np.float64
        assert not a1.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            a1[...] = 0.0
        assert not np.shares_memory(a1, a2)
        np.testing.assert_array_equal(a1, a2)
    with pytest.raises(AttributeError):  # frozen
        d1.name = "other"
    with pytest.raises(TypeError):  # the field mapping is read-only too
        d1.values["A"] = None


def test_source_says_where_in_the_paper():
    assert "Figure 3" in load_paper_data("affine").source
    assert "fig:prop" in load_paper_data("affine").source
    assert "Figure 5" in load_paper_data("kcofactors").source
    assert "fig:empirical" in load_paper_data("kcofactors").source
    assert "Figure 8" in load_paper_data("svsd").source
    assert "fig:svsd" in load_paper_data("svsd").source
    assert "Example 1" in load_paper_data("example1").source
    assert "Example 2" in load_paper_data("example2").source
    assert load_paper_data("cycle").source.startswith("NOT from the paper")
    assert "constructed for this book" in load_paper_data("cycle").source


@pytest.mark.parametrize("bad", ["Affine", "fig3", "", "example3"])
def test_unknown_name_lists_valid_names(bad):
    with pytest.raises(ValueError, match=rf"^name must be one of \[.*\], got {bad!r}$") as info:
        load_paper_data(bad)
    for name in NAMES:
        assert name in str(info.value)


@pytest.mark.parametrize("bad", [None, 3, ("affine",)])
def test_non_string_name(bad):
    with pytest.raises(TypeError, match="name must be a string"):
        load_paper_data(bad)


def test_missing_field_names_the_fields():
    with pytest.raises(AttributeError, match="has no field 'Z'.*A, T, b"):
        load_paper_data("affine").Z


# --------------------------------------------------------------------------- #
# Values
# --------------------------------------------------------------------------- #
@pytest.mark.parametrize("name, field, index, value", SPOT)
def test_spot_values(name, field, index, value):
    assert getattr(load_paper_data(name), field)[index] == value


@pytest.mark.parametrize("key", sorted(CHECKSUMS))
def test_checksums(key):
    total, weighted, sha = CHECKSUMS[key]
    a = getattr(load_paper_data(key[0]), key[1])
    w = np.outer(np.arange(1, a.shape[0] + 1), np.arange(1, a.shape[1] + 1))
    assert a.sum() == pytest.approx(float(Decimal(total)), rel=1e-13, abs=0)
    assert (w * a).sum() == pytest.approx(float(Decimal(weighted)), rel=1e-13, abs=0)
    assert hashlib.sha256(np.ascontiguousarray(a, "<f8").tobytes()).hexdigest() == sha


def _appendix_tokens(tex: str):
    app = tex[tex.index(r"\section{Synthetic Data") :]
    blocks = re.findall(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", app, re.S)
    return [
        [[x.strip() for x in row.split("&")] for row in b.strip().split("\\\\") if row.strip()]
        for b in blocks
    ]


def test_text_blocks_match_the_latex_when_available():
    """Token-for-token against the paper's source — only where it sits beside the repo."""
    tex_path = (
        Path(__file__).resolve().parents[2]
        / "shared"
        / "paper"
        / "information-elicitation-meets-clustering.tex"
    )
    if not tex_path.exists():
        pytest.skip(f"paper source not present at {tex_path}")
    blocks = _appendix_tokens(tex_path.read_text())
    ours = [datasets._AFFINE_A, datasets._AFFINE_T, datasets._KCOFACTORS_A, datasets._SVSD_A]
    assert len(blocks) == len(ours)
    for theirs, text in zip(blocks, ours):
        assert [line.split() for line in text.strip().splitlines()] == theirs


def test_svsd_rows_are_distributions_up_to_printing():
    A = load_paper_data("svsd").A
    assert np.all(A >= 0)
    np.testing.assert_allclose(A.sum(axis=1), 1.0, rtol=0, atol=1e-7)
    # ... but not exactly: the 8-decimal rounding is what the rank tolerance absorbs.
    assert np.abs(A.sum(axis=1) - 1.0).max() > 1e-9


def test_appendix_matrices_have_k_3():
    for name in ("affine", "kcofactors", "svsd"):
        assert prepare(load_paper_data(name).A).k == 3
    d = load_paper_data("affine")
    assert abs(np.linalg.det(d.T)) > 0.1  # invertible: a genuine affine map
    assert prepare(d.A @ d.T + d.b).k == 3


# --------------------------------------------------------------------------- #
# The paper's claims about its examples
# --------------------------------------------------------------------------- #
def _sp(a, prior, options):
    """Surprisingly popular (Definition in Section 3): argmax_c a_c / prior_c."""
    return options[int(np.argmax(np.asarray(a) / np.asarray(prior)))]


def test_intro_surprisingly_popular_and_plurality():
    d = load_paper_data("intro")
    np.testing.assert_array_equal(d.feedback, [0.56, 0.40, 0.04])
    np.testing.assert_array_equal(d.prior, [0.70, 0.26, 0.04])
    assert d.options == ("good", "so so", "bad")
    # the paper's inequality: 40/26 > 56/70, 4/4
    r = d.feedback / d.prior
    assert r[1] > r[0] and r[1] > r[2]
    assert r[2] == pytest.approx(1.0)
    assert _sp(d.feedback, d.prior, d.options) == d.sp_answer == "so so"
    assert d.options[int(np.argmax(d.feedback))] == d.plurality_answer == "good"


def test_example1_prior_is_mean_of_states_and_matches_print():
    d = load_paper_data("example1")
    np.testing.assert_array_equal(d.state_prior, np.full(3, 1 / 3))
    exact = [sum(Fraction(p) for p in col) / 3 for col in ([56, 56, 46], [40, 34, 44], [4, 10, 10])]
    np.testing.assert_allclose(d.prior * 100, [float(x) for x in exact], rtol=1e-15, atol=0)
    np.testing.assert_allclose(d.prior, d.state_prior @ d.states, rtol=1e-15)
    # "approximately (52.7%, 39.3%, 8%)"
    np.testing.assert_array_equal(np.round(d.prior * 100, 1), [52.7, 39.3, 8.0])
    np.testing.assert_allclose(d.prior_printed, [0.527, 0.393, 0.08], rtol=1e-15)
    np.testing.assert_allclose(np.round(d.prior, 3), d.prior_printed, rtol=1e-15)
    np.testing.assert_allclose(d.states.sum(axis=1), 1.0, rtol=1e-15)


def test_example1_sp_fails_as_the_paper_says():
    """ "for both (56, 34, 10) and (46, 44, 10), the surprisingly popular answer is
    'bad', while they correspond to different ground truth"."""
    d = load_paper_data("example1")
    answers = [_sp(s, d.prior, d.options) for s in d.states]
    assert answers[1] == answers[2] == "bad"
    assert answers[0] == "good"


def test_example2_strategy_turns_honest_signals_into_example1():
    e1, e2 = load_paper_data("example1"), load_paper_data("example2")
    np.testing.assert_array_equal(e2.signals, np.eye(3))
    S = [[Fraction(x) for x in row.split()] for row in datasets._EXAMPLE2_S.strip().splitlines()]
    assert all(sum(row) == 1 for row in S)  # row-stochastic, exactly as printed
    # the point of the example: the reports become Example 1's distributions, exactly
    np.testing.assert_array_equal(e2.signals @ e2.S, e1.states)
    # S is invertible with |det S| = 0.006 < 1 (exact rational arithmetic), so an
    # affine-invariant method is unaffected while the K-DMI value shrinks.
    det = (
        S[0][0] * (S[1][1] * S[2][2] - S[1][2] * S[2][1])
        - S[0][1] * (S[1][0] * S[2][2] - S[1][2] * S[2][0])
        + S[0][2] * (S[1][0] * S[2][1] - S[1][1] * S[2][0])
    )
    assert det == Fraction(-6, 1000)
    assert np.linalg.det(e2.S) == pytest.approx(-0.006, rel=1e-9)


# --------------------------------------------------------------------------- #
# The "cycle" data set: check, in exact arithmetic, that it does what it says.
# --------------------------------------------------------------------------- #
def _inv(M):
    """Exact Gauss-Jordan inverse of a square Fraction matrix (None if singular)."""
    k = len(M)
    aug = [list(row) + [Fraction(int(i == j)) for j in range(k)] for i, row in enumerate(M)]
    for c in range(k):
        p = next((r for r in range(c, k) if aug[r][c] != 0), None)
        if p is None:
            return None
        aug[c], aug[p] = aug[p], aug[c]
        piv = aug[c][c]
        aug[c] = [x / piv for x in aug[c]]
        for r in range(k):
            if r != c and aug[r][c] != 0:
                f = aug[r][c]
                aug[r] = [x - f * y for x, y in zip(aug[r], aug[c])]
    return [row[k:] for row in aug]


def _det(M):
    return sum(
        (-1) ** sum(1 for a, b in itertools.combinations(p, 2) if a > b)
        * np.prod([M[i][p[i]] for i in range(len(M))])
        for p in itertools.permutations(range(len(M)))
    )


def _batch_step(At, labels, k):
    """One batch update of Algorithm 2 with its footnote: a row moves only if its
    current cluster is not among the maxima of its row of ÃD."""
    M = [
        [sum(At[i][j] for i in range(len(At)) if labels[i] == c) for j in range(k)]
        for c in range(k)
    ]
    D = _inv(M)
    G = [[sum(a[j] * D[j][c] for j in range(k)) for c in range(k)] for a in At]
    new = tuple(
        lab if G[i][lab] == max(G[i]) else G[i].index(max(G[i])) for i, lab in enumerate(labels)
    )
    return new, _det(M), G


def test_cycle_batch_iteration_cycles_in_exact_arithmetic():
    d = load_paper_data("cycle")
    assert prepare(d.A).columns == (0, 1, 2)  # Ã = [A 1]
    At = [[Fraction(int(x)) for x in row] + [Fraction(1)] for row in d.A]
    n = len(At)
    mean = [sum(a[j] for a in At) / n for j in range(3)]
    centred = [[a[j] - mean[j] for j in range(3)] for a in At]
    # the paper's initialisation C <- idxmax(Ã - mean(Ã)); no ties here
    assert all(sorted(r)[-1] > sorted(r)[-2] for r in centred)
    init = tuple(r.index(max(r)) for r in centred)
    assert init == d.orbit[0]
    second, det0, _ = _batch_step(At, init, 3)
    assert second == d.orbit[1]
    back, det1, G = _batch_step(At, second, 3)
    assert back == init  # a 2-cycle: the iteration never stops
    assert (abs(det0), abs(det1)) == (18, 12)  # and the batch step lowered the score
    assert G[4][1] == G[4][2] == Fraction(1, 3)  # the exact tie the docstring warns of
    # neither clustering of the orbit is the optimum (brute force, floats)
    best = max(dmi_score(d.A, lab) for lab in itertools.product(range(3), repeat=n))
    assert best == pytest.approx(36.0, rel=1e-12)
    assert dmi_score(d.A, init) == pytest.approx(18.0, rel=1e-12)
