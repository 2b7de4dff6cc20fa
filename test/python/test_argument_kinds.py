"""The argument-kind rules every eager op shares (ARG-001..007, docs/errors.md): an argument of
the wrong kind is a VerificationError naming it and the rule, before any op rule reads it."""
import re

import ml_dtypes
import numpy as np
import pytest
from valid_calls import fia_case, nsa_case, prolog_case

import ascend_mla
from ascend_mla import VerificationError

BF16 = ml_dtypes.bfloat16
try:
    import torch
except ImportError:  # the torch cases skip
    torch = None
needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def rejection(fn, **kwargs) -> str:
    with pytest.raises(VerificationError) as error:
        fn(**kwargs)
    return str(error.value)


def rms(**changes):
    args = dict(x=np.ones((4, 8), BF16), gamma=np.ones(8, BF16))
    args.update(changes)
    return rejection(ascend_mla.ops.rms_norm, **args)


def fia(**changes):
    return rejection(ascend_mla.ops.npu_fused_infer_attention_score,
                     **dict(fia_case(np.random.default_rng(0)), **changes))


def nsa(**changes):
    return rejection(ascend_mla.ops.npu_nsa_compress_attention_infer,
                     **dict(nsa_case(np.random.default_rng(0)), **changes))


def test_a_missing_operand_is_named_not_dereferenced():
    assert rms(gamma=None) == "'mla.rms_norm' op gamma: is required, got None [ARG-001]"
    assert rms(x=None) == "'mla.rms_norm' op x: is required, got None [ARG-001]"


def test_a_missing_required_host_parameter():
    assert "head_num: is required, got None [ARG-001]" in nsa(head_num=None)


@pytest.mark.parametrize("value,reason", [
    ([1.0] * 8, "expected a tensor (NumPy array, NZTensor or CPU torch.Tensor), got list"),
    (3.5, "expected a tensor (NumPy array, NZTensor or CPU torch.Tensor), got float"),
    (np.ones(8, np.complex64), "expected a tensor with a supported element type"),
    (np.ones(8, object), "expected a tensor with a supported element type"),
    (np.ones(8, ml_dtypes.float8_e4m3fn), "expected a tensor with a supported element type"),
])
def test_tensor_kinds(value, reason):
    message = rms(gamma=value)
    assert message.startswith(f"'mla.rms_norm' op gamma: {reason}") and message.endswith("[ARG-002]")


@needs_torch
@pytest.mark.parametrize("make,reason", [
    (lambda: torch.ones(4, 8, device="meta"), "expected a CPU tensor, got one on meta"),
    (lambda: torch.ones(4, 8, dtype=torch.complex64), "got torch.complex64"),
    (lambda: torch.ones(4, 8).to(torch.float8_e4m3fn), "got torch.float8_e4m3fn"),
    (lambda: torch.ones(4, 8).to_sparse(), "expected a dense (strided) tensor"),
])
def test_torch_tensors_numpy_cannot_view(make, reason):
    message = rms(x=make(), gamma=torch.ones(8))
    assert reason in message and message.startswith("'mla.rms_norm' op x: ") and message.endswith("[ARG-002]")


@needs_torch
@pytest.mark.parametrize("make,reason", [
    (lambda: torch.ones(1, 2, 512, 128, device="meta"), "expected a CPU tensor, got one on meta"),
    (lambda: torch.ones(1, 2, 512, 128, dtype=torch.complex64), "got torch.complex64"),
])
def test_an_fia_key_numpy_cannot_view_is_named(make, reason):
    """The eager fuzzer's large budget: FIA looks at its key and value for the 5-D PA_NZ form
    before the argument rules ran, and the interop's KindError (a TypeError without the
    parameter or the rule) escaped from there."""
    message = fia(key=[make()])
    assert reason in message and message.startswith("'mla.fused_infer_attention_score' op key")
    assert message.endswith("[ARG-002]"), message


