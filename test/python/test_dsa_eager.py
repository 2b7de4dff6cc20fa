"""The DSA eager calls (ascend_mla.ops, torch_npu's signatures): vLLM-Ascend's forms with torch
tensors, the rules only a call can break (argument presence, the values of the lengths, index
rows and block tables, strides, the eager profile), and rejected calls writing nothing.
Numerics are in test_dsa_numerics.py / test_dsa_prolog.py; static rules in
test/lit/dialect/*-invalid.mlir."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla import VerificationError, ops
from ascend_mla.runtime.formats import format_cast

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)


def normal(rng, shape, dtype=BF16):
    return rng.standard_normal(shape).astype(np.float32).astype(dtype)


@pytest.fixture
def li():
    """vLLM-Ascend's indexer call: TND (3 + 1 tokens), PA_BSND key of 3 blocks of 128."""
    rng = np.random.default_rng(0)
    return dict(query=normal(rng, (4, 64, 128)), key=normal(rng, (3, 128, 1, 128)),
                weights=normal(rng, (4, 64)), actual_seq_lengths_query=np.int32([3, 4]),
                actual_seq_lengths_key=np.int32([200, 40]), block_table=np.int32([[2, 0], [1, 1]]),
                layout_query="TND", layout_key="PA_BSND", sparse_count=2048, sparse_mode=3)


@pytest.fixture
def sfa():
    rng = np.random.default_rng(1)
    kv = normal(rng, (3, 128, 1, 512))
    idx = np.full((4, 1, 2048), -1, np.int32)
    idx[:, 0, :10] = np.arange(10)
    return dict(query=normal(rng, (4, 16, 512)), key=kv, value=kv, sparse_indices=idx, scale_value=0.05,
                block_table=np.int32([[2, 0], [1, 1]]), actual_seq_lengths_query=np.int32([3, 4]),
                actual_seq_lengths_kv=np.int32([200, 40]), query_rope=normal(rng, (4, 16, 64)),
                key_rope=normal(rng, (3, 128, 1, 64)), layout_query="TND", layout_kv="PA_BSND",
                sparse_mode=3, attention_mode=2)


def rejects(fn, rule, match=""):
    with pytest.raises(VerificationError, match=rf"{match}.*\[{rule}\]"):
        fn()


# --- vLLM-Ascend's forms, torch in, torch out ------------------------------------------------

def test_vllm_forms_with_torch_tensors(li, sfa):
    torch = pytest.importorskip("torch")
    t = {k: (torch.from_numpy(v.astype(np.float32)).to(torch.bfloat16) if v.dtype == BF16 else torch.from_numpy(v))
         if isinstance(v, np.ndarray) else v for k, v in li.items()}
    indices, values = ops.npu_lightning_indexer(**t)
    assert isinstance(indices, torch.Tensor) and indices.dtype == torch.int32 and tuple(indices.shape) == (4, 1, 2048)
    assert tuple(values.shape) == (0,) and values.dtype == torch.bfloat16
    expected, _ = ops.npu_lightning_indexer(**li)
    np.testing.assert_array_equal(indices.numpy(), expected)
    # batch 0: 3 query rows at positions 197..199 see 198, 199, 200 keys; batch 1: 40
    assert ((indices >= 0).sum(-1).flatten().tolist()) == [198, 199, 200, 40]
    s = {k: (torch.from_numpy(v.astype(np.float32)).to(torch.bfloat16) if v.dtype == BF16 else torch.from_numpy(v))
         if isinstance(v, np.ndarray) else v for k, v in sfa.items()}
    s["value"] = s["key"]
    s["sparse_indices"] = indices
    out, smax, ssum = ops.npu_sparse_flash_attention(**s)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.bfloat16 and tuple(out.shape) == (4, 16, 512)
    assert tuple(smax.shape) == (0,) and smax.dtype == torch.float32


# --- the lightning indexer's data rules -------------------------------------------------------

