"""The DSA indexer's primitive ops (dialect/primitive/indexer.py): their kernels against torch's
own operators (the ops transformers' DeepseekV32Indexer calls), and their lowered aclnn calls
on the CPU backend against the kernels (the unfused program computes what the ops define)."""
from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla.dialect.types import TensorInfo
from ascend_mla.runtime.kernels import get_kernel

torch = pytest.importorskip("torch")
BF16 = np.dtype(ml_dtypes.bfloat16)


def run(name, **kw):
    return get_kernel(name)(**kw)


def bf16_tensor(a):
    return torch.from_numpy(np.asarray(a, np.float32)).to(torch.bfloat16)


def test_layer_norm_is_torch_layer_norm():
    """The indexer's k_norm: nn.LayerNorm(128, eps=1e-6) with weight and bias, bf16 in and out."""
    rng = np.random.default_rng(0)
    x = (rng.standard_normal((3, 5, 128)) * 3 + 1).astype(BF16)
    gamma, beta = rng.uniform(0.5, 1.5, 128).astype(BF16), rng.standard_normal(128).astype(BF16)
    (y,) = run("mla.layer_norm", x=x, gamma=gamma, beta=beta, epsilon=1e-6,
               result_types={"y": TensorInfo(x.shape, "bf16")})
    ref = torch.nn.functional.layer_norm(bf16_tensor(x).float(), (128,), bf16_tensor(gamma).float(),
                                         bf16_tensor(beta).float(), 1e-6).to(torch.bfloat16)
    # float32 arithmetic both sides, rounded once to bf16: at most one bf16 ulp apart
    np.testing.assert_allclose(y.astype(np.float32), ref.float().numpy(), rtol=2 ** -7, atol=2 ** -7)


def test_relu_batch_matmul_masked_fill():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((4, 3, 8)).astype(np.float32), rng.standard_normal((4, 8, 5)).astype(np.float32)
    (z,) = run("mla.batch_matmul", x=a, y=b, result_types={"z": TensorInfo((4, 3, 5), "f32")})
    np.testing.assert_allclose(z, torch.bmm(torch.from_numpy(a), torch.from_numpy(b)).numpy(), rtol=1e-6, atol=1e-6)
    (r,) = run("mla.relu", x=z, result_types={"y": TensorInfo(z.shape, "f32")})
    np.testing.assert_array_equal(r, torch.relu(torch.from_numpy(z)).numpy())
    mask = rng.random((4, 3, 5)) < 0.3
    (f,) = run("mla.masked_fill", x=z, mask=mask, value=float("-inf"))
    np.testing.assert_array_equal(f, torch.from_numpy(z).masked_fill(torch.from_numpy(mask), float("-inf")).numpy())


def test_paged_gather_reads_blocks_in_table_order():
    rng = np.random.default_rng(2)
    cache = rng.standard_normal((5, 4, 1, 3)).astype(np.float32)
    table = np.int32([[3, 0], [4, 4]])
    (y,) = run("mla.paged_gather", cache=cache, block_table=table)
    assert y.shape == (2, 8, 1, 3)
    np.testing.assert_array_equal(y[0, :4], cache[3])
    np.testing.assert_array_equal(y[0, 4:], cache[0])
    np.testing.assert_array_equal(y[1, 6], cache[4, 2])


def test_length_mask_is_the_causal_mask_of_the_last_positions():
    (mask,) = run("mla.length_mask", seq_lengths=np.int64([5, 2]),
                  result_types={"mask": TensorInfo((2, 3, 8), "i1")})
    # batch 0: rows at positions 2, 3, 4; batch 1: rows at -1 (sees nothing), 0, 1
    assert mask[0].tolist() == [[j > 2 + i for j in range(8)] for i in range(3)]
    assert mask[1, 0].all() and mask[1, 1].tolist() == [False] + [True] * 7


def test_top_k_is_torch_topk_with_the_documented_tie_order():
    x = np.float32([[1, 3, 3, -np.inf, 3, 2], [0, 0, 0, 0, 0, 0]])
    values, indices = run("mla.top_k", x=x, k=4)
    assert indices.dtype == np.int64 and indices.tolist() == [[1, 2, 4, 5], [0, 1, 2, 3]]
    assert values.tolist() == [[3, 3, 3, 2], [0, 0, 0, 0]]
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 50)).astype(np.float32)
    values, indices = run("mla.top_k", x=x, k=7)
    ref = torch.topk(torch.from_numpy(x), 7)
    np.testing.assert_array_equal(values, ref.values.numpy())
    np.testing.assert_array_equal(indices, ref.indices.numpy())          # no ties: the same order