@pytest.mark.parametrize("changes,expected", [
    (dict(pre_tokens=2**64), "pre_tokens: expected a 64-bit integer, got 18446744073709551616 (out of range) [ARG-003]"),
    (dict(num_heads=True), "num_heads: expected an integer, got True [ARG-003]"),
    (dict(scale_value=10**400), "scale_value: expected a float, got 1000"),
    (dict(scale_value="0.1"), "scale_value: expected a float, got '0.1' [ARG-004]"),
    (dict(softmax_lse_flag=1), "softmax_lse_flag: expected a bool, got 1 [ARG-005]"),
    (dict(input_layout=b"BSND"), "input_layout: expected a string, got b'BSND' [ARG-006]"),
    (dict(input_layout="BS\udcffND"), "input_layout: expected a string of Unicode characters"),
    (dict(actual_seq_lengths_kv=[[1, 2]]), "actual_seq_lengths_kv: expected a list of integers, got [1, 2] at index 0 [ARG-007]"),
    (dict(actual_seq_lengths_kv=20), "actual_seq_lengths_kv: expected a list of integers, got 20 [ARG-007]"),
    (dict(actual_seq_lengths_kv=[20, 2**63]), "actual_seq_lengths_kv: expected a list of 64-bit integers, got 9223372036854775808 at index 1 [ARG-007]"),
    (dict(actual_seq_lengths_kv=np.ones((1, 2), np.int64)), "actual_seq_lengths_kv: expected a list of integers, got ndarray of shape (1, 2) and element type int64 [ARG-007]"),
])
def test_host_parameter_kinds(changes, expected):
    message = fia(**changes)
    assert message.startswith(f"'mla.fused_infer_attention_score' op {expected}")
    assert re.search(r"\[ARG-00[3-7]\]$", message)


def test_a_seed_rule_for_the_same_check_keeps_its_id():
    # NSA-016 (the seed's "host arrays are INT64") is an argument rule of its own.
    assert nsa(actual_cmp_seq_kvlen=[40.0, 50]).endswith(
        "actual_cmp_seq_kvlen: expected INT64 values, got 40.0 at index 0 [NSA-016]")
    assert nsa(query=None).endswith("query: is required, got none [NSA-001]")


def test_negative_strides_are_read_through_a_copy():
    # A reversed view (torch has none): read operands are copied to C order before the kernel;
    # the result equals the call on a contiguous copy.
    case = fia_case(np.random.default_rng(0))
    expected = ascend_mla.ops.npu_fused_infer_attention_score(**case)[0]
    reversed_query = np.ascontiguousarray(case["query"][::-1])[::-1]
    assert reversed_query.strides[0] < 0
    out = ascend_mla.ops.npu_fused_infer_attention_score(**dict(case, query=reversed_query))[0]
    assert out.view(np.uint16).tobytes() == expected.view(np.uint16).tobytes()


@pytest.mark.parametrize("name,value", [("kv_cache", None), ("rmsnorm_epsilon_cq", "1e-5"),
                                        ("cache_index", [3, 17]), ("weight_dq", np.ones(3))])
def test_rejected_kinds_leave_the_caches_untouched(name, value):
    case = prolog_case(np.random.default_rng(0))
    case["kv_cache"][:] = 1
    before = {c: case[c].copy() for c in ("kv_cache", "kr_cache")}
    with pytest.raises(VerificationError, match=r"\[(ARG-00\d|MLA-0\d\d)\]"):
        ascend_mla.ops.npu_mla_prolog_v2(**dict(case, **{name: value}))
    for c, old in before.items():
        assert case[c].tobytes() == old.tobytes()


def test_a_message_is_one_line_even_for_an_array_of_the_wrong_kind():
    message = nsa(layout=np.zeros((2, 3, 4)))
    assert message.endswith("layout: expected a string, got ndarray of shape (2, 3, 4) and element type float64 [ARG-006]")


def test_an_array_for_the_scale_alias_is_a_kind_error():
    # `scale` (the alias of scale_value) used to be compared with ==: an array's truth value
    case = fia_case(np.random.default_rng(0))
    del case["scale_value"]
    message = rejection(ascend_mla.ops.npu_fused_infer_attention_score, **case, scale=np.array([]))
    assert message.endswith("scale_value: expected a float, got ndarray of shape (0,) and element type float64 [ARG-004]")


def test_v2_an_array_for_a_mode_is_a_kind_error():
    # query_quant_mode is an op attribute (the MLA full-quant mode): an array is no integer
    from valid_calls import fia_v2_case
    message = rejection(ascend_mla.ops.npu_fused_infer_attention_score_v2,
                        **fia_v2_case(np.random.default_rng(0)), query_quant_mode=np.zeros(3))
    assert message.startswith("'mla.fused_infer_attention_score' op query_quant_mode: expected an integer")
    assert message.endswith("[ARG-003]")
