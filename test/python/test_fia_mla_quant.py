"""The MLA full-quant mode of mla.fused_infer_attention_score (FIA-MLAQ-*, docs/attention.md):
an int8 query (.., 512) with its per-(token, head) scale dq, the int8 latent cache in NZ with
per-tensor scales dk (key) and dv (value), bf16 rope parts, bf16 output; reached through
npu_fused_infer_attention_score_v2 (dequant_scale_query, query_quant_mode = 3).

Two independent references, written here:
  - the attention the mode means, in float64: softmax(scale * dq * dk * (q8.k8 + qr.kr)) . (v8 * dv)
    (the rope part shares the dequant factor: the device adds it in the same accumulator);
  - the device's order (512-key tiles; int8 P against the tile's max, P8.V8 in half / 1024,
    online rescaling in half), in float64 but for those roundings: the kernel must match it to
    a bf16 ulp almost everywhere.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest

from ascend_mla import VerificationError, ops
from ascend_mla.runtime.formats import NZTensor, nd_to_nz

BF16 = ml_dtypes.bfloat16
N, BLOCKS, BS, D, DR = 8, 18, 128, 512, 64
TILE = 512          # the device's key tile in MLA mode


def quant_case(rng, q_seq=1, lengths=(37, 200)):
    """A decode (q_seq 1) or MTP call in BSND over a shuffled block table."""
    batch = len(lengths)
    q8 = rng.integers(-127, 128, (batch, q_seq, N, D)).astype(np.int8)
    qr = (rng.standard_normal((batch, q_seq, N, DR)) * 20).astype(BF16)
    kv8 = rng.integers(-127, 128, (BLOCKS, BS, D)).astype(np.int8)
    kr = (rng.standard_normal((BLOCKS, BS, DR)) * 20).astype(BF16)
    width = -(-max(lengths) // BS)
    table = rng.permutation(BLOCKS)[:width * batch].reshape(batch, width).astype(np.int32)
    case = dict(
        query=q8, key=NZTensor(nd_to_nz(kv8), kv8.shape), query_rope=qr,
        key_rope=NZTensor(nd_to_nz(kr), kr.shape), block_table=table,
        actual_seq_kvlen=list(lengths), num_query_heads=N, num_key_value_heads=1, block_size=BS,
        softmax_scale=1 / math.sqrt(D + DR), input_layout="BSND",
        dequant_scale_query=(rng.random((batch, q_seq, N)) * 0.004 + 0.001).astype(np.float32),
        dequant_scale_key=np.array([0.021], np.float32),
        dequant_scale_value=np.array([0.013], np.float32), query_quant_mode=3)
    if q_seq > 1:
        case.update(sparse_mode=3, atten_mask=np.triu(np.ones((2048, 2048), np.int8), 1))
    return case, kv8, kr


def run(case):
    c = dict(case)
    return ops.npu_fused_infer_attention_score_v2(c.pop("query"), c["key"], c.pop("key"), **c)


def rows(cache, table_row, length):
    return np.concatenate([cache[i] for i in table_row])[:length].astype(np.float64)


def reference(case, kv8, kr, device_order):
    """(B, S, N, 512) float64: the mode's attention, or with the device's two roundings."""
    q8, qr, dq = case["query"], case["query_rope"], case["dequant_scale_query"]
    dk, dv = float(case["dequant_scale_key"][0]), float(case["dequant_scale_value"][0])
    batch, q_seq = q8.shape[:2]
    out = np.zeros(q8.shape, np.float64)
    for b, length in enumerate(case["actual_seq_kvlen"]):
        k, r = rows(kv8, case["block_table"][b], length), rows(kr, case["block_table"][b], length)
        for s in range(q_seq):
            acc = q8[b, s].astype(np.float64) @ k.T + qr[b, s].astype(np.float64) @ r.T
            logits = acc * dq[b, s][:, None] * dk * case["softmax_scale"]   # (N, L)
            logits[:, length - q_seq + s + 1:] = -np.inf                    # causal rows
            e = np.exp(logits - logits.max(axis=1, keepdims=True))
            if device_order:
                out[b, s] = device_pv(logits, k) * dv / 127
            else:
                out[b, s] = (e / e.sum(axis=1, keepdims=True)) @ (k * dv)
    return out


def device_pv(logits, k):
    """softmax(logits) . k * 127 in the device's order: per 512-key tile, with m the running
    row max, P = exp(logits - m) quantized to int8 against the tile's max through half, P8.K8
    in half (/ 1024), the earlier tiles rescaled by exp(m_old - m) in half."""
    f16 = lambda x: np.float16(x).astype(np.float64)                       # noqa: E731
    o = m = None
    for lo in range(0, logits.shape[1], TILE):
        tile = logits[:, lo:lo + TILE]
        new = tile.max(axis=1, keepdims=True) if m is None else \
            np.maximum(m, tile.max(axis=1, keepdims=True))
        p = np.exp(tile - new)
        p_max = p.max(axis=1, keepdims=True)
        part = f16(f16(np.rint(f16(p * 127 / p_max)) @ k[lo:lo + TILE] / 1024) * f16(p_max))
        o = part if o is None else f16(f16(o * f16(np.exp(m - new))) + part)
        m = new
    return o * 1024 / np.exp(logits - m).sum(axis=1, keepdims=True)


@pytest.mark.parametrize("q_seq,lengths", [(1, (37, 200)), (2, (37, 200)), (1, (700, 1100))],
                         ids=["decode", "mtp", "three_tiles"])
def test_the_device_order(q_seq, lengths):
    case, kv8, kr = quant_case(np.random.default_rng(q_seq), q_seq, lengths)
    out, lse = run(case)
    assert out.dtype == BF16 and out.shape == case["query"].shape and lse.shape == (1,)
    ref = reference(case, kv8, kr, device_order=True)
    # The kernel's scores and softmax are float32, the reference's float64: a P8 value may
    # round the other way where 127 * e lies within float32 error of a .5 (one step, 1/127
    # of a weight); the bf16 output is within half an ulp (2^-9 relative) of either.
    step = np.abs(kv8).max() * float(case["dequant_scale_value"][0]) / 127
    err = np.abs(out.astype(np.float64) - ref)
    assert np.all(err <= 2.0**-8 * np.abs(ref) + 2 * step), err.max()
    assert np.mean(err <= 2.0**-8 * np.abs(ref) + 1e-6) > 0.99      # almost all: a bf16 ulp


def test_the_attention_it_means():
    case, kv8, kr = quant_case(np.random.default_rng(7))
    out, _ = run(case)
    ref = reference(case, kv8, kr, device_order=False)
    # Bound of the device's quantization of P: each weight e_j (<= 1) is moved by at most half
    # an int8 step, 0.5/127, so |dO| <= 0.5/127 * sum_j |v_j| * dv / sum_j e_j; the half
    # product P8.V8/1024 adds 2^-11 and the bf16 output 2^-9 relative.
    bound = np.zeros_like(ref)
    dq, dk, dv = case["dequant_scale_query"], case["dequant_scale_key"][0], case["dequant_scale_value"][0]
    for b, length in enumerate(case["actual_seq_kvlen"]):
        k = rows(kv8, case["block_table"][b], length)
        r = rows(kr, case["block_table"][b], length)
        acc = case["query"][b, 0].astype(np.float64) @ k.T + case["query_rope"][b, 0].astype(np.float64) @ r.T
        logits = acc * dq[b, 0][:, None] * dk * case["softmax_scale"]
        e_sum = np.exp(logits - logits.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)
        bound[b, 0] = 0.5 / 127 * np.abs(k).sum(axis=0) * dv / e_sum
    err = np.abs(out.astype(np.float64) - ref)
    assert np.all(err <= bound + (2.0**-9 + 2.0**-11) * np.abs(ref) + 1e-6), (err - bound).max()
    # and the quantization is not free: the output is not the unquantized attention to bf16
    assert err.max() > 2.0**-8 * np.abs(ref).max()


def test_bsh_computes_what_bsnd_computes_and_tnd_is_refused():
    case, _, _ = quant_case(np.random.default_rng(3))
    out, _ = run(case)
    batch = case["query"].shape[0]
    bsh = dict(case, query=case["query"].reshape(batch, 1, N * D),
               query_rope=case["query_rope"].reshape(batch, 1, N * DR), input_layout="BSH")
    assert np.array_equal(run(bsh)[0].reshape(out.shape).view(np.uint16), out.view(np.uint16))
    # the TND constraints of both documents exclude full quantization (全量化) with D = 512
    tnd = dict(case, query=case["query"].reshape(batch, N, D),
               query_rope=case["query_rope"].reshape(batch, N, DR), input_layout="TND",
               dequant_scale_query=case["dequant_scale_query"].reshape(batch, N),
               actual_seq_qlen=list(range(1, batch + 1)))
    with pytest.raises(VerificationError, match=r"not supported with input_layout 'TND' \[FIA-TND-5\]"):
        run(tnd)


@pytest.mark.parametrize("change,rule", [
    (dict(dequant_scale_query=None), "FIA-MLAQ-1"),
    (dict(query_quant_mode=0), "FIA-MLAQ-2"),
    (dict(dequant_scale_value=None), "FIA-MLAQ-3"),
    (dict(dequant_offset_key=np.zeros(1, np.float32), dequant_offset_value=np.zeros(1, np.float32)),
     "FIA-MLA-18"),
    (dict(return_softmax_lse=True), "FIA-MLAQ-8")])
def test_a_rejected_call_names_the_rule_and_leaves_the_buffers(change, rule):
    case, _, _ = quant_case(np.random.default_rng(5))
    before = {k: np.array(v.data if isinstance(v, NZTensor) else v, copy=True)
              for k, v in case.items() if isinstance(v, (np.ndarray, NZTensor))}
    with pytest.raises(VerificationError, match=rf"\[{rule}\]"):
        run(dict(case, **change))
    for k, v in before.items():
        now = case[k].data if isinstance(case[k], NZTensor) else case[k]
        assert np.array_equal(np.asarray(now).view(np.uint8), v.view(np.uint8)), k


def test_v1_has_no_full_quant_keywords():
    # npu_fused_infer_attention_score (torch_npu v1) has no dequant_scale_query: an int8 query
    # in MLA mode is refused there, naming the missing scale; key_rope_antiquant_scale stays
    # reserved (every document: no effect) and cannot stand in for it
    case, _, _ = quant_case(np.random.default_rng(6))
    with pytest.raises(VerificationError, match=r"dequant_scale_query: required .*\[FIA-MLAQ-1\]"), \
            pytest.warns(Warning, match=r"key_rope_antiquant_scale: reserved .*\[FIA-API-1\]"):
        ops.npu_fused_infer_attention_score(
            case["query"], case["key"], case["key"], query_rope=case["query_rope"],
            key_rope=case["key_rope"], block_table=case["block_table"],
            actual_seq_lengths_kv=case["actual_seq_kvlen"], num_heads=N, num_key_value_heads=1,
            block_size=BS, input_layout="BSND", key_antiquant_scale=case["dequant_scale_key"],
            value_antiquant_scale=case["dequant_scale_value"],
            key_rope_antiquant_scale=np.ones(1, np.float32))