def test_indexer_length_and_block_table_values(li):
    rejects(lambda: ops.npu_lightning_indexer(**{**li, "actual_seq_lengths_query": np.int32([3, 2])}),
            "LI-08", "actual_seq_lengths_query: expected cumulative token counts")
    rejects(lambda: ops.npu_lightning_indexer(**{**li, "actual_seq_lengths_query": np.int32([3, 5])}),
            "LI-08", "last .*value <= T1 = 4")
    rejects(lambda: ops.npu_lightning_indexer(**{**li, "actual_seq_lengths_key": np.int32([-1, 40])}),
            "LI-09", "actual_seq_lengths_key: expected values >= 0")
    rejects(lambda: ops.npu_lightning_indexer(**{**li, "actual_seq_lengths_key": np.int32([300, 40])}),
            "LI-10", r"block_table: expected at least ceil\(max actual_seq_lengths_key / block_size\)")
    rejects(lambda: ops.npu_lightning_indexer(**{**li, "block_table": np.int32([[2, 3], [1, 1]])}),
            "LI-X02", r"block_table\[0, 1\] = 3 is not a block of key")


def test_indexer_bsnd_lengths_within_s():
    rng = np.random.default_rng(2)
    q, k, w = normal(rng, (2, 3, 8, 128)), normal(rng, (2, 20, 1, 128)), normal(rng, (2, 3, 8))
    rejects(lambda: ops.npu_lightning_indexer(q, k, w, actual_seq_lengths_query=np.int32([4, 1])),
            "LI-08", r"expected values in \[0, S1\] = \[0, 3\], got 4 for batch 0")
    rejects(lambda: ops.npu_lightning_indexer(q, k, w, actual_seq_lengths_key=np.int32([21, 1])),
            "LI-09", r"expected values in \[0, S2\] = \[0, 20\]")


def test_indexer_strides_and_empty_tensors(li):
    strided = np.asfortranarray(li["query"])
    rejects(lambda: ops.npu_lightning_indexer(**{**li, "query": strided}), "LI-16", "query: expected a contiguous tensor")
    rejects(lambda: ops.npu_lightning_indexer(**{**li, "weights": np.asfortranarray(li["weights"])}), "LI-16", "weights")
    rejects(lambda: ops.npu_lightning_indexer(**{**li, "key": np.asfortranarray(li["key"])}), "LI-16", "key")
    # torch_npu's wrapper: no empty query or key (the aclnn document's profile allows B = 0)
    rejects(lambda: ops.npu_lightning_indexer(**{**li, "query": li["query"][:0], "weights": li["weights"][:0],
                                                 "actual_seq_lengths_query": np.int32([0, 0])}),
            "LI-17", "query: expected no empty dimension")
    rejects(lambda: ops.npu_lightning_indexer(**{**li, "key": li["key"][:, :, :, :0]}), "LI-17", "key")


def test_indexer_cann_2025_profile(li):
    """The CANN2512 profile (the 2025-12 tiling code) through ascend_mla.eager.profile."""
    with ascend_mla.eager.profile("CANN2512"):
        rejects(lambda: ops.npu_lightning_indexer(**{**li, "weights": li["weights"].astype(np.float32)}),
                "LI-02", "no f32 weights")
    ops.npu_lightning_indexer(**{**li, "weights": li["weights"].astype(np.float32)})   # the 2026 documents


def test_quant_indexer_data_rules():
    rng = np.random.default_rng(3)
    q = rng.integers(-127, 128, (2, 64, 128)).astype(np.int8)
    k = rng.integers(-127, 128, (2, 128, 1, 128)).astype(np.int8)
    call = dict(query=q, key=k, weights=normal(rng, (2, 64), F16), query_dequant_scale=np.full((2, 64), 0.01, F16),
                key_dequant_scale=np.full((2, 128, 1), 0.01, F16), query_quant_mode=0, key_quant_mode=0,
                actual_seq_lengths_query=np.int32([1, 2]), actual_seq_lengths_key=np.int32([100, 30]),
                block_table=np.int32([[0], [1]]), layout_query="TND", layout_key="PA_BSND", sparse_count=16)
    assert ops.npu_quant_lightning_indexer(**call).shape == (2, 1, 16)
    rejects(lambda: ops.npu_quant_lightning_indexer(**{**call, "weights": np.full((2, 64), 3e4, F16),
                                                       "query_dequant_scale": np.full((2, 64), 10, F16)}),
            "QLI-10", r"weights \* query_dequant_scale\| <= 65504")
    rejects(lambda: ops.npu_quant_lightning_indexer(**{**call, "query": np.asfortranarray(q)}), "QLI-03", "query")
    # the key cache may be strided in axis 0 with PA_BSND (a view of a larger pool), not elsewhere
    pool = np.concatenate([k, k], axis=0)[::2]
    assert not pool.flags.c_contiguous
    ops.npu_quant_lightning_indexer(**{**call, "key": pool})
    rejects(lambda: ops.npu_quant_lightning_indexer(**{**call, "key": np.asfortranarray(k)}), "QLI-03",
            "key: expected a contiguous tensor")
    rejects(lambda: ops.npu_quant_lightning_indexer(**{**call, "key_dequant_scale": np.asfortranarray(call["key_dequant_scale"])}),
            "QLI-03", "key_dequant_scale")


