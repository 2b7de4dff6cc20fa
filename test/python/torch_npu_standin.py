"""A stand-in for the `torch_npu` package, so torch_npu's own op-plugin test cases run on the
CPU: `torch_npu.<op>` is ascend_mla.ops.<op> (torch tensors in, torch tensors out) and
`Tensor.npu()` is the tensor itself. The tests that use it write the op-plugin cases again
(shapes, dtypes, arguments, tolerances); the goldens are their own float64 formulas.
"""
from __future__ import annotations

import sys
import types

import pytest

from ascend_mla import ops

OPS = ("npu_interleave_rope", "npu_kv_rmsnorm_rope_cache", "npu_transpose_batchmatmul",
       "npu_dynamic_quant", "npu_format_cast", "npu_fused_infer_attention_score",
       "npu_fused_infer_attention_score_v2", "_npu_fused_infer_attention_score_v2_get_max_workspace",
       "_npu_fused_infer_attention_score_get_max_workspace",
       "npu_mla_prolog_v2")


@pytest.fixture
def install_standin(monkeypatch):
    """(torch, the torch_npu stand-in module); both undone after the test."""
    torch = pytest.importorskip("torch")
    module = types.ModuleType("torch_npu")
    for name in OPS:
        setattr(module, name, getattr(ops, name))
    monkeypatch.setitem(sys.modules, "torch_npu", module)
    monkeypatch.setattr(torch.Tensor, "npu", lambda self, *a, **k: self, raising=False)
    return torch, module
