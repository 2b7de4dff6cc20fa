"""Eager execution of one mla op: the machinery behind `ascend_mla.ops`.

A call builds a one-op `mla` module from the arguments' types, verifies it (the same rules and
messages as in IR), lowers it to aclnn kernel calls (lower-to-aclnn), checks the rules that need
tensor data, then runs the lowered function on the selected backend (runtime/executor.py: the
path compiled programs take too). Nothing is written before every check has passed, so a
rejected call leaves the caches untouched. Verified signatures are remembered with their lowered
function, so a decode loop pays for verification and lowering once.
"""
from __future__ import annotations

import contextlib
import contextvars
import threading
import warnings
from typing import Any, Mapping, Optional

from mlir import ir

from .dialect.builder import FunctionBuilder
from .dialect.diagnostics import DiagnosticCollector, record_mlir_error
from .dialect.dialect import make_context, verify_ops
from .dialect.opdef import VARIADIC, KindError, OpDef
from .dialect.types import TensorInfo
from .errors import VerificationError, VerificationWarning
from .passes.registry import run_pipeline
from .runtime import interop
from .runtime.executor import load as load_lowered
from .runtime.formats import describe_value

_verified: dict = {}   # signature -> (inferred result infos, LoweredFunction, its module)
_context: Optional[ir.Context] = None
_lock = threading.RLock()


def _shared_context() -> ir.Context:
    global _context
    if _context is None:
        _context = make_context()
    return _context


_profile_override: contextvars.ContextVar = contextvars.ContextVar("ascend_mla_eager_profile", default=None)


@contextlib.contextmanager
def profile(name: str):
    """Check the eager calls made inside with the profile `name` (a product or release, e.g.
    "ASCEND950", "CANN2512") wherever the called op has it; ops without it keep their own.

        with ascend_mla.eager.profile("ASCEND950"):
            out, _, _ = ascend_mla.ops.npu_sparse_flash_attention(..., sinks=sinks)
    """
    token = _profile_override.set(name)
    try:
        yield
    finally:
        _profile_override.reset(token)


def _chosen_profile(opdef: OpDef, profile: Optional[str]) -> Optional[str]:
    override = _profile_override.get()
    return override if override is not None and override in opdef.profiles else profile


def tensor_info(param: str, value) -> TensorInfo:
    """The TensorInfo of a tensor argument; VerificationError [ARG-002] for anything else."""
    try:
        return describe_value(param, value)
    except KindError as e:
        raise VerificationError(e.text(), [e.finding()]) from None


def call(opdef: OpDef, operands: Mapping[str, Any], attributes: Mapping[str, Any], *,
         profile: Optional[str] = None, api_name: str = ""):
    """Verify and run `opdef` on the given arguments; returns its results as a tuple."""
    lowered, inputs, back_to_torch = _checked_call(opdef, operands, attributes,
                                                   _chosen_profile(opdef, profile))
    # The data rules ran above, on the host values: the executor need not check them again.
    outputs = lowered(inputs, checked=False)
    # In-out buffers: hand back the caller's own object (its memory holds the update).
    final = []
    for name, out in zip(opdef.result_names, outputs):
        if name in opdef.inplace:
            final.append(operands[opdef.inplace[name]])
        else:
            final.append(back_to_torch(out))
    return tuple(final)


def workspace_size(opdef: OpDef, operands: Mapping[str, Any], attributes: Mapping[str, Any], *,
                   profile: Optional[str] = None) -> int:
    """The workspace bytes a call of `opdef` with these arguments asks for: every check of
    `call`, then the lowered function's phase one (GetWorkspaceSize) on the selected backend,
    nothing launched (0 on the CPU backend, whose kernels need none)."""
    lowered, inputs, _ = _checked_call(opdef, operands, attributes, _chosen_profile(opdef, profile))
    return lowered.workspace_size(inputs)


def _checked_call(opdef, operands, attributes, profile):
    """The call's lowered function and its inputs, after every rule (argument kinds, static
    rules, the one-op module as IR, data rules)."""
    try:   # the kinds of the arguments (ARG-nnn), before any rule reads them
        arrays, back_to_torch = interop.to_numpy_arguments(operands, set(opdef.inplace.values()))
        infos = {}
        for spec in opdef.operands:
            value = arrays.get(spec.name)
            if spec.kind == VARIADIC:
                infos[spec.name] = [describe_value(f"{spec.name}[{i}]", v) for i, v in enumerate(value or [])]
            elif value is not None:
                infos[spec.name] = describe_value(spec.name, value)
        attrs = _host_parameters(opdef, attributes)
    except KindError as e:
        raise _error(opdef, [e.finding()]) from None
    snapshot = opdef.snapshot_from_parts(infos, attrs)
    verdict = opdef.check_arguments(snapshot.with_values(arrays), profile=profile)   # (a strided array: PV3-17)
    if not verdict.ok:
        _raise(opdef, verdict.errors)

    results, lowered = _verify_signature(opdef, snapshot, infos, attrs, profile)
    data_verdict = opdef.check(snapshot.with_values(arrays), profile=profile, phase="runtime")
    if not data_verdict.ok:
        _raise(opdef, data_verdict.errors)
    _warn(opdef, data_verdict.warnings)

    inputs = []
    for spec in opdef.operands:
        value = arrays.get(spec.name)
        if spec.kind == VARIADIC:
            inputs.extend(value or [])
        elif value is not None:
            inputs.append(value)
    return lowered, inputs, back_to_torch


