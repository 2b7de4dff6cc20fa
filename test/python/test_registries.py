"""The registries are complete: what an op is, is in one place per stage, and no stage misses
an op. Each registry is loaded by its one list of modules (dialect.dialect's op modules,
lowering FAMILIES, runtime kernels MODULES, runtime/cpu_calls.py); the tests read what they
hold after loading. An op's properties (pure, constant-like, reshape, in-place results) are its
traits (dialect/traits.py), declared with it and consistent with the rest of its declaration."""
from __future__ import annotations

import inspect

import pytest

from ascend_mla.dialect.aclnn import ACLNN
from ascend_mla.dialect.dialect import MLA, load_functions, load_op_definitions
from ascend_mla.dialect.traits import CONSTANT_LIKE, PURE, RESHAPE, upstream_traits
from ascend_mla.lowering.lower_to_aclnn import LOWERINGS, load_lowerings
from ascend_mla.runtime.cpu_calls import CPU_CALLS, cpu_call
from ascend_mla.runtime.kernels import KERNELS, kernel, load_kernels
from ascend_mla.runtime.kernels.upstream import PREPARERS

load_op_definitions()
load_functions()
load_lowerings()
load_kernels()

# mla ops that have no conversion to aclnn calls, each with the reason (none today: every op
# lowers). An op added without a lowering must be listed here with why.
NOT_LOWERED: dict[str, str] = {}

OPS = sorted(MLA.ops)
FUNCTIONS = sorted(ACLNN.functions)


@pytest.mark.parametrize("name", OPS)
def test_every_op_has_a_verifier(name):
    assert len(MLA.ops[name].rules) > 0, f"{name} declares no rule"


@pytest.mark.parametrize("name", OPS)
def test_every_op_declares_its_traits(name):
    """`traits=` is given (`()` for an op with effects): whether the cleanup may erase an op, or
    fold-constants evaluate it, is decided where the op is declared, not by a list elsewhere."""
    opdef = MLA.ops[name]
    assert opdef.traits_declared, f"{name}: declare traits=(PURE,) or traits=() (dialect/traits.py)"
    if opdef.inplace:                       # a buffer written in place is an effect
        assert PURE not in opdef.traits
    if CONSTANT_LIKE in opdef.traits:
        assert not opdef.operands and PURE in opdef.traits
    if RESHAPE in opdef.traits:
        assert PURE in opdef.traits


def test_contradicting_traits_are_refused():
    from ascend_mla.dialect.opdef import OpDef, operand
    with pytest.raises(ValueError, match="PURE, but writes"):
        OpDef("mlatest.w", operands=[operand("c")], results=["c_out"], inplace={"c_out": "c"}, traits=(PURE,))
    with pytest.raises(ValueError, match="CONSTANT_LIKE, but has operands"):
        OpDef("mlatest.k", operands=[operand("x")], results=["y"], traits=(CONSTANT_LIKE,))
    with pytest.raises(TypeError, match="traits"):
        OpDef("mlatest.s", operands=[operand("x")], results=["y"], traits=("pure",))


def test_every_upstream_op_a_program_may_hold_declares_its_traits():
    """The upstream ops with a conversion or a CPU step are declared in dialect/traits.py, so a
    pass reads their traits as it reads an mla op's."""
    upstream = sorted({n for n in LOWERINGS if not n.startswith("mla.")} | set(PREPARERS))
    assert upstream and [n for n in upstream if upstream_traits(n) is None] == []
    for name in ("ml_program.global_load_const", "arith.constant"):
        assert CONSTANT_LIKE in upstream_traits(name)
    for name in ("tensor.expand_shape", "tensor.collapse_shape"):
        assert RESHAPE in upstream_traits(name)


@pytest.mark.parametrize("name", OPS)
def test_every_op_lowers_or_says_why_not(name):
    assert (name in LOWERINGS) != (name in NOT_LOWERED), \
        f"{name}: a lowering (lowering/) or a reason in NOT_LOWERED, exactly one"


@pytest.mark.parametrize("name", OPS)
def test_every_op_has_a_cpu_kernel(name):
    assert name in KERNELS, f"{name} has no CPU kernel (runtime/kernels/)"


@pytest.mark.parametrize("name", OPS)
def test_kernels_take_their_defaults_from_the_opdef(name):
    """No attribute default is written twice: the kernel's signature gives none (the registry
    applies the OpDef's), and a call that leaves an attribute out gets the OpDef's value."""
    opdef, registered = MLA.ops[name], KERNELS[name]
    raw = inspect.unwrap(registered)
    attributes = {a.name for a in opdef.attributes}
    repeated = [p.name for p in inspect.signature(raw).parameters.values()
                if p.name in attributes and p.default is not inspect.Parameter.empty]
    assert repeated == []
    assert registered.opdef is opdef


@pytest.mark.parametrize("name", FUNCTIONS)
def test_every_aclnn_function_has_exactly_one_cpu_path(name):
    """Through its binds (Function.kernel: the mla op's kernel) or its own CPU implementation
    (runtime/cpu_calls.py), never both, never neither."""
    function = ACLNN.functions[name]
    assert (function.kernel is not None) != (name in CPU_CALLS)
    if function.kernel is not None:
        assert MLA.ops[function.kernel.name] is function.kernel


def test_lowerings_are_keyed_by_ops_that_exist():
    mla = {name for name in LOWERINGS if name.startswith("mla.")}
    assert mla <= set(MLA.ops)
    assert set(KERNELS) <= set(MLA.ops)
    assert set(CPU_CALLS) <= set(ACLNN.functions)


def test_registration_takes_objects_not_names():
    from ascend_mla.lowering.lower_to_aclnn import lowers
    with pytest.raises(TypeError, match="OpDef"):
        kernel("mla.rms_norm")
    with pytest.raises(TypeError, match="OpDef"):
        lowers("mla.rms_norm")
    with pytest.raises(TypeError, match="Function"):
        cpu_call("aclnnRmsNorm")


def test_a_kernel_repeating_a_default_is_refused():
    from ascend_mla.dialect.primitive import RmsNorm
    with pytest.raises(ValueError, match="repeats the OpDef's defaults"):
        kernel(RmsNorm)(lambda x, gamma, epsilon=1e-5: None)
