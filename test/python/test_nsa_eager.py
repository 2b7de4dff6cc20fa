"""ascend_mla.ops.npu_nsa_compress_attention_infer: the eager call of
mla.nsa_compress_attention_infer (docs/api.md section 2; verifier dialect/nsa.py).

The static rules have one lit split each (test/lit/dialect/nsa-invalid.mlir); here are the rules
only an eager call can break (None for a required tensor, host arrays that are not INT64 lists,
non-contiguous arrays, block_table entries), a few static rules seen through the eager call, and
the plumbing: results equal the kernel called directly, torch in -> torch out, the signature of
docs/api.md.
"""
from __future__ import annotations

import inspect

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla import VerificationError
from ascend_mla.ops import npu_nsa_compress_attention_infer
from ascend_mla.runtime.kernels import get_kernel

BF16 = np.dtype(ml_dtypes.bfloat16)
OP = "'mla.nsa_compress_attention_infer' op"

# The small TND configuration of the lit tests: B = 2, N1 = 8, N2 = 2 (G = 4), D1 = 32, D2 = 16,
# 8 blocks of 16 positions, l = 32, d = 16, l' = 32, K = 4, L = [40, 50] (ceil(50/16) = 4 table
# columns; nSel = 21 and 26 selection blocks).
B, N1, N2, D1, D2, BLOCKS, BLOCK_SIZE = 2, 8, 2, 32, 16, 8, 16
SCALARS = dict(scale_value=D1 ** -0.5, head_num=N1, key_value_head_num=N2, select_block_size=32,
               select_block_count=4, page_block_size=BLOCK_SIZE, compress_block_size=32,
               compress_stride=16)
POSITIONAL = ("query", "key", "value", *SCALARS)


def tnd_case(seed=0, dtype=BF16) -> dict:
    rng = np.random.default_rng(seed)
    return dict(
        query=rng.standard_normal((B, N1, D1)).astype(dtype),
        key=rng.standard_normal((BLOCKS, BLOCK_SIZE, N2 * D1)).astype(dtype),
        value=rng.standard_normal((BLOCKS, BLOCK_SIZE, N2 * D2)).astype(dtype),
        **SCALARS,
        block_table=np.array([[5, 2, 7, 0], [1, 6, 3, 4]], np.int32),
        actual_cmp_seq_kvlen=[40, 50])


def bsnd_case(seed=1) -> dict:
    """BSND, S1 = 3 rows, 3 and 2 tokens, with an attention mask (Q_S = 3 > 1)."""
    case = tnd_case(seed, np.dtype(np.float16))
    rng = np.random.default_rng(seed)
    case.update(query=rng.standard_normal((B, 3, N1, D1)).astype(np.float16), layout="BSND",
                atten_mask=np.ones((B, 3, 64), bool), actual_seq_qlen=[3, 2],
                actual_sel_seq_kvlen=[656, 816])
    return case


def call(case: dict):
    args = [case[name] for name in POSITIONAL]
    options = {k: v for k, v in case.items() if k not in POSITIONAL}
    return npu_nsa_compress_attention_infer(*args, **options)


def kernel_results(case: dict):
    """The registered CPU kernel, called directly with every docs/api.md name (defaults applied)."""
    full = dict(atten_mask=None, block_table=None, topk_mask=None, actual_seq_qlen=None,
                actual_cmp_seq_kvlen=None, actual_sel_seq_kvlen=None, layout="TND",
                sparse_mode=0)
    full.update(case)
    return get_kernel("mla.nsa_compress_attention_infer")(**full)


def rejected(case: dict) -> str:
    with pytest.raises(VerificationError) as failure:
        call(case)
    return str(failure.value)


# --- the contract ---------------------------------------------------------------------------

def test_signature_is_api_md():
    params = inspect.signature(npu_nsa_compress_attention_infer).parameters
    assert list(params)[:len(POSITIONAL)] == list(POSITIONAL)
    keywords = {name: p.default for name, p in params.items() if p.kind is p.KEYWORD_ONLY}
    assert keywords == dict(atten_mask=None, block_table=None, topk_mask=None,
                            actual_seq_qlen=None, actual_cmp_seq_kvlen=None,
                            actual_sel_seq_kvlen=None, layout="TND", sparse_mode=0)


