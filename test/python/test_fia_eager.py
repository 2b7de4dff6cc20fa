"""The eager npu_fused_infer_attention_score of ascend_mla.ops (FIA V2 and its MLA mode).

What is checked here: the API (docs/api.md's signature, key/value as an array or a list, value given
as the very key array, the `scale` alias, torch in -> torch out), that a call computes exactly
what the kernel computes when called directly and returns the types the verifier inferred, the
MLA chain end to end (mla.prolog_v2's outputs as FIA's query and caches, PA_BSND and PA_NZ)
against an independent float32 reference, the rules IR cannot reach (the runtime rules on mask,
block table and padding values; a null query; tensor lists the IR cannot hold), that a rejected
call changes none of its inputs, and that the parameters the seed calls IGNORED are accepted.
The static rules in IR are test/lit/dialect/fia*.mlir; the kernel's numerics in every scenario
are test_fia_numerics.py's subject.
"""
from __future__ import annotations

import inspect
import warnings

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla import VerificationError, VerificationWarning, ops
from ascend_mla.dialect.fia import FusedInferAttentionScore
from ascend_mla.eager import tensor_info
from ascend_mla.runtime.kernels import get_kernel

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
OP = "'mla.fused_infer_attention_score' op "
fia = ops.npu_fused_infer_attention_score


def _rng(seed=0):
    return np.random.default_rng(seed)


def _rand(rng, shape, dtype=BF16, scale=1.0):
    return (rng.standard_normal(shape, dtype=np.float32) * scale).astype(dtype)


def _causal_template():
    """The 2048x2048 mask of sparse_mode 2/3/4: 1 exactly above the diagonal (seed L872)."""
    return np.triu(np.ones((2048, 2048), np.int8), 1)


def same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def rejected(call, rule_id, param):
    """Run a call that must be rejected by `rule_id`, naming `param`; returns the message."""
    with pytest.raises(VerificationError) as info:
        call()
    message = str(info.value)
    assert message.startswith(OP + param + ":"), message
    assert message.endswith(f"[{rule_id}]"), message
    return message


# --- the API -------------------------------------------------------------------------------

API_MD_SIGNATURE = [
    ("query", None), ("key", None), ("value", None), ("pse_shift", None), ("atten_mask", None),
    ("actual_seq_lengths", None), ("actual_seq_lengths_kv", None), ("dequant_scale1", None),
    ("quant_scale1", None), ("dequant_scale2", None), ("quant_scale2", None),
    ("quant_offset2", None), ("antiquant_scale", None), ("antiquant_offset", None),
    ("block_table", None), ("query_padding_size", None), ("kv_padding_size", None),
    ("key_antiquant_scale", None), ("key_antiquant_offset", None),
    ("value_antiquant_scale", None), ("value_antiquant_offset", None),
    ("key_shared_prefix", None), ("value_shared_prefix", None),
    ("actual_shared_prefix_len", None), ("query_rope", None), ("key_rope", None),
    ("key_rope_antiquant_scale", None), ("num_heads", 1), ("scale_value", 1.0), ("pre_tokens", 2147483647),
    ("next_tokens", 2147483647), ("input_layout", "BSH"), ("num_key_value_heads", 0),
    ("sparse_mode", 0), ("inner_precise", 0), ("block_size", 0), ("antiquant_mode", 0),
    ("softmax_lse_flag", False), ("key_antiquant_mode", 0), ("value_antiquant_mode", 0),
    ("scale", None)]


def test_signature_is_api_md():
    params = list(inspect.signature(fia).parameters.values())
    assert [p.name for p in params] == [name for name, _ in API_MD_SIGNATURE]
    assert all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params[:3])
    assert all(p.kind == p.KEYWORD_ONLY for p in params[3:])
    assert [p.default for p in params[3:]] == [d for _, d in API_MD_SIGNATURE[3:]]
    # the IR op has the same operands, in the same order, and the host parameters as
    # attributes; torch_npu's reserved key_rope_antiquant_scale (no effect) has no operand;
    # the MLA full-quant mode's dequant_scale_query / query_quant_mode are v2's keywords
    ir_names = ([o.name for o in FusedInferAttentionScore.kernel_operands]
                + [a.name for a in FusedInferAttentionScore.attributes])
    v2_only = {"dequant_scale_query", "query_quant_mode"}
    assert sorted(set(ir_names) - v2_only) == sorted(p.name for p in params[:-1]
                                                     if p.name != "key_rope_antiquant_scale")
    assert v2_only <= set(inspect.signature(ascend_mla.ops.npu_fused_infer_attention_score_v2).parameters)


