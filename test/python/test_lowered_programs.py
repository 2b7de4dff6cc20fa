"""Compiled programs run lower -> execute: the lowered DeepSeek layers (fused and unfused, every
quant scenario, both cache modes) give the bits the kernels give op by op on the mla-level IR;
everything a call is checked for happens before the first kernel writes; host lists re-run
phase one only when they change; caches come back as the caller's objects."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from kernel_walk import run_ops

import ascend_mla
from ascend_mla.models import deepseek

BF16 = ml_dtypes.bfloat16
UNFUSED = "builtin.module(verify)"


def build(quant="bf16", cache_mode="PA_BSND", seq=1, layers=1, block_size=16):
    return deepseek.build("deepseek-v3", tp=16, layers=layers, batch=2, seq=seq, block_size=block_size,
                          quant=quant, cache_mode=cache_mode)


def bits(x):
    x = np.ascontiguousarray(np.asarray(x))
    return x.view(np.uint8)


SLOW = pytest.mark.slow


# w8a8c8 over PA_NZ caches with block size 128: the fused program's attention is FIA's MLA
# full-quant mode (aclnnFusedInferAttentionScoreV4 on the CPU backend); with PA_BSND it stays
# the int8 primitive.
@pytest.mark.parametrize("quant,cache_mode,seq,block_size", [
    ("bf16", "PA_BSND", 1, 16), ("w8a8c8", "PA_NZ", 3, 128),
    pytest.param("bf16", "PA_NZ", 3, 16, marks=SLOW), pytest.param("w8a8", "PA_NZ", 1, 16, marks=SLOW),
    pytest.param("w8a8c8", "PA_BSND", 1, 16, marks=SLOW)])
@pytest.mark.parametrize("pipeline", ["default", UNFUSED], ids=["fused", "unfused"])
def test_lowered_deepseek_layer_equals_the_kernels_bit_for_bit(quant, cache_mode, seq, block_size, pipeline):
    model = build(quant, cache_mode, seq, block_size=block_size)
    program = ascend_mla.compile(model, pipeline=pipeline)
    assert '"aclnn.launch"' in program.stages["lower-to-aclnn"]
    if (pipeline, quant, block_size) == ("default", "w8a8c8", 128):
        assert "query_quant_mode = 3" in program.ir and "paged_attention" not in program.ir
    reference_caches = model.new_caches()
    for step in range(2):                       # the second step reads what the first wrote
        inputs = model.inputs(step)
        expected = run_ops(program.ir, [{**inputs, **reference_caches}[n] for n in program.input_names()],
                           program.weights)
        got = program(**inputs)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert np.array_equal(bits(g), bits(e))


def test_decode_loop_runs_phase_one_again_only_when_the_lengths_change():
    model = build()
    program = ascend_mla.compile(model)
    calls = program.executable()
    fia = [i for i, c in enumerate(calls.calls) if c.function.name.startswith("aclnnFusedInferAttentionScore")]
    assert len(fia) == 1
    inputs = model.inputs(0)
    program(**inputs)
    program(**inputs)                           # same lengths: the executor is reused
    stats = calls.stats("cpu")
    assert stats.phase_one[fia[0]] == 1 and stats.reused[fia[0]] == 1
    program(**model.inputs(1))                  # one more token: phase one again
    assert stats.phase_one[fia[0]] == 2
    assert all(n == 1 for i, n in enumerate(stats.phase_one) if i != fia[0])


@pytest.mark.parametrize("pipeline", ["default", UNFUSED], ids=["fused", "unfused"])
def test_a_bad_slot_stops_the_call_before_any_write(pipeline):
    model = build()
    program = ascend_mla.compile(model, pipeline=pipeline)
    inputs = model.inputs(0)
    inputs["slot_mapping"] = inputs["slot_mapping"].copy()
    inputs["slot_mapping"][1, 0] = model.num_blocks * 16            # one past the last slot
    before = {k: inputs[k].copy() for k in ("kv_cache.0", "kr_cache.0")}
    rule = "MLA-190" if pipeline == "default" else "SC-010"
    with pytest.raises(ascend_mla.VerificationError, match=rf"slot_mapping|cache_index.*\[{rule}\]|\[{rule}\]"):
        program(**inputs)
    for k, v in before.items():
        assert np.array_equal(bits(inputs[k]), bits(v))


def test_rules_on_lengths_given_as_a_tensor_run_on_every_call_before_any_write():
    # FIA's kv lengths are a program input: FIA-164 (a static rule: the block table is wide
    # enough for them) cannot be decided on the IR, so each call runs it on the actual lengths
    # (the static rules the verified IR decided do not run again; runtime/checks.py).
    model = build()
    program = ascend_mla.compile(model)
    program(**model.inputs(0))
    inputs = model.inputs(1)
    inputs["seq_lengths"] = np.array([2, 33], np.int64)             # 3 blocks; the table has 2
    before = {k: inputs[k].copy() for k in ("kv_cache.0", "kr_cache.0")}
    with pytest.raises(ascend_mla.VerificationError, match=r"block_table: .*ceil\(33/16\) = 3.*\[FIA-164\]"):
        program(**inputs)
    for k, v in before.items():
        assert np.array_equal(bits(inputs[k]), bits(v))


@pytest.mark.parametrize("pipeline", ["default", UNFUSED], ids=["fused", "unfused"])
def test_weights_are_bound_as_constants_over_the_callers_memory(pipeline):
    # Read-only memory all the way down (the kernels keep packed forms of them: gemm.is_constant),
    # no copy, and the caller's arrays are left as they were (writeable).
    from ascend_mla.runtime.kernels.gemm import is_constant
    model = build()
    program = ascend_mla.compile(model, pipeline=pipeline)
    nd = {k: v for k, v in program.weights.items() if isinstance(v, np.ndarray)}
    assert nd and all(not v.flags.writeable and is_constant(v) for v in nd.values())
    for name, given in model.weights.items():
        if name in nd:
            assert np.shares_memory(nd[name], given) and given.flags.writeable
    first = program(**model.inputs(0))
    again = program(**model.inputs(0))                              # converted forms reused
    assert np.array_equal(bits(first[0]), bits(again[0]))


def test_inputs_are_checked_against_the_argument_types():
    model = build()
    program = ascend_mla.compile(model)
    inputs = model.inputs(0)
    inputs["hidden_states"] = inputs["hidden_states"].astype(np.float32)
    with pytest.raises(RuntimeError, match=r"input 0 has type tensor<2x1x7168xf32>, the IR says tensor<2x1x7168xbf16>"):
        program(**inputs)


def test_torch_in_torch_out_and_caches_are_the_callers_objects():
    torch = pytest.importorskip("torch")
    model = build()
    program = ascend_mla.compile(model)
    inputs = {k: torch.from_numpy(np.asarray(v).view(np.int16)).view(torch.bfloat16) if np.asarray(v).dtype == BF16
              else torch.from_numpy(np.ascontiguousarray(v)) for k, v in model.inputs(0).items()}
    hidden, kv, kr = program(**inputs)
    assert isinstance(hidden, torch.Tensor) and hidden.dtype == torch.bfloat16
    assert kv is inputs["kv_cache.0"] and kr is inputs["kr_cache.0"]
    assert torch.count_nonzero(kv.float()) > 0                      # written in place


@pytest.mark.parametrize("pipeline", ["default", UNFUSED], ids=["fused", "unfused"])
def test_memory_plan_of_a_deepseek_layer(pipeline):
    program = ascend_mla.compile(build(), pipeline=pipeline)
    plan = program.memory_plan()
    assert plan.buffers and plan.peak_bytes <= plan.unplanned_bytes
    live = [(b.first, b.last, b.offset, b.offset + -(-b.nbytes // 512) * 512) for b in plan.buffers]
    for i, (f1, l1, s1, e1) in enumerate(live):                   # no two live buffers overlap
        for f2, l2, s2, e2 in live[i + 1:]:
            assert not (f1 <= l2 and f2 <= l1 and s1 < e2 and s2 < e1)
    assert "peak" in str(plan)


@pytest.mark.parametrize("case", ["mla decode", "mla multi-token, PA_NZ", "gqa paged", "dense causal",
                                  "dense masked"])
def test_attention_primitives_lowered_to_fia_v4_equal_their_kernels(case):
    """The unfused attention primitives run as aclnnFusedInferAttentionScoreV4 calls (the CPU
    backend maps the call back onto the primitive's kernel): same bits as the kernel."""
    from test_fusion_passes import CASES, random_inputs
    program = ascend_mla.compile(CASES[case](), pipeline=UNFUSED)
    assert "aclnnFusedInferAttentionScoreV4" in program.lowered_ir
    inputs = random_inputs(program, np.random.default_rng(7))
    (got,) = program(**inputs)
    (expected,) = run_ops(program.ir, [inputs[n] for n in program.input_names()])
    assert np.array_equal(bits(got), bits(expected))


UPSTREAM = """
func.func @f(%x: tensor<2x64xf32>, %y: tensor<2x32xbf16>, %m: tensor<3x4xi8>, %q: tensor<2x3x4x8xbf16>,
             %k: tensor<2x4x2x8xbf16>) -> (tensor<2x96xbf16>, tensor<2x32xf32>, tensor<2x3x4x8xbf16>, tensor<6x6xi8>,
                                            tensor<2x1xbf16>) {
  %t = arith.truncf %x : tensor<2x64xf32> to tensor<2x64xbf16>
  %c = tensor.concat dim(1) %t, %y : (tensor<2x64xbf16>, tensor<2x32xbf16>) -> tensor<2x96xbf16>
  %e = arith.extf %y : tensor<2x32xbf16> to tensor<2x32xf32>
  %a = "mla.attention"(%q, %k, %k, %m) {causal = true, operandSegmentSizes = array<i32: 1, 1, 1, 1>, scale_value = 0.3 : f64} : (tensor<2x3x4x8xbf16>, tensor<2x4x2x8xbf16>, tensor<2x4x2x8xbf16>, tensor<3x4xi8>) -> tensor<2x3x4x8xbf16>
  %cm = "mla.causal_mask"() : () -> tensor<6x6xi8>
  %mean = "mla.mean"(%x) : (tensor<2x64xf32>) -> tensor<2x1xf32>
  %r = "mla.rsqrt"(%mean) : (tensor<2x1xf32>) -> tensor<2x1xbf16>
  return %c, %e, %a, %cm, %r : tensor<2x96xbf16>, tensor<2x32xf32>, tensor<2x3x4x8xbf16>, tensor<6x6xi8>, tensor<2x1xbf16>
}"""


def test_casts_concatenation_masks_mean_rsqrt_run_lowered_as_the_kernels_do():
    rng = np.random.default_rng(3)
    inputs = [np.abs(rng.standard_normal((2, 64))).astype(np.float32), rng.standard_normal((2, 32)).astype(BF16),
              (rng.random((3, 4)) < 0.3).astype(np.int8), rng.standard_normal((2, 3, 4, 8)).astype(BF16),
              rng.standard_normal((2, 4, 2, 8)).astype(BF16)]
    program = ascend_mla.compile(UPSTREAM, pipeline=UNFUSED)
    for name in ("aclnnCast", "aclnnCat", "aclnnLogicalOr", "aclnnTriu", "aclnnInplaceOne", "aclnnMean", "aclnnRsqrt"):
        assert f'callee = "{name}"' in program.lowered_ir
    for got, expected in zip(program(*inputs), run_ops(UPSTREAM, inputs)):
        assert np.array_equal(bits(got), bits(expected))


WRITTEN_OUT_QUANT = Path(__file__).parents[1] / "lit" / "passes" / "raise-quant.mlir"


def test_written_out_quant_runs_lowered_and_raised_alike():
    """The dynamic quant and int8 product of raise-quant's lit test, run three ways: lowered as
    written (aclnnAbs, Amax, Round, Maximum, Minimum, Cast, an int32 Matmul), raised and
    lowered (aclnnDynamicQuant, aclnnQuantMatmulV4), and op by op. All equal the float64
    formula of npu_dynamic_quant / npu_quant_matmul (codes exactly; the bf16 product within its
    one rounding) and each other bit for bit."""
    text = WRITTEN_OUT_QUANT.read_text().split("// -----")[1]
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 64)).astype(np.float32)
    smooth = rng.uniform(0.5, 1.5, 64).astype(np.float32)
    w = rng.integers(-127, 128, (32, 64)).astype(np.int8)
    w_scale = rng.uniform(1e-3, 1e-2, (32, 1)).astype(np.float32)
    written = ascend_mla.compile(text, pipeline=UNFUSED)
    raised = ascend_mla.compile(text, pipeline="builtin.module(verify,raise-quant)")
    assert 'callee = "aclnnAmax"' in written.lowered_ir and 'callee = "aclnnDynamicQuant"' in raised.lowered_ir
    (got,) = written(x, smooth, w, w_scale)
    (walked,) = run_ops(text, [x, smooth, w, w_scale])
    (fused,) = raised(x, smooth, w, w_scale)
    assert np.array_equal(bits(got), bits(walked)) and np.array_equal(bits(got), bits(fused))
    z = x.astype(np.float64) * smooth
    scale = np.abs(z).max(-1, keepdims=True) / 127
    codes = np.rint(z / scale)
    expected = (codes @ w.T.astype(np.float64)) * scale * w_scale.reshape(-1)
    # bf16 keeps 8 significant bits: one rounding of the float64 value, plus float32 steps
    assert np.allclose(got.astype(np.float64), expected, rtol=2 ** -8, atol=0)


