"""The stages import in one direction only: dialect < passes < lowering < runtime < API
(ascend_mla/: compile, eager, models, tools) and frontend, and no modules of the package import
each other in a circle. Every import of every module of the package -- at module level and
inside functions -- is read with `ast`; one that names a higher layer fails the test, naming the
file, the line and the module, and so does each import cycle, naming its modules and the lines
that tie them. (Importing a module runs its packages' __init__ first: an import of a.b.c depends
on a.b too, except where a.b is the importer's own package -- a child may read its package.)"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# folder -> (its import package, its layer); the API package is every module of ascend_mla/
# that is not one of the stages (the stages are mapped into it by pyproject.toml).
FOLDERS = {"dialect": ("ascend_mla.dialect", 0), "passes": ("ascend_mla.passes", 1),
           "lowering": ("ascend_mla.lowering", 2), "runtime": ("ascend_mla.runtime", 3),
           "ascend_mla": ("ascend_mla", 4), "frontend": ("ascend_mla.frontend", 4)}
STAGES = {"dialect", "passes", "lowering", "runtime", "frontend"}
NAMES = {0: "dialect", 1: "passes", 2: "lowering", 3: "runtime", 4: "API"}


def layer_of(module: str):
    """The layer of an absolute module name of the package (None: not the package's)."""
    parts = module.split(".")
    if parts[0] != "ascend_mla":
        return None
    if len(parts) > 1 and parts[1] in STAGES:
        return FOLDERS[parts[1]][1]
    return 4


def module_name(path: Path) -> tuple[str, str]:
    """(the module's absolute name, the package its relative imports start from)."""
    folder, *rest = path.relative_to(ROOT).with_suffix("").parts
    package = FOLDERS[folder][0]
    if rest[-1] == "__init__":
        name = ".".join([package, *rest[:-1]])
        return name, name
    name = ".".join([package, *rest])
    return name, name.rsplit(".", 1)[0]


def imported_modules(tree: ast.AST, package: str):
    """(line, absolute module name) of every import in the tree, nested ones included. `from
    x import y` yields x and x.y (y may be a submodule)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module
            yield node.lineno, target
            for alias in node.names:
                yield node.lineno, f"{target}.{alias.name}"


def sources():
    for folder in FOLDERS:
        yield from sorted((ROOT / folder).rglob("*.py"))


def upward_imports() -> list[str]:
    found = []
    for path in sources():
        name, package = module_name(path)
        own = layer_of(name)
        for line, target in imported_modules(ast.parse(path.read_text(), str(path)), package):
            layer = layer_of(target)
            if layer is not None and layer > own:
                found.append(f"{path.relative_to(ROOT)}:{line}: {NAMES[own]} imports {target} ({NAMES[layer]})")
    return found


def test_no_import_goes_to_a_higher_layer():
    assert upward_imports() == []


# --- import cycles --------------------------------------------------------------------------------

def import_graph(modules: dict) -> dict:
    """{module: {imported module: [where, ...]}} among `modules` ({absolute name: (source text,
    the package its relative imports start from, where-prefix)}): `from x import y` is an edge to
    x.y when that is one of the modules, else to x; each import is an edge to the packages
    above its target too (their __init__ runs first), except the importer's own packages."""
    graph = {}
    for name, (text, package, where) in modules.items():
        own = {".".join(name.split(".")[:i]) for i in range(1, name.count(".") + 1)}
        edges = graph.setdefault(name, {})
        for line, target in imported_modules(ast.parse(text), package):
            while target not in modules and "." in target:   # a name imported from a module
                target = target.rsplit(".", 1)[0]
            if target not in modules:
                continue
            chain = [target] + [".".join(target.split(".")[:i]) for i in range(1, target.count(".") + 1)]
            for t in chain:
                places = edges.setdefault(t, []) if t in modules and t != name and t not in own else None
                if places is not None and f"{where}:{line}" not in places:
                    places.append(f"{where}:{line}")
    return graph


def cycles(graph: dict) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on_stack, found, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, {}):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def describe(graph: dict, component: list) -> str:
    inside = set(component)
    ties = [f"  {a} -> {b} ({', '.join(where)})" for a in component for b, where in sorted(graph[a].items())
            if b in inside]
    return f"{len(component)} modules import each other:\n" + "\n".join(ties)


