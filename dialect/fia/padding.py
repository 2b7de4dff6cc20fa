"""FIA rules 6.N: left padding (query_padding_size, kv_padding_size)."""
from __future__ import annotations

import numpy as np

from ..rules import RUNTIME
from .common import FLOATS, FiaRules, is_int4

int4_rules = FiaRules()
left_rules = FiaRules()


# =============================================================================================
# 6.N left padding with an INT4 key (before the antiquant rules, which reject INT4 in prompt)
# =============================================================================================

@int4_rules.rule("FIA-188", "query_padding_size", branch="prompt")
def prompt_query_padding_int4(op, s):
    if s.q_left_pad and op.query.dtype in FLOATS and is_int4(op.key[0]):
        return "query left padding is not supported with a float query and an INT4 key"


@int4_rules.rule("FIA-189", "kv_padding_size", branch="prompt")
def prompt_kv_padding_int4(op, s):
    if s.kv_left_pad and op.query.dtype in FLOATS and is_int4(op.key[0]):
        return "kv left padding is not supported with a float query and an INT4 key"


@int4_rules.rule("FIA-194", "kv_padding_size", branch="incre")
def incre_kv_padding_int4(op, s):
    """Active kv left padding only: with page attention or a tensor list it falls back (L969)."""
    active = s.kv_left_pad and not s.paged and not s.is_list
    if active and op.query.dtype in FLOATS and is_int4(op.key[0]):
        return "kv left padding is not supported with a float query and an INT4 key"


# =============================================================================================
# 6.N left padding
# =============================================================================================

def _padding_kind(t):
    if t is not None and (t.dtype != "i64" or t.shape != (1,)):
        return f"expected tensor<1xi64>, got {t}"


@left_rules.rule("FIA-183", "query_padding_size")
def query_padding_kind(op, s):
    return _padding_kind(op.query_padding_size)


@left_rules.rule("FIA-184", "kv_padding_size")
def kv_padding_kind(op, s):
    return _padding_kind(op.kv_padding_size)


@left_rules.rule("FIA-190", "query_padding_size", branch="prompt", kind=RUNTIME)
def query_padding_in_range(op, s):
    if not s.q_left_pad or op.query_padding_size.value is None:
        return None
    pad = max(int(np.asarray(op.query_padding_size.value).reshape(-1)[0]), 0)
    for b, n in enumerate(s.asl):
        if s.Q_S - pad - n < 0:
            return (f"batch {b}: the query start Q_S - padding - actual_seq_lengths = "
                    f"{s.Q_S} - {pad} - {n} is below 0")


@left_rules.rule("FIA-191", "kv_padding_size", branch="prompt", kind=RUNTIME)
def kv_padding_in_range(op, s):
    if not s.kv_left_pad or op.kv_padding_size.value is None:
        return None
    pad = max(int(np.asarray(op.kv_padding_size.value).reshape(-1)[0]), 0)
    for b, (n, limit) in enumerate(zip(s.askv, s.kv_lengths)):
        if limit - pad - n < 0:
            return (f"batch {b}: the key/value start KV_S - padding - actual_seq_lengths_kv = "
                    f"{limit} - {pad} - {n} is below 0")
