"""FIA rules 6.E: actual_seq_lengths and actual_seq_lengths_kv."""
from __future__ import annotations

from .common import FiaRules

rules = FiaRules()


# =============================================================================================
# 6.E actual_seq_lengths / actual_seq_lengths_kv
# =============================================================================================

def _length_count(values, batch):
    if values is not None and not (len(values) == 1 or len(values) >= batch):
        return f"expected 1 or at least B = {batch} values, got {len(values)}"


@rules.rule("FIA-055", "actual_seq_lengths", branch="prompt", tnd=False)
def q_lengths_count(op, s):
    return _length_count(op.actual_seq_lengths, s.B)


@rules.rule("FIA-057", "actual_seq_lengths", branch="prompt", tnd=False)
def q_lengths_non_negative(op, s):
    if s.asl is not None and min(s.asl, default=0) < 0:
        return f"expected values >= 0, got {s.asl}"


@rules.rule("FIA-056", "actual_seq_lengths", branch="prompt", tnd=False)
def q_lengths_bound(op, s):
    if s.asl is not None and max(s.asl, default=0) > s.Q_S:
        return f"expected values <= Q_S = {s.Q_S}, got {s.asl}"


@rules.rule("FIA-059", "actual_seq_lengths_kv", tnd=False)
def kv_lengths_count(op, s):
    return _length_count(op.actual_seq_lengths_kv, s.B)


@rules.rule("FIA-061", "actual_seq_lengths_kv", tnd=False)
def kv_lengths_non_negative(op, s):
    if s.askv is not None and min(s.askv, default=0) < 0:
        return f"expected values >= 0, got {s.askv}"


@rules.rule("FIA-060", "actual_seq_lengths_kv", tnd=False)
def kv_lengths_bound(op, s):
    if s.paged or s.askv is None:
        return None
    for b, (n, limit) in enumerate(zip(s.askv, s.kv_lengths)):
        if n > limit:
            return f"batch {b}: expected <= the key's S ({limit}), got {n}"
