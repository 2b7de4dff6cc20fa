"""mla.rms_norm end to end: eager call, verifier messages, numerics against a float64 reference."""
import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla import VerificationError

bf16 = ml_dtypes.bfloat16


def reference_rms_norm(x, gamma, eps):
    x = np.asarray(x, np.float64)
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * np.asarray(gamma, np.float64)


@pytest.mark.parametrize("dtype", [np.float32, bf16, np.float16])
def test_matches_reference(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 5, 64)).astype(dtype)
    gamma = rng.uniform(0.5, 1.5, 64).astype(dtype)
    y = ascend_mla.ops.rms_norm(x, gamma, epsilon=1e-5)
    assert y.dtype == x.dtype and y.shape == x.shape
    expected = reference_rms_norm(x, gamma, 1e-5)
    # float32 arithmetic then one rounding to the output type: within half an ulp of the
    # output type plus float32 noise (relative 1e-6); we allow one ulp.
    ulp = {np.float32: 2**-23, bf16: 2**-8, np.float16: 2**-10}[dtype]
    np.testing.assert_allclose(y.astype(np.float64), expected, rtol=2 * ulp, atol=1e-6)


def test_errors_name_the_parameter():
    x = np.ones((2, 8), np.float32)
    with pytest.raises(VerificationError, match=r"'mla.rms_norm' op gamma: expected shape \(8,\) "
                                                r"\(the last dimension of x\), got \(4,\) \[RMS-003\]"):
        ascend_mla.ops.rms_norm(x, np.ones(4, np.float32))
    with pytest.raises(VerificationError, match=r"x: expected element type bf16, f16 or f32, got i32"):
        ascend_mla.ops.rms_norm(np.ones((2, 8), np.int32), np.ones(8, np.float32))
    with pytest.raises(VerificationError, match=r"epsilon: must be > 0"):
        ascend_mla.ops.rms_norm(x, np.ones(8, np.float32), epsilon=0.0)
    with pytest.raises(VerificationError, match=r"gamma: expected a tensor \(NumPy array, NZTensor or CPU torch.Tensor\), got list \[ARG-002\]"):
        ascend_mla.ops.rms_norm(x, [1.0] * 8)
    assert issubclass(VerificationError, ValueError)


def test_torch_tensors_in_torch_tensors_out():
    torch = pytest.importorskip("torch", reason="torch interop is only offered when torch is installed")
    x = torch.randn(4, 16).bfloat16()
    g = torch.ones(16).bfloat16()
    y = ascend_mla.ops.rms_norm(x, g)
    assert isinstance(y, torch.Tensor) and y.dtype == torch.bfloat16
    expected = reference_rms_norm(x.float().numpy(), g.float().numpy(), 1e-5)
    np.testing.assert_allclose(y.float().numpy(), expected, rtol=2**-7, atol=1e-6)


def test_host_parameters_are_checked_for_kind_before_any_rule():
    x, g = np.ones((2, 8), np.float32), np.ones(8, np.float32)
    with pytest.raises(VerificationError, match=r"'mla.rms_norm' op epsilon: expected a float, got 'small'"):
        ascend_mla.ops.rms_norm(x, g, epsilon="small")
    with pytest.raises(VerificationError, match=r"epsilon: expected a float, got True"):
        ascend_mla.ops.rms_norm(x, g, epsilon=True)
    # NumPy scalars are host numbers too.
    assert ascend_mla.ops.rms_norm(x, g, epsilon=np.float32(1e-6)).shape == (2, 8)


def test_ir_result_type_may_differ_from_the_input():
    """f16 in, f32 out (RMS-006 allows it): the float32 result is not rounded to f16 first."""
    program = ascend_mla.compile("""
    func.func @f(%x: tensor<2x64xf16>, %g: tensor<64xf32>) -> tensor<2x64xf32> {
      %0 = "mla.rms_norm"(%x, %g) : (tensor<2x64xf16>, tensor<64xf32>) -> tensor<2x64xf32>
      return %0 : tensor<2x64xf32>
    }""")
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 64)).astype(np.float16)
    g = rng.uniform(0.5, 1.5, 64).astype(np.float32)
    (y,) = program(x, g)
    assert y.dtype == np.float32
    # float32 arithmetic: within a few float32 ulps, far below f16's 2^-11 rounding.
    np.testing.assert_allclose(y, reference_rms_norm(x, g, 1e-5), rtol=1e-6, atol=1e-7)
