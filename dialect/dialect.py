"""The `mla` dialect: its op table, its IRDL module, the context factory and IR verification."""
from __future__ import annotations

from typing import Optional

from mlir import ir

from .aclnn import ACLNN
from .diagnostics import emit, symbol_text  # noqa: F401 (symbol_text: re-exported, read everywhere)
from .opdef import OpDef, Verdict
from .registry import MLA, Dialect, register_python_namespace  # noqa: F401 (re-exported)
from .traits import CONSTANT_LIKE, PURE, RESHAPE, Trait, upstream_traits


def irdl_module_text() -> str:
    """The IRDL of every dialect this package defines (what `mla-opt --emit-irdl` prints)."""
    _load_op_modules()
    return MLA.irdl()


_loaded = False


def load_op_definitions():
    """Declare every op of the package in its dialect (import the op modules), once."""
    _load_op_modules()


def load_functions():
    """Declare every aclnn function (dialect/aclnn_functions.py) in ACLNN, once."""
    _load_op_modules()


def _load_op_modules():
    # Importing an op module declares its ops in MLA (it imports registry.MLA, never this
    # module); aclnn_functions declares the aclnn functions. One line per module.
    global _loaded
    if _loaded:
        return
    # isort: off
    from . import primitive, prolog, nsa, fia, collective, decoder, dsa, moe_distribute
    from . import aclnn_functions  # noqa: F401
    # isort: on
    MLA.order([m.__name__ for m in (primitive, prolog, nsa, fia, collective, decoder, dsa, moe_distribute)])
    _loaded = True


def load_dialects(context: ir.Context):
    """Load the mla dialect and the aclnn kernel-call dialect into `context`, once."""
    _load_op_modules()
    MLA.load(context)
    ACLNN.load(context)          # the kernel-call dialect (lowered IR parses anywhere)


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


def traits_of(op) -> frozenset:
    """The traits of an op (dialect/traits.py): its OpDef's, or an upstream op's declared ones;
    none for an op declared nowhere (then nothing may be assumed about it)."""
    opdef = opdef_of(op)
    if opdef is not None:
        return opdef.traits
    return upstream_traits(op.operation.name) or frozenset()


def has_trait(op, trait: Trait) -> bool:
    return trait in traits_of(op)


def is_pure(op) -> bool:
    """Computes its results only: erasable when unused, evaluable when its operands are known."""
    return PURE in traits_of(op)


def is_constant_like(op) -> bool:
    return CONSTANT_LIKE in traits_of(op)


def is_reshape(op) -> bool:
    return RESHAPE in traits_of(op)


def verify_ops(root, *, profile: Optional[str] = None) -> bool:
    """Run the Python verifier on every mla op under `root` (inclusive).

    Each failed rule is an MLIR error diagnostic at the op's location; advisory findings are
    warnings. Returns True when no error was found. Without `profile`, a module's
    `mla.profile` attribute (e.g. `module attributes {mla.profile = "ASCEND950"}`: the product
    or release the IR targets) names it; an op that has no such profile uses its default.
    """
    if profile is None:
        profile = module_profile(root)
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


PROFILE_ATTRIBUTE = "mla.profile"


def module_profile(root) -> Optional[str]:
    """The `mla.profile` string attribute of `root` (a builtin.module), or None."""
    attrs = root.operation.attributes
    if PROFILE_ATTRIBUTE in attrs and isinstance(attrs[PROFILE_ATTRIBUTE], ir.StringAttr):
        return ir.StringAttr(attrs[PROFILE_ATTRIBUTE]).value
    return None


def attributes_of(op) -> dict:
    """An mla op's attributes, the declared defaults applied."""
    return opdef_of(op).snapshot(op).attributes


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