STATE = """
func.func @store(%rows: tensor<2x1x4xbf16> {mla.name = "rows"}, %slots: tensor<2xi64> {mla.name = "slots"},
                 %cache: tensor<2x4x1x4xbf16> {mla.name = "cache", mla.state})
    -> (tensor<2x1x4xbf16>) {
  %0 = "mla.scatter_cache"(%cache, %slots, %rows) : (tensor<2x4x1x4xbf16>, tensor<2xi64>, tensor<2x1x4xbf16>) -> tensor<2x4x1x4xbf16>
  return %rows : tensor<2x1x4xbf16>
}
"""


def test_state_arguments_are_owned_by_the_program(tmp_path):
    """An argument marked mla.state (absorb-kv's latent caches) is not an input: the program
    allocates it once (zeros), passes it at every call and keeps what the calls write."""
    program = ascend_mla.compile(STATE)
    assert program.input_names() == ["rows", "slots"] and len(program.input_types()) == 2
    rows = np.ones((2, 1, 4), ml_dtypes.bfloat16)
    program(rows, np.array([0, 5]))
    program(rows=rows * 2, slots=np.array([1, 6]))                     # by name too
    program(rows * 3, np.array([2, 7]), function="store")             # the same state, named
    assert program.states("store")["cache"] is program.states()["cache"]
    cache = program.states()["cache"].astype(np.float32).reshape(8, 4)
    assert cache[:, 0].tolist() == [1, 2, 3, 0, 0, 1, 2, 3]          # all calls' rows kept
    with pytest.raises(TypeError, match="takes 2 inputs"):
        program(rows, np.array([0, 5]), np.zeros((2, 4, 1, 4), ml_dtypes.bfloat16))
    assert not ascend_mla.compile(STATE).states()["cache"].astype(np.float32).any()   # one per program
    path = tmp_path / "store.mlir"
    path.write_text(STATE)
    from ascend_mla.tools.mla_run import main
    assert main([str(path), "-o", str(tmp_path / "out.npz")]) == 0                # mla-run gives no state


