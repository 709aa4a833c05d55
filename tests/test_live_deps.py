"""The cells live code runs first: each cell's dependencies (``tools/live_code/deps.py``).

The property test is the brute force: random notebooks of cells that bind, rebind and
mutate shared lists; running a cell after only the cells it needs must give exactly what
running every cell above it in order gives.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from live_code.deps import cell_names, dependencies  # noqa: E402


def needs(sources):
    return [d["needs"] for d in dependencies(sources)]


def test_a_use_can_mutate_so_cells_sharing_a_name_keep_their_order():
    cells = [
        "import numpy as np\nrng = np.random.default_rng(0)",
        "x = rng.normal()",  # advances rng
        "y = rng.normal()",
        "print(np.pi)",
    ]
    assert needs(cells) == [[], [0], [0, 1], [0]]


def test_imported_and_builtin_names_do_not_order_cells():
    cells = ["import numpy as np\nfrom math import tau", "a = np.ones(2)", "b = np.zeros(tau)"]
    assert needs(cells) == [[], [0], [0]]  # not [0, 1]: np is only imported


def test_a_rebound_import_orders_its_users():
    cells = ["import numpy as np", "np = None", "print(np)"]
    assert needs(cells)[2] == [0, 1]


def test_function_locals_are_not_globals_but_a_body_reads_its_globals_when_called():
    cells = [
        "X = 1\nn = 2",
        "def f(n=3):\n    X = n * 2\n    return [k for k in range(X)], lambda q: q + scale",
        "scale = 5",
        "f()",
    ]
    # f's X and n are its own; the lambda's `scale` is read when f's result is used, so
    # the call needs the cell that binds scale after f was defined
    assert needs(cells) == [[], [], [1], [1, 2]]


def test_widget_cells_and_magics():
    src = "%matplotlib inline\nfrom ipywidgets import interact\ninteract(lambda t=1: t);"
    names = cell_names(src)
    assert names is not None and names.widget
    assert not cell_names("x = 1").widget


def test_a_cell_that_does_not_parse_needs_every_earlier_cell():
    assert needs(["a = 1", "b = 2", "a = = 1", "a"]) == [[], [], [0, 1], [0, 1, 2]]


def test_the_chapters_widgets_need_fewer_cells_than_lie_above_them():
    """What turning live saves: on chapter 2's page the slider needs only the imports."""
    nb = json.loads((ROOT / "book" / "02a_low_effort_and_bias.ipynb").read_text())
    code = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]
    deps = dependencies(code)
    widgets = [i for i, d in enumerate(deps) if d["widget"]]
    assert widgets, "chapter 2's page has a slider"
    first = widgets[0]
    assert len(deps[first]["needs"]) < first // 2


# --- the brute force: random notebooks over shared lists -------------------------------

VARS = ["v0", "v1", "v2", "v3"]
op = st.one_of(
    st.tuples(st.just("bind"), st.sampled_from(VARS), st.sampled_from(VARS), st.integers(0, 9)),
    st.tuples(st.just("append"), st.sampled_from(VARS), st.sampled_from(VARS), st.integers(0, 9)),
    # two function names, so that calls often find a definition
    st.tuples(st.just("func"), st.sampled_from(VARS), st.sampled_from(VARS), st.integers(0, 1)),
    st.tuples(st.just("call"), st.sampled_from(VARS), st.sampled_from(VARS), st.integers(0, 1)),
    st.tuples(st.just("import"), st.sampled_from(VARS), st.sampled_from(VARS), st.integers(0, 9)),
)


def source(cell_ops) -> str:
    lines = []
    for kind, a, b, k in cell_ops:
        if kind == "bind":
            lines.append(f"{a} = list({b}) + [{k}]")
        elif kind == "append":
            lines.append(f"{a}.append({k} + len({b}))")
        elif kind == "func":  # a function whose body mutates a global when called
            lines.append(f"def f{k}(x={k}):\n    {a}.append(x)\n    return x + len({b})")
        elif kind == "call":  # what the body reads shows in `a`
            lines.append(f"try:\n    {a}.append(f{k}())\nexcept NameError:\n    {a}.append(-1)")
        else:
            lines.append(f"import math as m{k}\n{a}.append(int(m{k}.sqrt({k})))")
    return "\n".join(lines) or "pass"


@settings(max_examples=400, deadline=None)
@given(st.lists(st.lists(op, min_size=1, max_size=3), min_size=1, max_size=7))
# a function's body reads v1 when called, after a later cell changed v1
@example([[("func", "v0", "v1", 0)], [("append", "v1", "v1", 5)], [("call", "v2", "v2", 0)]])
def test_running_what_a_cell_needs_gives_what_running_every_cell_gives(cells):
    sources = ["v0, v1, v2, v3 = [0], [1], [2], [3]"] + [source(c) for c in cells]
    target = len(sources) - 1
    full: dict = {}
    for src in sources[: target + 1]:
        exec(src, full)
    part: dict = {}
    for i in dependencies(sources)[target]["needs"] + [target]:
        exec(sources[i], part)
    # the target sees, through every name it uses, what it sees in the notebook
    used = cell_names(sources[target])
    for name in sorted((used.used | used.bound) & set(VARS)):
        assert repr(part.get(name)) == repr(full[name]), (name, sources, target)
