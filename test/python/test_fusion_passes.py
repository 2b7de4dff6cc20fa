"""The fusion and layout passes on small graphs: the fused program computes what the primitive
graph computes, weights are packed once at compile time, and the pattern matcher's contract
(any order, any names, no half-fused graph)."""

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla.dialect.primitive import Attention, Matmul, PagedAttention, Transpose
from ascend_mla.dialect.types import TensorInfo as T
from ascend_mla.models.graph import GraphWriter

BF16 = ml_dtypes.bfloat16


def paged_graph(s=1, n=8, nkv=1, d=512, dr=64, bs=16, blocks=7, mla=True, mode="PA_BSND"):
    g = GraphWriter("attend")
    q = g.arg("q", T((2, s, n, d), "bf16"))
    kc = g.arg("k_cache", T((blocks, bs, nkv, d), "bf16"))
    vc = kc if mla else g.arg("v_cache", T((blocks, bs, nkv, d), "bf16"))
    bt, lens = g.arg("block_table", T((2, 3), "i32")), g.arg("seq_lengths", T((2,), "i64"))
    rope = dict(query_rope=g.arg("q_rope", T((2, s, n, dr), "bf16")),
                key_rope_cache=g.arg("kr_cache", T((blocks, bs, nkv, dr), "bf16"))) if mla else {}
    g.ret(g.op(PagedAttention, query=q, key_cache=kc, value_cache=vc, block_table=bt, seq_lengths=lens,
               scale_value=0.07, cache_mode=mode, **rope))
    return g.text()


def dense_graph(s=5, skv=7, causal=False, mask=False):
    g = GraphWriter("attend")
    q = g.arg("q", T((2, s, 8, 64), "bf16"))
    k, v = g.arg("k", T((2, skv, 2, 64), "bf16")), g.arg("v", T((2, skv, 2, 64), "bf16"))
    extra = {"atten_mask": g.arg("mask", T((s, skv), "i8"))} if mask else {}
    g.ret(g.op(Attention, query=q, key=k, value=v, scale_value=0.125, causal=causal, **extra))
    return g.text()


def random_inputs(program, rng):
    values = {}
    for name, arg in zip(program.input_names(), program.input_types()):
        if name == "block_table":
            values[name] = rng.permutation(7)[:6].reshape(2, 3).astype(np.int32)
        elif name == "seq_lengths":
            values[name] = np.array([rng.integers(5, 48), 48], np.int64)
        elif name == "mask":
            values[name] = (rng.random(arg.shape) < 0.3).astype(np.int8)
        else:
            values[name] = rng.standard_normal(arg.shape).astype(BF16)
    return values


CASES = {"mla decode": lambda: paged_graph(), "mla multi-token, PA_NZ": lambda: paged_graph(s=4, mode="PA_NZ"),
         "gqa paged": lambda: paged_graph(n=8, nkv=2, d=128, mla=False),
         "dense causal": lambda: dense_graph(s=5, skv=7, causal=True), "dense masked": lambda: dense_graph(mask=True)}


@pytest.mark.parametrize("case", CASES)
def test_fused_attention_computes_what_the_primitive_does(case):
    text = CASES[case]()
    fused = ascend_mla.compile(text)
    assert [f["op"] for f in fused.report()["fused"]] == ["mla.fused_infer_attention_score"]
    unfused = ascend_mla.compile(text, pipeline="builtin.module(verify)")
    inputs = random_inputs(fused, np.random.default_rng(len(case)))
    a, = fused(**inputs)
    b, = unfused(**inputs)
    # Both round P to bf16 before P.V and the result to bf16; they differ in summation order
    # only: a few bf16 ulps of the values' scale (max |v| ~ 4), 2^-6 relative at most.
    values = next(inputs[k] for k in ("v", "v_cache", "k_cache") if k in inputs)
    bound = 2.0 ** -6 * np.abs(values.astype(np.float32)).max()
    assert np.abs(a.astype(np.float32) - b.astype(np.float32)).max() <= bound


def linear_graph():
    g = GraphWriter("linear")
    x = g.arg("x", T((3, 64), "bf16"))
    w = g.weight("layer.weight", T((32, 64), "bf16"))              # (out, in), as nn.Linear keeps it
    g.ret(g.op(Matmul, x=x, w=g.op(Transpose, x=w, permutation=[1, 0])))
    return g.text()


def test_constant_weights_are_laid_out_and_packed_once_at_compile_time():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((32, 64)).astype(BF16)
    x = rng.standard_normal((3, 64)).astype(BF16)
    program = ascend_mla.compile(linear_graph(), weights={"layer.weight": w})
    # select-layout read the weight as FRACTAL_NZ; fold-constants transposed and packed it once
    assert 'mla.format_cast' in program.stages["select-layout"]
    assert "mla.transpose" not in program.ir and "format_cast" not in program.ir
    packed = program.weights["layer.weight.T.cast"]
    assert isinstance(packed, ascend_mla.NZTensor) and packed.shape == (64, 32)
    assert "layer.weight" not in program.weights                 # the unused original left the table
    expected = (x.astype(np.float64) @ w.astype(np.float64).T).astype(BF16)
    got, = program(x)
    assert np.abs(got.astype(np.float32) - expected.astype(np.float32)).max() <= 2.0 ** -7 * np.abs(expected.astype(np.float32)).max()


def test_missing_or_mistyped_weights_are_compile_errors_naming_the_weight():
    with pytest.raises(ascend_mla.CompileError, match="weight 'layer.weight': no value given"):
        ascend_mla.compile(linear_graph())
    with pytest.raises(ascend_mla.CompileError, match=r"weight 'layer.weight': the global is tensor<32x64xbf16>, the value is tensor<64x32xbf16>"):
        ascend_mla.compile(linear_graph(), weights={"layer.weight": np.zeros((64, 32), BF16)})


