"""Conversions of the primitive ops to the standard aclnn kernels torch_npu uses for them."""
from __future__ import annotations

from ..dialect.types import describe_type, tensor_type
from .convert import lowers
from .imports import RMS_NORM


@lowers("mla.rms_norm")
def rms_norm(op, b):
    x = describe_type(b.adaptor.x.type)
    rstd = tensor_type(x.shape[:-1] + (1,), "f32")     # aclnnRmsNorm's rstdOut: a scratch buffer
    return b.call_bound(RMS_NORM, scratch={"rstdOut": rstd})
