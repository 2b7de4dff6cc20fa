"""The CPU kernels against the rounding contract (docs/numerics.md, "The CPU backend's rounding
contract"), on random calls, for every matmul library:

- each result and each cache written in place lies within the documented bound of the
  reference: the same formula with the device's rounding points, every float product summed
  exactly and rounded once to float32 (kernel_contract.reference: the frozen kernels of
  kernels_before/ with exact sums);
- each call gives the same bits when run again with 1 and 3 intra-op threads (the only bit-for-bit
  comparison: two runs of the same build on the same machine);
- the bound is no looser than what the kernels before the contract (kernels_before/, as they ran
  on every machine: oneDNN's bf16 GEMMs or float32 BLAS) are within on the same calls.

The order inside one float32 accumulation is not part of the contract (the device's cube unit
has its own, and every CPU library another), so no test here pins one library's bits.

The whole numerics suite can run in the same way (every kernel call checked):
    ASCEND_MLA_KERNEL_ORACLE=1 python -m pytest test/python/test_*numerics*.py ...
"""
from __future__ import annotations

import json
import math
import os

import kernel_contract
import kernels_before
import ml_dtypes
import numpy as np
import pytest
from kernel_contract import BOUND, errors, reference, run, same_bits

from ascend_mla.runtime.formats import NZTensor, format_cast, nd_to_nz
from ascend_mla.runtime.kernels import get_kernel

BF16 = np.dtype(ml_dtypes.bfloat16)
HCQ, HCKV, D, DR = 1536, 512, 128, 64
SCENARIOS = ["NQ", "PQ-KVNQ", "PQ-KVQ", "FQ-KVNQ", "FQ-KVQ"]


@pytest.fixture(params=["numpy", "auto"])
def matmuls(request, monkeypatch):
    """Each matmul library under the contract: float32 BLAS, and auto's (the MLIR-compiled bf16
    products, torch's float32 ones for FIA when torch imports). ASCEND_MLA_MATMUL=torch (oneDNN's
    bf16 GEMMs) is a benchmark comparison outside the contract: oneDNN splits K among threads at
    decode shapes, so its bits change with the thread count (docs/numerics.md)."""
    monkeypatch.setenv("ASCEND_MLA_MATMUL", request.param)
    return request.param


# ASCEND_MLA_CONTRACT_STATS=<file>: each call also appends, as JSON lines, every output's error
# units for today's kernels and for the kernels before the contract (how the bounds were chosen)
STATS = os.environ.get("ASCEND_MLA_CONTRACT_STATS")

# the largest error of the kernels before the contract over these calls, in units: the bounds
# may not be looser than needed for them (see test_kernels_before_the_contract_are_within_it)
BEFORE = {}


def check(op_name, **operands):
    if STATS:
        ref = reference(op_name, operands)
        before = errors(*run(kernels_before.get_kernel(op_name), operands), *ref)
        if os.environ.get("ASCEND_MLA_MATMUL") == "auto":     # and with oneDNN's bf16 GEMMs
            os.environ["ASCEND_MLA_MATMUL"] = "torch"
            try:
                with_torch = errors(*run(kernels_before.get_kernel(op_name), operands), *ref)
            finally:
                os.environ["ASCEND_MLA_MATMUL"] = "auto"
            before.update({f"{k} [torch]": v for k, v in with_torch.items()})
        now = errors(*run(get_kernel(op_name), operands), *ref)
        with open(STATS, "a") as f:
            for kind, table in (("before", before), ("now", now)):
                for name, (dtype, units) in table.items():
                    f.write(json.dumps(dict(op=op_name, output=name, dtype=dtype, units=units, kernel=kind,
                                            matmul=os.environ.get("ASCEND_MLA_MATMUL"))) + "\n")
    return kernel_contract.check(op_name, get_kernel(op_name), operands)


