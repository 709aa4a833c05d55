"""Which earlier cells a code cell needs, so that live code can run just those.

A chapter turns live by running what its first widget needs instead of every cell above
it.  For that, each cell lists the earlier cells it depends on, computed from the names
the cells use (Python's ``ast``; IPython magics are translated first):

* a name bound by an ``import`` (``np``, ``plt``, ``interact``) makes a cell depend on
  the cells that import or rebind it, not on every cell that merely uses it;
* any other global name makes a cell depend on **every** earlier cell that reads or binds
  it -- a read can mutate (``rng.normal()`` advances ``rng``), so the cells that touch a
  name keep their notebook order and every value is the one the notebook computes;
* names local to a function, lambda or comprehension are not globals; the globals a
  function's body reads count as read by the cell that defines it.

Dependencies are closed over shared names: a cell needs every earlier cell that touches
a name it touches; each of those needs the cells before it that touch its names; a
function's body reads its globals when it is called, so those count at the call.  Run a cell's dependencies in page order and then
the cell, and the cell sees what it sees in the notebook -- except for state that no
name shows (a global random seed, matplotlib's current figure), which the chapters do not
share between cells.  A cell that cannot be parsed (or follows one) needs every earlier
cell.
"""

from __future__ import annotations

import ast

#: Call names that make a cell show a live widget.
WIDGET_CALLS = {"interact", "interactive", "interact_manual"}


def _python(source: str) -> str:
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # pragma: no cover - the book's kernel has IPython
        return source
    return TransformerManager().transform_cell(source)


class _Names(ast.NodeVisitor):
    """Global names a cell reads and binds; names its imports bind; widget calls."""

    def __init__(self):
        self.used: set[str] = set()
        self.bound: set[str] = set()
        self.imported: set[str] = set()
        self.late: set[str] = set()  # globals read in function bodies: when called
        self.widget = False
        self._locals: list[set[str]] = []

    def _name(self, name: str, store: bool):
        if any(name in scope for scope in self._locals):
            return
        (self.bound if store else self.used).add(name)
        if self._locals and not store:
            self.late.add(name)

    def visit_Name(self, node: ast.Name):
        self._name(node.id, isinstance(node.ctx, (ast.Store, ast.Del)))

    def visit_Import(self, node):
        for alias in node.names:
            name = alias.asname or alias.name.split(".")[0]
            if not self._locals:
                self.imported.add(name)
            self._name(name, True)

    visit_ImportFrom = visit_Import

    def visit_Call(self, node: ast.Call):
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name in WIDGET_CALLS:
            self.widget = True
        self.generic_visit(node)

    def _scope(self, node, args: ast.arguments | None, body):
        local = set()
        if args is not None:
            for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if a is not None:
                    local.add(a.arg)
        declared = set()
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Global, ast.Nonlocal)):
                declared.update(sub.names)
            elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                local.add(sub.id)
            elif isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if sub is not node:
                    local.add(sub.name)
        self._locals.append(local - declared)
        for item in body:
            self.visit(item)
        self._locals.pop()

    def _function(self, node):
        for d in [*node.decorator_list, *node.args.defaults, *node.args.kw_defaults]:
            if d is not None:
                self.visit(d)
        self._name(node.name, True)
        self._scope(node, node.args, node.body)

    visit_FunctionDef = visit_AsyncFunctionDef = _function

    def visit_Lambda(self, node: ast.Lambda):
        for d in [*node.args.defaults, *node.args.kw_defaults]:
            if d is not None:
                self.visit(d)
        self._scope(node, node.args, [node.body])

    def _comprehension(self, node):
        # the first iterable is evaluated in the enclosing scope
        self.visit(node.generators[0].iter)
        parts = [node.elt] if hasattr(node, "elt") else [node.key, node.value]
        rest = [node.generators[0].target, *node.generators[0].ifs]
        for g in node.generators[1:]:
            rest += [g.iter, g.target, *g.ifs]
        self._scope(node, None, [*rest, *parts])

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension


def cell_names(source: str) -> _Names | None:
    """The names of one cell, or None if it cannot be parsed."""
    try:
        tree = ast.parse(_python(source))
    except SyntaxError:
        return None
    names = _Names()
    names.visit(tree)
    return names


def dependencies(sources: list[str]) -> list[dict]:
    """For each cell (in page order): ``{"needs": [earlier indices], "widget": bool}``.

    ``needs`` is closed: every earlier cell that touches a name the cell touches, and,
    for each of those, the cells before it that touch its names -- and, for a function
    it defines, the cells before the call that touch the globals of the function's body.
    A cell that calls a function touches what the function's body touches.  Run those
    cells in page order, then the cell.
    """
    parsed = [cell_names(s) for s in sources]
    touched = _touched(parsed)
    return [
        {"needs": _closure(parsed, touched, i), "widget": bool(names and names.widget)}
        for i, names in enumerate(parsed)
    ]


def _touched(parsed: list[_Names | None]) -> list[set[str]]:
    """The names each cell touches, with the globals of the functions it calls (the
    bodies of functions defined in earlier cells, and of the functions those call)."""
    out = []
    for c, names in enumerate(parsed):
        if names is None:
            out.append(set())
            continue
        touched = names.used | names.bound
        frontier = set(names.used)
        while frontier:
            reached = set()
            for k in range(c):
                other = parsed[k]
                if other is not None and other.bound & frontier:
                    reached |= other.late
            frontier = reached - touched
            touched = touched | reached
        out.append(touched)
    return out


def _closure(parsed: list[_Names | None], touched: list[set[str]], i: int) -> list[int]:
    if parsed[i] is None or any(c is None for c in parsed[:i]):
        return list(range(i))  # a cell that does not parse may touch anything
    needs: set[int] = set()
    # name -> the latest moment (cell index) at which its value matters
    when: dict[str, int] = {}
    todo = [(n, i) for n in touched[i]]
    while todo:
        name, t = todo.pop()
        if when.get(name, -1) >= t:
            continue
        when[name] = t
        data = _data_name(name, parsed[: i + 1])
        for k in range(t):
            other = parsed[k]
            if name in other.bound or (data and name in touched[k]):
                needs.add(k)
                # what cell k read when it ran; what its functions read when called
                todo += [(n, k) for n in touched[k]]
                todo += [(n, t) for n in other.late]
    return sorted(needs)


def _data_name(name: str, cells: list[_Names | None]) -> bool:
    """Whether some cell binds ``name`` other than by an import: then every use of it
    keeps its order (a use can mutate it).  Imported and built-in names do not."""
    return any(c is not None and name in c.bound and name not in c.imported for c in cells)
