"""ascend_mla.passes: the pass registry and the passes (each usable from mla-opt and Python).

    verify           every documented rule of every mla op (registry.py)
    raise-rms-norm   written-out RmsNorm -> mla.rms_norm (raise_primitives.py)
    raise-rope       written-out RoPE (rotate-half, interleaved, complex) -> mla.rope (raise_primitives.py)
    raise-quant      written-out dynamic quant, static quant, int8 matmul x scales -> mla.dynamic_quant,
                     mla.quantize, mla.quant_matmul (raise_quant.py)
    interleave-rope  rotate-half RoPE of a constant projection -> interleaved RoPE, the
                     projection's rope columns reordered (interleave_rope.py)
    absorb-kv        naive MLA attention over a module's K/V cache -> absorbed, over a latent
                     cache the program owns (absorb_kv.py)
    fuse-prolog      MLA pre-processing -> mla.prolog_v2 (fuse_prolog.py)
    fuse-sparse-attention  DSA's indexer and masked attention -> mla.lightning_indexer +
                     mla.sparse_flash_attention (fuse_sparse_attention.py)
    fuse-attention   attention primitives -> mla.fused_infer_attention_score (fuse_attention.py)
    select-layout    FRACTAL_NZ weights, no casts that cancel (select_layout.py)
    fold-constants   weight-only computations evaluated once, at compile time (fold_constants.py;
                     the weight table and the op evaluator are its inputs: PassInputs)
    cleanup          unused side-effect-free ops and globals erased (cleanup.py)

The named pipeline "default" runs them in that order.
"""
from . import (  # noqa: F401
                       absorb_kv,
                       absorb_latent,
                       cleanup,
                       fold_constants,
                       fuse_attention,
                       fuse_prolog,
                       fuse_sparse_attention,
                       interleave_rope,  # (registration)
                       raise_primitives,
                       raise_quant,
                       select_layout,
)
from .registry import (
                       PASSES,
                       PIPELINES,
                       PassFailure,
                       PassInputs,
                       PassOption,
                       build_pass_manager,
                       parse_pipeline,
                       register_pass,
                       run_pipeline,
)

__all__ = ["PASSES", "PIPELINES", "PassFailure", "PassInputs", "PassOption", "build_pass_manager",
           "parse_pipeline", "register_pass", "run_pipeline"]
