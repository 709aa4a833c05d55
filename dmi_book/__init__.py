"""dmi_book — the figures and studies of the book, built on :mod:`dmi_lib`.

The library :mod:`dmi_lib` holds the algorithms; this package holds what the chapters
draw and measure with them: :mod:`dmi_book.plotting` (every figure, as a pure, seeded
function) and :mod:`dmi_book.studies` (the simulations and the real-crowds study behind
the book's tables and figures).  It imports the library; the library never imports it.
"""

__all__: list[str] = []  # each name is imported from its module
