"""Studies and figure experiments built on :mod:`dmi_lib`: the top layer.

These modules run the algorithms on data and scenarios to produce the book's
tables and figures: the real-crowds study and its attack scenarios
(:mod:`.real_crowds`, :mod:`.attacks`, and the fair Dawid–Skene peer and DMI-EM
study :mod:`.fair_peers`, chapter 13), the future-directions studies
(:mod:`.beyond`, chapter 14), and the simulations behind figures of chapters 2 and
10-12 (:mod:`.experiments`, :mod:`.two_worlds`).  They import the library; the
library never imports them.  Each name is imported from its module.
"""

__all__: list[str] = []  # each study is imported from its module