@pytest.mark.parametrize("make_case", [tnd_case, bsnd_case], ids=["TND", "BSND"])
def test_results_are_the_kernels(make_case):
    case = make_case()
    output, topk = call(case)
    want_output, want_topk = kernel_results(case)
    assert output.dtype == case["query"].dtype and topk.dtype == np.int32
    assert output.shape == (*case["query"].shape[:-1], D2)
    assert topk.shape == (*case["query"].shape[:-2], N2, SCALARS["select_block_count"])
    np.testing.assert_array_equal(output.view(np.uint16), want_output.view(np.uint16))
    np.testing.assert_array_equal(topk, want_topk)


def test_equal_keys_average_the_values():
    # An independent check of the wiring: with every key equal, softmax is uniform over the L_b
    # compressed positions, so each head's output is the mean of its kv head's values at those
    # positions (read through block_table). Tolerance: the probabilities 1/L and the result are
    # rounded to bf16 (2^-8 relative each) and |mean| <= max|v|, so 2^-6 * max|v| bounds the
    # error with room to spare.
    case = tnd_case()
    case["key"] = np.ones_like(case["key"])
    output, _ = call(case)
    values = case["value"].astype(np.float32)
    for b, length in enumerate(case["actual_cmp_seq_kvlen"]):
        positions = np.arange(length)
        rows = values[case["block_table"][b][positions // BLOCK_SIZE], positions % BLOCK_SIZE]
        mean = rows.reshape(length, N2, D2).mean(axis=0)            # (N2, D2)
        expected = np.repeat(mean, N1 // N2, axis=0)                # head h uses kv head h // G
        np.testing.assert_allclose(output[b].astype(np.float32), expected,
                                   atol=2.0 ** -6 * np.abs(values).max())


def test_inputs_are_not_written():
    case = tnd_case()
    before = {k: v.copy() for k, v in case.items() if isinstance(v, np.ndarray)}
    call(case)
    bad = dict(case, select_block_count=22)  # rejected (NSA-077)
    rejected(bad)
    for name, array in before.items():
        np.testing.assert_array_equal(case[name].view(np.uint8), array.view(np.uint8))


def test_torch_in_torch_out():
    torch = pytest.importorskip("torch")
    case = tnd_case()
    as_torch = {k: torch.from_numpy(v.view(np.int16)).view(torch.bfloat16) if v.dtype == BF16
                else torch.from_numpy(v)
                for k, v in case.items() if isinstance(v, np.ndarray)}
    output, topk = call(dict(case, **as_torch, actual_cmp_seq_kvlen=torch.tensor([40, 50])))
    assert isinstance(output, torch.Tensor) and output.dtype == torch.bfloat16
    assert isinstance(topk, torch.Tensor) and topk.dtype == torch.int32
    want_output, want_topk = call(case)
    np.testing.assert_array_equal(output.view(torch.int16).numpy(), want_output.view(np.int16))
    np.testing.assert_array_equal(topk.numpy(), want_topk)


@pytest.mark.parametrize("lengths", [np.array([40, 50], np.int64), (40, 50),
                                     np.array([40, 50], np.int32)],
                         ids=["ndarray-int64", "tuple", "ndarray-int32"])
def test_host_arrays_in_any_sequence(lengths):
    _, topk = call(dict(tnd_case(), actual_cmp_seq_kvlen=lengths))
    np.testing.assert_array_equal(topk, call(tnd_case())[1])


def test_reserved_parameters_do_not_block_the_call():
    # topk_mask and sparse_mode are reserved (NSA-090 is a warning): same results.
    case = tnd_case()
    reserved = dict(case, topk_mask=np.zeros((B, 4), np.float16), sparse_mode=3)
    for got, want in zip(call(reserved), call(case)):
        np.testing.assert_array_equal(got, want)


# --- eager-only rules ------------------------------------------------------------------------

@pytest.mark.parametrize("name,rule", [("query", "NSA-001"), ("key", "NSA-002"),
                                       ("value", "NSA-003")])
def test_required_tensors(name, rule):
    message = rejected(dict(tnd_case(), **{name: None}))
    assert message == f"{OP} {name}: is required, got none [{rule}]"


@pytest.mark.parametrize("lengths,reason", [
    ([40.0, 50], "expected INT64 values, got 40.0 at index 0"),
    ([40, True], "expected INT64 values, got True at index 1"),
    ([40, 2 ** 63], f"expected INT64 values, got {2 ** 63} at index 1 (out of range)"),
], ids=["float", "bool", "too-large"])
def test_host_arrays_hold_int64(lengths, reason):
    message = rejected(dict(tnd_case(), actual_cmp_seq_kvlen=lengths))
    assert message == f"{OP} actual_cmp_seq_kvlen: {reason} [NSA-016]"


def test_a_scalar_for_a_host_array_is_rejected_before_any_rule():
    message = rejected(dict(tnd_case(), actual_cmp_seq_kvlen=40))
    assert message == f"{OP} actual_cmp_seq_kvlen: expected a list of integers, got 40 [ARG-007]"


def test_host_array_types_are_checked_on_every_call():
    # A valid call first: a later call with equal values of another type must not reuse its
    # verdict (40.0 == 40 in Python).
    call(tnd_case())
    message = rejected(dict(tnd_case(), actual_cmp_seq_kvlen=[40.0, 50.0]))
    assert message == (f"{OP} actual_cmp_seq_kvlen: expected INT64 values, got 40.0 at index 0 "
                       f"[NSA-016]")


def test_every_host_array_is_checked():
    case = dict(bsnd_case(), actual_seq_qlen=[3, 2.5])
    assert "actual_seq_qlen: expected INT64 values, got 2.5 at index 1 [NSA-016]" in rejected(case)
    case = dict(bsnd_case(), actual_sel_seq_kvlen=["656", 800])
    assert ("actual_sel_seq_kvlen: expected INT64 values, got '656' at index 0 [NSA-016]"
            in rejected(case))


def strided(array: np.ndarray) -> np.ndarray:
    """The same values as a non-contiguous view (every other element of a doubled last axis)."""
    doubled = np.repeat(array, 2, axis=-1)
    return doubled[..., ::2]


@pytest.mark.parametrize("name", ["query", "key", "value", "block_table"])
def test_non_contiguous_tensors_are_rejected(name):
    case = tnd_case()
    view = strided(case[name])
    np.testing.assert_array_equal(view, case[name])
    message = rejected(dict(case, **{name: view}))
    assert message == (f"{OP} {name}: expected a contiguous tensor, got a strided view "
                       f"(non-contiguous tensors are not supported) [NSA-019]")


@pytest.mark.parametrize("entry", [BLOCKS, -1])
def test_block_table_entries_are_blocks(entry):
    case = tnd_case()
    case["block_table"][1, 3] = entry  # position 48..49 of batch 1 (L = 50) lives there
    message = rejected(case)
    assert message == (f"{OP} block_table: block_table[1, 3] = {entry} is not a block of "
                       f"key/value (expected 0 <= entry < {BLOCKS}) for the 50 positions of "
                       f"batch 1 [NSA-059]")


def test_unused_block_table_entries_are_not_read():
    # Batch 0 (L = 40) needs 3 blocks: its 4th column may hold anything (the device ignores it).
    case = tnd_case()
    wide = dict(case, block_table=case["block_table"].copy())
    wide["block_table"][0, 3] = 10 ** 6
    for got, want in zip(call(wide), call(case)):
        np.testing.assert_array_equal(got, want)


# --- static rules seen through the eager call ---------------------------------------------------

@pytest.mark.parametrize("change,expected", [
    (dict(block_table=None),
     "block_table: is required (the operator supports paged attention only), got none [NSA-004]"),
    (dict(actual_cmp_seq_kvlen=None),
     "actual_cmp_seq_kvlen: is required (the operator supports paged attention only), "
     "got none [NSA-005]"),
    (dict(layout="BNSD"), 'layout: expected "TND" or "BSND", got "BNSD" [NSA-020]'),
    (dict(select_block_count=21),   # the ceiling of 20.5 (which the device's tiling accepts)
     "select_block_count: expected at most NoCmpKvSeqlenCeil / select_block_size of every "
     "batch, ((L - 1) * compress_stride + compress_block_size) / select_block_size = "
     "(39 * 16 + 32) / 32 = 20.5 for batch 0, got 21 [NSA-077]"),
], ids=["NSA-004", "NSA-005", "NSA-020", "NSA-077"])
def test_static_rules_name_the_parameter(change, expected):
    assert rejected(dict(tnd_case(), **change)) == f"{OP} {expected}"


def test_several_tokens_need_the_uncompressed_lengths():
    case = bsnd_case()
    del case["actual_sel_seq_kvlen"]
    assert rejected(case) == (f"{OP} actual_sel_seq_kvlen: is required when Q_S > 1, got none "
                              f"(Q_S = 3) [NSA-009]")


def test_verification_error_is_a_value_error():
    assert issubclass(ascend_mla.VerificationError, ValueError)


@pytest.mark.slow
def test_seed_example():
    # The seed's call example (catalog C4): TND, f16, every input 1.0, every block_table entry 1.
    # All keys are equal, so the attention is uniform and the output is exactly 1.0.
    batch, heads, kv_heads, d1, d2 = 20, 64, 4, 192, 128
    ones = np.float16(1.0)
    output, topk = npu_nsa_compress_attention_infer(
        np.full((batch, heads, d1), ones), np.full((640, 128, kv_heads * d1), ones),
        np.full((640, 128, kv_heads * d2), ones), 0.088388, heads, kv_heads, 64, 16, 128, 32, 16,
        block_table=np.ones((batch, 32), np.int32), actual_cmp_seq_kvlen=[4096] * batch,
        layout="TND", sparse_mode=0)
    assert output.shape == (batch, heads, d2) and output.dtype == np.float16
    assert topk.shape == (batch, kv_heads, 16) and topk.dtype == np.int32
    np.testing.assert_array_equal(output, np.ones_like(output))
    # nSel = ceil(((4096 - 1) * 16 + 32) / 64) = 1025 selection blocks: indices are distinct
    # blocks of that range.
    assert topk.min() >= 0 and topk.max() < 1025
    assert all(len(set(row)) == 16 for row in topk.reshape(-1, 16).tolist())


def test_ir_may_choose_the_other_output_type():
    """An f16 output for a bf16 query (NSA-014): the kernel rounds its float32 result once,
    to f16, and the indices do not change."""
    case = dict(tnd_case(), scale_value=0.125)   # the scale written in the IR below
    text = """
    func.func @f(%q: tensor<2x8x32xbf16>, %k: tensor<8x16x64xbf16>, %v: tensor<8x16x32xbf16>, %bt: tensor<2x4xi32>) -> (tensor<2x8x16xf16>, tensor<2x2x4xi32>) {
      %0:2 = "mla.nsa_compress_attention_infer"(%q, %k, %v, %bt) {operandSegmentSizes = array<i32: 1, 1, 1, 0, 1, 0>, scale_value = 0.125 : f64, head_num = 8, key_value_head_num = 2, select_block_size = 32, select_block_count = 4, page_block_size = 16, compress_block_size = 32, compress_stride = 16, actual_cmp_seq_kvlen = array<i64: 40, 50>} : (tensor<2x8x32xbf16>, tensor<8x16x64xbf16>, tensor<8x16x32xbf16>, tensor<2x4xi32>) -> (tensor<2x8x16xf16>, tensor<2x2x4xi32>)
      return %0#0, %0#1 : tensor<2x8x16xf16>, tensor<2x2x4xi32>
    }"""
    assert (case["head_num"], case["key_value_head_num"]) == (8, 2)
    program = ascend_mla.compile(text)
    out16, topk16 = program(case["query"], case["key"], case["value"], case["block_table"])
    out_bf16, topk = call(case)
    assert out16.dtype == np.float16 and out_bf16.dtype == BF16
    np.testing.assert_array_equal(topk16, topk)
    # f16 keeps 3 more mantissa bits than bf16: both round the same float32 values, so they
    # agree within one bf16 ulp (2^-8 relative), and f16 is not just a copy of the bf16 result.
    np.testing.assert_allclose(out16.astype(np.float32), out_bf16.astype(np.float32), rtol=2**-8, atol=1e-6)
    assert not np.array_equal(out16.astype(np.float32), out_bf16.astype(np.float32))


def test_int_parameters_as_one_element_integral_tensors():
    """An int parameter may be a one-element integral tensor, as torch takes it."""
    case = tnd_case()
    output, topk = call(case)
    as_tensors = dict(case, head_num=np.array([N1]), select_block_count=np.array([[4]], np.int32))
    out2, topk2 = call(as_tensors)
    np.testing.assert_array_equal(out2.view(np.uint16), output.view(np.uint16))
    np.testing.assert_array_equal(topk2, topk)
    with pytest.raises(VerificationError, match=r"op select_block_count: expected an integer"):
        call(dict(case, select_block_count=np.array([4.0])))
