"""View ops: a new description of the same device memory; no kernel, no copy.

`aclnn.view` carries the view's shape, dtype and format (its type), element offset and strides
over a buffer; the executor creates the aclTensor over that buffer (aclCreateTensor's
viewDims, strides, offset, storageDims). Slices and reshapes of the upstream `tensor`
dialect go here: torch's `narrow`/`view` on the NPU are views too. A reshape that strides
cannot express becomes a copy first (CallBuilder.reshape).
"""
from __future__ import annotations

from ..dialect.primitive import NzCacheView
from .lower_to_aclnn import info, lowers


@lowers(NzCacheView)
def nz_cache_view(op, b):
    # The PA_NZ cache's bytes are already the FRACTAL_NZ (BlockNum, BlockSize, Nkv*H) tensor.
    return {"view": b.view(b.adaptor.cache, op.results[0].type)}


@lowers("tensor.extract_slice")
def extract_slice(op, b):
    # Static offsets, sizes and strides (the attributes); dynamic ones have no view here.
    attrs = [list(op.attributes[a]) for a in ("static_offsets", "static_sizes", "static_strides")]
    if len(op.operands) > 1:
        from .lower_to_aclnn import LoweringError
        raise LoweringError("dynamic offsets, sizes or strides")
    return [b.slice(op.operands[0], *attrs, info(op.results[0]))]


def _reshape(op, b):
    return [b.reshape(op.operands[0], info(op.results[0]).shape)]


lowers("tensor.expand_shape")(_reshape)
lowers("tensor.collapse_shape")(_reshape)
