"""The decoder ops (dialect/decoder.py) against independent references: transformers' own
DeepseekV3TopkRouter and DeepseekV3MoE modules, torch's SiLU; their lowering to the documented
aclnn calls, the C++ emission through mla-translate, and the data rules of checked mode."""
from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla.dialect.decoder import GroupedMatmul, MoeFinalizeRouting, MoeGatingTopK, MoeInitRouting, SwiGlu
from ascend_mla.dialect.primitive import Matmul, Transpose
from ascend_mla.dialect.types import TensorInfo
from ascend_mla.models.graph import GraphWriter

sys.path.insert(0, str(Path(__file__).parent))

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
BF16 = ml_dtypes.bfloat16
T, H, E, K, I, GROUPS, KEEP = 6, 64, 16, 4, 32, 4, 2


def _config():
    return transformers.DeepseekV3Config(
        hidden_size=H, moe_intermediate_size=I, n_routed_experts=E, num_experts_per_tok=K, n_group=GROUPS,
        topk_group=KEEP, n_shared_experts=1, routed_scaling_factor=2.5, norm_topk_prob=True, vocab_size=32,
        num_hidden_layers=1, num_attention_heads=2, q_lora_rank=16, kv_lora_rank=16, qk_nope_head_dim=8,
        qk_rope_head_dim=8, v_head_dim=8, intermediate_size=32)


def moe_graph(dtype="f32", shared=True, residual=False, ids_input=False):
    """x (T, H) -> DeepSeek's MoE: router matmul, gating, routing, two grouped matmuls around
    SwiGLU, finalize (+ the shared expert's SwiGLU MLP as x1, + x as x2 when `residual`)."""
    g = GraphWriter()
    t = lambda shape, d=dtype: TensorInfo(tuple(shape), d)   # noqa: E731
    x = g.arg("x", t((T, H)))
    gate = g.arg("gate", t((E, H), "f32"))
    bias = g.arg("bias", t((E,), "f32"))
    gate_up = g.arg("gate_up", t((E, H, 2 * I)))
    down = g.arg("down", t((E, I, H)))
    xf = x if dtype == "f32" else g.cast(x, "f32")
    logits = g.op(Matmul, x=xf, w=g.op(Transpose, x=gate, permutation=[1, 0]))
    weights, chosen = g.op(MoeGatingTopK, x=logits, bias=bias, k=K, k_group=KEEP, group_count=GROUPS,
                           group_select_mode=1, norm_type=1, routed_scaling_factor=2.5)
    if ids_input:
        chosen = g.arg("chosen", t((T, K), "i32"))
    rows, row_idx, counts = g.op(MoeInitRouting, x=x, expert_idx=chosen, expert_num=E)
    act = g.op(SwiGlu, x=g.op(GroupedMatmul, x=rows, w=gate_up, group_list=counts))
    routed = g.op(GroupedMatmul, x=act, w=down, group_list=counts)
    extra = {}
    if shared:
        s_gate_up = g.arg("shared_gate_up", t((H, 2 * I)))
        s_down = g.arg("shared_down", t((I, H)))
        extra["x1"] = g.op(Matmul, x=g.op(SwiGlu, x=g.op(Matmul, x=x, w=s_gate_up)), w=s_down)
        if residual:
            extra["x2"] = x
    out = g.op(MoeFinalizeRouting, expanded_x=routed, expanded_row_idx=row_idx, scales=weights, **extra)
    g.ret(out, weights, chosen)
    return g.text()


@pytest.fixture(scope="module")
def hf_moe():
    torch.manual_seed(0)
    moe = transformers.models.deepseek_v3.modeling_deepseek_v3.DeepseekV3MoE(_config()).float().eval()
    with torch.no_grad():
        for p in moe.parameters():
            p.normal_(0, 0.2)
        moe.gate.e_score_correction_bias.normal_(0, 0.05)
    return moe


