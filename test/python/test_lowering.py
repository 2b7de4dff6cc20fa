"""The lowered path on the CPU backend gives what the kernels give op by op, bit for bit; the
memory plan reuses buffers; checked mode stops a bad cache index before any write."""
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from kernel_walk import run_ops
from mlir import ir
from test_mla_chain import BLOCK_TABLE, BLOCKS, BS, B, N, nz_blocks

import ascend_mla
from ascend_mla.dialect.diagnostics import DiagnosticCollector
from ascend_mla.dialect.dialect import make_context
from ascend_mla.lowering.lower_to_aclnn import lower_module
from ascend_mla.lowering.memory_plan import plan
from ascend_mla.runtime import executor

BF16 = np.dtype(ml_dtypes.bfloat16)
CHAIN = (Path(__file__).parents[1] / "lit" / "dialect" / "mla-chain.mlir").read_text().split("// -----")


def lowered(source):
    ctx = make_context()
    with ctx, ir.Location.unknown(), DiagnosticCollector(ctx):
        module = lower_module(ir.Module.parse(source))
        fn = executor.load(module)
    fn._keep = (ctx, module)
    return fn


def step_inputs(seed=5):
    rng = np.random.default_rng(seed)
    r = lambda shape, s=0.05: (rng.standard_normal(shape) * s).astype(BF16)   # noqa: E731
    nz = lambda w: ascend_mla.format_cast(w, ascend_mla.FRACTAL_NZ)             # noqa: E731
    weights = [nz(r((7168, 1536))), nz(r((1536, N * 192))), r((N, 128, 512)), nz(r((7168, 576))),
               r((1536,), 1.0), r((512,), 1.0)]
    kv, kr = r((BLOCKS, BS, 1, 512), 1.0), r((BLOCKS, BS, 1, 64), 1.0)
    slots = np.array([[0 * BS + 3], [1 * BS + 8]], np.int64)
    return [r((B, 1, 7168), 1.0), *weights, r((B, 1, 64), 1.0), r((B, 1, 64), 1.0), slots], kv, kr


@pytest.mark.parametrize("split", [0, 1], ids=["pa_bsnd", "pa_nz"])
def test_lowered_chain_equals_the_kernels(split):
    step, kv, kr = step_inputs()
    if split == 1:
        kv, kr = nz_blocks(kv), nz_blocks(kr)
    interpreted = run_ops(CHAIN[split], [*step, kv.copy(), kr.copy(), BLOCK_TABLE])
    fn = lowered(CHAIN[split])
    kv2, kr2 = kv.copy(), kr.copy()
    out = fn([*step, kv2, kr2, BLOCK_TABLE], backend="cpu")
    assert out[1] is kv2 and out[2] is kr2                       # caches in place
    for got, want in zip(out, interpreted):
        assert np.array_equal(np.asarray(got).view(np.uint16), np.asarray(want).view(np.uint16))
    # a second call reuses both executors (same buffers, same host values)
    fn([*step, kv2, kr2, BLOCK_TABLE], backend="cpu")
    stats = fn.stats("cpu")
    assert stats.phase_one == [1, 1] and stats.reused == [1, 1]


def test_checked_mode_rejects_a_bad_cache_index_before_writing():
    step, kv, kr = step_inputs()
    step[-1] = np.array([[3], [BLOCKS * BS]], np.int64)          # out of range (MLA-190)
    fn = lowered(CHAIN[0])
    kv2, kr2 = kv.copy(), kr.copy()
    with pytest.raises(ascend_mla.VerificationError, match="cache_index"):
        fn([*step, kv2, kr2, BLOCK_TABLE], backend="cpu")
    assert np.array_equal(kv2.view(np.uint16), kv.view(np.uint16))


