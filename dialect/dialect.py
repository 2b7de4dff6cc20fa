"""The `mla` dialect: its op table, its IRDL module, the context factory and IR verification."""
from __future__ import annotations

from typing import Optional

from mlir import ir
from mlir.dialects import irdl

from .diagnostics import emit, unescape
from .opdef import OpDef, Verdict


class Dialect:
    def __init__(self, name: str, attribute_irdl: str = ""):
        self.name = name
        self.ops: dict[str, OpDef] = {}
        self._attribute_irdl = attribute_irdl

    def add(self, opdef: OpDef) -> OpDef:
        if opdef.dialect_name != self.name:
            raise ValueError(f"{opdef.name} does not belong to dialect {self.name}")
        if opdef.name in self.ops:
            raise ValueError(f"{opdef.name} is declared twice")
        self.ops[opdef.name] = opdef
        return opdef

    def irdl(self) -> str:
        body = [self._attribute_irdl] if self._attribute_irdl else []
        body += [op.irdl() for op in self.ops.values()]
        return f"irdl.dialect @{self.name} {{\n" + "\n".join(body) + "\n}\n"

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


def irdl_module_text() -> str:
    """The IRDL of every dialect this package defines (what `mla-opt --emit-irdl` prints)."""
    _load_op_modules()
    return MLA.irdl()


_loaded = False


def load_op_definitions():
    """Declare every op of the package in its dialect (import the op modules), once."""
    _load_op_modules()


def _load_op_modules():
    # Importing an op module declares its ops in MLA. One line per op module.
    global _loaded
    if _loaded:
        return
    from . import primitive  # noqa: F401
    from . import nsa  # noqa: F401
    from . import prolog  # noqa: F401
    from . import fia  # noqa: F401
    from . import collective  # noqa: F401
    from . import decoder  # noqa: F401
    from . import moe_distribute  # noqa: F401
    _loaded = True


def load_dialects(context: ir.Context):
    """Load the mla dialect into `context`, once."""
    _load_op_modules()
    MLA.load(context)
    from .aclnn import ACLNN   # the kernel-call dialect (lowered IR parses anywhere)
    ACLNN.load(context)


def make_context() -> ir.Context:
    """A new MLIR context with the upstream dialects and `mla` loaded."""
    context = ir.Context()
    load_dialects(context)
    return context


_EXTRA_DIALECTS: list[Dialect] = []   # e.g. test dialects, verified like mla


def register_dialect(dialect: Dialect):
    """Make verify_ops know another Python-declared dialect (load it with dialect.load)."""
    if dialect not in _EXTRA_DIALECTS:
        _EXTRA_DIALECTS.append(dialect)


def opdef_of(op) -> Optional[OpDef]:
    _load_op_modules()
    name = op.operation.name
    for dialect in (MLA, *_EXTRA_DIALECTS):
        if name in dialect.ops:
            return dialect.ops[name]
    return None


def verify_ops(root, *, profile: Optional[str] = None) -> bool:
    """Run the Python verifier on every mla op under `root` (inclusive).

    Each failed rule is an MLIR error diagnostic at the op's location; advisory findings are
    warnings. Returns True when no error was found.
    """
    ok = True

    def visit(op):
        nonlocal ok
        opdef = opdef_of(op)
        if opdef is not None:
            verdict: Verdict = opdef.verify(op, profile=profile)
            for finding in verdict.errors:
                op.location.emit_error(finding.text(opdef.name))
                ok = False
            for finding in verdict.warnings:
                emit(op.location, finding.severity, finding.text(opdef.name))
        return ir.WalkResult.ADVANCE

    root.operation.walk(visit)
    return ok


def attributes_of(op) -> dict:
    """An mla op's attributes, the declared defaults applied."""
    return opdef_of(op).snapshot(op).attributes


# --- symbols -------------------------------------------------------------------------------------

def symbol_text(attr) -> str:
    """The name a `sym_name` (or any StringAttr) or a symbol reference (FlatSymbolRefAttr) holds,
    with bytes that are not UTF-8 as U+FFFD: @"\\FF" is legal IR, but the bindings' `.value` cannot
    convert it (nanobind's "conversion error")."""
    if isinstance(attr, ir.StringAttr):
        return bytes(attr.value_bytes).decode("utf-8", "replace")
    try:
        return attr.value
    except RuntimeError:        # no value_bytes here: its printed form, @"..." with \\XX escapes
        return unescape(str(attr)[2:-1].encode()).decode("utf-8", "replace")


# --- function arguments: the project's argument attributes (mla.name, mla.state, mla.buffer) -----

def argument_attributes(fn) -> list:
    """The DictAttr of each argument of func.func `fn` (empty ones when it has none)."""
    if "arg_attrs" in fn.attributes:
        return [ir.DictAttr(a) for a in fn.attributes["arg_attrs"]]
    return [ir.DictAttr.get({}) for _ in fn.regions[0].blocks[0].arguments]


def argument_name(fn, index: int) -> str:
    """The argument's `mla.name`, else arg<index>."""
    attrs = argument_attributes(fn)[index]
    if "mla.name" not in attrs:
        return f"arg{index}"
    name = attrs["mla.name"]
    if not isinstance(name, ir.StringAttr):
        from .errors import VerificationError
        raise VerificationError(f"argument #{index}: mla.name must be a string attribute, got {name}")
    return ir.StringAttr(name).value