# --- the sparse attentions' data rules ---------------------------------------------------------

def test_sfa_index_rows_lengths_and_table(sfa):
    bad = sfa["sparse_indices"].copy()
    bad[1, 0, 12] = 5                     # a valid entry after the -1s
    rejects(lambda: ops.npu_sparse_flash_attention(**{**sfa, "sparse_indices": bad}), "SFA-10",
            "valid entries of a row first, then -1: row 1 has 5 at 12")
    bad = sfa["sparse_indices"].copy()
    bad[0, 0, 3] = -7
    rejects(lambda: ops.npu_sparse_flash_attention(**{**sfa, "sparse_indices": bad}), "SFA-10", "entries >= -1")
    rejects(lambda: ops.npu_sparse_flash_attention(**{**sfa, "actual_seq_lengths_query": np.int32([4, 3])}),
            "SFA-09", "actual_seq_lengths_query: expected cumulative")
    rejects(lambda: ops.npu_sparse_flash_attention(**{**sfa, "actual_seq_lengths_kv": np.int32([200, 400])}),
            "SFA-06", "block_table: expected at least")
    rejects(lambda: ops.npu_sparse_flash_attention(**{**sfa, "block_table": np.int32([[2, 7], [1, 1]])}),
            "SFA-X03", r"block_table\[0, 1\] = 7 is not a block")


def test_sfa_strides(sfa):
    rejects(lambda: ops.npu_sparse_flash_attention(**{**sfa, "query": np.asfortranarray(sfa["query"])}),
            "SFA-15", "query: expected a contiguous")
    rejects(lambda: ops.npu_sparse_flash_attention(**{**sfa, "sparse_indices": np.asfortranarray(sfa["sparse_indices"])}),
            "SFA-15", "sparse_indices")
    pool = np.concatenate([sfa["key"]] * 2)[::2]
    rejects(lambda: ops.npu_sparse_flash_attention(**{**sfa, "key": pool, "value": pool}), "SFA-15",
            "key: expected a contiguous")
    rejects(lambda: ops.npu_sparse_flash_attention(**{**sfa, "value": pool}), "SFA-15", "value")
    rejects(lambda: ops.npu_sparse_flash_attention(**{**sfa, "key_rope": np.concatenate([sfa["key_rope"]] * 2)[::2]}),
            "SFA-15", "key_rope")
    with ascend_mla.eager.profile("ASCEND950"):          # strided in axis 0 is fine there
        ops.npu_sparse_flash_attention(**{**sfa, "key": pool, "value": pool})


def test_kv_quant_sfa_strides():
    rng = np.random.default_rng(4)
    rows = rng.integers(-127, 128, (2, 128, 1, 656)).astype(np.int8)
    rows[..., 640:656] = np.full((2, 128, 1, 4), 0.01, np.float32).view(np.int8)
    rows[..., 512:640] = normal(rng, (2, 128, 1, 64)).view(np.int8)
    idx = np.full((2, 1, 16), -1, np.int32)
    idx[:, 0, :5] = np.arange(5)
    call = dict(query=normal(rng, (2, 8, 576)), sparse_indices=idx, scale_value=0.05, key_quant_mode=2,
                value_quant_mode=2, block_table=np.int32([[0], [1]]), actual_seq_lengths_query=np.int32([1, 2]),
                actual_seq_lengths_kv=np.int32([60, 20]), layout_query="TND", layout_kv="PA_BSND", attention_mode=2)
    assert ops.npu_kv_quant_sparse_flash_attention(key=rows, value=rows, **call).shape == (2, 8, 512)
    pool = np.concatenate([rows, rows])[::2]
    rejects(lambda: ops.npu_kv_quant_sparse_flash_attention(key=pool, value=pool, **call), "KQSFA-04",
            "key: expected a contiguous")
    rejects(lambda: ops.npu_kv_quant_sparse_flash_attention(key=rows, value=pool, **call), "KQSFA-04", "value")
    with ascend_mla.eager.profile("ASCEND950"):
        ops.npu_kv_quant_sparse_flash_attention(key=pool, value=pool, **call)
        rejects(lambda: ops.npu_kv_quant_sparse_flash_attention(key=np.asfortranarray(rows), value=rows, **call),
                "KQSFA-05", "strided in axis 0 only")


