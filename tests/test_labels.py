"""dmi_lib.labels against brute force over every renaming."""

from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dmi_lib.labels import agreement, align_labels, canonical_labels, contingency, same_partition

labelings = st.integers(1, 12).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 4), min_size=n, max_size=n),
        st.lists(st.integers(0, 4), min_size=n, max_size=n),
    )
)


def best_by_permutation(a, b):
    a, b = np.asarray(a), np.asarray(b)
    k = int(max(a.max(), b.max())) + 1
    return max(int((np.asarray(p)[a] == b).sum()) for p in permutations(range(k)))


@settings(max_examples=200, deadline=None)
@given(labelings)
def test_agreement_and_alignment_are_the_best_renaming(pair):
    a, b = map(np.asarray, pair)
    best = best_by_permutation(a, b)
    assert agreement(a, b) == best / a.size
    aligned = align_labels(a, b)
    assert same_partition(aligned, a)
    assert int((aligned == b).sum()) == best


@settings(max_examples=200, deadline=None)
@given(labelings)
def test_same_partition_and_canonical_labels_agree_with_brute_force(pair):
    a, b = map(np.asarray, pair)
    brute = any(
        np.array_equal(np.asarray(p)[a], b)
        for p in permutations(range(int(max(a.max(), b.max())) + 1))
    )
    assert same_partition(a, b) == brute
    assert np.array_equal(canonical_labels(a), canonical_labels(b)) == brute
    assert same_partition(canonical_labels(a), a)


def test_contingency_counts_pairs():
    assert contingency([0, 0, 1, 2], [1, 1, 0, 1]).tolist() == [[0, 2], [1, 0], [0, 1]]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: agreement([0, 1], [0, 1, 1]), "different lengths"),
        (lambda: agreement([], []), "empty"),
        (
            lambda: align_labels([0, -1], [0, 1]),
            "labels must be non-negative, found -1 at position 1",
        ),
        (
            lambda: contingency([0, 1], [1, -2]),
            "labels_b must be non-negative, found -2 at position 1",
        ),
        (lambda: align_labels([[0, 1]], [0, 1]), "1-D"),
        (lambda: align_labels([0, 1, 2], [0, 0, 0], k=2), "k = 2 names are too few"),
    ],
)
def test_bad_input_is_named(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: align_labels([0.5, 1], [0, 1]),
            "labels must hold whole numbers, found 0.5 at position 0",
        ),
        (lambda: contingency([0, 1], ["a", "b"]), "labels_b must hold integers, got dtype <U1"),
        (lambda: agreement([0, 1], [True, False]), "reference must hold integers, got dtype bool"),
    ],
)
def test_non_integer_labelings_are_named(call, message):
    with pytest.raises(TypeError, match=message):
        call()
