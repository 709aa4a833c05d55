"""Studies and figure experiments built on :mod:`dmi_lib`: the top layer.

These modules run the algorithms on data and scenarios to produce the book's
tables and figures (the real-crowds study, the future-directions studies, the
figure experiments).  They import the library; the library never imports them.
"""
