"""Beyond the paper: methods, heuristics and a scale-out path that Kong's paper does not contain.

Everything in this package goes past *Information Elicitation Meets Clustering*; the rest
of :mod:`dmi_lib` is the paper's algorithms, tables and data.

* :mod:`dmi_lib.extras.practical` — DMI aggregation made robust for real crowds
  (chapter 13): Bayesian naming of clusters, a latent-class refinement, validation
  against an interval-partition baseline.  ``aggregate(method="dmi-practical")`` and
  ``aggregate(method="dmi-validated")`` of :mod:`dmi_lib.tabular` run it.
* :mod:`dmi_lib.extras.dmi_em` — DMI-EM, a worker-aware aggregator: DMI-clustering of the
  tasks as the start of a Dawid–Skene EM with a confusion matrix per worker (chapter 13);
  ``aggregate(method="dmi-em")`` runs it.
* :mod:`dmi_lib.extras.beyond` — the paper's future directions tried out (chapter 14):
  continuous and kernel DMI-clustering, projections, a third-moment aggregator.
* :mod:`dmi_lib.extras.crowd_data` — real public crowdsourcing data sets with gold labels
  (chapter 13), shipped with the package and checked against a SHA-256 manifest.
* :mod:`dmi_lib.extras.scale_out` — aggregation of answer tables larger than memory on
  Dask (chapter 13 at scale); ``aggregate`` takes this path for a Dask table.
"""

__all__: list[str] = []  # each name is imported from its module