def test_an_unknown_numerics_value_is_refused_by_name():
    """The int8 attention primitive's V4 call carries mla.numerics = "mla.paged_attention"; any
    other value is named, not run as the documented full-quant call over the primitive's ND
    caches (a NumPy error deep in the FIA kernel before)."""
    from mlir import ir

    from ascend_mla.dialect.types import numpy_dtype
    text = (Path(__file__).parents[1] / "lit" / "lowering" / "attention-primitives.mlir").read_text()
    int8 = next(s for s in text.split("// -----") if "@paged_mla_int8" in s)
    program = ascend_mla.compile(int8, pipeline=UNFUSED)
    rng = np.random.default_rng(1)
    inputs = [rng.integers(-127, 128, t.shape).astype(np.int8) if t.dtype == "i8" else
              (rng.random(t.shape) * 0.01 + 0.001).astype(numpy_dtype(t.dtype)) for t in program.input_types()]
    inputs[2], inputs[3] = np.array([[0, 1], [2, 3]], np.int32), np.array([20, 7])     # table, lengths
    program(*inputs)                                                   # as lowered: runs
    program = ascend_mla.compile(int8, pipeline=UNFUSED)
    with program.context:
        def rename(op):
            if "mla.numerics" in op.attributes:
                op.attributes["mla.numerics"] = ir.StringAttr.get("another")
            return ir.WalkResult.ADVANCE
        program.module.operation.walk(rename)
    with pytest.raises(NotImplementedError, match=r"aclnnFusedInferAttentionScoreV4: numerics variant "
                                                  r"\{'numerics': 'another'\}"):
        program(*inputs)
