"""View ops: a new description of the same device memory; no kernel, no copy.

`aclnn.view` carries the view's shape, dtype and format (its type), offset and strides; the
executor creates the aclTensor over the base buffer (slices and reshapes go here too)."""
from __future__ import annotations

from .convert import lowers


@lowers("mla.nz_cache_view")
def nz_cache_view(op, b):
    # The PA_NZ cache's bytes are already the FRACTAL_NZ (BlockNum, BlockSize, Nkv*H) tensor.
    return {"view": b.view(b.adaptor.cache, op.results[0].type)}
