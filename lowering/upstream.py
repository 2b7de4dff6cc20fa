"""Conversions of the upstream ops that compute: concatenation, casts, and the elementwise
pieces of a written-out dynamic quant (what raise-quant left as written).

    tensor.concat            -> aclnnCat(tensors, dim, out)        torch.cat (op-plugin CatKernelNpuOpApi)
    arith.truncf / arith.extf -> aclnnCast(self, dtype, out)       tensor.to(dtype) (op-plugin CastKernelNpuOpApi)
    arith.fptosi / sitofp / extsi / trunci -> aclnnCast             tensor.to(int8 / float32 / int32)
    math.absf                -> aclnnAbs(self, out)                torch.abs
    math.roundeven           -> aclnnRound(self, out)              torch.round (half to even)
    arith.maximumf / minimumf -> aclnnMaximum / aclnnMinimum(self, other, out)   torch.clamp's bounds

aclnnCast rounds to nearest even, as arith.truncf's default and the CPU step do. Float to integer
truncates toward zero (arith.fptosi, torch's .to(int8)); the quant pieces cast whole numbers.
"""
from __future__ import annotations

from ..dialect import aclnn as A
from ..dialect.aclnn_functions import ABS, CAST, CAT, MAXIMUM, MINIMUM, ROUND
from .lower_to_aclnn import info, lowers


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
for _name in ("arith.fptosi", "arith.sitofp", "arith.extsi", "arith.trunci"):
    lowers(_name)(_cast)


def _elementwise(function):
    def lower(op, b):
        out = b.alloc(op.results[0].type)
        operands = dict(zip(("self", "other"), op.operands))
        b.call(function, {**operands, "out": out})
        return [out]
    return lower


lowers("math.absf")(_elementwise(ABS))
lowers("math.roundeven")(_elementwise(ROUND))
lowers("arith.maximumf")(_elementwise(MAXIMUM))
lowers("arith.minimumf")(_elementwise(MINIMUM))
