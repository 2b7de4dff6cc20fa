"""Eager ops, torch_npu style (API.md section 2).

Each function builds a one-op mla module, verifies it and runs it on the selected backend
(ascend_mla/eager.py). Keyword names, defaults and result order are the public contract.
"""
from __future__ import annotations

from .eager import call
from .dialect.primitive import RmsNorm


def rms_norm(x, gamma, *, epsilon=1e-5):
    """`mla.rms_norm` eagerly: x / sqrt(mean(x^2, -1) + epsilon) * gamma (float32 arithmetic)."""
    return call(RmsNorm, {"x": x, "gamma": gamma}, {"epsilon": epsilon})[0]