def test_index_mask_is_transformers_scatter():
    """transformers: ones(...).scatter(-1, topk_indices, False); a negative index selects nothing."""
    idx = np.int64([[[3, 0, 5], [2, 2, 1]]])
    (mask,) = run("mla.index_mask", indices=idx, result_types={"mask": TensorInfo((1, 2, 7), "i1")})
    ref = torch.ones((1, 2, 7), dtype=torch.bool).scatter(-1, torch.from_numpy(idx), False)
    np.testing.assert_array_equal(mask, ref.numpy())
    (mask,) = run("mla.index_mask", indices=np.int32([[4, -1]]), result_types={"mask": TensorInfo((1, 5), "i1")})
    assert mask.tolist() == [[True, True, True, True, False]]


PRIMITIVES = """
func.func @f(%x: tensor<2x3x64xbf16> {mla.name = "x"}, %g: tensor<64xbf16> {mla.name = "g"},
             %beta: tensor<64xbf16> {mla.name = "beta"}, %cache: tensor<4x16x1x8xbf16> {mla.name = "cache"},
             %bt: tensor<2x2xi32> {mla.name = "bt"}, %len: tensor<2xi64> {mla.name = "len"},
             %s: tensor<2x3x32xf32> {mla.name = "s"})
    -> (tensor<2x3x64xbf16>, tensor<2x32x1x8xbf16>, tensor<2x3x32xf32>, tensor<2x3x32xi1>, tensor<2x3x4xf32>,
        tensor<2x3x4xi64>, tensor<2x3x32xi1>, tensor<2x3x3xf32>) {
  %ln = "mla.layer_norm"(%x, %g, %beta) {epsilon = 1.0e-06 : f64} : (tensor<2x3x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> tensor<2x3x64xbf16>
  %keys = "mla.paged_gather"(%cache, %bt) : (tensor<4x16x1x8xbf16>, tensor<2x2xi32>) -> tensor<2x32x1x8xbf16>
  %r = "mla.relu"(%s) : (tensor<2x3x32xf32>) -> tensor<2x3x32xf32>
  %lm = "mla.length_mask"(%len) : (tensor<2xi64>) -> tensor<2x3x32xi1>
  %m = "mla.masked_fill"(%r, %lm) {value = 0xFFF0000000000000 : f64} : (tensor<2x3x32xf32>, tensor<2x3x32xi1>) -> tensor<2x3x32xf32>
  %v, %i = "mla.top_k"(%m) {k = 4 : i64} : (tensor<2x3x32xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xi64>)
  %sel = "mla.index_mask"(%i) : (tensor<2x3x4xi64>) -> tensor<2x3x32xi1>
  %st = "mla.transpose"(%s) {permutation = array<i64: 0, 2, 1>} : (tensor<2x3x32xf32>) -> tensor<2x32x3xf32>
  %bmm = "mla.batch_matmul"(%r, %st) : (tensor<2x3x32xf32>, tensor<2x32x3xf32>) -> tensor<2x3x3xf32>
  return %ln, %keys, %m, %lm, %v, %i, %sel, %bmm : tensor<2x3x64xbf16>, tensor<2x32x1x8xbf16>, tensor<2x3x32xf32>, tensor<2x3x32xi1>, tensor<2x3x4xf32>, tensor<2x3x4xi64>, tensor<2x3x32xi1>, tensor<2x3x3xf32>
}
"""


def test_the_lowered_calls_compute_what_the_ops_define():
    """Compiled without fusion (each op lowered to its aclnn calls: LayerNorm, IndexSelect,
    Relu, GtTensor, InplaceMaskedFillScalar, Topk, ScatterValue, BatchMatMul) and run on the
    CPU backend: the kernels' values."""
    program = ascend_mla.compile(PRIMITIVES, pipeline="builtin.module(verify)", target="cpu")
    lowered = program.stages[list(program.stages)[-1]]
    for name in ("aclnnLayerNorm", "aclnnIndexSelect", "aclnnRelu", "aclnnGtTensor",
                 "aclnnInplaceMaskedFillScalar", "aclnnTopk", "aclnnScatterValue", "aclnnBatchMatMul"):
        assert f'callee = "{name}"' in lowered, name
    rng = np.random.default_rng(4)
    inputs = dict(x=rng.standard_normal((2, 3, 64)).astype(BF16), g=rng.uniform(0.5, 1.5, 64).astype(BF16),
                  beta=rng.standard_normal(64).astype(BF16), cache=rng.standard_normal((4, 16, 1, 8)).astype(BF16),
                  bt=np.int32([[2, 0], [3, 1]]), len=np.int64([20, 3]),
                  s=rng.standard_normal((2, 3, 32)).astype(np.float32))
    ln, keys, m, lm, v, i, sel, bmm = (np.asarray(o) for o in program(**inputs))
    (ln_k,) = run("mla.layer_norm", x=inputs["x"], gamma=inputs["g"], beta=inputs["beta"], epsilon=1e-6,
                  result_types={"y": TensorInfo((2, 3, 64), "bf16")})
    np.testing.assert_array_equal(ln.view(np.uint16), ln_k.view(np.uint16))
    np.testing.assert_array_equal(keys.view(np.uint16), run("mla.paged_gather", cache=inputs["cache"],
                                                            block_table=inputs["bt"])[0].view(np.uint16))
    (lm_k,) = run("mla.length_mask", seq_lengths=inputs["len"], result_types={"mask": TensorInfo((2, 3, 32), "i1")})
    np.testing.assert_array_equal(lm, lm_k)
    np.testing.assert_array_equal(m, np.where(lm_k, -np.inf, np.maximum(inputs["s"], 0)))
    v_k, i_k = run("mla.top_k", x=m, k=4)
    np.testing.assert_array_equal(i, i_k)
    np.testing.assert_array_equal(v, v_k)
    (sel_k,) = run("mla.index_mask", indices=i_k, result_types={"mask": TensorInfo((2, 3, 32), "i1")})
    np.testing.assert_array_equal(sel, sel_k)
    (bmm_k,) = run("mla.batch_matmul", x=np.maximum(inputs["s"], 0), y=inputs["s"].transpose(0, 2, 1),
                   result_types={"z": TensorInfo((2, 3, 3), "f32")})
    np.testing.assert_allclose(bmm, bmm_k, rtol=1e-6, atol=1e-6)


