"""The op tables: a `Dialect` declared in Python (its ops' OpDefs, its IRDL), and `MLA`, the
`mla` dialect every op module adds its ops to. This module imports no op module: the op modules
import it (`from .registry import MLA`), and dialect/dialect.py loads them all."""
from __future__ import annotations

import sys

from mlir import ir
from mlir.dialects import irdl

from .opdef import OpDef


class Dialect:
    def __init__(self, name: str, attribute_irdl: str = ""):
        self.name = name
        self.ops: dict[str, OpDef] = {}
        self._attribute_irdl = attribute_irdl

    def add(self, opdef: OpDef) -> OpDef:
        # the module declaring it (an op module, or a helper of one): the dialect's order
        opdef.module = sys._getframe(1).f_globals.get("__name__", "")
        if opdef.dialect_name != self.name:
            raise ValueError(f"{opdef.name} does not belong to dialect {self.name}")
        if opdef.name in self.ops:
            raise ValueError(f"{opdef.name} is declared twice")
        self.ops[opdef.name] = opdef
        return opdef

    def order(self, modules):
        """Put the ops in the order of the modules (names) that declare them, each module's in
        declaration order: the dialect's order does not depend on which module was imported
        first."""
        rank = lambda opdef: next((i for i, m in enumerate(modules)  # noqa: E731
                                   if opdef.module == m or opdef.module.startswith(m + ".")), len(modules))
        self.ops = dict(sorted(self.ops.items(), key=lambda item: rank(item[1])))

    def irdl(self) -> str:
        """The dialect's IRDL text (made once per set and order of ops: every new context loads it)."""
        names = tuple(self.ops)
        cached = getattr(self, "_irdl_text", None)
        if cached is not None and cached[0] == names:
            return cached[1]
        body = [self._attribute_irdl] if self._attribute_irdl else []
        body += [op.irdl() for op in self.ops.values()]
        self._irdl_text = (names, f"irdl.dialect @{self.name} {{\n" + "\n".join(body) + "\n}\n")
        return self._irdl_text[1]

    def load(self, context: ir.Context):
        """Load this dialect's IRDL into `context`, once."""
        register_python_namespace(self.name)
        if not self.ops or context.is_registered_operation(next(iter(self.ops))):
            return
        with context, ir.Location.unknown():
            irdl.load_dialects(ir.Module.parse(self.irdl()))


_registered: set = set()


def register_python_namespace(name: str):
    """Give the bindings an (empty) Python module for the dialect. Without one, every handle to
    one of its ops (`value.owner`) makes them try, and fail, to import mlir.dialects.<name>; that
    failed import was most of a pass's time."""
    if name in _registered:
        return
    import sys
    import types
    sys.modules.setdefault(f"mlir.dialects.{name}", types.ModuleType(
        f"mlir.dialects.{name}", f"the {name} dialect: IRDL, declared by ascend_mla (no Python op classes)"))
    _registered.add(name)


MLA = Dialect("mla", attribute_irdl="""\
  // #mla.format<"FRACTAL_NZ">: the storage format of a tensor, as its encoding.
  irdl.attribute @format {
    %0 = irdl.base "#builtin.string"
    irdl.parameters(value: %0)
  }""")
