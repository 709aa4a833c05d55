"""Names that moved to another module keep working for one release, with a warning.

A module whose names moved assigns ``__getattr__ = moved(__name__, {"old": "new.module"})``.
Looking up a moved name imports it from its new home and warns; the import happens only
on that lookup, so a library module can name a home in a layer above it (a study moved to
:mod:`dmi_book.studies`) without importing that layer.
"""

from __future__ import annotations

import importlib
import warnings


def moved(module: str, names: dict[str, str]):
    """A module ``__getattr__`` serving ``names`` (old name → new module) with a warning.

    Examples
    --------
    >>> import warnings
    >>> getattr_ = moved("dmi_lib.old", {"same_partition": "dmi_lib.labels"})
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     f = getattr_("same_partition")
    >>> f.__module__, caught[0].category.__name__
    ('dmi_lib.labels', 'DeprecationWarning')
    >>> str(caught[0].message)
    'dmi_lib.old.same_partition moved to dmi_lib.labels.same_partition; the old name will be removed in the next release'
    """

    def __getattr__(name: str):
        home = names.get(name)
        if home is None:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        warnings.warn(
            f"{module}.{name} moved to {home}.{name}; the old name will be removed in "
            "the next release",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(home), name)

    return __getattr__
