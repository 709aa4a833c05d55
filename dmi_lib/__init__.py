"""dmi_lib — the algorithms of Yuqing Kong, *Information Elicitation Meets Clustering*.

DMI-clustering (Algorithm 1) and its exact solvers and k-cofactors heuristic
(Algorithm 2), surprisingly popular and the spectral truth serum (Algorithms 5, 6),
the DMI and K-DMI mechanisms (Algorithm 4), crowd simulation, and the paper's data.
"""

import importlib

from .core import (
    DEFAULT_RANK_TOL,
    DMIClustering,
    DMIResult,
    assign,
    augment,
    dmi_cluster,
    dmi_rank,
    dmi_score,
    idxmax,
    in_idxmax,
    is_linearly_partitioned,
    is_local_maximum,
    log_dmi_score,
    prepare,
)
from .exceptions import ConvergenceWarning
from .labels import agreement, align_labels, canonical_labels, same_partition

from .aggregation import (
    DMIAggregation,
    SpectralTruthSerumResult,
    SurprisinglyPopularResult,
    dmi_aggregate,
    name_clusters,
    ncol,
    plurality,
    spectral_truth_serum,
    surprisingly_popular,
    surprisingly_popular_single,
)
from .exact import brute_force, cone_partition, mean_split
from .kcofactors import (
    KCofactorsStep,
    cone_labels_2d,
    k_cofactors,
    k_cofactors_2d,
    k_cofactors_history,
    partition_rays_2d,
)
from .datasets import PAPER_DATA, PaperData, load_paper_data, paper_data_names

__version__ = "0.1.0"

# The elicitation, simulation and data modules load on first use (PEP 562): `import dmi_lib`
# then loads only the clustering core (about 0.6 s, mostly scipy and pandas).
_LAZY = {
    "crowd_data": (
        "HOSSEINI_TREATMENTS",
        "PRELEC_STUDIES",
        "CrowdDataset",
        "list_datasets",
        "load_dataset",
    ),
    "practical": (
        "PracticalDMIResult",
        "ValidatedDMIResult",
        "name_clusters_bayes",
        "practical_dmi_aggregate",
        "validated_dmi_aggregate",
    ),
    "answers": ("AnswerMatrix", "answer_matrix"),
    "tabular": (
        "METHODS",
        "DMIAggregator",
        "MajorityVote",
        "SurprisinglyPopular",
        "aggregate",
    ),
    "dmi_em": ("DMIEM", "DMIEMResult", "dmi_em"),
    "mechanisms": ("DMIMechanismResult", "dmi", "dmi_mechanism"),
    "kdmi": ("KDMIResult", "kdmi_mechanism"),
    "reports": ("Reports",),
    "simulation": (
        "always",
        "permutation_strategy",
        "random_states",
        "random_strategy",
        "simulate_crowd",
        "simulate_reports",
        "simulate_single_task",
        "truthful",
    ),
    # Beyond the paper (chapter 14): its future directions.
    "beyond": (
        "continuous_dmi_cluster",
        "kernel_dmi_cluster",
        "projected_dmi_cluster",
        "third_moment_aggregate",
    ),
}
_LAZY_NAMES = {name: module for module, names in _LAZY.items() for name in names}


def __getattr__(name):
    module = _LAZY_NAMES.get(name)
    if module is None:
        raise AttributeError(f"module 'dmi_lib' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY_NAMES))
