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
from .problem import ConvergenceWarning, DMIResult, dmi_score, log_dmi_score
from .labels import same_partition
from .exact import brute_force
from .kcofactors import k_cofactors
from .aggregation import dmi_aggregate, spectral_truth_serum, surprisingly_popular
from .answers import answer_matrix
from .tabular import METHODS, DMIAggregator, MajorityVote, SurprisinglyPopular, aggregate
from .mechanisms import Reports, dmi_mechanism
from .kdmi import kdmi_mechanism
from .simulation import simulate_crowd, simulate_reports
from .datasets import load_paper_data

__version__ = "0.1.0"

__all__ = [
    "DMIClustering",
    "dmi_cluster",
    "ConvergenceWarning",
    "DMIResult",
    "dmi_score",
    "log_dmi_score",
    "same_partition",
    "brute_force",
    "k_cofactors",
    "dmi_aggregate",
    "spectral_truth_serum",
    "surprisingly_popular",
    "answer_matrix",
    "METHODS",
    "DMIAggregator",
    "MajorityVote",
    "SurprisinglyPopular",
    "aggregate",
    "Reports",
    "dmi_mechanism",
    "kdmi_mechanism",
    "simulate_crowd",
    "simulate_reports",
    "load_paper_data",
]