def package_modules() -> dict:
    out = {}
    for path in sources():
        name, package = module_name(path)
        out[name] = (path.read_text(), package, str(path.relative_to(ROOT)))
    return out


def test_no_import_cycle():
    graph = import_graph(package_modules())
    assert [describe(graph, c) for c in cycles(graph)] == []


PLANTED = {  # name: (source, package)
    "p": ("from . import a", "p"),
    "p.a": ("from . import b\nfrom . import helper", "p"),
    "p.b": ("def late():\n    from .a import thing", "p"),          # inside a function: still a cycle
    "p.helper": ("import p  # the child reads its own package: not an edge", "p"),
    "p.c": ("import p.d", "p"),
    "p.d": ("x = 1", "p"),
}


def test_the_scan_finds_a_planted_cycle_and_nothing_else():
    graph = import_graph({n: (text, pkg, n) for n, (text, pkg) in PLANTED.items()})
    assert cycles(graph) == [["p.a", "p.b"]]
    assert "p.b -> p.a (p.b:2)" in describe(graph, cycles(graph)[0])
    # without the late import, no cycle: a child reading its package, a package importing its
    # children, a plain chain
    acyclic = dict(PLANTED, **{"p.b": ("def late():\n    pass", "p")})
    assert cycles(import_graph({n: (t, pkg, n) for n, (t, pkg) in acyclic.items()})) == []


@pytest.mark.parametrize("source, package, expected", [
    ("from ..runtime.backend import run_kernel", "ascend_mla.passes", "ascend_mla.runtime.backend"),
    ("def f():\n    from ..lowering import lower_to_aclnn", "ascend_mla.passes", "ascend_mla.lowering.lower_to_aclnn"),
    ("import ascend_mla.compiler", "ascend_mla.dialect", "ascend_mla.compiler"),
    ("from ...compiler import compile", "ascend_mla.runtime.kernels", "ascend_mla.compiler"),
])
def test_the_scan_sees_upward_imports(source, package, expected):
    # The scan resolves relative imports and reads function bodies: a planted upward import
    # from a lower layer is found (so an empty result above means something).
    targets = {t for _, t in imported_modules(ast.parse(source), package)}
    assert expected in targets
    assert max(layer_of(t) for t in targets) > layer_of(package)


def test_every_layer_is_scanned():
    scanned = {module_name(p)[0].split(".")[1] if "." in module_name(p)[0] else "ascend_mla"
               for p in sources()}
    assert {"dialect", "passes", "lowering", "runtime", "frontend", "tools", "models"} <= scanned


# --- IR is made one way --------------------------------------------------------------------------
# Text is an input format: it is parsed where a user hands text in (compile(), the tools) and the
# dialects' IRDL is loaded from its text; everything else builds IR with dialect/builder.py.
PARSERS = {"dialect/diagnostics.py": "parse_module itself", "dialect/registry.py": "a dialect's IRDL",
           "dialect/aclnn.py": "the aclnn dialect's IRDL", "ascend_mla/compiler.py": "compile(text)",
           "ascend_mla/tools/mla_opt.py": "mla-opt's input", "ascend_mla/tools/mla_translate.py": "mla-translate's input",
           "runtime/kernels/jit.py": "a CPU kernel's own MLIR source, compiled by the execution engine"}


def parse_calls(tree: ast.AST) -> list[int]:
    """Lines of the calls that parse IR text: ir.Module.parse(...), parse_module(...),
    parse_and_transform(...)."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            owner = f.value.attr if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute) else \
                getattr(getattr(f, "value", None), "id", "")
            if name in ("parse_module", "parse_and_transform") or (name == "parse" and owner == "Module"):
                lines.append(node.lineno)
    return lines


def test_ir_text_is_parsed_only_where_a_user_hands_it_in():
    found = [f"{path.relative_to(ROOT)}:{line}" for path in sources()
             for line in parse_calls(ast.parse(path.read_text())) if str(path.relative_to(ROOT)) not in PARSERS]
    assert found == []


def test_the_parse_scan_sees_a_planted_round_trip():
    planted = "def f(module):\n    from mlir import ir\n    return ir.Module.parse(str(module))\n"
    assert parse_calls(ast.parse(planted)) == [3]
    assert parse_calls(ast.parse("x = parse_and_transform(text, 'verify')")) == [1]
