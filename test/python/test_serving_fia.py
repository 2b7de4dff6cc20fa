"""vLLM-Ascend's FIA calls made exactly as its MLA backend makes them (vllm_ascend/attention/
mla_v1.py, read at its 2026-08 state), with DeepSeek-V3 tp-16 shapes (N = 8, batch 16, block
128), against an independent float64 reference; the serving chain of one decode step through
the eager API; the client's unfused bf16 chain fused into mla.prolog_v2 equal to the chain.

Attention tolerances: the kernel rounds P to the values' type before P.V (FIA's order) and the
output once to bf16, so |out - ref| <= 2^-8 max|v| (P's rounding, relative 2^-8 per weight,
weights summing to 1) + 2^-8 |ref| (the output's rounding) + float32 sums (far below).
"""
from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from test_serving_ops import _nz_rows, f64, rand, rope_tables
from torch_npu_standin import install_standin  # noqa: F401  (a fixture)

import ascend_mla
from ascend_mla import VerificationError, ops
from ascend_mla.runtime.formats import nd_to_nz

BF16 = np.dtype(ml_dtypes.bfloat16)
B, N, BLOCK, BLOCKS = 16, 8, 128, 40
SCALE = (128 + 64) ** -0.5
LIT = Path(__file__).resolve().parents[1] / "lit"


def decode_inputs(rng):
    q = rand(rng, (B, N, 1, 512))
    q_pe = rand(rng, (B, N, 1, 64))
    k_nope = rand(rng, (BLOCKS, 1, BLOCK, 512))        # vLLM's view (blocks, KV_N, block, D)
    k_pe = rand(rng, (BLOCKS, 1, BLOCK, 64))
    table = rng.permutation(BLOCKS)[:B * 2].reshape(B, 2).astype(np.int32)
    lens = [int(v) for v in rng.integers(1, 2 * BLOCK + 1, B)]
    return q, q_pe, k_nope, k_pe, table, lens


