"""FIA rules 6.D (size limits), 6.I/6.R (inner_precise, scale_value) and the advisories."""
from __future__ import annotations

import math

from .common import INT4, S_LIMIT, TIMEOUT_WORK, FiaRules, is_int4
from .symbols import MAX_BATCH

size_rules = FiaRules()
scalar_rules = FiaRules()
advisory_rules = FiaRules()


# =============================================================================================
# 6.D size limits
# =============================================================================================

@size_rules.rule("FIA-043", "query", branch="prompt")
def prompt_batch_limit(op, s):
    if s.B > MAX_BATCH:
        return f"expected B <= {MAX_BATCH}, got {s.B}"


@size_rules.rule("FIA-044", "query", branch="incre")
def incre_batch_limit(op, s):
    if s.B > MAX_BATCH:
        return f"expected B <= {MAX_BATCH}, got {s.B}"


@size_rules.rule("FIA-045", "num_heads", branch="prompt")
def prompt_heads_limit(op, s):
    if s.N > 256:
        return f"expected N <= 256, got {s.N}"


@size_rules.rule("FIA-046", "num_heads", branch="incre")
def incre_heads_limit(op, s):
    if s.N > 256:
        return f"expected N <= 256, got {s.N}"


@size_rules.rule("FIA-047", "query", branch="prompt")
def prompt_head_dim_limit(op, s):
    if s.D > 512:
        return f"expected head dim D <= 512, got {s.D}"


@size_rules.rule("FIA-048", "query", branch="incre")
def incre_head_dim_limit(op, s):
    if s.D > 512:
        return f"expected head dim D <= 512, got {s.D}"


@size_rules.rule("FIA-049", "query", branch="prompt")
def prompt_query_seq_limit(op, s):
    if s.Q_S > S_LIMIT:
        return f"expected Q_S <= {S_LIMIT} (20M), got {s.Q_S}"


@size_rules.rule("FIA-050", "key", branch="prompt")
def prompt_kv_seq_limit(op, s):
    if not s.paged and s.KV_S > S_LIMIT:
        return f"expected KV_S <= {S_LIMIT} (20M), got {s.KV_S}"


@size_rules.rule("FIA-051", "query", branch="prompt")
def prompt_head_dim_alignment(op, s):
    """A2: INT8 anywhere: D % 32; INT4 anywhere: D % 64; all FP16/BF16: D % 16 (L866)."""
    dtypes = {op.query.dtype, op.key[0].dtype, op.value[0].dtype, op.attention_out.dtype}
    if dtypes & set(INT4):
        align, why = 64, "INT4"
    elif "i8" in dtypes:
        align, why = 32, "INT8"
    else:
        align, why = 16, "FLOAT16/BFLOAT16"
    if s.D % align:
        return f"expected head dim D % {align} == 0 ({why} in query/key/value/out), got {s.D}"


@size_rules.rule("FIA-053", "num_heads", branch="prompt", mla=False, severity="warning")
def prompt_hidden_advice(op, s):
    if op.input_layout in ("BSH", "BSND") and s.N * s.D >= 65535:
        return f"N*D < 65535 is recommended for {op.input_layout}, got {s.N}*{s.D} = {s.N * s.D}"


@size_rules.rule("FIA-054", "key", branch="incre")
def incre_int4_alignment(op, s):
    if is_int4(op.key[0]) and s.D % 64:
        packed = " (INT32-packed: stored D % 8 == 0)" if op.key[0].dtype == "i32" else ""
        return f"an INT4 key needs head dim D % 64 == 0{packed}, got D = {s.D}"


# =============================================================================================
# 6.I inner_precise, 6.R scale_value
# =============================================================================================

@scalar_rules.rule("FIA-090", "inner_precise")
def inner_precise_range(op, s):
    if op.inner_precise not in range(4):
        return f"expected 0, 1, 2 or 3, got {op.inner_precise}"


@scalar_rules.rule("FIA-234", "scale_value")
def scale_finite(op, s):
    if not math.isfinite(op.scale_value):
        return f"expected a finite value, got {op.scale_value}"


# =============================================================================================
# 6.R advisories
# =============================================================================================

@advisory_rules.rule("FIA-232", "query", branch="prompt", severity="warning")
def timeout_advice(op, s):
    if s.paged:
        return None
    work = s.B * s.N * s.Q_S * s.KV_S * s.D
    if work >= TIMEOUT_WORK:
        return (f"B*N*Q_S*KV_S*D = {work} is as large as the seed's AI Core timeout cases "
                f"(timeout or trap error); splitting S is recommended")
