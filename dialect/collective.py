"""Collective ops of the mla dialect: the communication of tensor parallelism, explicit in the IR.

    mla.all_reduce   every rank's x summed, the same sum on every rank        AR-
    mla.all_gather   every rank's x concatenated along `dim`, in rank order    AG-

The sharding places them (ascend_mla/models/deepseek.py: after a row-parallel projection whose
output is a partial sum, such as o_proj over a rank's heads; after a vocab-parallel lm_head).
A program is the same text on every rank (SPMD): which slice of the weights a rank holds is the
weights' business, so no op carries a rank. `world_size` is the number of ranks the sharding
split over; `group` names the communicator (one, "tp", today: every rank of the job).

They lower to HCCL's calls (lowering/collective.py: HcclAllReduce / HcclAllGather on the
stream). The CPU backend runs them through torch.distributed when a process group is
initialised (torchrun) and, in a world of one process, an all-reduce is the identity (each
rank's program can be run and inspected alone; the report says so). Why no all-to-all: the
experts are split tensor-parallel (each rank a slice of every expert's intermediate dimension,
then the same all-reduce as the dense MLP), so token routing needs no exchange of tokens
between ranks (docs/parallel.md).

Numerics: the sum is float32 and rounds once to the result type (numerics.md 7: every op
rounds once); for two ranks that is the correctly rounded sum of the two partials.
"""
from __future__ import annotations

import re

from .opdef import OpDef, i64, operand, string
from .registry import MLA
from .rules import RuleSet
from .types import ND, TensorInfo

# The element types HCCL's AllReduce / AllGather document (Atlas A2: int8, int16, int32, int64,
# float16, float32, bfp16), in the IR's spelling; i16 is not a type of this compiler.
COLLECTIVE_TYPES = ("bf16", "f16", "f32", "i8", "i32", "i64")
REDUCTIONS = ("sum",)          # what tensor parallelism needs (HCCL also has prod, max, min)
GROUPS = ("tp",)               # the communicators a program may name
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _dtype(op, s):
    if op.x.dtype not in COLLECTIVE_TYPES:
        return f"expected element type {', '.join(COLLECTIVE_TYPES)} (HCCL's), got {op.x.dtype}"


def _nd(op, s):
    if op.x.format != ND:
        return f"expected an ND tensor (a contiguous buffer is what HCCL sends), got {op.x}"


def _world_size(op, s):
    if op.world_size < 1:
        return f"expected a number of ranks >= 1, got {op.world_size}"


def _group(op, s):
    if not _NAME.match(op.group or ""):
        return f"expected a communicator name (letters, digits, _), got {op.group!r}"
    if op.group not in GROUPS:
        return f"expected one of {', '.join(repr(g) for g in GROUPS)} (the communicators a program " \
               f"may use), got {op.group!r}"


def _static(op, s):
    if None in op.x.shape:
        return f"expected a static shape (every rank sends the same count), got {op.x}"


# --- mla.all_reduce ------------------------------------------------------------------------------

all_reduce_rules = RuleSet()
rule = all_reduce_rules.rule
rule("AR-001", "x")(_dtype)
rule("AR-002", "x")(_nd)
rule("AR-002", "x")(_static)
rule("AR-003", "world_size")(_world_size)
rule("AR-004", "group")(_group)


@rule("AR-005", "reduction")
def _reduction(op, s):
    if op.reduction not in REDUCTIONS:
        return f"expected {', '.join(repr(r) for r in REDUCTIONS)}, got {op.reduction!r}"


@rule("AR-006", "y")
def _all_reduce_result(op, s):
    if op.y.shape != op.x.shape or op.y.dtype != op.x.dtype or op.y.format != op.x.format:
        return f"expected the type of x {op.x}, got {op.y}"


AllReduce = MLA.add(OpDef(
    "mla.all_reduce",
    traits=(),
    operands=[operand("x")],
    attributes=[i64("world_size"), string("reduction", default="sum"), string("group", default="tp")],
    results=["y"],
    rules=all_reduce_rules,
    infer_results=lambda op, s: {"y": op.x},
    summary="the sum over the ranks of `group` (world_size of them) of x, on every rank",
))


# --- mla.all_gather ------------------------------------------------------------------------------

def gathered_shape(shape, dim, world_size) -> tuple:
    shape = list(shape)
    axis = dim % len(shape)
    shape[axis] = shape[axis] * world_size
    return tuple(shape)


all_gather_rules = RuleSet()
rule = all_gather_rules.rule
rule("AG-001", "x")(_dtype)
rule("AG-002", "x")(_nd)
rule("AG-002", "x")(_static)
rule("AG-003", "world_size")(_world_size)
rule("AG-004", "group")(_group)


@rule("AG-005", "dim")
def _dim(op, s):
    if not -op.x.rank <= op.dim < op.x.rank:
        return f"expected an axis of x in [{-op.x.rank}, {op.x.rank}), got {op.dim}"


@rule("AG-006", "y")
def _all_gather_result(op, s):
    want = gathered_shape(op.x.shape, op.dim, op.world_size)
    if op.y.shape != want or op.y.dtype != op.x.dtype or op.y.format != op.x.format:
        return (f"expected {TensorInfo(want, op.x.dtype)} (x's dim {op.dim} times world_size "
                f"{op.world_size}), got {op.y}")


AllGather = MLA.add(OpDef(
    "mla.all_gather",
    traits=(),
    operands=[operand("x")],
    attributes=[i64("world_size"), i64("dim"), string("group", default="tp")],
    results=["y"],
    rules=all_gather_rules,
    infer_results=lambda op, s: {"y": TensorInfo(gathered_shape(op.x.shape, op.dim, op.world_size),
                                                 op.x.dtype)},
    summary="every rank's x concatenated along `dim` in rank order, on every rank",
))

COLLECTIVES = (AllReduce, AllGather)
