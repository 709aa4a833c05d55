"""The layering of dmi_lib, read from the source: no import cycles, no hidden imports,
no library module importing the package face ``dmi_lib`` (which imports every module).

The layers (README, "Architecture"), each importing only from its own layer and the
layers below it (:data:`LAYERS`):

0. numerical core: argument checks, labelings up to renaming, the problem ``Ã``
1. solvers: ``exact``, ``linear_partitions``, ``kcofactors`` (with its ``_kc_*`` parts
   and compiled kernels), and the plane geometry of k = 3 (``planar_geometry``: triangle
   areas, the largest triangle of the exact 2-D solver, Algorithm 3)
2. front door: ``core`` (``dmi_cluster``, ``DMIClustering``)
3. elicitation: aggregation of answer matrices and tables, the mechanisms, and beside
   them what goes beyond the paper (``dmi_lib.extras``: ``practical``, ``beyond`` and the
   Dask path ``scale_out``)
4. simulation and data (the paper's data; and in ``dmi_lib.extras``, ``crowd_data``: the
   real crowds' data sets)
5. on top, never imported by the library: the book's package ``dmi_book`` (its figures,
   ``dmi_book.plotting``, and studies, ``dmi_book.studies``)
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (ROOT / "dmi_lib", ROOT / "dmi_book")
TOP = ("dmi_book",)

#: Optional dependencies a module may import inside a function (they are loaded only
#: when the feature that needs them is used).
LAZY_OK = ("dask", "distributed", "pyarrow", "numba", "matplotlib_inline", "IPython", "crowdkit")
#: Library modules that import an optional dependency at their top (dmi_lib.extras.scale_out:
#: dask): importing one inside a function is the lazy import of that dependency.
LAZY_OK_MODULES = ("dmi_lib.extras.scale_out",)

MAX_MODULE_LINES = 800
MAX_FUNCTION_LINES = 60
#: A function longer than MAX_FUNCTION_LINES must say why in a comment right above it.
LONG_MARK = "# long function:"


#: Layer of each module, by name prefix (the longest matching prefix wins).
LAYERS = {
    "dmi_lib._validation": 0,
    "dmi_lib._decompose": 0,
    "dmi_lib._deprecation": 0,
    "dmi_lib.labels": 0,
    "dmi_lib.problem": 0,
    "dmi_lib.planar_geometry": 1,
    "dmi_lib.exact": 1,
    "dmi_lib.linear_partitions": 1,
    "dmi_lib.kcofactors": 1,
    "dmi_lib._kc_": 1,
    "dmi_lib.core": 2,
    "dmi_lib.aggregation": 3,
    "dmi_lib.answers": 3,
    "dmi_lib.mechanisms": 3,
    "dmi_lib.kdmi": 3,
    "dmi_lib._kdmi_partitions": 3,
    "dmi_lib.tabular": 3,
    "dmi_lib.extras": 3,
    "dmi_lib.simulation": 4,
    "dmi_lib.extras.crowd_data": 4,
    "dmi_lib.datasets": 4,
    "dmi_book": 5,
}


def layer(mod: str) -> float | None:
    """The layer of ``mod``; a package face (its ``__init__``, which imports its modules)
    sits half a layer above the highest module inside it."""
    if mod in MODULES and MODULES[mod].name == "__init__.py":
        inside = [layer(m) for m in MODULES if m.startswith(mod + ".")]
        if inside and None not in inside:
            return max(inside) + 0.5
    prefixes = [p for p in LAYERS if mod.startswith(p)]
    return LAYERS[max(prefixes, key=len)] if prefixes else None


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


MODULES = {
    module_name(p): p
    for package in PACKAGES
    for p in sorted(package.rglob("*.py"))
    if "__pycache__" not in p.parts
}


def resolve(mod: str, node: ast.ImportFrom | ast.Import, is_package: bool) -> list[str]:
    """The modules of dmi_lib and dmi_book an import statement loads, a package's face
    (its ``__init__``) included: ``from . import x`` loads module ``x`` if there is one
    and the package face otherwise; ``import dmi_lib.core`` loads the face ``dmi_lib``
    too (and binds it)."""
    if isinstance(node, ast.Import):
        names = []
        for a in node.names:
            parts = a.name.split(".")
            names += [".".join(parts[: i + 1]) for i in range(len(parts))]
    else:
        base = mod.split(".") if is_package else mod.split(".")[:-1]
        if node.level:
            base = base[: len(base) - (node.level - 1)]
            prefix = ".".join(base + ([node.module] if node.module else []))
        else:
            prefix = node.module or ""
        # "from . import x" loads module x; "from .m import x" (x not a module) loads m.
        names = [f"{prefix}.{a.name}" for a in node.names]
        names = [n for n in names if n in MODULES] + (
            [prefix] if any(n not in MODULES for n in names) else []
        )
    return [n for n in dict.fromkeys(names) if n in MODULES]


def faces_above(mod: str) -> list[str]:
    """The package faces ``mod`` lives under (``dmi_lib``, ``dmi_lib.extras``, ...)."""
    parts = mod.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts)) if ".".join(parts[:i]) in MODULES]


def imports(mod: str, source: str | None = None) -> list[tuple[str, ast.AST, bool]]:
    """(target, node, inside_function) for every import in ``mod`` (its file, or
    ``source`` in its place)."""
    path = MODULES[mod]
    tree = ast.parse(path.read_text() if source is None else source)
    out = []

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef))
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                out.append((child, in_function))
            visit(child, inner)

    visit(tree, False)
    return [(t, n, f) for n, f in out for t in resolve(mod, n, path.name == "__init__.py")] + [
        (None, n, f) for n, f in out
    ]


def face_imports(mod: str, source: str | None = None) -> list[str]:
    """Imports in ``mod`` of a package face it lives under (``dmi_lib`` for every
    library module): relative, absolute, ``import dmi_lib``, at the top or inside a
    function.  The face imports every module, so a module importing it closes a cycle
    (and, loaded while the face is half done, finds names missing)."""
    faces = faces_above(mod)
    return [
        f"line {node.lineno}: {target}" + (" (inside a function)" if in_function else "")
        for target, node, in_function in imports(mod, source)
        if target in faces
    ]


@functools.cache
def graph() -> dict[str, set[str]]:
    g = {}
    for mod in MODULES:
        # A package face imports its children: those edges count, so that a child
        # importing the face is a cycle.
        g[mod] = {t for t, _, _ in imports(mod) if t is not None and t != mod}
    return g


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    state, stack = {}, []

    def dfs(u):
        state[u] = 1
        stack.append(u)
        for v in sorted(g[u]):
            if state.get(v) == 1:
                return stack[stack.index(v) :] + [v]
            if v not in state and (c := dfs(v)):
                return c
        state[u] = 2
        stack.pop()
        return None

    for u in sorted(g):
        if u not in state and (c := dfs(u)):
            return c
    return None


def test_no_import_cycles():
    assert find_cycle(graph()) is None, f"import cycle: {' -> '.join(find_cycle(graph()))}"


def test_the_cycle_check_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("mod", list(MODULES))
def test_every_import_goes_down_the_layers(mod):
    assert layer(mod) is not None, f"{mod} has no layer in LAYERS"
    up = sorted(t for t in graph()[mod] if (layer(t) or 0) > layer(mod))
    assert not up, f"{mod} (layer {layer(mod)}) imports from layers above it: {up}"


@pytest.mark.parametrize("mod", [m for m in MODULES if m.startswith("dmi_lib.")])
def test_no_library_module_imports_the_package_face(mod):
    found = face_imports(mod)
    assert not found, f"{mod} imports the package face: {found}"


#: One import of the package face of each kind, as a library module could write it.
FACE_IMPORTS = {
    "relative": "from .. import dmi_cluster\n",
    "absolute": "from dmi_lib import dmi_cluster\n",
    "package face": "import dmi_lib\n\nx = dmi_lib.dmi_cluster\n",
    "submodule, binding the face": "import dmi_lib.core\n",
    "mixed with a module": "from .. import core, dmi_cluster\n",
    "inside a function": "def f():\n    from dmi_lib import aggregate\n\n    return aggregate\n",
}


@pytest.mark.parametrize("kind", FACE_IMPORTS)
def test_the_face_check_sees_each_kind_of_import(kind):
    source = MODULES["dmi_lib.extras.practical"].read_text() + "\n" + FACE_IMPORTS[kind]
    assert "dmi_lib" in " ".join(face_imports("dmi_lib.extras.practical", source))
    # a module's own package face counts too
    if kind == "relative":
        assert face_imports("dmi_lib.extras.beyond", "from . import nothing_here\n")
    # the sibling and library modules are not faces
    assert not face_imports("dmi_lib.extras.practical", "from . import beyond\n")
    assert not face_imports("dmi_lib.extras.practical", "from ..core import dmi_cluster\n")


def test_the_layer_check_sees_an_upward_import():
    assert layer("dmi_lib") == 5.0 and layer("dmi_lib.extras") == 4.5
    assert layer("dmi_lib.core") > layer("dmi_lib.exact") > layer("dmi_lib.problem")
    assert layer("dmi_lib._kc_engine") == layer("dmi_lib.kcofactors")
    assert layer("dmi_book.plotting.geometry") == 5 and layer("dmi_lib.nowhere") is None


@pytest.mark.parametrize("mod", [m for m in MODULES if not m.startswith(TOP)])
def test_the_library_never_imports_the_book_package(mod):
    bad = sorted({t for t, _, _ in imports(mod) if t and t.startswith(TOP)})
    assert not bad, f"{mod} imports {bad}"


@pytest.mark.parametrize("mod", list(MODULES))
def test_imports_inside_functions_are_optional_dependencies_only(mod):
    hidden = []
    found = imports(mod)
    lazy = {id(node) for target, node, _ in found if target in LAZY_OK_MODULES}
    for target, node, in_function in found:
        if not in_function or target is not None or id(node) in lazy:
            continue
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [("." * node.level) + (node.module or "")]
        )
        hidden += [f"line {node.lineno}: {n}" for n in names if not n.split(".")[0] in LAZY_OK]
    assert not hidden, f"{mod} imports inside functions: {hidden}"


@pytest.mark.parametrize("mod", LAZY_OK_MODULES)
def test_a_module_imported_lazily_imports_an_optional_dependency_at_its_top(mod):
    top = [node for target, node, in_function in imports(mod) if target is None and not in_function]
    names = [a.name for n in top if isinstance(n, ast.Import) for a in n.names] + [
        n.module for n in top if isinstance(n, ast.ImportFrom) and n.module and not n.level
    ]
    assert any(name.split(".")[0] in LAZY_OK for name in names), f"{mod} imports {names}"


def code_lines(lines: list[str], node: ast.AST) -> int:
    doc = set()
    body = getattr(node, "body", [])
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        doc = set(range(body[0].lineno, body[0].end_lineno + 1))
    return sum(
        1
        for i in range(node.lineno, node.end_lineno + 1)
        if i not in doc and lines[i - 1].strip() and not lines[i - 1].strip().startswith("#")
    )


def long_functions(path: Path) -> list[str]:
    lines = path.read_text().splitlines()
    out = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            said = lines[first - 2].strip().lower().startswith(LONG_MARK) if first > 1 else False
            n = code_lines(lines, node)
            if n > MAX_FUNCTION_LINES and not said:
                out.append(f"{node.name} ({n} lines)")
    return out


@pytest.mark.parametrize("mod", list(MODULES))
def test_modules_and_functions_stay_small(mod):
    path = MODULES[mod]
    n = len(path.read_text().splitlines())
    assert n <= MAX_MODULE_LINES, f"{mod} has {n} lines (limit {MAX_MODULE_LINES})"
    assert not long_functions(path), (
        f"{mod}: functions over {MAX_FUNCTION_LINES} lines of code with no "
        f"'{LONG_MARK} why' comment above them: {long_functions(path)}"
    )


@pytest.mark.parametrize("mod", list(MODULES))
def test_no_module_serves_names_from_elsewhere(mod):
    """No compatibility layer: no module-level ``__getattr__`` (which could hand out
    names that live in another module) anywhere in dmi_lib or dmi_book."""
    tree = ast.parse(MODULES[mod].read_text())
    served = [
        node.lineno
        for node in tree.body
        if (isinstance(node, ast.FunctionDef) and node.name == "__getattr__")
        or (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__getattr__" for t in node.targets)
        )
    ]
    assert not served, f"{mod} defines a module __getattr__ at line(s) {served}"


@pytest.mark.parametrize(
    "old, name",
    [
        ("dmi_lib.mechanisms", "kdmi_mechanism"),
        ("dmi_lib.extras.practical", "accuracy_study"),
        ("dmi_lib.extras.beyond", "kernel_study"),
        ("dmi_book.plotting", "crowd_scenario"),
        ("dmi_book.plotting.mechanism_plots", "same_partition_fraction"),
    ],
)
def test_names_that_moved_are_gone_from_their_old_modules(old, name):
    import importlib

    assert not hasattr(importlib.import_module(old), name)
