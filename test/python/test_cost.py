"""The roofline (ascend_mla/cost.py): bytes and FLOPs per kernel call, counted here by hand from
the shapes, and the DeepSeek-V3 prolog bound the performance model quotes (docs/architecture.md: 122.6 MB
of bf16 weights at N = 128, about 77 us at 1.6 TB/s)."""
from pathlib import Path

import pytest
from mlir import ir

import ascend_mla
from ascend_mla.compiler import parse_and_transform
from ascend_mla.cost import ATLAS_A2, ATLAS_A3, roofline
from ascend_mla.dialect.diagnostics import DiagnosticCollector
from ascend_mla.dialect.dialect import make_context
from ascend_mla.models import deepseek
from ascend_mla.passes.registry import PIPELINES

BF16 = 2
ROOT = Path(__file__).resolve().parents[2]


def lowered(text, pipeline="builtin.module(verify,lower-to-aclnn)"):
    """An ir.Module at the kernel-call level, without binding weights."""
    context = make_context()
    with context, ir.Location.unknown(), DiagnosticCollector(context) as diags:
        module = parse_and_transform(text, pipeline)
        assert module is not None, [d.format("t") for d in diags.diagnostics]
    return module


def test_a_matmul_moves_its_three_tensors_and_does_2mnk_flops():
    m, k, n = 4, 64, 32
    module = lowered(f"""func.func @f(%x: tensor<{m}x{k}xbf16>, %w: tensor<{k}x{n}xbf16>) -> tensor<{m}x{n}xbf16> {{
  %0 = "mla.matmul"(%x, %w) : (tensor<{m}x{k}xbf16>, tensor<{k}x{n}xbf16>) -> tensor<{m}x{n}xbf16>
  return %0 : tensor<{m}x{n}xbf16>
}}""")
    (call,) = roofline(module).calls
    assert call.callee == "aclnnMatmul"
    assert call.nbytes == (m * k + k * n + m * n) * BF16
    assert call.weight_bytes == k * n * BF16            # the right-hand side
    assert call.flops == 2 * m * n * k
    # 2 * 4 * 32 * 64 FLOPs are nothing next to 6 KiB at 1.6 TB/s: memory bound
    assert call.bound(ATLAS_A2) == "memory"
    assert call.seconds(ATLAS_A2) == pytest.approx(call.nbytes / 1.6e12)


def test_a_large_enough_matmul_is_compute_bound_and_int8_runs_twice_as_fast():
    big = lowered("""func.func @f(%x: tensor<1024x1024xbf16>, %w: tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16> {
  %0 = "mla.matmul"(%x, %w) : (tensor<1024x1024xbf16>, tensor<1024x1024xbf16>) -> tensor<1024x1024xbf16>
  return %0 : tensor<1024x1024xbf16>
}""")
    (call,) = roofline(big).calls
    # 2 GFLOP over 6 MB: 341 FLOP/byte, above the A2's 320e12 / 1.6e12 = 200
    assert call.bound(ATLAS_A2) == "compute"
    assert call.seconds(ATLAS_A2) == pytest.approx(2 * 1024 ** 3 / 320e12)
    assert call.seconds(ATLAS_A3) == pytest.approx(2 * 1024 ** 3 / 390e12)
    assert ATLAS_A2.seconds(0, 1e12, int8=True) == pytest.approx(ATLAS_A2.seconds(0, 1e12) / 2)


def test_rms_norm_reads_x_and_gamma_and_writes_y_and_its_scratch_rstd():
    module = lowered((ROOT / "examples" / "rms_norm.mlir").read_text())
    (call,) = roofline(module).calls
    assert call.callee == "aclnnRmsNorm" and call.flops == 0       # vector work: not cube FLOPs
    assert call.nbytes == (8 * 7168 * 2 + 7168) * BF16 + 8 * 4      # x, y, gamma; rstd (8, 1) f32


def test_deepseek_v3_prolog_at_128_heads_is_122_6_mb_of_weights_and_77_us_on_an_a2():
    """docs/architecture.md's figure, from the compiler's own IR: DeepSeek-V3 at tp 1 (N = 128), one
    decode token. The weights: W_dq (7168, 1536), W_uq_qr (1536, 128 * 192), W_uk (128, 128, 512),
    W_dkv_kr (7168, 576) in bf16, and the two RmsNorm gammas."""
    model = deepseek.build("deepseek-v3", tp=1, layers=1, batch=1)
    module = lowered(model.module, PIPELINES["default"][:-1] + ",lower-to-aclnn)")   # no weight values needed
    (prolog,) = roofline(module).find("aclnnMlaProlog")
    projections = 7168 * 1536 + 1536 * 128 * 192 + 128 * 128 * 512 + 7168 * 576
    assert prolog.weight_bytes == (projections + 1536 + 512) * BF16
    assert round(projections * BF16 / 1e6, 1) == 122.6
    # the rest: one token in and out, one cache row each, the rope rows, the slot
    activations = (7168 + 128 * 512 + 128 * 64 + 512 + 64 + 2 * 64) * BF16 + 8
    assert prolog.nbytes == prolog.weight_bytes + activations
    assert prolog.flops == 2 * projections                         # one token: 2 FLOPs per weight
    assert prolog.bound(ATLAS_A2) == "memory"
    assert 76.0e-6 < prolog.seconds(ATLAS_A2) < 77.5e-6
    assert prolog.seconds(ATLAS_A2) == pytest.approx(prolog.nbytes / 1.6e12)


def test_the_attention_reads_the_cache_rows_the_kv_lengths_name():
    model = deepseek.build("deepseek-v3", tp=16, layers=1, batch=2, block_size=128)
    program = ascend_mla.compile(model)
    at = {step: program.roofline(model.inputs(step)).find("aclnnFusedInferAttentionScore")[0]
          for step in (0, 3)}
    # 3 more tokens per sequence: 2 rows x 3 tokens x (512 latent + 64 rope) bf16 more read
    assert at[3].nbytes - at[0].nbytes == 2 * 3 * (512 + 64) * BF16
    # QK^T over 576 and PV over 512 for 8 heads x 2 rows, per kv token
    assert at[3].flops - at[0].flops == 2 * (2 * 8) * 3 * (576 + 512)
    capacity = roofline(program)                                  # no inputs: the whole table
    assert "capacity" in capacity.kv_lengths and "capacity" in str(capacity)
    assert capacity.find("aclnnFusedInferAttentionScore")[0].nbytes > at[3].nbytes


def test_fusion_saves_launches_and_the_weights_are_what_a_decode_step_moves():
    model = deepseek.build("deepseek-v3", tp=16, layers=2, batch=4, block_size=128)
    inputs = model.inputs(0)
    fused = ascend_mla.compile(model).roofline(inputs)
    unfused = ascend_mla.compile(model, pipeline="builtin.module(verify)").roofline(inputs)
    assert (fused.launches, unfused.launches) == (14, 46)
    # the unfused program transposes its (out, in) weights every step: three times the bytes
    assert unfused.nbytes > 2.5 * fused.nbytes
    weights = sum(c.weight_bytes for c in fused.calls)
    assert weights > 0.95 * fused.nbytes
    text = str(fused)
    assert "aclnnMlaPrologV2WeightNz" in text and "total: 14 launches" in text and "1.6 TB/s" in text


def test_roofline_takes_a_program_or_a_lowered_module_only():
    with pytest.raises(TypeError, match="expected an ascend_mla.Program"):
        roofline("func.func @f() { return }")
