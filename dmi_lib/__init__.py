"""dmi_lib — the algorithms of Yuqing Kong, *Information Elicitation Meets Clustering*.

DMI-clustering (Algorithm 1) and its exact solvers and k-cofactors heuristic
(Algorithm 2), surprisingly popular and the spectral truth serum (Algorithms 5, 6),
the DMI and K-DMI mechanisms (Algorithm 4), crowd simulation, and the paper's data.
"""

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
from .crowd_data import (
    HOSSEINI_TREATMENTS,
    PRELEC_STUDIES,
    CrowdDataset,
    list_datasets,
    load_dataset,
)
from .tabular import (
    METHODS,
    AnswerMatrix,
    DMIAggregator,
    MajorityVote,
    SurprisinglyPopular,
    aggregate,
    answer_matrix,
)
from .mechanisms import DMIMechanismResult, KDMIResult, dmi, dmi_mechanism, kdmi_mechanism
from .simulation import (
    Reports,
    always,
    check_strategies,
    permutation_strategy,
    random_states,
    random_strategy,
    simulate_crowd,
    simulate_reports,
    simulate_single_task,
    truthful,
)
from .datasets import PAPER_DATA, PaperData, load_paper_data, paper_data_names

__version__ = "0.1.0"