def test_seed_call_example_gives_ones():
    """The seed's example (L1080-1145): all-ones f16 inputs, so every output element is 1."""
    q = np.ones((1, 2, 1, 128), F16)
    kv = np.ones((1, 2, 512, 128), F16)
    out, lse = fia(q, [kv], [kv], num_heads=2, scale_value=1 / np.sqrt(128), pre_tokens=65535,
                   next_tokens=65535, input_layout="BNSD", num_key_value_heads=2)
    assert out.dtype == F16 and out.shape == (1, 2, 1, 128) and np.all(out == 1)
    assert lse.dtype == np.float32 and lse.shape == (1,) and lse[0] == 0


# --- a call computes what the kernel computes ----------------------------------------------

def _mla_decode_args(rng, cache_mode="PA_BSND"):
    b, n, nb, bs = 2, 8, 6, 16
    kv = _rand(rng, (nb, bs, 1, 512), scale=0.5)
    kr = _rand(rng, (nb, bs, 1, 64), scale=0.5)
    if cache_mode == "PA_NZ":
        kv, kr = ascend_mla.nz_cache_view(kv), ascend_mla.nz_cache_view(kr)
    return dict(query=_rand(rng, (b, 1, n, 512), scale=0.1), key=kv, value=kv,
                query_rope=_rand(rng, (b, 1, n, 64), scale=0.1), key_rope=kr,
                block_table=np.array([[4, 1, 0], [2, 3, 5]], np.int32),
                actual_seq_lengths_kv=[37, 20], num_heads=n, num_key_value_heads=1,
                block_size=bs, scale_value=1 / np.sqrt(192), input_layout="BSND",
                softmax_lse_flag=True)


def _config(name, rng):
    """Keyword arguments of one valid call per configuration class."""
    if name == "incre_bsh_gqa_mask_lse":
        mask = rng.integers(0, 2, (2, 1, 1, 24)).astype(np.int8)
        mask[:, ..., 0] = 0
        return dict(query=_rand(rng, (2, 1, 256)), key=_rand(rng, (2, 24, 128)),
                    value=_rand(rng, (2, 24, 128)), atten_mask=mask, actual_seq_lengths_kv=[24, 9],
                    num_heads=4, num_key_value_heads=2, scale_value=0.125, softmax_lse_flag=True)
    if name == "prompt_bnsd_bsnd_causal":
        return dict(query=_rand(rng, (1, 2, 5, 64), F16), key=_rand(rng, (1, 2, 9, 64), F16),
                    value=_rand(rng, (1, 2, 9, 64), F16), atten_mask=_causal_template(),
                    num_heads=2, input_layout="BNSD_BSND", sparse_mode=3, softmax_lse_flag=True)
    if name == "incre_paged_bnnbsd":
        return dict(query=_rand(rng, (2, 4, 1, 64)), key=_rand(rng, (5, 2, 16, 64)),
                    value=_rand(rng, (5, 2, 16, 64)),
                    block_table=np.array([[3, 0], [1, 4]], np.int32),
                    actual_seq_lengths_kv=[30, 11], num_heads=4, num_key_value_heads=2,
                    block_size=16, input_layout="BNSD")
    if name == "prompt_full_quant_int8_out":
        return dict(query=rng.integers(-20, 20, (1, 4, 2, 64)).astype(np.int8),
                    key=rng.integers(-20, 20, (1, 8, 2, 64)).astype(np.int8),
                    value=rng.integers(-20, 20, (1, 8, 2, 64)).astype(np.int8),
                    **_full_quant_scales(), quant_scale2=np.array([2.0], np.float32),
                    num_heads=2, input_layout="BSND")
    if name == "mla_decode_pa_nz":
        return _mla_decode_args(rng, "PA_NZ")
    if name == "mla_decode_pa_bsnd":
        return _mla_decode_args(rng, "PA_BSND")
    raise KeyError(name)


def _full_quant_scales():
    f32 = lambda x: np.array([x], np.float32)
    return dict(dequant_scale1=f32(1e-3), quant_scale1=f32(100.0), dequant_scale2=f32(0.01))


