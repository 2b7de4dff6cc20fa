"""The stages import in one direction only: dialect < passes < lowering < runtime < API
(ascend_mla/: compile, eager, models, tools) and frontend. Every import of every module of the
package -- at module level and inside functions -- is read with `ast`; one that names a higher
layer fails the test, naming the file, the line and the module."""
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
