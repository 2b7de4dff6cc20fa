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


@pytest.fixture(autouse=True)
def kernel_oracle(monkeypatch):
    """ASCEND_MLA_KERNEL_ORACLE=1: every CPU kernel call of the test also runs the kernel as it
    was before the speed work (kernels_before/) and must give the same bits (kernel_oracle.py).
    A way to run the whole numerics suite as a bit-exactness test of faster kernels."""
    import os
    if os.environ.get("ASCEND_MLA_KERNEL_ORACLE") != "1":
        return
    from ascend_mla.runtime import kernels
    from kernel_oracle import compare
    kernels.load_kernels()
    for name, fn in list(kernels.KERNELS.items()):
        def checked(*, _name=name, _fn=fn, **operands):
            return compare(_name, _fn, operands)
        checked.__signature__ = __import__("inspect").signature(fn)
        monkeypatch.setitem(kernels.KERNELS, name, checked)