def ref_decode(q, q_pe, k_nope, k_pe, table, lens, scale=SCALE):
    """float64: each batch row's keys gathered page by page, softmax over its length."""
    out = np.zeros((N, B, 512))
    for b in range(B):
        pages = table[b, :-(-lens[b] // BLOCK)]
        k = f64(k_nope[pages, 0]).reshape(-1, 512)[:lens[b]]
        kr = f64(k_pe[pages, 0]).reshape(-1, 64)[:lens[b]]
        s = (f64(q[b, :, 0]) @ k.T + f64(q_pe[b, :, 0]) @ kr.T) * scale
        p = np.exp(s - s.max(axis=1, keepdims=True))
        out[:, b] = (p / p.sum(axis=1, keepdims=True)) @ k
    return out[:, :, None, :]                           # (N, B, 1, 512): NBSD


def attention_ok(got, want, values):
    bound = 2.0**-8 * np.abs(f64(values)).max() + 2.0**-8 * np.abs(want)
    return np.all(np.abs(f64(got) - want) <= bound)


def common(table, lens, layout, q_pe, k_pe):
    """_forward_decode's common_kwargs (no speculative decoding: sparse_mode 0, no mask)."""
    return dict(query_rope=q_pe, key_rope=k_pe, num_query_heads=N, num_key_value_heads=1,
                input_layout=layout, atten_mask=None, sparse_mode=0, softmax_scale=SCALE,
                block_table=table, block_size=BLOCK, actual_seq_qlen=None, actual_seq_kvlen=lens)


def nz5(cache, c0):
    """vLLM's NZ view of a cache's bytes: (blocks, 1, D/C0, block, C0), each block's
    (block, D) matrix in FRACTAL_NZ order."""
    blocks, _, bs, d = cache.shape
    return np.stack([nd_to_nz(cache[i, 0]) for i in range(blocks)]).reshape(blocks, 1, d // c0, bs, c0)


def test_bf16_decode_bnsd_nbsd():
    """The bf16 decode: BNSD query (B, N, 1, 512), BnNBsD caches, output NBSD (N, B, 1, 512)."""
    rng = np.random.default_rng(20)
    q, q_pe, k_nope, k_pe, table, lens = decode_inputs(rng)
    out, lse = ops.npu_fused_infer_attention_score_v2(q, k_nope, k_nope, **common(table, lens, "BNSD_NBSD", q_pe, k_pe))
    assert out.shape == (N, B, 1, 512) and out.dtype == BF16 and lse.shape == (1,)
    assert attention_ok(out, ref_decode(q, q_pe, k_nope, k_pe, table, lens), k_nope)


def test_kv_nz_decode_bsnd_nbsd_reads_5d_views():
    """KV-NZ decode: BSND query (B, 1, N, 512) over the 5-D NZ views (blocks, 1, 512/16, 128, 16)
    and (blocks, 1, 64/16, 128, 16): the same result as the ND caches, bit for bit."""
    rng = np.random.default_rng(21)
    q, q_pe, k_nope, k_pe, table, lens = decode_inputs(rng)
    plain, _ = ops.npu_fused_infer_attention_score_v2(q, k_nope, k_nope, **common(table, lens, "BNSD_NBSD", q_pe, k_pe))
    kn, kp = nz5(k_nope, 16), nz5(k_pe, 16)
    q_bsnd = np.ascontiguousarray(q.transpose(0, 2, 1, 3))
    out, _ = ops.npu_fused_infer_attention_score_v2(q_bsnd, kn, kn, **common(
        table, lens, "BSND_NBSD", np.ascontiguousarray(q_pe.transpose(0, 2, 1, 3)), kp))
    assert np.array_equal(out.view(np.uint16), plain.view(np.uint16))


def test_w8a8c8_decode_bsnd_nbsd_full_quant():
    """The W8A8C8 decode (non-A5): int8 query (B, 1, N, 512) with its per-token-head scale
    (B, 1, N), the int8 latent cache as (blocks, 1, 512/32, 128, 32), bf16 rope parts, per-tensor
    kv scale (1,). Reference: float64 of the mode's formula; FIA quantizes P to int8 per 512-key
    tile (its full-quant order), which the bound below accounts for."""
    rng = np.random.default_rng(22)
    q8 = rng.integers(-127, 128, (B, 1, N, 512)).astype(np.int8)
    qs = (rng.random((B, 1, N)) * 0.02 + 0.005).astype(np.float32)
    k8 = rng.integers(-127, 128, (BLOCKS, 1, BLOCK, 512)).astype(np.int8)
    ks = np.array([0.01], np.float32)
    q_pe, k_pe = rand(rng, (B, 1, N, 64)), rand(rng, (BLOCKS, 1, BLOCK, 64))
    table = rng.permutation(BLOCKS)[:B * 2].reshape(B, 2).astype(np.int32)
    lens = [int(v) for v in rng.integers(1, 2 * BLOCK + 1, B)]
    kn, kp = nz5(k8, 32), nz5(k_pe, 16)
    out, _ = ops.npu_fused_infer_attention_score_v2(
        q8, kn, kn, **common(table, lens, "BSND_NBSD", q_pe, kp), query_quant_mode=3,
        key_quant_mode=0, value_quant_mode=0, dequant_scale_query=qs, dequant_scale_key=ks,
        dequant_scale_value=ks)
    assert out.shape == (N, B, 1, 512) and out.dtype == BF16
    # the mode's scores: (q8.k8 + q_rope.k_rope) * dequant_scale_query * dequant_scale_key (one
    # factor: why the prolog's FQ-KVQ rescales query_rope), values k8 * dequant_scale_value
    want, spread = np.zeros((N, B, 1, 512)), np.zeros((N, B, 1, 1))
    kd = f64(k8) * float(ks[0])
    for b in range(B):
        pages = table[b, :-(-lens[b] // BLOCK)]
        k = f64(k8[pages, 0]).reshape(-1, 512)[:lens[b]]
        kr = f64(k_pe[pages, 0]).reshape(-1, 64)[:lens[b]]
        sc = (f64(q8[b, 0]) @ k.T + f64(q_pe[b, 0]) @ kr.T) * f64(qs[b, 0])[:, None] * float(ks[0]) * SCALE
        pr = np.exp(sc - sc.max(axis=1, keepdims=True))
        want[:, b, 0] = (pr / pr.sum(axis=1, keepdims=True)) @ (k * float(ks[0]))
        spread[:, b, 0, 0] = lens[b] / pr.sum(axis=1)       # L / sum(P), P relative to its max
    # each P weight (<= 1, relative to the row's max) is off by <= 0.5/127: the output by
    # <= 0.5/127 * L / sum(P) * max|v|, plus the bf16 roundings
    bound = (0.5 / 127 * spread + 2.0**-8) * np.abs(kd).max() + 2.0**-8 * np.abs(want)
    assert np.all(np.abs(f64(out) - want) <= bound)


def test_prefill_tnd_without_paging():
    """_forward_prefill: npu_fused_infer_attention_score(q (T, N, 128), k, v, query_rope,
    key_rope (T, N, 64), TND, sparse_mode 3 with the 2048 mask, KV_N = N, softmax_lse_flag)."""
    rng = np.random.default_rng(23)
    ends = [5, 12, 20, 33]
    t = ends[-1]
    q, k, v = (rand(rng, (t, N, 128)) for _ in range(3))
    q_pe, k_pe = rand(rng, (t, N, 64)), rand(rng, (t, N, 64))
    mask = np.triu(np.ones((2048, 2048), np.int8), 1)
    scale = 192 ** -0.5
    out, lse = ops.npu_fused_infer_attention_score(
        q, k, v, query_rope=q_pe, key_rope=k_pe, num_heads=N, num_key_value_heads=N,
        input_layout="TND", atten_mask=mask, sparse_mode=3, scale=scale, antiquant_mode=0,
        antiquant_scale=None, block_table=None, block_size=0, softmax_lse_flag=True,
        actual_seq_lengths=ends, actual_seq_lengths_kv=ends)
    assert out.shape == (t, N, 128) and lse.shape == (t, N, 1)
    want, want_lse = np.zeros((t, N, 128)), np.zeros((t, N, 1))
    for start, end in zip([0] + ends[:-1], ends):
        qq = np.concatenate([f64(q[start:end]), f64(q_pe[start:end])], -1)
        kk = np.concatenate([f64(k[start:end]), f64(k_pe[start:end])], -1)
        s = np.einsum("tnd,snd->nts", qq, kk) * scale
        s[:, np.triu(np.ones((end - start,) * 2, bool), 1)] = -np.inf
        m = s.max(-1, keepdims=True)
        e = np.exp(s - m)
        want[start:end] = np.einsum("nts,snd->tnd", e / e.sum(-1, keepdims=True), f64(v[start:end]))
        want_lse[start:end] = (m + np.log(e.sum(-1, keepdims=True))).transpose(1, 0, 2)
    assert attention_ok(out, want, v)
    assert np.all(np.abs(f64(lse) - want_lse) <= 1e-4 * np.abs(want_lse) + 1e-4)   # float32


def test_graph_capture_out_variant_and_workspace():
    """Graph capture: the workspace getter, then .out with workspace= and out=[attn_output,
    softmax_lse] (vLLM's (N, B, 1, 512) output and (B,) bf16 lse buffer). The output is
    written in place; softmax_lse untouched (return_softmax_lse is false); a wrong out buffer is
    refused before anything is written."""
    rng = np.random.default_rng(24)
    q, q_pe, k_nope, k_pe, table, lens = decode_inputs(rng)
    kwargs = common(table, lens, "BNSD_NBSD", q_pe, k_pe)
    workspace = ops._npu_fused_infer_attention_score_v2_get_max_workspace(q, k_nope, k_nope, **kwargs)
    assert workspace.dtype == np.uint8 and workspace.shape == (0,)       # the CPU's phase one: 0
    attn_output = np.zeros((N, B, 1, 512), BF16)
    softmax_lse = np.full((B,), 7, BF16)
    result = ops.npu_fused_infer_attention_score_v2.out(q, k_nope, k_nope, **kwargs, workspace=workspace,
                                                        out=[attn_output, softmax_lse])
    assert result[0] is attn_output and result[1] is softmax_lse
    plain, _ = ops.npu_fused_infer_attention_score_v2(q, k_nope, k_nope, **kwargs)
    assert np.array_equal(attn_output.view(np.uint16), plain.view(np.uint16))
    assert np.all(f64(softmax_lse) == 7)
    wrong = np.zeros((B, N, 1, 512), BF16)
    with pytest.raises(VerificationError, match=r"attention_out: expected an out tensor bfloat16 \(8, 16, 1, 512\) .* \[FIA-API-3\]"):
        ops.npu_fused_infer_attention_score_v2.out(q, k_nope, k_nope, **kwargs, out=[wrong, softmax_lse])
    assert not np.any(f64(wrong))


def test_out_variant_refuses_a_small_workspace(monkeypatch):
    """FIA-API-4: the workspace given to .out must hold what phase one asks for (the CPU asks for
    none, so a device's size is stood in for)."""
    rng = np.random.default_rng(28)
    q, q_pe, k_nope, k_pe, table, lens = decode_inputs(rng)
    kwargs = common(table, lens, "BNSD_NBSD", q_pe, k_pe)
    monkeypatch.setattr(ops, "workspace_size", lambda *a, **k: 4096)
    attn_output = np.zeros((N, B, 1, 512), BF16)
    with pytest.raises(VerificationError, match=r"workspace: expected at least 4096 bytes \(the call's phase one\), got 1024 \[FIA-API-4\]"):
        ops.npu_fused_infer_attention_score_v2.out(q, k_nope, k_nope, **kwargs, workspace=np.zeros(1024, np.uint8),
                                                   out=[attn_output, np.zeros((B,), BF16)])
    assert not np.any(f64(attn_output))


def test_op_plugin_tnd_paged_float16(install_standin):
    """torch_npu's device test test_npu_infer_attention_score_PA: float16 TND page attention,
    B 1, 16 heads over one kv head, key D 192 / value D 128, 69 keys in one block of 128
    (FIA-TND-8 takes it; the test's random block ids are made valid: block 0). Golden: float64
    softmax(q k^T scale) v over the 69 keys; the test compares with rtol 1e-3 (f16 output)."""
    torch, torch_npu = install_standin
    gen = torch.Generator().manual_seed(25)
    query = torch.rand([1, 16, 192], dtype=torch.float16, generator=gen)
    key_cache = torch.rand([1, 128, 192], dtype=torch.float16, generator=gen)
    value_cache = torch.rand([1, 128, 128], dtype=torch.float16, generator=gen)
    block_table = torch.zeros([1, 32], dtype=torch.int32)
    scale = 192 ** -0.5
    out = torch_npu.npu_fused_infer_attention_score(
        query.npu(), key_cache.npu(), value_cache.npu(), num_heads=16, num_key_value_heads=1,
        input_layout="TND", scale=scale, block_table=block_table.npu(), block_size=128,
        actual_seq_lengths=[1], actual_seq_lengths_kv=[69])[0]
    assert out.dtype == torch.float16 and tuple(out.shape) == (1, 16, 128)
    k, v = f64(key_cache[0, :69].numpy()), f64(value_cache[0, :69].numpy())
    s = f64(query[0].numpy()) @ k.T * scale
    p = np.exp(s - s.max(-1, keepdims=True))
    want = (p / p.sum(-1, keepdims=True)) @ v
    # P in float16 (2^-11 per weight) and the f16 output: 2^-11 max|v| + 2^-11 |ref| each
    assert np.all(np.abs(f64(out[0].numpy()) - want) <= 2.0**-10 * np.abs(v).max() + 1e-3 * np.abs(want))


# --- one decode step as vLLM-Ascend runs it, through the eager API -------------------------------

@pytest.mark.parametrize("kv_nz", [False, True])
def test_vllm_decode_step(kv_nz):
    """mla_preprocess_decode + _forward_decode + _v_up_proj with their torch_npu calls: q_pe by
    npu_interleave_rope (rope_single), the latent caches by npu_kv_rmsnorm_rope_cache
    (exec_kv_decode, PA or PA_NZ), attention by npu_fused_infer_attention_score_v2 (BNSD_NBSD, or
    BSND_NBSD over the 5-D NZ views), W_uv by npu_transpose_batchmatmul. Reference: float64 of
    the same steps from the same bf16 inputs (each op's rounding bounds compose: 2^-6 of the
    output's max)."""
    rng = np.random.default_rng(26)
    ql_nope = rand(rng, (B, N, 512))                      # after q_b_proj and bmm(W_UK_T)
    q_pe = rand(rng, (B, N, 64))
    kv = rand(rng, (B, 576), 2.0)
    gamma = (1 + 0.2 * rng.standard_normal(512)).astype(BF16)
    cos, sin = rope_tables(rng, B)
    w_uv = rand(rng, (N, 512, 128), 0.05)
    table = rng.permutation(BLOCKS)[:B * 2].reshape(B, 2).astype(np.int32)
    old = [int(v) for v in rng.integers(0, 2 * BLOCK - 1, B)]
    slots = np.array([table[b, old[b] // BLOCK] * BLOCK + old[b] % BLOCK for b in range(B)], np.int64)
    lens = [n + 1 for n in old]
    ckv_cache = rand(rng, (BLOCKS, BLOCK, 1, 512))        # earlier tokens (any values)
    k_cache = rand(rng, (BLOCKS, BLOCK, 1, 64))
    if kv_nz:     # their bytes in NZ order, as a PA_NZ writer leaves them
        ckv_nd, k_nd = ckv_cache.copy(), k_cache.copy()
        ckv_cache = nz5(ckv_nd.reshape(BLOCKS, 1, BLOCK, 512), 16).reshape(BLOCKS, BLOCK, 1, 512)
        k_cache = nz5(k_nd.reshape(BLOCKS, 1, BLOCK, 64), 16).reshape(BLOCKS, BLOCK, 1, 64)
    else:
        ckv_nd, k_nd = ckv_cache.copy(), k_cache.copy()

    q_pe_rot = ops.npu_interleave_rope(q_pe.reshape(B, N, 1, 64), cos, sin).reshape(B, N, 64)
    k_pe, k_nope, _, _ = ops.npu_kv_rmsnorm_rope_cache(kv.reshape(B, 1, 1, 576), gamma, cos, sin, slots,
                                                       k_cache, ckv_cache, epsilon=1e-6,
                                                       cache_mode="PA_NZ" if kv_nz else "PA")
    if kv_nz:
        layout = "BSND_NBSD"
        q_n, q_r = ql_nope.reshape(B, 1, N, 512), q_pe_rot.reshape(B, 1, N, 64)
        k_n, k_r = k_nope.reshape(BLOCKS, 1, 32, BLOCK, 16), k_pe.reshape(BLOCKS, 1, 4, BLOCK, 16)
    else:
        layout = "BNSD_NBSD"
        q_n, q_r = ql_nope.reshape(B, N, 1, 512), q_pe_rot.reshape(B, N, 1, 64)
        k_n, k_r = k_nope.reshape(BLOCKS, 1, BLOCK, 512), k_pe.reshape(BLOCKS, 1, BLOCK, 64)
    attn, _ = ops.npu_fused_infer_attention_score_v2(q_n, k_n, k_n, **common(table, lens, layout, q_r, k_r))
    out = ops.npu_transpose_batchmatmul(attn.reshape(N, B, 512), w_uv, perm_y=(1, 0, 2)).reshape(B, N * 128)

    from test_serving_ops import ref_interleave_rope, ref_rms_norm
    c_new = ref_rms_norm(kv[:, :512], gamma, 1e-6)
    k_new = ref_interleave_rope(kv[:, 512:].reshape(B, 1, 1, 64), cos, sin).reshape(B, 64)
    ck, kk = f64(ckv_nd).reshape(-1, 512), f64(k_nd).reshape(-1, 64)
    ck[slots], kk[slots] = c_new, k_new
    qr = ref_interleave_rope(q_pe.reshape(B, N, 1, 64), cos, sin).reshape(B, N, 64)
    want = np.zeros((B, N, 128))
    for b in range(B):
        rows = np.concatenate([np.arange(p * BLOCK, (p + 1) * BLOCK) for p in table[b]])[:lens[b]]
        s = (f64(ql_nope[b]) @ ck[rows].T + qr[b] @ kk[rows].T) * SCALE
        p = np.exp(s - s.max(-1, keepdims=True))
        want[b] = np.einsum("nk,nkd->nd", (p / p.sum(-1, keepdims=True)) @ ck[rows], f64(w_uv))
    got = f64(out).reshape(B, N, 128)
    assert np.abs(got - want).max() <= 2.0**-6 * np.abs(want).max()
    if kv_nz:     # the new rows are where the NZ layout puts them
        assert np.abs(f64(_nz_rows(ckv_cache, slots, 16)) - c_new).max() <= 2.0**-7 * np.abs(c_new).max()


# --- the client's unfused chain fused ------------------------------------------------------------

@pytest.mark.parametrize("split", [0, 1], ids=["PA", "PA_NZ"])
def test_client_chain_fuses_and_equals_the_chain(split):
    """test/lit/passes/fuse-prolog-client.mlir's chain: the default pipeline makes one
    mla.prolog_v2 (NQ); its outputs equal the unfused chain's bit for bit (the same float32
    helpers round at the same points)."""
    text = (LIT / "passes" / "fuse-prolog-client.mlir").read_text().split("// -----")[split]
    rng = np.random.default_rng(27)
    weights = {"q_a_proj": rand(rng, (7168, 1536), 0.02), "q_b_proj": rand(rng, (1536, 1536), 0.03),
               "q_a_layernorm": (1 + 0.1 * rng.standard_normal(1536)).astype(BF16),
               "w_uk": rand(rng, (8, 128, 512), 0.05),
               "kv_a_proj_with_mqa": rand(rng, (7168, 576), 0.02),
               "kv_a_layernorm": (1 + 0.1 * rng.standard_normal(512)).astype(BF16)}
    fused = ascend_mla.compile(text, weights=weights)
    chain = ascend_mla.compile(text, weights=weights, pipeline="builtin.module(verify)")
    assert [f["op"] for f in fused.report()["fused"]] == ["mla.prolog_v2"]
    cos, sin = rope_tables(rng, B)
    x = rand(rng, (B, 7168))
    slots = rng.permutation(BLOCKS * BLOCK)[:B].astype(np.int64)

    def run(program):
        caches = (np.zeros((BLOCKS, BLOCK, 1, 512), BF16), np.zeros((BLOCKS, BLOCK, 1, 64), BF16))
        return program(hidden_states=x, cos=cos, sin=sin, slot_mapping=slots, kv_cache_0=caches[0],
                       kv_cache_1=caches[1])

    for a, b in zip(run(fused), run(chain)):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and np.array_equal(a.view(np.uint16), b.view(np.uint16))


def test_graph_capture_with_torch_tensors():
    """vLLM passes torch tensors: the getter returns a torch uint8 tensor, .out writes the
    caller's torch output (its memory) and returns it."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(29)
    q, q_pe, k_nope, k_pe, table, lens = decode_inputs(rng)
    as_torch = lambda a: torch.from_numpy(a.view(np.int16)).view(torch.bfloat16) if a.dtype == BF16 else torch.from_numpy(a)
    kwargs = common(as_torch(table), lens, "BNSD_NBSD", as_torch(q_pe), as_torch(k_pe))
    q_t, k_t = as_torch(q), as_torch(k_nope)
    workspace = ops._npu_fused_infer_attention_score_v2_get_max_workspace(q_t, k_t, k_t, **kwargs)
    assert isinstance(workspace, torch.Tensor) and workspace.dtype == torch.uint8
    attn_output = torch.zeros((N, B, 1, 512), dtype=torch.bfloat16)
    got = ops.npu_fused_infer_attention_score_v2.out(q_t, k_t, k_t, **kwargs, workspace=workspace,
                                                     out=[attn_output, torch.zeros(B, dtype=torch.bfloat16)])
    plain, _ = ops.npu_fused_infer_attention_score_v2(q, k_nope, k_nope, **common(table, lens, "BNSD_NBSD", q_pe, k_pe))
    assert got[0] is attn_output
    assert np.array_equal(attn_output.view(torch.int16).numpy(), plain.view(np.int16))


def test_v1_out_variant_and_workspace():
    """npu_fused_infer_attention_score.out and its getter (torch_npu's v1 spelling): the
    prefill call with softmax_lse_flag writes both out tensors."""
    rng = np.random.default_rng(30)
    ends, t = [5, 12], 12
    q, k, v = (rand(rng, (t, N, 128)) for _ in range(3))
    q_pe, k_pe = rand(rng, (t, N, 64)), rand(rng, (t, N, 64))
    kwargs = dict(query_rope=q_pe, key_rope=k_pe, num_heads=N, num_key_value_heads=N, input_layout="TND",
                  atten_mask=np.triu(np.ones((2048, 2048), np.int8), 1), sparse_mode=3,
                  scale=192 ** -0.5, softmax_lse_flag=True, actual_seq_lengths=ends,
                  actual_seq_lengths_kv=ends)
    workspace = ops._npu_fused_infer_attention_score_get_max_workspace(q, k, v, **kwargs)
    out, lse = np.zeros((t, N, 128), BF16), np.zeros((t, N, 1), np.float32)
    got = ops.npu_fused_infer_attention_score.out(q, k, v, **kwargs, workspace=workspace, out=[out, lse])
    want_out, want_lse = ops.npu_fused_infer_attention_score(q, k, v, **kwargs)
    assert got[0] is out and got[1] is lse
    assert np.array_equal(out.view(np.uint16), want_out.view(np.uint16)) and np.array_equal(lse, want_lse)
