"""Conversions of the attention ops: FusedInferAttentionScore (seed 004) and NSA (seed 003)."""
from __future__ import annotations

from .convert import lowers
from .imports import FIA_V2, FIA_V3, NSA


@lowers("mla.fused_infer_attention_score")
def fused_infer_attention_score(op, b):
    # The MLA mode (query_rope/key_rope) is V3's; everything else is V2 as the seed documents.
    function = FIA_V3 if b.adaptor.query_rope is not None else FIA_V2
    # softmaxLse is written only with softmax_lse_flag; otherwise nullptr, as in the seed's
    # example, and the (1,) result is the zeros the CPU kernel gives.
    absent = () if b.adaptor.softmax_lse_flag else ("softmaxLse",)
    # Per-step lengths may come as host i64 tensors (run-time values, not attributes): they are
    # read at run time and phase one is re-run when they change.
    return b.call_bound(function, absent_outputs=absent,
                        host_operands={"actualSeqLengthsOptional": "actual_seq_qlen",
                                       "actualSeqLengthsKvOptional": "actual_seq_kvlen"})


@lowers("mla.nsa_compress_attention_infer")
def nsa_compress_attention_infer(op, b):
    return b.call_bound(NSA)
