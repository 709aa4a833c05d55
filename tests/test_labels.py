"""dmi_lib.labels against brute force over every renaming."""

from itertools import permutations, product

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


# Distinct ids up to 2**62 - 1 (the largest check_labels accepts), sorted: an
# increasing map keeps the order of the ids, which is what breaks ties in align_labels.
huge_ids = st.lists(st.integers(0, 2**62 - 1), min_size=10, max_size=10, unique=True)


@settings(max_examples=200, deadline=None)
@given(labelings, huge_ids)
def test_relabelling_the_ids_changes_nothing_but_the_names(pair, ids):
    """Any injective map of ids (to ids up to 2**62 - 1) gives the same agreement, bit
    for bit; an increasing one gives the correspondingly relabelled alignment, and any
    one an alignment as good, among the mapped ids."""
    a, b = map(np.asarray, pair)
    ids = np.asarray(ids)
    increasing = np.sort(ids)
    assert agreement(ids[a], ids[5 + b]) == agreement(a, b)  # no id shared
    assert agreement(ids[a], ids[b]) == agreement(a, b)
    assert np.array_equal(
        align_labels(increasing[a], increasing[b]), increasing[align_labels(a, b)]
    )
    aligned = align_labels(ids[a], ids[b])
    assert same_partition(aligned, a)
    assert int((aligned == ids[b]).sum()) == int((align_labels(a, b) == b).sum())
    assert set(aligned.tolist()) <= set(ids[np.r_[a, b]].tolist())


def test_huge_ids_cost_no_more_than_small_ones():
    # The matching works on the clusters, not on a table indexed by the ids.
    assert align_labels([0, 2000], [0, 1]).tolist() == [0, 1]
    assert agreement([0, 50000], [0, 1]) == 1.0
    assert align_labels([2**62 - 1, 5, 5], [7, 2**61, 2**61]).tolist() == [7, 2**61, 2**61]
    assert agreement([0] * 20000, np.arange(20000)) == 1 / 20000


@pytest.mark.parametrize(
    "call, message",
    [
        (
            lambda: contingency([0, 10**9], [0, 1]),
            r"the contingency table of labels_a and labels_b \(indexed by the ids, the largest "
            r"1000000000 and 1\) would be a 1000000001 x 2 table of 14.9 GiB \(more than 1 GiB\); "
            r"renumber the ids 0, 1, ... first",
        ),
        (
            lambda: contingency([2**32, 0], [2**32, 1]),
            r"would be a 4294967297 x 4294967297 table of 1.37e\+11 GiB",
        ),
        (
            lambda: agreement(np.arange(20000), np.arange(20000)),
            r"matching the clusters of labels with those of reference would be a 20000 x 20000 "
            r"table of 2.98 GiB \(more than 1 GiB\); there are too many clusters",
        ),
        (
            lambda: align_labels(np.arange(20000) * 2**40, np.zeros(20000)),
            r"would be a 20000 x 20000 table of 2.98 GiB",
        ),
    ],
)
def test_a_table_too_large_to_allocate_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


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


def test_same_partition_refuses_nan_ids():
    """NaN is not equal to itself, so it names no cluster: [nan, nan] against [0, 0]
    and [nan, 1] against [0, 1] must not get opposite answers."""
    for a, b, name, pos in (
        ([np.nan, np.nan], [0, 0], "labels_a", 0),
        ([np.nan, 1.0], [0, 1], "labels_a", 0),
        ([0, 1], [1.0, np.nan], "labels_b", 1),
    ):
        with pytest.raises(
            ValueError,
            match=rf"^{name} must name every item's cluster, found nan at position {pos}$",
        ):
            same_partition(a, b)
    assert same_partition([0.0, 1.0, 1.0], ["x", "y", "y"])  # labels of any type
    with pytest.raises(
        ValueError, match=r"^labels_b must name every item's cluster, found None at position 2$"
    ):
        same_partition([0, 1, 2], ["a", "b", None])


def _same_partition_by_pairs(a, b) -> bool:
    """Reference: the partitions are equal iff a_i = a_j exactly when b_i = b_j."""
    n = len(a)
    return all((a[i] == a[j]) == (b[i] == b[j]) for i in range(n) for j in range(n))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=1, max_size=12),
    st.permutations([2**53, 2**53 + 1, "x", (1, 2)]),
    st.lists(st.integers(0, 3), min_size=12, max_size=12),
    st.booleans(),
)
def test_same_partition_matches_the_pairwise_definition(ids, names, other, perturb):
    """Any labels (large ints next to floats, strings, tuples in one object array):
    the answer is the pairwise definition of equal partitions.  Ids 2**53 and 2**53 + 1
    are one float apart from nothing: stacked with float labels they would merge."""
    a = ids
    b = [names[i] for i in ids] if not perturb else [names[o] for o in other[: len(ids)]]
    floats = [float(i) for i in ids]
    for x, y in ((a, b), (floats, b), (b, floats)):
        x_arr, y_arr = np.empty(len(x), dtype=object), np.empty(len(y), dtype=object)
        x_arr[:], y_arr[:] = x, y  # one label per entry (a tuple too)
        assert same_partition(x_arr, y_arr) == _same_partition_by_pairs(x, y)
    assert same_partition([2**53, 2**53 + 1], [0.0, 1.0])


# agreement's other naming: each cluster by its most common reference cluster
def test_agreement_without_one_to_one_hand_case():
    assert agreement([0, 0, 1, 1], [1, 1, 0, 0], one_to_one=False) == 1.0
    assert agreement([1, 1, 0, 2], [0, 0, 1, 1]) == 0.75
    assert agreement([1, 1, 0, 2], [0, 0, 1, 1], one_to_one=False) == 1.0


def majority_by_brute_force(a, b):
    """Every map of a's clusters to b's clusters (not only the one-to-one ones)."""
    a, b = np.asarray(a), np.asarray(b)
    k = int(max(a.max(), b.max())) + 1
    return max(int((np.asarray(f)[a] == b).sum()) for f in product(range(k), repeat=k))


@settings(max_examples=200, deadline=None)
@given(labelings, huge_ids)
def test_agreement_without_one_to_one_is_the_best_map_of_clusters(pair, ids):
    """The best naming when clusters may share a name, against every map of the
    clusters; at least the one-to-one agreement; the ids do not matter, bit for bit."""
    a, b = map(np.asarray, pair)
    got = agreement(a, b, one_to_one=False)
    assert got == majority_by_brute_force(a, b) / a.size
    assert got >= agreement(a, b)
    ids = np.asarray(ids)
    assert agreement(ids[a], ids[5 + b], one_to_one=False) == got
    assert agreement(ids[5 + a], b, one_to_one=False) == got


def test_agreement_without_one_to_one_needs_no_table_of_huge_ids():
    # a contingency table indexed by the ids themselves would need 10**9 rows
    assert agreement([0, 10**9, 10**9], [2**61, 7, 7], one_to_one=False) == 1.0
