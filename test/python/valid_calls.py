"""Valid eager calls, one builder per op: the starting points of the argument-kind tests and of
the eager fuzzer (test/fuzz/test_fuzz_eager.py), which breaks them. Each builder takes a NumPy
Generator and returns the keyword arguments of a call that runs."""
import ml_dtypes
import numpy as np

import ascend_mla

BF16 = np.dtype(ml_dtypes.bfloat16)


def rms_norm_case(rng):
    return dict(x=rng.standard_normal((4, 64)).astype(BF16), gamma=rng.standard_normal(64).astype(BF16),
                epsilon=1e-6)


def prolog_case(rng):
    t, n, blocks, bs = 2, 8, 2, 16
    def r(shape, scale=0.05):
        return (rng.standard_normal(shape) * scale).astype(BF16)
    return dict(
        token_x=r((t, 7168), 1.0), weight_dq=ascend_mla.format_cast(r((7168, 1536)), 29),
        weight_uq_qr=ascend_mla.format_cast(r((1536, n * 192)), 29), weight_uk=r((n, 128, 512)),
        weight_dkv_kr=ascend_mla.format_cast(r((7168, 576)), 29),
        rmsnorm_gamma_cq=r((1536,), 1.0), rmsnorm_gamma_ckv=r((512,), 1.0),
        rope_sin=r((t, 64), 1.0), rope_cos=r((t, 64), 1.0),
        cache_index=np.array([3, 17], np.int64),
        kv_cache=np.zeros((blocks, bs, 1, 512), BF16), kr_cache=np.zeros((blocks, bs, 1, 64), BF16))


def fia_case(rng):
    kv = (rng.standard_normal((4, 16, 1, 512)) * 0.5).astype(BF16)
    kr = (rng.standard_normal((4, 16, 1, 64)) * 0.5).astype(BF16)
    return dict(query=(rng.standard_normal((2, 1, 8, 512)) * 0.1).astype(BF16), key=kv, value=kv,
                query_rope=(rng.standard_normal((2, 1, 8, 64)) * 0.1).astype(BF16), key_rope=kr,
                block_table=np.array([[2, 0], [1, 3]], np.int32), actual_seq_lengths_kv=[20, 9],
                num_heads=8, num_key_value_heads=1, block_size=16, scale_value=0.07,
                input_layout="BSND")


def nsa_case(rng):
    return dict(query=rng.standard_normal((2, 8, 32)).astype(BF16),
                key=rng.standard_normal((8, 16, 2 * 32)).astype(BF16),
                value=rng.standard_normal((8, 16, 2 * 16)).astype(BF16),
                scale_value=0.125, head_num=8, key_value_head_num=2, select_block_size=32,
                select_block_count=4, page_block_size=16, compress_block_size=32,
                compress_stride=16, block_table=np.array([[5, 2, 7, 0], [1, 6, 3, 4]], np.int32),
                actual_cmp_seq_kvlen=[40, 50])


def fia_v2_case(rng):
    """fia_case in npu_fused_infer_attention_score_v2's keywords."""
    case = fia_case(rng)
    renamed = {"actual_seq_lengths_kv": "actual_seq_kvlen", "num_heads": "num_query_heads",
               "scale_value": "softmax_scale"}
    return {renamed.get(k, k): v for k, v in case.items()}


def lightning_indexer_case(rng):
    """vLLM-Ascend's form: TND query (2 + 1 tokens), PA_BSND key of 2 blocks of 128."""
    return dict(query=rng.standard_normal((3, 64, 128)).astype(BF16),
                key=rng.standard_normal((2, 128, 1, 128)).astype(BF16),
                weights=rng.standard_normal((3, 64)).astype(BF16),
                actual_seq_lengths_query=np.int32([2, 3]), actual_seq_lengths_key=np.int32([50, 9]),
                block_table=np.int32([[1], [0]]), layout_query="TND", layout_key="PA_BSND",
                sparse_count=64, sparse_mode=3)


def sparse_flash_attention_case(rng):
    kv = rng.standard_normal((2, 128, 1, 512)).astype(BF16)
    idx = np.full((3, 1, 64), -1, np.int32)
    idx[:, 0, :8] = np.arange(8)
    return dict(query=rng.standard_normal((3, 8, 512)).astype(BF16), key=kv, value=kv, sparse_indices=idx,
                scale_value=0.07, block_table=np.int32([[1], [0]]), actual_seq_lengths_query=np.int32([2, 3]),
                actual_seq_lengths_kv=np.int32([50, 9]), query_rope=rng.standard_normal((3, 8, 64)).astype(BF16),
                key_rope=rng.standard_normal((2, 128, 1, 64)).astype(BF16), layout_query="TND",
                layout_kv="PA_BSND", sparse_mode=3, attention_mode=2)


def quant_lightning_indexer_case(rng):
    case = lightning_indexer_case(rng)
    return dict(case, query=rng.integers(-127, 128, (3, 64, 128)).astype(np.int8),
                key=rng.integers(-127, 128, (2, 128, 1, 128)).astype(np.int8),
                weights=rng.standard_normal((3, 64)).astype(np.float16),
                query_dequant_scale=np.full((3, 64), 0.01, np.float16),
                key_dequant_scale=np.full((2, 128, 1), 0.01, np.float16), query_quant_mode=0, key_quant_mode=0)


def kv_quant_sparse_flash_attention_case(rng):
    case = sparse_flash_attention_case(rng)
    rows = rng.integers(-127, 128, (2, 128, 1, 656)).astype(np.int8)
    rows[..., 512:640] = rng.standard_normal((2, 128, 1, 64)).astype(BF16).view(np.int8)
    rows[..., 640:] = np.full((2, 128, 1, 4), 0.01, np.float32).view(np.int8)
    for name in ("query_rope", "key_rope"):
        del case[name]
    return dict(case, query=rng.standard_normal((3, 8, 576)).astype(BF16), key=rows, value=rows,
                key_quant_mode=2, value_quant_mode=2)


def prolog_v3_case(rng):
    case = prolog_case(rng)
    return dict(case, query_norm_flag=True)


# op name -> (builder, the operands it updates in place)
CALLS = {
    "rms_norm": (rms_norm_case, ()),
    "npu_mla_prolog": (prolog_case, ("kv_cache", "kr_cache")),
    "npu_mla_prolog_v2": (prolog_case, ("kv_cache", "kr_cache")),
    "npu_fused_infer_attention_score": (fia_case, ()),
    "npu_fused_infer_attention_score_v2": (fia_v2_case, ()),
    "npu_nsa_compress_attention_infer": (nsa_case, ()),
    "npu_lightning_indexer": (lightning_indexer_case, ()),
    "npu_quant_lightning_indexer": (quant_lightning_indexer_case, ()),
    "npu_sparse_flash_attention": (sparse_flash_attention_case, ()),
    "npu_kv_quant_sparse_flash_attention": (kv_quant_sparse_flash_attention_case, ()),
    "npu_mla_prolog_v3": (prolog_v3_case, ("kv_cache", "kr_cache")),
}