def _kernel_arguments(kwargs):
    """The kernel's arguments for the same call: lists for key/value, defaults applied."""
    args = {p.name: p.default for p in inspect.signature(fia).parameters.values()
            if p.default is not inspect.Parameter.empty
            and p.name not in ("scale", "key_rope_antiquant_scale")}
    args.update(kwargs)
    args["key"], args["value"] = _tensor_list(args["key"]), _tensor_list(args["value"])
    return args


KERNEL_CASES = ["incre_bsh_gqa_mask_lse", "prompt_bnsd_bsnd_causal", "incre_paged_bnnbsd",
                "prompt_full_quant_int8_out", "mla_decode_pa_bsnd", "mla_decode_pa_nz"]


@pytest.mark.parametrize("name", KERNEL_CASES)
def test_call_equals_the_kernel_and_the_inferred_types(name):
    kwargs = _config(name, _rng(3))
    out, lse = fia(**kwargs)
    want_out, want_lse = get_kernel("mla.fused_infer_attention_score")(**_kernel_arguments(kwargs))
    assert same_bits(out, want_out) and same_bits(lse, want_lse)
    # the result types the verifier inferred (and checked on the one-op module) are the kernel's
    inferred = _inferred_results(kwargs)
    for array, info in ((out, inferred["attention_out"]), (lse, inferred["softmax_lse"])):
        assert array.shape == info.shape and tensor_info("r", array).dtype == info.dtype


def _inferred_results(kwargs):
    op = FusedInferAttentionScore
    infos = {}
    for o in op.operands:
        value = kwargs.get(o.name)
        if o.name in ("key", "value"):
            infos[o.name] = [tensor_info(o.name, v) for v in _tensor_list(value)]
        elif value is not None:
            infos[o.name] = tensor_info(o.name, value)
    attrs = {a.name: kwargs[a.name] for a in op.attributes if a.name in kwargs}
    return op.result_infos(op.snapshot_from_parts(infos, attrs))


def _tensor_list(value):
    return value if isinstance(value, list) else [value]


def test_int8_query_without_post_quant_gives_f16():
    rng = _rng(4)
    q8 = dict(query=rng.integers(-9, 9, (1, 3, 2, 64)).astype(np.int8),
              key=rng.integers(-9, 9, (1, 6, 2, 64)).astype(np.int8),
              value=rng.integers(-9, 9, (1, 6, 2, 64)).astype(np.int8),
              **_full_quant_scales(), num_heads=2, input_layout="BSND")
    out, _ = fia(**q8)
    assert out.dtype == F16 and out.shape == (1, 3, 2, 64)


# --- key/value forms, scale alias, torch -----------------------------------------------------

def test_key_value_as_array_list_tuple_or_the_same_array():
    rng = _rng(5)
    q, kv = _rand(rng, (2, 1, 4, 64)), _rand(rng, (2, 12, 2, 64))
    common = dict(num_heads=4, num_key_value_heads=2, input_layout="BSND")
    as_array, _ = fia(q, kv, kv.copy(), **common)
    for key, value in ((kv, kv), ([kv], [kv]), ((kv,), (kv,)), ([kv], kv)):
        out, _ = fia(q, key, value, **common)
        assert same_bits(out, as_array)


def test_tensor_list_holds_one_batch_row_per_tensor():
    """A list of B tensors of batch 1 computes what the batched tensor computes."""
    rng = _rng(6)
    q, k, v = _rand(rng, (3, 1, 4, 64)), _rand(rng, (3, 10, 2, 64)), _rand(rng, (3, 10, 2, 64))
    common = dict(num_heads=4, num_key_value_heads=2, input_layout="BSND",
                  actual_seq_lengths_kv=[10, 4, 7])
    batched, _ = fia(q, k, v, **common)
    listed, _ = fia(q, [k[b:b + 1] for b in range(3)], [v[b:b + 1] for b in range(3)], **common)
    assert same_bits(listed, batched)


def test_scale_is_an_alias_of_scale_value():
    rng = _rng(7)
    q, kv = _rand(rng, (1, 1, 128)), _rand(rng, (1, 8, 128))
    by_name, _ = fia(q, kv, kv, num_heads=2, scale_value=0.3)
    by_alias, _ = fia(q, kv, kv, num_heads=2, scale=0.3)
    default, _ = fia(q, kv, kv, num_heads=2)
    assert same_bits(by_alias, by_name) and not same_bits(by_alias, default)
    with pytest.raises(TypeError, match="scale_value and its alias scale"):
        fia(q, kv, kv, num_heads=2, scale_value=0.5, scale=0.3)