def _host_parameters(opdef: OpDef, attributes: Mapping[str, Any]) -> dict:
    """The given host parameters as attribute values (KindError for a wrong kind); a missing
    required one is left to OpDef.check_arguments."""
    values = {}
    for name, value in attributes.items():
        if value is not None:
            try:
                values[name] = opdef.attribute_by_name[name].from_python(value)
            except KindError as e:
                e.param = name
                raise
    return values


def _warn(opdef: OpDef, findings):
    for finding in findings:
        warnings.warn(finding.text(opdef.name), VerificationWarning, stacklevel=5)   # past _checked_call


def _error(opdef: OpDef, findings) -> VerificationError:
    return VerificationError("\n".join(f.text(opdef.name) for f in findings), findings)


def _raise(opdef: OpDef, findings):
    raise _error(opdef, findings)


def _signature(opdef, infos, attrs, profile):
    def key(v):
        if isinstance(v, list):
            return tuple(key(x) for x in v)
        if isinstance(v, TensorInfo):
            return (v.shape, v.dtype, v.format)
        return (type(v).__name__, v)   # 40 and 40.0 are different signatures
    return (opdef.name, profile, tuple(sorted((k, key(v)) for k, v in infos.items())),
            tuple(sorted((k, key(v)) for k, v in attrs.items())))


def _verify_signature(opdef: OpDef, snapshot, infos, attrs, profile) -> dict:
    sig = _signature(opdef, infos, attrs, profile)
    if sig in _verified:
        return _verified[sig][:2]
    # One thread at a time builds in the shared context (its diagnostics go to one collector).
    with _lock:
        if sig in _verified:
            return _verified[sig][:2]
        return _verify_new_signature(opdef, snapshot, infos, attrs, profile, sig)


def _verify_new_signature(opdef, snapshot, infos, attrs, profile, sig):
    # 1. Operand and attribute rules (result rules wait for the inferred types).
    verdict = opdef.check(snapshot, profile=profile)
    if not verdict.ok:
        _raise(opdef, verdict.errors)
    _warn(opdef, verdict.warnings)
    results = opdef.result_infos(snapshot)
    # 2. The one-op module, verified as IR (IRDL structure + every static rule), then lowered.
    module = _verify_as_ir(opdef, infos, attrs, results, profile)
    lowered = load_lowered(module)
    _verified[sig] = (results, lowered, module)
    return results, lowered


def _list_type(param: str, infos: list) -> TensorInfo:
    """The one IR type of a list operand's elements. IRDL gives all values of a variadic
    operand one type, so dims that differ between elements become dynamic (`?`); the static
    rules have already checked the exact shapes."""
    first = infos[0]
    for i, info in enumerate(infos[1:], 1):
        if (info.rank, info.dtype, info.format) != (first.rank, first.dtype, first.format):
            raise VerificationError(f"{param}[{i}]: the elements of a tensor list must share rank, "
                                    f"element type and format: {first} vs {info}")
    shape = tuple(d if all(i.shape[a] == d for i in infos) else None for a, d in enumerate(first.shape))
    return TensorInfo(shape, first.dtype, first.format)


def _verify_as_ir(opdef: OpDef, infos, attrs, results, profile):
    ctx = _shared_context()
    with ctx, ir.Location.name(f"eager {opdef.name}") as loc, DiagnosticCollector(ctx) as diags:
        f = FunctionBuilder("eager", ctx)
        f.loc = loc
        values = {}
        for spec in opdef.operands:
            value = infos.get(spec.name)
            if isinstance(value, list):
                common = _list_type(spec.name, value)
                values[spec.name] = [f.arg(None, common) for _ in value]
            elif value is not None:
                values[spec.name] = f.arg(None, value)
        op = f.builder.op(opdef, values, attrs, [results[r] for r in opdef.result_names])
        module = f.ret(op.results)
        try:
            ok = module.operation.verify() and verify_ops(module.operation, profile=profile)
        except ir.MLIRError as error:
            record_mlir_error(error)
            ok = False
        if not ok:
            raise VerificationError("\n".join(d.message for d in diags.diagnostics if d.severity == "error"))
        if not run_pipeline(module, "builtin.module(lower-to-aclnn)"):
            raise AssertionError("lower-to-aclnn failed on a verified op:\n"
                                 + "\n".join(d.message for d in diags.diagnostics))
    return module
