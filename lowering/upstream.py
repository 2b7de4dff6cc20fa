"""Conversions of the upstream ops that compute: concatenation and float casts.

    tensor.concat            -> aclnnCat(tensors, dim, out)        torch.cat (op-plugin CatKernelNpuOpApi)
    arith.truncf / arith.extf -> aclnnCast(self, dtype, out)       tensor.to(dtype) (op-plugin CastKernelNpuOpApi)

aclnnCast rounds to nearest even, as arith.truncf's default and the CPU step do.
"""
from __future__ import annotations

from ..lowering import aclnn as A
from .convert import info, lowers
from .imports import CAST, CAT


@lowers("tensor.concat")
def concat(op, b):
    out = b.alloc(op.results[0].type)
    b.call(CAT, {"tensors": b.tensor_list(list(op.operands)),
                 "dim": b.host(A.I64, op.attributes["dim"].value), "out": out})
    return [out]


def _cast(op, b):
    out = b.alloc(op.results[0].type)
    b.call(CAST, {"self": op.operands[0], "dtype": b.host(A.DTYPE, info(op.results[0]).dtype),
                  "out": out})
    return [out]


lowers("arith.truncf")(_cast)
lowers("arith.extf")(_cast)
