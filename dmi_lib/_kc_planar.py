"""Algorithm 3 under its former module name, for the importers not yet moved to
:mod:`dmi_lib._triangle` (its home)."""

from ._triangle import cone_labels_2d, k_cofactors_2d, partition_rays_2d

__all__ = ["cone_labels_2d", "k_cofactors_2d", "partition_rays_2d"]