def test_stages_record_the_ir_after_each_pass_in_order():
    program = ascend_mla.compile(paged_graph())
    assert list(program.stages) == ["input", "verify", "raise-rms-norm", "raise-rope", "raise-quant",
                                    "interleave-rope", "absorb-kv", "absorb-latent-kv", "fuse-prolog",
                                    "fuse-sparse-attention", "fuse-attention", "select-layout", "fold-constants", "cleanup",
                                    "lower-to-aclnn"]
    assert "mla.paged_attention" in program.stages["fuse-prolog"]
    assert "mla.paged_attention" not in program.stages["fuse-attention"]
    assert program.stages["cleanup"] == program.ir
    assert program.stages["lower-to-aclnn"] == program.lowered_ir and '"aclnn.launch"' in program.lowered_ir


def test_the_named_pipeline_is_the_same_from_mla_opt(tmp_path):
    import subprocess
    import sys
    from pathlib import Path
    path = tmp_path / "attend.mlir"
    path.write_text(paged_graph())
    mla_opt = Path(sys.executable).parent / "mla-opt"
    out = subprocess.run([str(mla_opt), str(path), "--pass-pipeline=default"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.rstrip() == ascend_mla.compile(paged_graph()).ir.rstrip()


def test_programs_take_named_inputs_and_reject_wrong_ones():
    program = ascend_mla.compile(paged_graph())
    names = program.input_names()
    assert names == ["q", "k_cache", "block_table", "seq_lengths", "q_rope", "kr_cache"]
    with pytest.raises(TypeError, match="missing"):
        program(q=None)


def test_compile_takes_an_ir_module_and_torch_tensors_updating_caches_in_place():
    torch = pytest.importorskip("torch")
    from mlir import ir

    from ascend_mla.dialect.dialect import make_context
    from ascend_mla.models import deepseek
    model = deepseek.build("deepseek-v3", tp=16, layers=1, batch=2, block_size=16)
    with make_context():
        module = ir.Module.parse(model.module)
        program = ascend_mla.compile(module, weights=model.weights)
    inputs = model.inputs(0, model.new_caches())
    expected = program(**{k: v.copy() for k, v in inputs.items()})
    as_torch = {k: torch.from_numpy(v.view(np.int16)).view(torch.bfloat16) if v.dtype == BF16 else torch.from_numpy(v)
                for k, v in inputs.items()}
    outputs = program(**as_torch)
    assert outputs[1] is as_torch["kv_cache.0"] and outputs[2] is as_torch["kr_cache.0"]   # in place
    assert isinstance(outputs[0], torch.Tensor) and outputs[0].dtype == torch.bfloat16
    got = outputs[0].view(torch.int16).numpy().view(BF16)
    assert np.array_equal(got, expected[0])
    assert np.array_equal(as_torch["kv_cache.0"].view(torch.int16).numpy().view(BF16), expected[1])


def test_a_weight_two_ops_use_is_packed_once():
    g = GraphWriter("two_users")
    x = g.arg("x", T((3, 64), "bf16"))
    w = g.weight("shared.weight", T((32, 64), "bf16"))
    a = g.op(Matmul, x=x, w=g.op(Transpose, x=w, permutation=[1, 0]))
    b = g.op(Matmul, x=x, w=g.op(Transpose, x=w, permutation=[1, 0]))
    g.ret(a, b)
    program = ascend_mla.compile(g, weights={"shared.weight": np.ones((32, 64), BF16)})
    assert sorted(program.weights) == ["shared.weight.T.cast"]
    assert program.ir.count("global_load_const @shared.weight.T.cast") == 2


@pytest.mark.parametrize("batch, seq", [(2, 17), (1, 40)])
def test_a_prefill_chunk_fuses_the_prolog_as_merged_tokens(batch, seq):
    """More than 16 tokens per sequence (MLA-102 bounds S) fuse into mla.prolog_v2 with
    token_x (B*S, He), cache_index (B*S,) and the query viewed back as (B, S, N, D): the
    prolog's values per token do not depend on how tokens are grouped, so the program gives the
    unfused primitives' outputs and caches bit for bit (FIA's MLA mode takes Q_S <= 16: the
    attention stays unfused)."""
    from ascend_mla.models import deepseek
    model = deepseek.build("deepseek-v3", tp=32, layers=1, batch=batch, seq=seq, block_size=16,
                           max_positions=64)
    fused = ascend_mla.compile(model, target="cpu")
    report = fused.report()
    assert [f["op"] for f in report["fused"]] == ["mla.prolog_v2"]
    assert [r["reason"].split()[-1] for r in report["refused"]] == ["[FIA-MLA-9]"]
    prolog = next(line for line in fused.ir.splitlines() if '"mla.prolog_v2"' in line)
    assert f"(tensor<{batch * seq}x7168xbf16>" in prolog and f"tensor<{batch * seq}xi64>" in prolog
    unfused = ascend_mla.compile(model, pipeline="builtin.module(verify)", target="cpu")
    caches_f, caches_u = model.new_caches(), model.new_caches()
    for got, expected in zip(fused(**model.inputs(0, caches_f)), unfused(**model.inputs(0, caches_u))):
        np.testing.assert_array_equal(np.asarray(got).view(np.uint8), np.asarray(expected).view(np.uint8))
    for name in caches_f:
        np.testing.assert_array_equal(np.asarray(caches_f[name]).view(np.uint8), np.asarray(caches_u[name]).view(np.uint8))