def test_data_rules_of_the_gather_and_the_index_mask():
    """A block id outside the cache (PG-005) and an index past T (IM-004) stop the program
    before its kernels run."""
    program = ascend_mla.compile(PRIMITIVES, pipeline="builtin.module(verify)", target="cpu")
    rng = np.random.default_rng(5)
    inputs = dict(x=rng.standard_normal((2, 3, 64)).astype(BF16), g=np.ones(64, BF16), beta=np.zeros(64, BF16),
                  cache=np.zeros((4, 16, 1, 8), BF16), bt=np.int32([[2, 0], [3, 4]]), len=np.int64([20, 3]),
                  s=rng.standard_normal((2, 3, 32)).astype(np.float32))
    with pytest.raises(ascend_mla.VerificationError, match=r"block_table\[1, 1\] = 4 is not a block .*\[PG-005\]"):
        program(**inputs)
    masks = ascend_mla.compile("""
func.func @f(%i: tensor<2x3xi64> {mla.name = "i"}) -> tensor<2x8xi1> {
  %m = "mla.index_mask"(%i) : (tensor<2x3xi64>) -> tensor<2x8xi1>
  return %m : tensor<2x8xi1>
}""", pipeline="builtin.module(verify)", target="cpu")
    assert np.asarray(masks(i=np.int64([[0, 7, 2], [1, 1, 1]]))).sum() == 16 - 3 - 1
    with pytest.raises(ascend_mla.VerificationError, match=r"expected indices < T = 8 .*got 8 \[IM-004\]"):
        masks(i=np.int64([[0, 8, 2], [1, 1, 1]]))


FUSION = (Path(__file__).resolve().parents[1] / "lit" / "passes" / "fuse-sparse-attention.mlir").read_text().split("// -----")[1]


def test_fused_dsa_attention_equals_the_graph():
    """The DSA layer graph of the fusion lit test, compiled fused (the default pipeline: the
    lightning indexer and sparse flash attention) and unfused (its primitives lowered): the
    same attention within the bf16 tolerance the FIA tests use, across decode positions. The
    two round P at different points (the graph's attention as FIA does, exp(x - max); sparse
    attention the normalized P) and sum the index scores in other orders."""
    fused = ascend_mla.compile(FUSION, target="cpu")
    plain = ascend_mla.compile(FUSION, pipeline="builtin.module(verify)", target="cpu")
    assert [f["op"] for f in fused.report()["fused"]] == ["mla.lightning_indexer", "mla.sparse_flash_attention"]
    rng = np.random.default_rng(6)

    def r(shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32).astype(BF16)
    for length in (2, 130, 256):
        inputs = dict(index_query=r((1, 2, 64, 128)), index_weights=rng.standard_normal((1, 2, 64)).astype(np.float32),
                      index_cache=r((3, 128, 1, 128)), block_table=np.int32([[2, 0]]),
                      seq_lengths=np.int64([length]), query=r((1, 2, 8, 512), 0.3), query_rope=r((1, 2, 8, 64), 0.3),
                      kv_cache=r((3, 128, 1, 512)), kr_cache=r((3, 128, 1, 64)))
        a = np.asarray(fused(**inputs), np.float32)
        b = np.asarray(plain(**inputs), np.float32)
        np.testing.assert_allclose(a, b, rtol=2 ** -7, atol=2 ** -8, err_msg=f"kv length {length}")