def test_torch_in_torch_out():
    torch = pytest.importorskip("torch")
    kwargs = _config("incre_bsh_gqa_mask_lse", _rng(8))
    want_out, want_lse = fia(**kwargs)
    def to_torch(v):
        if not isinstance(v, np.ndarray):
            return v
        if v.dtype == BF16:
            return torch.from_numpy(v.view(np.int16)).view(torch.bfloat16)
        return torch.from_numpy(v)
    as_torch = {k: to_torch(v) for k, v in kwargs.items()}
    as_torch["actual_seq_lengths_kv"] = torch.tensor(kwargs["actual_seq_lengths_kv"])
    out, lse = fia(**as_torch)
    assert isinstance(out, torch.Tensor) and out.dtype == torch.bfloat16
    assert isinstance(lse, torch.Tensor) and lse.dtype == torch.float32
    assert same_bits(out.view(torch.int16).numpy().view(BF16), want_out)
    assert same_bits(lse.numpy(), want_lse)


# --- the MLA chain: mla.prolog_v2's outputs feed FIA ----------------------------------------

HE, HCQ, HCKV, DR, N = 7168, 1536, 512, 64, 8
BS, BLOCKS = 16, 6
TABLE = np.array([[5, 0, 3], [1, 4, 2]], np.int32)       # batch b's blocks, in order


@pytest.fixture(scope="module")
def prolog_weights():
    rng = _rng(11)
    nz = lambda w: ascend_mla.format_cast(w, ascend_mla.FRACTAL_NZ)
    return dict(weight_dq=nz(_rand(rng, (HE, HCQ), scale=0.02)),
                weight_uq_qr=nz(_rand(rng, (HCQ, 192 * N), scale=0.03)),
                weight_dkv_kr=nz(_rand(rng, (HE, HCKV + DR), scale=0.02)),
                weight_uk=_rand(rng, (N, 128, HCKV), scale=0.05),
                rmsnorm_gamma_cq=_rand(rng, (HCQ,)), rmsnorm_gamma_ckv=_rand(rng, (HCKV,)))


