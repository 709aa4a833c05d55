"""Studies and figure experiments built on :mod:`dmi_lib`: the top layer.

These modules run the algorithms on data and scenarios to produce the book's
tables and figures: the real-crowds study and its attack scenarios
(:mod:`.real_crowds`, :mod:`.attacks`, and the fair Dawid–Skene peer and DMI-EM
study :mod:`.fair_peers`, chapter 13), the future-directions studies
(:mod:`.beyond`, chapter 14), and the simulations behind figures of chapters 2 and
10-12 (:mod:`.experiments`, :mod:`.two_worlds`).  They import the library; the
library never imports them.
"""

from . import attacks, beyond, experiments, fair_peers, real_crowds, two_worlds
from .attacks import *  # noqa: F401,F403
from .beyond import *  # noqa: F401,F403
from .experiments import *  # noqa: F401,F403
from .fair_peers import *  # noqa: F401,F403
from .real_crowds import *  # noqa: F401,F403
from .two_worlds import *  # noqa: F401,F403

__all__ = [
    *attacks.__all__,
    *beyond.__all__,
    *experiments.__all__,
    *fair_peers.__all__,
    *real_crowds.__all__,
    *two_worlds.__all__,
]