# --- prolog V3: arguments, data rules, caches untouched ------------------------------------------

@pytest.fixture
def pv3():
    rng = np.random.default_rng(5)

    def w(shape):
        return normal(rng, shape) / np.float32(np.sqrt(shape[0]))
    return dict(token_x=normal(rng, (4, 1024)), weight_dq=format_cast(w((1024, 1536)).astype(BF16), 29),
                weight_uq_qr=format_cast(w((1536, 192)).astype(BF16), 29), weight_uk=normal(rng, (1, 128, 512)),
                weight_dkv_kr=format_cast(w((1024, 576)).astype(BF16), 29),
                rmsnorm_gamma_cq=np.ones(1536, BF16), rmsnorm_gamma_ckv=np.ones(512, BF16),
                rope_sin=normal(rng, (4, 64)), rope_cos=normal(rng, (4, 64)),
                kv_cache=np.zeros((2, 16, 1, 512), BF16), kr_cache=np.zeros((2, 16, 1, 64), BF16),
                cache_index=np.int64([3, 9, 17, 30]), query_norm_flag=True)


def untouched(call, pv3, rule, match=""):
    kv, kr = pv3["kv_cache"], pv3["kr_cache"]
    kv[...] = 7
    kr[...] = 7
    rejects(call, rule, match)
    assert (kv.astype(np.float32) == 7).all() and (kr.astype(np.float32) == 7).all()


def test_prolog_v3_rejections_write_nothing(pv3):
    untouched(lambda: ops.npu_mla_prolog_v3(**{**pv3, "cache_index": np.int64([3, 9, 17, 32])}), pv3,
              "PV3-X01", r"cache_index: expected values < BlockNum\*BlockSize = 32")
    untouched(lambda: ops.npu_mla_prolog_v3(**{**pv3, "token_x": None}), pv3, "PV3-20", "token_x: is required")
    untouched(lambda: ops.npu_mla_prolog_v3(**{**pv3, "token_x": np.asfortranarray(pv3["token_x"])}), pv3,
              "PV3-17", "token_x: expected a contiguous")
    frozen = pv3["kv_cache"].copy()
    frozen.flags.writeable = False
    rejects(lambda: ops.npu_mla_prolog_v3(**{**pv3, "kv_cache": frozen}), "PV3-17", "kv_cache: expected a writeable")
    # the caches may be strided in axis 0 (blocks of a larger pool): updated in place there
    pool = np.zeros((4, 16, 1, 512), BF16)
    ops.npu_mla_prolog_v3(**{**pv3, "kv_cache": pool[::2]})
    assert np.abs(pool[0::2].astype(np.float32)).sum() > 0 and (pool[1::2].astype(np.float32) == 0).all()


def test_prolog_v3_block_ids_and_sequence_lengths(pv3):
    call = {**pv3, "cache_mode": "PA_BLK_BSND", "cache_index": np.int64([1, 0]),
            "actual_seq_len": np.int32([3, 4])}
    ops.npu_mla_prolog_v3(**call)
    untouched(lambda: ops.npu_mla_prolog_v3(**{**call, "actual_seq_len": np.int32([3, 5])}), pv3,
              "PV3-18", "actual_seq_len: expected a last value equal to T = 4")
    untouched(lambda: ops.npu_mla_prolog_v3(**{**call, "cache_index": np.int64([1, 2])}), pv3,
              "PV3-X01", "expected values < BlockNum = 2")
    small = {**call, "kv_cache": np.zeros((1, 16, 1, 512), BF16), "kr_cache": np.zeros((1, 16, 1, 64), BF16),
             "cache_index": np.int64([0, 0])}
    rejects(lambda: ops.npu_mla_prolog_v3(**small), "PV3-09", r"BlockNum >= sum\(ceil\(S_i / BlockSize\)\) = 2")