def moe_inputs(moe, x):
    e = moe.experts
    s = moe.shared_experts
    return {"x": x, "gate": moe.gate.weight.detach().numpy(),
            "bias": moe.gate.e_score_correction_bias.detach().numpy(),
            "gate_up": e.gate_up_proj.detach().numpy().transpose(0, 2, 1).copy(),
            "down": e.down_proj.detach().numpy().transpose(0, 2, 1).copy(),
            "shared_gate_up": torch.cat([s.gate_proj.weight, s.up_proj.weight]).detach().numpy().T.copy(),
            "shared_down": s.down_proj.weight.detach().numpy().T.copy()}


def test_the_router_is_transformers_router(hf_moe):
    """Experts and weights of mla.moe_gating_top_k = DeepseekV3TopkRouter's (sigmoid, bias,
    group-limited top-k over the sum of each group's top 2, normalized, times 2.5)."""
    x = np.random.default_rng(1).standard_normal((T, H)).astype(np.float32)
    program = ascend_mla.compile(moe_graph(), target="cpu")
    _, weights, chosen = program(**moe_inputs(hf_moe, x))
    with torch.no_grad():
        _, ref_weights, ref_idx = hf_moe.gate(torch.from_numpy(x))
    order, ref_order = np.argsort(chosen, 1), ref_idx.argsort(1).numpy()
    assert np.array_equal(np.take_along_axis(chosen, order, 1), np.take_along_axis(ref_idx.numpy(), ref_order, 1))
    # float32 both: the sums of k sigmoid scores differ by a few ulp at most
    np.testing.assert_allclose(np.take_along_axis(weights, order, 1),
                               np.take_along_axis(ref_weights.numpy(), ref_order, 1), rtol=1e-5)


def test_the_moe_is_transformers_moe(hf_moe):
    """The whole float32 MoE (routing, grouped matmuls, SwiGLU, finalize with the shared
    expert) = DeepseekV3MoE.forward: float32 both, only the summation order differs (1e-5)."""
    x = np.random.default_rng(2).standard_normal((T, H)).astype(np.float32)
    out, _, _ = ascend_mla.compile(moe_graph(), target="cpu")(**moe_inputs(hf_moe, x))
    with torch.no_grad():
        ref = hf_moe(torch.from_numpy(x)[None])[0].numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5 * np.abs(ref).max())


def test_bf16_moe_rounds_once_per_kernel(hf_moe):
    """bf16 rows: each kernel rounds its result once; against transformers' float32 MoE the
    error stays at bf16 level (2^-8 relative per rounding, a few roundings deep)."""
    x = np.random.default_rng(3).standard_normal((T, H)).astype(BF16)
    inputs = moe_inputs(hf_moe, x)
    for name in ("gate_up", "down", "shared_gate_up", "shared_down"):
        inputs[name] = inputs[name].astype(BF16)
    out, _, _ = ascend_mla.compile(moe_graph("bf16", residual=True), target="cpu")(**inputs)
    with torch.no_grad():
        moe32 = hf_moe
        ref = moe32(torch.from_numpy(x.astype(np.float32))[None])[0].numpy() + x.astype(np.float32)
    err = np.linalg.norm(out.astype(np.float32) - ref) / np.linalg.norm(ref)
    assert err < 2e-2, err


def test_swiglu_is_silu_of_the_front_half_times_the_back_half():
    x = np.random.default_rng(4).standard_normal((3, 5, 2 * 24)).astype(BF16)
    g = GraphWriter()
    g.ret(g.op(SwiGlu, x=g.arg("x", TensorInfo(x.shape, "bf16"))))
    (y,) = ascend_mla.compile(g, target="cpu")(x)
    a, b = torch.from_numpy(x.astype(np.float32)).chunk(2, dim=-1)
    ref = (torch.nn.functional.silu(a) * b).numpy()
    # one rounding to bf16 of float32 values that may differ in the last float32 bits: within
    # one bf16 ulp (2^-8 relative)
    np.testing.assert_allclose(y.astype(np.float32), ref, rtol=2 ** -7, atol=1e-6)