def test_same_bits_sees_one_bit_and_ignores_nan_payloads():
    a = np.array([1.0, np.nan, 3.0], np.float32)
    b = a.copy()
    b.view(np.uint32)[1] ^= 1                          # another NaN payload
    assert same_bits(a, b) is None
    b.view(np.uint32)[2] ^= 1                          # one ulp
    assert "1 of 3" in same_bits(a, b)
    assert same_bits(a.astype(BF16), a.astype(np.float16)) is not None


# --------------------------------------------------------------------------------------------
# prolog
# --------------------------------------------------------------------------------------------

def rnd(rng, shape, scale=1.0, dtype=BF16):
    return (rng.standard_normal(shape) * scale).astype(dtype)


def prolog_call(rng, scenario, cache_mode, tokens, heads, he, nz_weights=True, block_size=16):
    fq, pq = scenario.startswith("FQ"), scenario.startswith("PQ")
    kvq = scenario.endswith("-KVQ")

    def weight(rows, cols, int8):
        w = rng.integers(-127, 128, (rows, cols)).astype(np.int8) if int8 else \
            rnd(rng, (rows, cols), 1 / math.sqrt(rows))
        if nz_weights:
            return format_cast(w, 29)
        w.flags.writeable = False                        # a constant, converted once
        return w

    blocks = -(-tokens // block_size) + 2
    slots = rng.permutation(blocks * block_size)[:tokens].astype(np.int64)
    if tokens > 2:                                       # a duplicate and a skipped token
        slots[1], slots[2] = slots[0], -1
    kv_dtype = np.int8 if kvq else BF16
    kr_dtype = np.int8 if pq and kvq else BF16
    call = dict(
        token_x=(rng.integers(-127, 128, (tokens, he)).astype(np.int8) if fq
                 else rnd(rng, (tokens, he))),
        weight_dq=weight(he, HCQ, fq), weight_uq_qr=weight(HCQ, heads * (D + DR), fq or pq),
        weight_uk=rnd(rng, (heads, D, HCKV), 1 / math.sqrt(D)),
        weight_dkv_kr=weight(he, HCKV + DR, fq),
        rmsnorm_gamma_cq=rnd(rng, (HCQ,)), rmsnorm_gamma_ckv=rnd(rng, (HCKV,)),
        rope_sin=rnd(rng, (tokens, DR)), rope_cos=rnd(rng, (tokens, DR)), cache_index=slots,
        kv_cache=np.zeros((blocks, block_size, 1, HCKV), kv_dtype),
        kr_cache=np.zeros((blocks, block_size, 1, DR), kr_dtype),
        dequant_scale_x=None, dequant_scale_w_dq=None, dequant_scale_w_uq_qr=None,
        dequant_scale_w_dkv_kr=None, quant_scale_ckv=None, quant_scale_ckr=None,
        smooth_scales_cq=None, rmsnorm_epsilon_cq=1e-5, rmsnorm_epsilon_ckv=1e-6,
        cache_mode=cache_mode)
    scale = lambda *shape: (rng.random(shape) * 0.01 + 0.001).astype(np.float32)
    if fq:
        call.update(dequant_scale_x=scale(tokens, 1), dequant_scale_w_dq=scale(1, HCQ),
                    dequant_scale_w_dkv_kr=scale(1, HCKV + DR))
    if fq or pq:
        call.update(dequant_scale_w_uq_qr=scale(1, heads * (D + DR)))
        if pq:
            call.update(smooth_scales_cq=(rng.random((1, HCQ)) + 0.5).astype(np.float32))
    if kvq:
        call.update(quant_scale_ckv=(scale(1) * 1000) if fq else (scale(1, HCKV) * 1000))
        if pq:
            call.update(quant_scale_ckr=scale(1, DR) * 1000)
    return call


@pytest.mark.parametrize("scenario", SCENARIOS)
@pytest.mark.parametrize("cache_mode", ["PA_BSND", "PA_NZ"])
def test_prolog_v2(matmuls, scenario, cache_mode):
    rng = np.random.default_rng(SCENARIOS.index(scenario) * 7 + len(cache_mode))
    # DeepSeek's He = 7168 once (the GEMM library may pick its kernels by shape), smaller after
    shapes = ((1, 8, 7168 if scenario == "NQ" else 1024, True), (5, 4, 512, False), (33, 2, 256, True))
    for tokens, heads, he, nz in shapes:
        call = prolog_call(rng, scenario, cache_mode, tokens, heads, he, nz)
        check("mla.prolog_v2", **call)
        # a second call: the weights' converted forms now come from their caches
        call["token_x"] = call["token_x"][::-1].copy()
        check("mla.prolog_v2", **call)


def test_prolog_v1_and_batch_token_shape(matmuls):
    rng = np.random.default_rng(11)
    call = prolog_call(rng, "NQ", "PA_BSND", 6, 8, 1024)
    check("mla.prolog", **call)
    call["token_x"] = call["token_x"].reshape(2, 3, -1)
    call["rope_sin"], call["rope_cos"] = (call[k].reshape(2, 3, DR) for k in ("rope_sin", "rope_cos"))
    call["cache_index"] = call["cache_index"].reshape(2, 3)
    check("mla.prolog_v2", **call)


# --------------------------------------------------------------------------------------------
# FIA
# --------------------------------------------------------------------------------------------

def paged(rng, lengths, block_size, width, dtype=BF16, kv_heads=1, consecutive=False):
    """(cache (blocks, bs, kv_heads * width), block table) for the given kv lengths."""
    per_row = -(-max(lengths) // block_size)
    n_blocks = per_row * len(lengths) + 3
    ids = np.arange(n_blocks) if consecutive else rng.permutation(n_blocks)
    table = ids[:per_row * len(lengths)].reshape(len(lengths), per_row).astype(np.int32)
    if dtype == np.int8:
        cache = rng.integers(-127, 128, (n_blocks, block_size, kv_heads * width)).astype(np.int8)
    else:
        cache = rnd(rng, (n_blocks, block_size, kv_heads * width), 0.5, dtype)
    return cache, table


def as_cache(cache, form, kv_heads):
    """The pool (blocks, bs, H) as the kernel receives it: BnBsH, PA_BSND rank 4, or NZ."""
    if form == "BnBsH":
        return cache
    if form == "BSND":
        return cache.reshape(cache.shape[0], cache.shape[1], kv_heads, -1)
    return NZTensor(nd_to_nz(cache), cache.shape)


@pytest.mark.parametrize("form", ["BnBsH", "BSND", "NZ"])
@pytest.mark.parametrize("layout", ["BSND", "BSH", "TND"])
def test_fia_mla_decode_and_mtp(matmuls, form, layout):
    rng = np.random.default_rng(len(form) * 10 + len(layout))
    for lengths, block, q_seq, consecutive in (((200, 37, 200), 16, 1, False),
                                               ((300, 300), 128, 1, True),
                                               ((130, 64), 16, 3, False)):
        batch, n = len(lengths), 8
        kv, table = paged(rng, lengths, block, HCKV, consecutive=consecutive)
        kr, _ = paged(rng, lengths, block, DR)
        kr = kr[:kv.shape[0]]
        q = rnd(rng, (batch, q_seq, n, HCKV), 0.3)
        qr = rnd(rng, (batch, q_seq, n, DR), 0.3)
        call = dict(key=as_cache(kv, form, 1), block_table=table, block_size=block,
                    actual_seq_lengths_kv=list(lengths), num_heads=n, num_key_value_heads=1,
                    scale_value=1 / math.sqrt(192), input_layout=layout, softmax_lse_flag=True)
        call["value"] = call["key"]
        call["key_rope"] = as_cache(kr, form, 1)
        if form == "BSND" and layout == "BSH":       # the op's tensor-list form, as programs pass it
            call.update(key=[call["key"]], key_rope=[call["key_rope"]])
            call["value"] = call["key"]
        if layout == "BSH":
            call.update(query=q.reshape(batch, q_seq, -1), query_rope=qr.reshape(batch, q_seq, -1))
        elif layout == "TND":
            call.update(query=q.reshape(-1, n, HCKV), query_rope=qr.reshape(-1, n, DR),
                        actual_seq_lengths=list(np.cumsum([q_seq] * batch)))
        else:
            call.update(query=q, query_rope=qr)
        if q_seq > 1:
            call.update(sparse_mode=3, atten_mask=np.triu(np.ones((2048, 2048), np.int8), 1))
        check("mla.fused_infer_attention_score", **call)


@pytest.mark.parametrize("layout", ["BNSD", "BSH", "BNSD_BSND"])
@pytest.mark.parametrize("sparse_mode", [0, 2, 3, 4])
def test_fia_gqa_prompt_and_incre(matmuls, layout, sparse_mode):
    rng = np.random.default_rng(sparse_mode * 3 + len(layout))
    b, n, kvn, s, kv_s, d = 3, 8, 2, 7, 40, 64
    for q_s, dtype in ((s, BF16), (1, np.float16)):
        q = rnd(rng, (b, n, q_s, d), 1.0, dtype)
        k = rnd(rng, (b, kvn, kv_s, d), 1.0, dtype)
        v = rnd(rng, (b, kvn, kv_s, d), 1.0, dtype)
        if layout == "BSH":
            q, k, v = (x.transpose(0, 2, 1, 3).reshape(b, x.shape[2], -1) for x in (q, k, v))
        call = dict(query=q, key=k, value=v, num_heads=n, num_key_value_heads=kvn,
                    scale_value=0.125, input_layout=layout, sparse_mode=sparse_mode,
                    actual_seq_lengths_kv=[40, 23, 31], softmax_lse_flag=True,
                    pre_tokens=5, next_tokens=1)
        if q_s > 1:
            call["actual_seq_lengths"] = [7, 4, 6]
            mask = (rng.random((2048, 2048)) < 0.2) if sparse_mode in (2, 3, 4) else \
                (rng.random((b, 1, q_s, kv_s)) < 0.2)
            call["atten_mask"] = mask
            call["pse_shift"] = rnd(rng, (1, n, q_s, kv_s), 0.5, dtype)
        else:
            call["atten_mask"] = rng.random((b, 1, 1, kv_s)) < 0.2
        check("mla.fused_infer_attention_score", **call)


def test_fia_full_quant_antiquant_post_quant(matmuls):
    rng = np.random.default_rng(5)
    b, n, kvn, q_s, kv_s, d = 2, 4, 2, 5, 33, 32
    i8 = lambda *shape: rng.integers(-127, 128, shape).astype(np.int8)
    # full quant: int8 query, key, value
    check("mla.fused_infer_attention_score", query=i8(b, n, q_s, d), key=i8(b, kvn, kv_s, d),
          value=i8(b, kvn, kv_s, d), num_heads=n, num_key_value_heads=kvn, input_layout="BNSD",
          dequant_scale1=np.array([0.0013], np.float32), quant_scale1=np.array([60.0], np.float32),
          dequant_scale2=np.array([0.002], np.float32), softmax_lse_flag=True, scale_value=0.2)
    # antiquant int8 kv, bf16 query, per channel, incre; post-quant to int8
    check("mla.fused_infer_attention_score", query=rnd(rng, (b, n, 1, d)), key=i8(b, kvn, kv_s, d),
          value=i8(b, kvn, kv_s, d), num_heads=n, num_key_value_heads=kvn, input_layout="BNSD",
          antiquant_scale=(rng.random((2, kvn, d)) * 0.02).astype(np.float32),
          antiquant_offset=rnd(rng, (2, kvn, d), 1.0, np.float32), scale_value=0.2,
          quant_scale2=(rng.random((1,)) * 10).astype(np.float32))
    # paged int8 kv with separate per-token (mode 4: block) scales, bf16 query
    kv, table = paged(rng, [50, 20], 16, d, np.int8, kv_heads=kvn)
    check("mla.fused_infer_attention_score", query=rnd(rng, (b, 1, n * d)), key=kv, value=kv,
          block_table=table, block_size=16, actual_seq_lengths_kv=[50, 20], num_heads=n,
          num_key_value_heads=kvn, input_layout="BSH", key_antiquant_mode=4,
          value_antiquant_mode=4, scale_value=0.2,
          key_antiquant_scale=(rng.random(kv.shape[:2]) * 0.02).astype(np.float32),
          value_antiquant_scale=(rng.random(kv.shape[:2]) * 0.02).astype(np.float32))


def test_fia_mla_full_quant(matmuls):
    rng = np.random.default_rng(9)
    lengths, batch, n, q_seq = (600, 37), 2, 8, 2
    kv8, table = paged(rng, lengths, 128, HCKV, np.int8)
    kr, _ = paged(rng, lengths, 128, DR)
    kr = kr[:kv8.shape[0]] * 20
    check("mla.fused_infer_attention_score",
          query=rng.integers(-127, 128, (batch, q_seq, n, HCKV)).astype(np.int8),
          key=NZTensor(nd_to_nz(kv8), kv8.shape), value=NZTensor(nd_to_nz(kv8), kv8.shape),
          query_rope=rnd(rng, (batch, q_seq, n, DR), 20.0),
          key_rope=NZTensor(nd_to_nz(kr), kr.shape), block_table=table, block_size=128,
          actual_seq_lengths_kv=list(lengths), num_heads=n, num_key_value_heads=1,
          scale_value=1 / math.sqrt(576), input_layout="BSND",
          dequant_scale_query=(rng.random((batch, q_seq, n)) * 0.004 + 0.001).astype(np.float32),
          key_antiquant_scale=np.array([0.021], np.float32),
          value_antiquant_scale=np.array([0.013], np.float32), query_quant_mode=3,
          sparse_mode=3, atten_mask=np.triu(np.ones((2048, 2048), np.int8), 1))


# --------------------------------------------------------------------------------------------
# NSA and the primitives
# --------------------------------------------------------------------------------------------

def test_nsa(matmuls):
    rng = np.random.default_rng(3)
    n1, n2, d1, d2, bs = 8, 2, 64, 32, 16
    key = rnd(rng, (12, bs, n2 * d1))
    value = rnd(rng, (12, bs, n2 * d2))
    table = rng.permutation(12)[:12].reshape(2, 6).astype(np.int32)
    for layout, q_shape, q_lens in (("TND", (3, n1, d1), [2, 1]), ("BSND", (2, 2, n1, d1), None)):
        check("mla.nsa_compress_attention_infer", query=rnd(rng, q_shape), key=key, value=value,
              atten_mask=np.ones((1,), bool) if q_lens else None, block_table=table,
              topk_mask=None, scale_value=0.125, head_num=n1, key_value_head_num=n2,
              select_block_size=64, select_block_count=3, page_block_size=bs,
              compress_block_size=32, compress_stride=16, actual_seq_qlen=q_lens,
              actual_cmp_seq_kvlen=[80, 55], actual_sel_seq_kvlen=[1300, 900], layout=layout,
              sparse_mode=0)


@pytest.mark.parametrize("tokens", [1, 2, 7, 8, 33, 128, 300])
def test_head_matmul_rows_and_views(matmuls, tokens):
    """The per-head product reads its operands as they lie (the prolog's query columns are a
    strided view; W_uv is a transposed one) and writes through a transposed view of its
    result: the GEMM library may pick its kernel by row count and strides."""
    rng = np.random.default_rng(tokens)
    heads = 8
    q = rnd(rng, (tokens, heads, D + DR))[..., :D]                   # the prolog's q_c view
    w_uk = rnd(rng, (heads, D, HCKV), 1 / math.sqrt(D))
    check("mla.head_matmul", x=q, w=w_uk)
    w_uv = rnd(rng, (heads, D, HCKV), 0.1).transpose(0, 2, 1)
    w_uv.flags.writeable = False
    check("mla.head_matmul", x=rnd(rng, (tokens, heads, HCKV)), w=w_uv)


def test_int8_products_at_the_extremes(matmuls):
    """int8 x int8 sums are exact in both libraries (torch._int_mm's int32, the chunked
    float32 BLAS sums): the same bits at -128 x -128 over long K, odd shapes, int8 NZ weights,
    strided rows, one row and none."""
    rng = np.random.default_rng(8)
    for rows, k, n in ((0, 64, 32), (1, 7168, 64), (5, 2048, 96), (3, 100, 17), (128, 1536, 64)):
        w = rng.integers(-128, 128, (k, n)).astype(np.int8)
        w[: k // 2] = -128                                       # the largest sums
        x = rng.integers(-128, 128, (rows, k)).astype(np.int8)
        x[:, : k // 2] = -128
        scales = dict(x_scale=rng.random(rows).astype(np.float32), w_scale=rng.random(n).astype(np.float32))
        check("mla.quant_matmul", x=x, w=w, **scales)
        w.flags.writeable = False                                # a constant: converted once
        check("mla.quant_matmul", x=x, w=w, **scales)
        if k % 32 == 0 and n % 32 == 0:
            check("mla.quant_matmul", x=x, w=format_cast(w, 29), **scales)
    x = rng.integers(-128, 128, (6, 512)).astype(np.int8)[:, ::2]   # strided rows
    check("mla.quant_matmul", x=x, w=rng.integers(-128, 128, (256, 32)).astype(np.int8),
          x_scale=rng.random(6).astype(np.float32), w_scale=rng.random(32).astype(np.float32))


def test_primitives(matmuls):
    rng = np.random.default_rng(4)
    x = rnd(rng, (6, 256))
    w = rnd(rng, (256, 96), 0.1)
    w_nz = format_cast(w, 29)
    w8 = rng.integers(-127, 128, (256, 96)).astype(np.int8)
    x8 = rng.integers(-127, 128, (6, 256)).astype(np.int8)
    check("mla.matmul", x=x, w=w)
    check("mla.matmul", x=x, w=w_nz)
    check("mla.matmul", x=x.astype(np.float32), w=w)
    check("mla.head_matmul", x=rnd(rng, (5, 4, 128)), w=rnd(rng, (4, 128, 512), 0.1))
    w_uv = rnd(rng, (4, 128, 512), 0.1).transpose(0, 2, 1)          # a transposed weight view
    w_uv.flags.writeable = False
    check("mla.head_matmul", x=rnd(rng, (5, 4, 512)), w=w_uv)
    # a compiled program's W_uk and W_uv: slices of a read-only kv_b_proj (constants, kept
    # contiguous by the kernel) whose head stride is twice a head's size
    kv_b = rnd(rng, (4 * 256, 512), 0.1)
    kv_b.flags.writeable = False
    heads = kv_b.reshape(4, 256, 512)
    for t in (1, 4, 33):
        check("mla.head_matmul", x=rnd(rng, (t, 4, 128)), w=heads[:, :128])
        check("mla.head_matmul", x=rnd(rng, (t, 4, 512)), w=heads[:, 128:].transpose(0, 2, 1))
    check("mla.quant_matmul", x=x8, w=w8, x_scale=rng.random(6).astype(np.float32),
          w_scale=rng.random(96).astype(np.float32))
    check("mla.rms_norm", x=x, gamma=rnd(rng, (256,)), epsilon=1e-6)
    # rows whose width is not a multiple of 16 (the compiled glue's masked tail), float32 rows
    check("mla.rms_norm", x=rnd(rng, (5, 100)), gamma=rnd(rng, (100,)), epsilon=1e-5)
    check("mla.rms_norm", x=rnd(rng, (3, 40)).astype(np.float32), gamma=rnd(rng, (40,)), epsilon=1e-5)
    check("mla.rope", x=rnd(rng, (6, 4, 64)), cos=rnd(rng, (6, 1, 64)), sin=rnd(rng, (6, 1, 64)))
    check("mla.rope", x=rnd(rng, (6, 4, 64)), cos=rnd(rng, (6, 1, 64)), sin=rnd(rng, (6, 1, 64)),
          mode="half")
    check("mla.dynamic_quant", x=x, smooth_scales=rng.random(256).astype(np.float32))
    check("mla.dynamic_quant", x=x, rounding="half_away")
    for op in ("mla.add", "mla.mul", "mla.div"):
        check(op, x=x, y=rnd(rng, (6, 256)))
        check(op, x=rnd(rng, (6, 37)), y=np.abs(rnd(rng, (6, 1))) + np.float32(0.5).astype(BF16))   # one per row
    check("mla.mean", x=x)
    check("mla.rsqrt", x=np.abs(x) + np.float32(0.5).astype(BF16))
    cache = np.zeros((4, 16, 1, 512), BF16)
    check("mla.scatter_cache", cache=cache, slot_mapping=np.array([3, 40, 3, -1]),
          update=rnd(rng, (4, 1, 512)), cache_mode="PA_NZ")
    # paged attention and attention (the unfused graphs' attention)
    kv, table = paged(rng, [40, 17], 16, 512)
    kr, _ = paged(rng, [40, 17], 16, 64)
    kv4, kr4 = kv.reshape(*kv.shape[:2], 1, -1), kr[:kv.shape[0]].reshape(kv.shape[0], 16, 1, -1)
    check("mla.paged_attention", query=rnd(rng, (2, 2, 8, 512), 0.3), key_cache=kv4,
          value_cache=kv4, block_table=table, seq_lengths=np.array([40, 17]),
          query_rope=rnd(rng, (2, 2, 8, 64), 0.3), key_rope_cache=kr4, scale_value=0.07)
    check("mla.attention", query=rnd(rng, (2, 5, 4, 32)), key=rnd(rng, (2, 9, 2, 32)),
          value=rnd(rng, (2, 9, 2, 32)), scale_value=0.2, causal=True)


# --------------------------------------------------------------------------------------------
# the bound against the kernels before the contract
# --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("library", ["numpy", "torch"])
def test_kernels_before_the_contract_are_within_it(library, monkeypatch):
    """The bound is one the kernels before the contract meet too (oneDNN's bf16 GEMMs, float32
    BLAS: the bits the suite pinned until then), on the prolog and FIA's MLA mode at DeepSeek's
    shapes: the contract is no looser than what the CPU backend gave."""
    if library == "torch":
        pytest.importorskip("torch")
    monkeypatch.setenv("ASCEND_MLA_MATMUL", library)
    rng = np.random.default_rng(21)
    calls = [("mla.prolog_v2", prolog_call(rng, "NQ", "PA_BSND", 8, 8, 7168)),
             ("mla.prolog_v2", prolog_call(rng, "PQ-KVQ", "PA_NZ", 5, 4, 1024))]
    kv, table = paged(rng, (300, 77), 128, HCKV)
    kr, _ = paged(rng, (300, 77), 128, DR)
    calls.append(("mla.fused_infer_attention_score", dict(
        query=rnd(rng, (2, 1, 8, HCKV), 0.3), query_rope=rnd(rng, (2, 1, 8, DR), 0.3),
        key=as_cache(kv, "BSND", 1), value=None, key_rope=as_cache(kr[:kv.shape[0]], "BSND", 1),
        block_table=table, block_size=128, actual_seq_lengths_kv=[300, 77], num_heads=8,
        num_key_value_heads=1, scale_value=1 / math.sqrt(192), input_layout="BSND",
        softmax_lse_flag=True)))
    calls[-1][1]["value"] = calls[-1][1]["key"]
    for op_name, operands in calls:
        ref = reference(op_name, operands)
        for name, (dtype, units) in errors(*run(kernels_before.get_kernel(op_name), operands), *ref).items():
            assert units <= BOUND.get(dtype, 0), f"{op_name} {name} ({library}): {units:.3g} units"


# --------------------------------------------------------------------------------------------
# no process-wide side effect
# --------------------------------------------------------------------------------------------

_SETTINGS = """
import ctypes, json, os, sys
import numpy as np
import torch
lib = ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so"))
mode = getattr(lib, "mkl_serv_cbwr_get", None)
if mode is not None:
    mode.argtypes, mode.restype = [ctypes.c_int], ctypes.c_int
def settings():
    return dict(mkl_cbwr=None if mode is None else mode(-1), threads=torch.get_num_threads(),
                interop=torch.get_num_interop_threads(), deterministic=torch.are_deterministic_algorithms_enabled())
before = settings()
sys.path.insert(0, sys.argv[1])
import test_kernel_contract as t
for name in ("numpy", "auto"):
    os.environ["ASCEND_MLA_MATMUL"] = name
    t.test_fia_mla_decode_and_mtp(name, "BSND", "BSND")
    t.test_primitives(name)
# the user's own float32 product after ours: MKL in the mode the user's process chose
a, b = torch.randn(8, 576), torch.randn(576, 200)
a @ b
print(json.dumps(dict(before=before, after=settings())))
"""


def test_the_kernels_change_no_process_wide_setting(tmp_path):
    """Running the kernels (FIA's float32 products, the compiled products and glue, torch's
    elementwise ops) leaves torch's and MKL's process-wide settings as the user's process had
    them: MKL's reproducibility mode (which MKL takes only before its first call, so it could
    not be restored afterwards), torch's thread counts, its deterministic-algorithms switch."""
    import subprocess
    import sys
    pytest.importorskip("torch")
    here = os.path.dirname(os.path.abspath(__file__))
    script = tmp_path / "settings.py"
    script.write_text(_SETTINGS)
    done = subprocess.run([sys.executable, str(script), here], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["after"] == seen["before"], seen


def test_compiled_attention_in_batch_parts_gives_the_same_bits(monkeypatch):
    """The compiled MLA attention splits a call whose scores would pass MAX_SCORES into batch
    parts: each batch row's result is the same bits as in one call (rows are independent)."""
    from ascend_mla.runtime.kernels import jit_attention
    monkeypatch.setenv("ASCEND_MLA_MATMUL", "auto")
    rng = np.random.default_rng(9)
    lengths = (70, 33, 5)
    kv, table = paged(rng, lengths, 16, HCKV)
    kr, _ = paged(rng, lengths, 16, DR)
    kv, kr = kv.reshape(kv.shape[0], 16, 1, HCKV), kr[:kv.shape[0]].reshape(kv.shape[0], 16, 1, DR)
    q, qr = rnd(rng, (3, 2, 8, HCKV), 0.3), rnd(rng, (3, 2, 8, DR), 0.3)
    whole = jit_attention.attention(q, qr, kv, kr, table, np.array(lengths), 0.07, 16, True)
    monkeypatch.setattr(jit_attention, "MAX_SCORES", 1)
    parts = jit_attention.attention(q, qr, kv, kr, table, np.array(lengths), 0.07, 16, True)
    for a, b in zip(whole, parts):
        assert same_bits(a, b) is None
