"""ascend_mla.ops.npu_fused_infer_attention_score_v2: torch_npu 2.14's spelling of FIA as a
second eager front end onto the same op (mla.fused_infer_attention_score).

Checked here: its signature is torch_npu's (op-plugin's function schema), every call computes
exactly what npu_fused_infer_attention_score computes for the mapped keywords, a rejected call
names the v2 keyword the caller passed, the parameters the op does not model are rejected
[FIA-API-2] and the reserved ones ignored with a warning [FIA-API-1] (also v1's
key_rope_antiquant_scale).
"""
from __future__ import annotations

import inspect
import warnings

import ml_dtypes
import numpy as np
import pytest

from ascend_mla import VerificationError, VerificationWarning, ops

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
v1 = ops.npu_fused_infer_attention_score
v2 = ops.npu_fused_infer_attention_score_v2

# torch_npu 2.14's npu_fused_infer_attention_score_v2 (op-plugin op_plugin_functions.yaml): the
# keyword-only parameters after query, key, value, with their defaults.
TORCH_NPU_V2 = [
    ("query_rope", None), ("key_rope", None), ("pse_shift", None), ("atten_mask", None),
    ("actual_seq_qlen", None), ("actual_seq_kvlen", None), ("block_table", None),
    ("dequant_scale_query", None), ("dequant_scale_key", None), ("dequant_offset_key", None),
    ("dequant_scale_value", None), ("dequant_offset_value", None),
    ("dequant_scale_key_rope", None), ("quant_scale_out", None), ("quant_offset_out", None),
    ("quant_scale_p", None), ("learnable_sink", None), ("num_query_heads", 1),
    ("num_key_value_heads", 0), ("softmax_scale", 1.0), ("pre_tokens", 2147483647),
    ("next_tokens", 2147483647), ("input_layout", "BSH"), ("sparse_mode", 0), ("block_size", 0),
    ("query_quant_mode", 0), ("key_quant_mode", 0), ("value_quant_mode", 0),
    ("inner_precise", 0), ("return_softmax_lse", False), ("query_dtype", None),
    ("key_dtype", None), ("value_dtype", None), ("query_rope_dtype", None),
    ("key_rope_dtype", None), ("key_shared_prefix_dtype", None),
    ("value_shared_prefix_dtype", None), ("dequant_scale_query_dtype", None),
    ("dequant_scale_key_dtype", None), ("dequant_scale_value_dtype", None),
    ("dequant_scale_key_rope_dtype", None), ("out_dtype", None)]


def rand(rng, shape, dtype=BF16, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32).astype(dtype)


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_signature_is_torch_npu_2_14():
    params = list(inspect.signature(v2).parameters.values())
    assert [p.name for p in params[:3]] == ["query", "key", "value"]
    assert all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params[:3])
    assert [(p.name, p.default) for p in params[3:]] == TORCH_NPU_V2
    assert all(p.kind == p.KEYWORD_ONLY for p in params[3:])


def cases():
    """(v1 keywords, v2 keywords) of the same calls."""
    rng = np.random.default_rng(60)
    q, kv = rand(rng, (2, 1, 256)), rand(rng, (2, 24, 128))
    mask = np.zeros((2, 1, 1, 24), bool)
    mask[1, ..., 20:] = True
    yield (dict(query=q, key=kv, value=kv, atten_mask=mask, actual_seq_lengths_kv=[24, 9],
                num_heads=4, num_key_value_heads=2, scale_value=0.125, softmax_lse_flag=True),
           dict(query=q, key=kv, value=kv, atten_mask=mask, actual_seq_kvlen=[24, 9],
                num_query_heads=4, num_key_value_heads=2, softmax_scale=0.125,
                return_softmax_lse=True))
    # TND prefill with cumulative lengths
    qt, kt, vt = rand(rng, (7, 4, 192)), rand(rng, (9, 2, 192)), rand(rng, (9, 2, 128))
    yield (dict(query=qt, key=kt, value=vt, actual_seq_lengths=[3, 7],
                actual_seq_lengths_kv=[4, 9], num_heads=4, num_key_value_heads=2,
                input_layout="TND", scale_value=0.07),
           dict(query=qt, key=kt, value=vt, actual_seq_qlen=[3, 7], actual_seq_kvlen=[4, 9],
                num_query_heads=4, num_key_value_heads=2, input_layout="TND",
                softmax_scale=0.07))
    # int8 key/value with separate antiquant (key per-channel, value per-token), f16 query
    qa = rand(rng, (2, 4, 1, 64), F16)
    k8 = rng.integers(-100, 100, (2, 2, 16, 64)).astype(np.int8)
    ks, vs = rand(rng, (1, 2, 64), F16, 0.02), np.abs(rand(rng, (1, 2, 16), np.float32, 0.02))
    yield (dict(query=qa, key=k8, value=k8, key_antiquant_scale=ks, value_antiquant_scale=vs,
                key_antiquant_mode=0, value_antiquant_mode=1, num_heads=4,
                num_key_value_heads=2, input_layout="BNSD"),
           dict(query=qa, key=k8, value=k8, dequant_scale_key=ks, dequant_scale_value=vs,
                key_quant_mode=0, value_quant_mode=1, num_query_heads=4,
                num_key_value_heads=2, input_layout="BNSD"))
    # post-quant to int8 with an offset
    qp, kp = rand(rng, (1, 3, 2, 32)), rand(rng, (1, 5, 2, 32))
    qs, qo = np.array([30.0], np.float32), np.array([2.0], np.float32)
    yield (dict(query=qp, key=kp, value=kp, quant_scale2=qs, quant_offset2=qo, num_heads=2,
                input_layout="BSND", sparse_mode=0),
           dict(query=qp, key=kp, value=kp, quant_scale_out=qs, quant_offset_out=qo,
                num_query_heads=2, input_layout="BSND"))


