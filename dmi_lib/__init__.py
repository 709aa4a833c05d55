"""dmi_lib — the algorithms of Yuqing Kong, *Information Elicitation Meets Clustering*.

DMI-clustering (Algorithm 1) and its exact solvers and k-cofactors heuristic
(Algorithm 2), surprisingly popular and the spectral truth serum (Algorithms 5, 6),
the DMI and K-DMI mechanisms (Algorithm 4), crowd simulation, and the paper's data.

This package face offers the names a user starts from (:data:`__all__`); each is
defined in, and documented with, one module of the package (its home), which is also
where the names not listed here are imported from.  What goes beyond the paper is in
:mod:`dmi_lib.extras`, imported from its modules.
"""

from .core import DMIClustering, dmi_cluster
from .problem import (
    DEFAULT_RANK_TOL,
    ConvergenceWarning,
    DMIResult,
    assign,
    augment,
    dmi_rank,
    dmi_score,
    idxmax,
    in_idxmax,
    is_linearly_partitioned,
    is_local_maximum,
    log_dmi_score,
    prepare,
)
from .labels import (
    agreement,
    align_labels,
    canonical_labels,
    same_partition,
)
from .exact import brute_force, cone_partition, mean_split
from .kcofactors import KCofactorsStep, k_cofactors, k_cofactors_history
from .planar_geometry import cone_labels_2d, k_cofactors_2d, partition_rays_2d
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
from .answers import AnswerMatrix, answer_matrix
from .tabular import (
    METHODS,
    DMIAggregator,
    MajorityVote,
    SurprisinglyPopular,
    aggregate,
)
from .mechanisms import DMIMechanismResult, Reports, dmi, dmi_mechanism
from .kdmi import KDMIResult, kdmi_mechanism
from .simulation import (
    always,
    permutation_strategy,
    random_states,
    random_strategy,
    simulate_crowd,
    simulate_reports,
    simulate_single_task,
    truthful,
)
from .datasets import (
    PAPER_DATA,
    PaperData,
    load_paper_data,
    paper_data_names,
)
from .crowd_data import (
    HOSSEINI_TREATMENTS,
    PRELEC_STUDIES,
    CrowdDataset,
    list_datasets,
    load_dataset,
)

__version__ = "0.1.0"

__all__ = [
    "DMIClustering",
    "dmi_cluster",
    "DEFAULT_RANK_TOL",
    "DMIResult",
    "assign",
    "augment",
    "dmi_rank",
    "dmi_score",
    "idxmax",
    "in_idxmax",
    "is_linearly_partitioned",
    "is_local_maximum",
    "log_dmi_score",
    "prepare",
    "ConvergenceWarning",
    "agreement",
    "align_labels",
    "canonical_labels",
    "same_partition",
    "brute_force",
    "cone_partition",
    "mean_split",
    "KCofactorsStep",
    "cone_labels_2d",
    "k_cofactors",
    "k_cofactors_2d",
    "k_cofactors_history",
    "partition_rays_2d",
    "DMIAggregation",
    "SpectralTruthSerumResult",
    "SurprisinglyPopularResult",
    "dmi_aggregate",
    "name_clusters",
    "ncol",
    "plurality",
    "spectral_truth_serum",
    "surprisingly_popular",
    "surprisingly_popular_single",
    "AnswerMatrix",
    "answer_matrix",
    "METHODS",
    "DMIAggregator",
    "MajorityVote",
    "SurprisinglyPopular",
    "aggregate",
    "Reports",
    "DMIMechanismResult",
    "dmi",
    "dmi_mechanism",
    "KDMIResult",
    "kdmi_mechanism",
    "always",
    "permutation_strategy",
    "random_states",
    "random_strategy",
    "simulate_crowd",
    "simulate_reports",
    "simulate_single_task",
    "truthful",
    "PAPER_DATA",
    "PaperData",
    "load_paper_data",
    "paper_data_names",
    "HOSSEINI_TREATMENTS",
    "PRELEC_STUDIES",
    "CrowdDataset",
    "list_datasets",
    "load_dataset",
]