def logical_rows(cache, cache_mode):
    """(blocks, block_size, H) logical rows of a prolog cache, decoded independently."""
    blocks, bs, _, h = cache.shape
    rows = np.asarray(cache, np.float32).reshape(blocks, bs, h)
    if cache_mode == "PA_NZ":      # block memory [H/16, bs, 16] -> (bs, H)
        rows = rows.reshape(blocks, h // 16, bs, 16).transpose(0, 2, 1, 3).reshape(blocks, bs, h)
    return rows


def reference_mla(q_nope, q_rope, kv_rows, kr_rows, lengths, scale):
    """Absorbed MLA attention in float64: q (B, S, N, 512 | 64), cache rows per batch (L, 512 |
    64); query row i of S sees keys j <= L - S + i (rightDownCausal; S = 1: every key)."""
    b, s = q_nope.shape[:2]
    out = np.zeros(q_nope.shape, np.float64)
    lse = np.zeros((b, q_nope.shape[2], s, 1))
    for i_b in range(b):
        length = lengths[i_b]
        ids = TABLE[i_b, :-(-length // BS)]
        k = kv_rows[ids].reshape(-1, HCKV)[:length].astype(np.float64)
        kr = kr_rows[ids].reshape(-1, DR)[:length].astype(np.float64)
        for i in range(s):
            qn, qr = q_nope[i_b, i].astype(np.float64), q_rope[i_b, i].astype(np.float64)
            logits = (qn @ k.T + qr @ kr.T) * scale
            logits[:, length - s + i + 1:] = -np.inf
            m = logits.max(axis=-1, keepdims=True)
            e = np.exp(logits - m)
            out[i_b, i] = e @ k / e.sum(axis=-1, keepdims=True)
            lse[i_b, :, i, 0] = (m + np.log(e.sum(axis=-1, keepdims=True)))[:, 0]
    return out, lse


@pytest.mark.parametrize("cache_mode", ["PA_BSND", "PA_NZ"])
@pytest.mark.parametrize("q_s", [1, 2])
def test_prolog_v2_outputs_feed_fia(prolog_weights, cache_mode, q_s):
    """Decode (Q_S = 1, sparse_mode 0) and MTP (Q_S = 2, sparse_mode 3): the prolog writes the
    new tokens into caches that already hold a history, FIA attends over all of it."""
    rng = _rng(12 + q_s)
    lengths = [37, 20]                                   # tokens per batch row, new ones last
    kv = _rand(rng, (BLOCKS, BS, 1, HCKV), scale=0.5)   # the history (any memory is valid NZ)
    kr = _rand(rng, (BLOCKS, BS, 1, DR), scale=0.5)
    slots = [[TABLE[b, p // BS] * BS + p % BS for p in range(n - q_s, n)]
             for b, n in enumerate(lengths)]
    query, query_rope, kv, kr, _ = ops.npu_mla_prolog_v2(
        _rand(rng, (2, q_s, HE)), rope_sin=_rand(rng, (2, q_s, DR)),
        rope_cos=_rand(rng, (2, q_s, DR)), cache_index=np.array(slots, np.int64), kv_cache=kv,
        kr_cache=kr, cache_mode=cache_mode, **prolog_weights)
    assert query.shape == (2, q_s, N, HCKV) and query_rope.shape == (2, q_s, N, DR)
    key, key_rope = (kv, kr) if cache_mode == "PA_BSND" else (ascend_mla.nz_cache_view(kv), ascend_mla.nz_cache_view(kr))
    causal = dict(sparse_mode=3, atten_mask=_causal_template()) if q_s > 1 else {}
    scale = 1 / np.sqrt(192)
    out, lse = fia(query, key, key, query_rope=query_rope, key_rope=key_rope, block_table=TABLE,
                   actual_seq_lengths_kv=lengths, num_heads=N, num_key_value_heads=1,
                   block_size=BS, scale=scale, input_layout="BSND", softmax_lse_flag=True, **causal)
    kv_rows, kr_rows = logical_rows(kv, cache_mode), logical_rows(kr, cache_mode)
    want, want_lse = reference_mla(np.asarray(query, np.float32),
                                   np.asarray(query_rope, np.float32), kv_rows, kr_rows, lengths,
                                   scale)
    # The kernel feeds exp(s - max) to P.V rounded to bf16 (relative error <= 2^-8 per weight)
    # and rounds the output once to bf16 (<= 2^-8 of |out|): together at most 2^-7 of max|V|.
    assert out.dtype == BF16 and out.shape == want.shape
    np.testing.assert_allclose(np.asarray(out, np.float32), want, rtol=0,
                               atol=2.0**-7 * np.abs(kv_rows).max())
    # lse is float32 logsumexp of the same logits: float32 noise only
    np.testing.assert_allclose(lse, want_lse, rtol=1e-5, atol=1e-5)


# --- rules IR cannot reach -----------------------------------------------------------------

def _small(rng):
    q, kv = _rand(rng, (2, 1, 4, 64)), _rand(rng, (2, 16, 2, 64))
    return q, kv, dict(num_heads=4, num_key_value_heads=2, input_layout="BSND")


def test_null_query_key_or_value():
    q, kv, common = _small(_rng(20))
    rejected(lambda: fia(None, kv, kv, **common), "FIA-001", "query")
    rejected(lambda: fia(q, None, kv, **common), "FIA-002", "key")
    rejected(lambda: fia(q, kv, [], **common), "FIA-003", "value")


def test_tensor_list_elements_differ_in_heads():
    """FIA-038: the static rules see each list element's type (IR's variadic holds one type)."""
    rng = _rng(21)
    q = _rand(rng, (2, 1, 4, 64))
    keys = [_rand(rng, (1, 16, 2, 64)), _rand(rng, (1, 16, 2, 32))]
    message = rejected(lambda: fia(q, keys, keys, num_heads=4, num_key_value_heads=2,
                                   input_layout="BSND"), "FIA-038", "key")
    assert "(element 1)" in message


def test_tensor_list_of_more_than_256_batches():
    """FIA-039: a tensor list allows B <= 256."""
    q = np.zeros((257, 1, 16), BF16)
    keys = [np.zeros((1, 2, 16), BF16)] * 257
    rejected(lambda: fia(q, keys, keys), "FIA-039", "key")


def test_mask_values_must_be_0_or_1():
    q, kv, common = _small(_rng(22))
    mask = np.zeros((2, 1, 1, 16), np.uint8)
    mask[1, 0, 0, 3] = 2
    rejected(lambda: fia(q, kv, kv, atten_mask=mask, **common), "FIA-073", "atten_mask")
    bool_mask = np.zeros((2, 1, 1, 16), bool)               # a bool mask has no such rule
    fia(q, kv, kv, atten_mask=bool_mask, **common)


def test_compressed_mask_must_be_the_causal_template():
    rng = _rng(23)
    q, kv = _rand(rng, (1, 4, 2, 64)), _rand(rng, (1, 8, 2, 64))
    common = dict(num_heads=2, input_layout="BSND", sparse_mode=3)
    fia(q, kv, kv, atten_mask=_causal_template(), **common)
    wrong = np.tril(np.ones((1, 2048, 2048), np.int8), -1)  # the other polarity
    message = rejected(lambda: fia(q, kv, kv, atten_mask=wrong, **common), "FIA-077", "atten_mask")
    assert "at (0, 1)" in message


def test_block_ids_within_the_cache_and_nothing_changes():
    rng = _rng(24)
    kwargs = _config("incre_paged_bnnbsd", rng)
    kwargs["block_table"] = np.array([[3, 0], [1, 5]], np.int32)   # 5 blocks: ids 0..4
    kwargs["actual_seq_lengths_kv"] = [30, 20]                      # batch 1 uses 2 blocks
    saved = {k: v.copy() for k, v in kwargs.items() if isinstance(v, np.ndarray)}
    message = rejected(lambda: fia(**kwargs), "FIA-180", "block_table")
    assert "batch 1: block id 5" in message
    assert all(same_bits(kwargs[k], v) for k, v in saved.items())
    kwargs["actual_seq_lengths_kv"] = [30, 16]      # block 5 is past batch 1's length: unused
    fia(**kwargs)


def test_left_padding_windows_inside_the_tensors():
    rng = _rng(25)
    q, kv = _rand(rng, (2, 8, 2, 64)), _rand(rng, (2, 16, 2, 64))
    common = dict(num_heads=2, input_layout="BSND")
    pad = lambda n: np.array([n], np.int64)
    fia(q, kv, kv, query_padding_size=pad(3), actual_seq_lengths=[5, 2], **common)
    rejected(lambda: fia(q, kv, kv, query_padding_size=pad(4), actual_seq_lengths=[5, 2], **common),
             "FIA-190", "query_padding_size")
    fia(q, kv, kv, kv_padding_size=pad(-7), actual_seq_lengths_kv=[16], **common)  # negative: 0
    rejected(lambda: fia(q, kv, kv, kv_padding_size=pad(6), actual_seq_lengths_kv=[9, 11],
                         **common), "FIA-191", "kv_padding_size")


def test_combined_antiquant_precision_advice():
    """FIA-229: high performance (inner_precise 1) with |kv| * |antiquant_scale| >= 1 warns."""
    rng = _rng(26)
    q = _rand(rng, (1, 4, 128), F16)
    kv = rng.integers(-127, 128, (1, 8, 128)).astype(np.int8)
    scale = np.full((2,), 0.05, F16)
    common = dict(antiquant_scale=scale, num_heads=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fia(q, kv, kv, inner_precise=0, **common)          # high precision: no advice
    with pytest.warns(VerificationWarning, match=r"antiquant_scale: .* >= 1.*\[FIA-229\]"):
        fia(q, kv, kv, inner_precise=1, **common)


def test_ignored_parameters_are_accepted_and_change_nothing():
    """Incre: actual_seq_lengths, sparse_mode, pre/next_tokens, query_padding_size are ignored
    (FIA-058, FIA-081, FIA-082, FIA-185); block_size without a block table (FIA-181); prompt:
    antiquant_mode (FIA-125)."""
    rng = _rng(27)
    q, kv, common = _small(rng)
    plain, _ = fia(q, kv, kv, **common)
    ignored, _ = fia(q, kv, kv, actual_seq_lengths=[999, -3, 5], sparse_mode=8, pre_tokens=-5,
                     next_tokens=-9, query_padding_size=np.array([100], np.int64), block_size=7,
                     **common)
    assert same_bits(ignored, plain)
    qp = _rand(rng, (2, 3, 4, 64))
    prompt_plain, _ = fia(qp, kv, kv, **common)
    prompt_ignored, _ = fia(qp, kv, kv, antiquant_mode=9, **common)
    assert same_bits(prompt_ignored, prompt_plain)


def test_ignored_query_padding_is_no_left_padding_for_a_prefix():
    """Q_S == 1: query_padding_size with actual_seq_lengths is no query left padding (both are
    ignored, seed L290/L688), so FIA-197 (no prefix with left padding) does not apply."""
    rng = _rng(30)
    q, kv, common = _small(rng)
    prefix = dict(key_shared_prefix=_rand(rng, (1, 5, 2, 64)),
                  value_shared_prefix=_rand(rng, (1, 5, 2, 64)), **common)
    plain, _ = fia(q, kv, kv, **prefix)
    ignored, _ = fia(q, kv, kv, query_padding_size=np.array([3], np.int64),
                     actual_seq_lengths=[1], **prefix)
    assert same_bits(ignored, plain)
    # in the prompt branch the same pair is query left padding, which excludes a prefix
    rejected(lambda: fia(_rand(rng, (2, 4, 4, 64)), kv, kv,
                         query_padding_size=np.array([0], np.int64), actual_seq_lengths=[4],
                         **prefix), "FIA-197", "key_shared_prefix")


def test_empty_query_and_empty_key_value():
    """FIA-217: an empty query returns at once (the types still verify); FIA-218: key/value
    with S2 = 0 give a zero output."""
    rng = _rng(29)
    common = dict(num_heads=4, num_key_value_heads=2, input_layout="BSND")
    out, _ = fia(np.zeros((0, 1, 4, 64), BF16), np.zeros((0, 16, 2, 64), BF16),
                 np.zeros((0, 16, 2, 64), BF16), **common)
    assert out.shape == (0, 1, 4, 64) and out.dtype == BF16
    empty_kv = np.zeros((2, 0, 2, 64), BF16)
    out, _ = fia(_rand(rng, (2, 3, 4, 64)), empty_kv, empty_kv, **common)
    assert out.shape == (2, 3, 4, 64) and not np.any(np.asarray(out, np.float32))


def test_static_rules_reject_in_eager_calls_too():
    """The IR rules run on eager arguments with the same message (one example per kind)."""
    rng = _rng(28)
    q, kv, common = _small(rng)
    rejected(lambda: fia(q, kv, kv, **{**common, "num_key_value_heads": 3}),
             "FIA-027", "num_key_value_heads")
    kwargs = _mla_decode_args(rng)
    six_heads = dict(kwargs, num_heads=6, query=kwargs["query"][:, :, :6],
                     query_rope=kwargs["query_rope"][:, :, :6])
    rejected(lambda: fia(**six_heads), "FIA-MLA-8", "num_heads")
    rejected(lambda: fia(**dict(kwargs, key_rope=None)), "FIA-MLA-1", "key_rope")


def test_int4_key_with_post_quant_names_quant_scale2():
    """FIA-112 names the parameter the caller passed (quant_scale2), not the inferred output."""
    rng = _rng(31)
    q = _rand(rng, (2, 1, 4, 64))
    packed = rng.integers(-2**31, 2**31, (2, 16, 2, 8)).astype(np.int32)   # 8 INT4 per int32
    scales = dict(key_antiquant_scale=_rand(rng, (1, 2, 64)),
                  value_antiquant_scale=_rand(rng, (1, 2, 64)))
    common = dict(num_heads=4, num_key_value_heads=2, input_layout="BSND", **scales)
    fia(q, packed, packed, **common)
    rejected(lambda: fia(q, packed, packed, quant_scale2=np.array([2.0], np.float32), **common),
             "FIA-112", "quant_scale2")


def test_shared_prefix_length_without_a_prefix_is_ignored_with_a_warning():
    """CANN's ATK list for aclnnFusedInferAttentionScoreV2 passes actualSharedPrefixLen (1024 ..
    5120) without prefix tensors in all its cases; the device reads it only with a prefix."""
    rng = _rng(32)
    q, kv = _rand(rng, (1, 8, 16, 64), F16), _rand(rng, (1, 1, 24, 64), F16)
    common = dict(num_heads=8, num_key_value_heads=1, input_layout="BNSD", scale_value=0.125)
    plain, _ = fia(q, kv, kv, **common)
    with pytest.warns(VerificationWarning, match=r"actual_shared_prefix_len: ignored without "
                      r"key_shared_prefix and value_shared_prefix .*\[FIA-209\]"):
        ignored, _ = fia(q, kv, kv, actual_shared_prefix_len=[2049], **common)
    assert same_bits(ignored, plain)
    # with a prefix the length is read and checked (FIA-207: at most the prefix's S)
    prefix = dict(key_shared_prefix=_rand(rng, (1, 1, 4, 64), F16),
                  value_shared_prefix=_rand(rng, (1, 1, 4, 64), F16), **common)
    rejected(lambda: fia(q, kv, kv, actual_shared_prefix_len=[5], **prefix), "FIA-207",
             "actual_shared_prefix_len")


def test_non_contiguous_tensors_are_rejected():
    """FIA-014: the seed marks query, key, value, pse_shift and atten_mask "non-contiguous: x";
    a strided view (here a slice along S, and one element of a tensor list) is rejected by the
    eager call, naming the parameter; its contiguous copy runs."""
    rng = _rng(33)
    q, kv, common = _small(rng)
    wide = _rand(rng, (2, 32, 2, 64))
    view = wide[:, ::2]                                     # (2, 16, 2, 64), strided
    assert not view.flags.c_contiguous
    rejected(lambda: fia(q, view, kv, **common), "FIA-014", "key")
    rejected(lambda: fia(q, kv, view, **common), "FIA-014", "value")
    message = rejected(lambda: fia(q, [kv[:1], view[1:]], [kv[:1], kv[1:]], **common),
                       "FIA-014", "key")
    assert "(element 1)" in message
    transposed = _rand(rng, (2, 4, 3, 64)).transpose(0, 2, 1, 3)    # BSND (2, 3, 4, 64) view
    rejected(lambda: fia(transposed, kv, kv, **common), "FIA-014", "query")
    fia(q, np.ascontiguousarray(view), kv, **common)


def test_non_contiguous_torch_tensor_is_rejected():
    torch = pytest.importorskip("torch")
    rng = _rng(34)
    q, kv, common = _small(rng)
    as_torch = lambda a: torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    strided = as_torch(_rand(rng, (2, 16, 64, 2))).transpose(2, 3)     # (2, 16, 2, 64)
    assert not strided.is_contiguous()
    rejected(lambda: fia(as_torch(q), strided, as_torch(kv), **common), "FIA-014", "key")
    out, _ = fia(as_torch(q), strided.contiguous(), as_torch(kv), **common)
    assert isinstance(out, torch.Tensor)


def test_int_parameters_as_one_element_integral_tensors():
    """torch takes a one-element integral tensor for an int parameter (torch_npu's own tests
    pass num_heads or the antiquant modes so); a float tensor or a longer one is not an int."""
    rng = _rng(35)
    q, kv, _ = _small(rng)
    plain, _ = fia(q, kv, kv, num_heads=4, num_key_value_heads=2, input_layout="BSND",
                   next_tokens=7)
    as_tensors, _ = fia(q, kv, kv, num_heads=np.array([4]), num_key_value_heads=np.int32(2),
                        input_layout="BSND", next_tokens=np.array([[7]], np.int64))
    assert same_bits(as_tensors, plain)
    for bad in (np.array([4.0]), np.array([4, 4]), np.array([True])):
        with pytest.raises(VerificationError, match=r"op num_heads: expected an integer"):
            fia(q, kv, kv, num_heads=bad, num_key_value_heads=2, input_layout="BSND")
    torch = pytest.importorskip("torch")
    as_torch, _ = fia(q, kv, kv, num_heads=torch.tensor([4]), num_key_value_heads=torch.tensor(2),
                      input_layout="BSND", next_tokens=torch.tensor([7], dtype=torch.int32))
    assert same_bits(as_torch, plain)
    with pytest.raises(VerificationError, match=r"op num_heads: expected an integer"):
        fia(q, kv, kv, num_heads=torch.ones(1), num_key_value_heads=2, input_layout="BSND")


def test_tnd_rejects_a_tensor_list():
    """FIA-TND-5: the TND layouts pack every batch's keys along T; a tensor list is not one."""
    rng = _rng(36)
    q = _rand(rng, (5, 2, 128))
    k = [_rand(rng, (4, 2, 128)), _rand(rng, (4, 2, 128))]
    rejected(lambda: fia(q, k, k, actual_seq_lengths=[2, 5], actual_seq_lengths_kv=[4, 8],
                         num_heads=2, input_layout="TND"), "FIA-TND-5", "key")
