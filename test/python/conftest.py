"""Fixtures shared by the pytest files."""
import pytest


@pytest.fixture(params=["numpy", "torch"])
def backend(request, monkeypatch):
    """Run the test once per matmul library (ASCEND_MLA_MATMUL): float32 BLAS and torch's bf16
    GEMM (skipped without torch). Both round bf16 products once."""
    if request.param == "torch":
        pytest.importorskip("torch", reason="the torch matmul path is only offered when torch is installed")
    monkeypatch.setenv("ASCEND_MLA_MATMUL", request.param)
    return request.param