def test_memory_plan_reuses_dead_buffers():
    source = """
func.func @two(%x: tensor<64x512xbf16>, %g: tensor<512xbf16>) -> tensor<64x512xbf16> {
  %a = "mla.rms_norm"(%x, %g) : (tensor<64x512xbf16>, tensor<512xbf16>) -> tensor<64x512xbf16>
  %b = "mla.rms_norm"(%a, %g) : (tensor<64x512xbf16>, tensor<512xbf16>) -> tensor<64x512xbf16>
  %c = "mla.rms_norm"(%b, %g) : (tensor<64x512xbf16>, tensor<512xbf16>) -> tensor<64x512xbf16>
  return %c : tensor<64x512xbf16>
}"""
    p = plan(lowered(source))
    sizes = sorted(b.nbytes for b in p.buffers)
    assert sizes == [256] * 3 + [65536] * 3
    # %a dies when %c is allocated: three 64 KiB results need two slots; rstd scratches share
    assert p.unplanned_bytes == 3 * 65536 + 3 * 512
    assert p.peak_bytes == 2 * 65536 + 512
    c = next(b for b in p.buffers if b.returned)
    a = next(b for b in p.buffers if b.nbytes == 65536 and b.first == min(x.first for x in p.buffers))
    assert c.offset == a.offset
    live = [(b.first, b.last, b.offset, b.offset + -(-b.nbytes // 512) * 512) for b in p.buffers]
    for i, (f1, l1, s1, e1) in enumerate(live):                 # no two live buffers overlap
        for f2, l2, s2, e2 in live[i + 1:]:
            assert not (f1 <= l2 and f2 <= l1 and s1 < e2 and s2 < e1)


def test_a_scratch_output_is_computed_only_when_something_reads_it():
    """aclnnRmsNorm's rstdOut: a scratch buffer of the lowering (the CPU backend leaves it
    alone), but computed when the lowered IR reads it (here: returns it)."""
    ctx = make_context()
    with ctx, ir.Location.unknown(), DiagnosticCollector(ctx):
        module = lower_module(ir.Module.parse("""
func.func @norm(%x: tensor<4x64xbf16>, %g: tensor<64xbf16>) -> tensor<4x64xbf16> {
  %y = "mla.rms_norm"(%x, %g) {epsilon = 1.0e-06 : f64} : (tensor<4x64xbf16>, tensor<64xbf16>) -> tensor<4x64xbf16>
  return %y : tensor<4x64xbf16>
}"""))
        text = str(module)
        fn = executor.load(module)
        assert [c.unread for c in fn.calls] == [frozenset({"rstdOut"})]
        rstd = next(line.split(" = ")[0].strip() for line in text.splitlines() if "tensor<4x1xf32>" in line and "alloc" in line)
        reading = ir.Module.parse(text.replace("return %", f"return {rstd}, %").replace(
            "-> tensor<4x64xbf16> {", "-> (tensor<4x1xf32>, tensor<4x64xbf16>) {").replace(
            ": tensor<4x64xbf16>\n  }", ": tensor<4x1xf32>, tensor<4x64xbf16>\n  }"))
        fn2 = executor.load(reading)
        assert [c.unread for c in fn2.calls] == [frozenset()]
    x = np.random.default_rng(0).standard_normal((4, 64)).astype(BF16)
    rstd_value, _ = fn2([x, np.ones(64, BF16)], backend="cpu")
    xf = x.astype(np.float64)
    # float32 mean of squares of bf16 values vs float64: within float32 rounding (2^-20 relative)
    np.testing.assert_allclose(rstd_value[:, 0], 1 / np.sqrt((xf * xf).mean(-1) + 1e-6), rtol=2 ** -20)


def test_attention_layers_share_one_causal_template(monkeypatch):
    """Each causal attention layer reads the (2048, 2048) sparse_mode 3 template; the lowering
    computes it once per function (it was once per layer: 4-8 ms of CPU each, in every call of
    a prefill), and the program computes what the one with a template per layer does."""
    from ascend_mla.models import deepseek
    model = deepseek.build("deepseek-v3", tp=32, layers=3, batch=1, seq=4, block_size=16, max_positions=32)
    program = ascend_mla.compile(model, pipeline="builtin.module(verify)", target="cpu")
    launches = [line for line in program.lowered_ir.splitlines() if '"aclnn.launch"' in line]
    assert sum('"aclnnTriu"' in line for line in launches) == 1
    assert sum('"aclnnFusedInferAttentionScoreV4"' in line for line in launches) == 3
    got = program(**model.inputs(0, model.new_caches()))[0]
    # the same program with a template per layer, as the lowering made it before: the same bits
    from ascend_mla.lowering.lower_to_aclnn import CallBuilder
    monkeypatch.setattr(CallBuilder, "once", lambda self, key, build: build(self))
    per_layer = ascend_mla.compile(model, pipeline="builtin.module(verify)", target="cpu")
    assert sum('"aclnnTriu"' in line for line in per_layer.lowered_ir.splitlines()
               if '"aclnn.launch"' in line) == 3
    expected = per_layer(**model.inputs(0, model.new_caches()))[0]
    np.testing.assert_array_equal(np.asarray(got).view(np.uint8), np.asarray(expected).view(np.uint8))