@pytest.mark.parametrize("index", range(4))
def test_v2_computes_what_v1_computes(index):
    first, second = list(cases())[index]
    out1, lse1 = v1(**first)
    out2, lse2 = v2(**second)
    assert same_bits(out2, out1) and same_bits(lse2, lse1)


def test_a_rejected_call_names_the_v2_keyword():
    first, second = list(cases())[1]
    with pytest.raises(VerificationError) as info:
        v2(**dict(second, actual_seq_qlen=[3, 6]))
    message = str(info.value)
    assert message.startswith("'mla.fused_infer_attention_score' op actual_seq_qlen "
                              "(actual_seq_lengths): expected the last value"), message
    assert message.endswith("[FIA-TND-2]")


@pytest.mark.parametrize("name,value", [("learnable_sink", np.zeros(4, BF16)), ("out_dtype", 1)])
def test_what_the_op_does_not_model_is_rejected(name, value):
    _, second = list(cases())[0]
    with pytest.raises(VerificationError, match=rf"^'mla.fused_infer_attention_score' op "
                       rf"{name}: not supported: .*\[FIA-API-2\]$"):
        v2(**second, **{name: value})


@pytest.mark.parametrize("name,value,rule", [
    ("dequant_scale_query", np.ones((2, 4, 1), np.float32), "FIA-MLAQ-1"),
    ("query_quant_mode", 3, "FIA-MLAQ-2")])
def test_the_full_quant_keywords_need_their_mode(name, value, rule):
    # the MLA full-quant mode's keywords reach the op: without an int8 query in MLA mode the
    # op's rules reject them (test_fia_mla_quant.py runs the mode itself)
    _, second = list(cases())[0]
    with pytest.raises(VerificationError, match=rf"^'mla.fused_infer_attention_score' op "
                       rf"{name}: .*\[{rule}\]$"):
        v2(**second, **{name: value})


def test_reserved_keywords_are_ignored_with_a_warning():
    _, second = list(cases())[0]
    plain, _ = v2(**second)
    with pytest.warns(VerificationWarning, match=r"op quant_scale_p: reserved .*\[FIA-API-1\]"):
        ignored, _ = v2(**second, quant_scale_p=np.ones(1, np.float32), query_dtype=7,
                        dequant_scale_key_rope=np.ones(1, np.float32))
    assert same_bits(ignored, plain)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v2(**second)                                      # none given: no warning


def test_v1_key_rope_antiquant_scale_is_reserved():
    """torch_npu's npu_fused_infer_attention_score takes key_rope_antiquant_scale; every public
    document of it (aclnn V3/V4, torch_npu) says reserved, no effect: ignored with a warning."""
    rng = np.random.default_rng(61)
    n, bs = 8, 16
    kv, kr = rand(rng, (4, bs, 1, 512), scale=0.5), rand(rng, (4, bs, 1, 64), scale=0.5)
    common = dict(query=rand(rng, (2, 1, n, 512), scale=0.1), key=kv, value=kv,
                  query_rope=rand(rng, (2, 1, n, 64), scale=0.1), key_rope=kr,
                  block_table=np.array([[3, 1], [0, 2]], np.int32), actual_seq_lengths_kv=[20, 9],
                  num_heads=n, num_key_value_heads=1, block_size=bs, scale_value=0.07,
                  input_layout="BSND")
    plain, _ = v1(**common)
    with pytest.warns(VerificationWarning,
                      match=r"op key_rope_antiquant_scale: reserved .*\[FIA-API-1\]"):
        ignored, _ = v1(**common, key_rope_antiquant_scale=np.ones((1, 1, 1, 64), F16))
    assert same_bits(ignored, plain)
