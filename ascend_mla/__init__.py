"""ascend-mla: an MLIR compiler for DeepSeek Multi-head Latent Attention on Ascend NPUs.

    import ascend_mla
    ascend_mla.ops.npu_mla_prolog_v2(...)      # eager ops (docs/api.md section 2)
    ascend_mla.format_cast(w, ascend_mla.FRACTAL_NZ)
"""
from . import ops
from .compiler import CompileError, Program, compile
from .cost import roofline
from .errors import BackendUnavailable, VerificationError, VerificationWarning
from .runtime.backend import get_backend, set_backend
from .runtime.formats import FRACTAL_NZ, ND, NZTensor, format_cast, get_format, nz_cache_view

__all__ = ["compile", "roofline", "Program", "CompileError", "BackendUnavailable", "VerificationError", "VerificationWarning", "set_backend", "get_backend", "ND", "FRACTAL_NZ", "NZTensor",
           "format_cast", "get_format", "nz_cache_view", "ops"]