def test_the_lowering_calls_the_documented_aclnn_functions():
    program = ascend_mla.compile(moe_graph("bf16"), target="cpu")
    lowered = program.stages["lower-to-aclnn"]
    for callee in ("aclnnMoeGatingTopK", "aclnnMoeInitRoutingV2", "aclnnGroupedMatmulV4", "aclnnSwiGlu",
                   "aclnnMoeFinalizeRoutingV2"):
        assert f'callee = "{callee}GetWorkspaceSize"' in lowered, callee


def test_mla_translate_emits_the_moe_calls(tmp_path):
    import acl_double
    code = acl_double.emit_cpp(moe_graph("bf16", residual=True), tmp_path, "moe")
    for header in ("moe_gating_top_k", "moe_init_routing_v2", "grouped_matmul_v4", "swi_glu",
                   "moe_finalize_routing_v2"):
        assert f'#include "aclnnop/aclnn_{header}.h"' in code
    assert "aclCreateTensorList" in code
    acl_double.check_cpp_syntax(code, tmp_path, "moe")


def _runtime_case():
    program = ascend_mla.compile(moe_graph(ids_input=True, shared=False), target="cpu")
    rng = np.random.default_rng(5)
    moe_like = {"x": rng.standard_normal((T, H)).astype(np.float32),
                "gate": rng.standard_normal((E, H)).astype(np.float32),
                "bias": np.zeros(E, np.float32),
                "gate_up": rng.standard_normal((E, H, 2 * I)).astype(np.float32),
                "down": rng.standard_normal((E, I, H)).astype(np.float32)}
    return program, moe_like


def test_checked_mode_refuses_an_expert_id_out_of_range():
    program, inputs = _runtime_case()
    chosen = np.tile(np.arange(K, dtype=np.int32), (T, 1))
    program(**inputs, chosen=chosen)                       # in range: runs
    chosen[2, 1] = E
    with pytest.raises(ascend_mla.VerificationError, match=r"expert_idx: value 16 is outside .*\[MIR-010\]"):
        program(**inputs, chosen=chosen)


def test_the_grouped_matmul_refuses_counts_past_its_rows():
    """GMM-008 on an eager-style check of the op's data rule (the routing never makes such
    counts, a hand-written graph could)."""
    g = GraphWriter()
    x = g.arg("x", TensorInfo((4, 8), "f32"))
    w = g.arg("w", TensorInfo((2, 8, 3), "f32"))
    counts = g.arg("counts", TensorInfo((2,), "i64"))
    g.ret(g.op(GroupedMatmul, x=x, w=w, group_list=counts))
    program = ascend_mla.compile(g, target="cpu")
    xs, ws = np.ones((4, 8), np.float32), np.ones((2, 8, 3), np.float32)
    (y,) = program(xs, ws, np.array([1, 2], np.int64))
    assert np.array_equal(y[:3], np.full((3, 3), 8, np.float32)) and not y[3].any()   # rows past the groups: 0
    with pytest.raises(ascend_mla.VerificationError, match=r"group_list: .*\[GMM-008\]"):
        program(xs, ws, np.array([3, 2], np.int64))


def test_the_finalize_refuses_a_row_index_out_of_range():
    g = GraphWriter()
    rows = g.arg("rows", TensorInfo((4, 8), "f32"))
    idx = g.arg("idx", TensorInfo((4,), "i32"))
    scales = g.arg("scales", TensorInfo((2, 2), "f32"))
    g.ret(g.op(MoeFinalizeRouting, expanded_x=rows, expanded_row_idx=idx, scales=scales))
    program = ascend_mla.compile(g, target="cpu")
    r = np.arange(32, dtype=np.float32).reshape(4, 8)
    (out,) = program(r, np.array([3, 2, 1, 0], np.int32), np.array([[1, 2], [3, 4]], np.float32))
    np.testing.assert_array_equal(out, np.stack([r[3] + 2 * r[2], 3 * r[1] + 4 * r[0]]))
    with pytest.raises(ascend_mla.VerificationError, match=r"expanded_row_idx: value 4 .*\[MFR-009\]"):
        program(r, np.array([4, 2, 1, 0], np.int32), np.ones((2, 2), np.float32))
