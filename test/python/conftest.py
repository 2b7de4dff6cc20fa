"""Fixtures shared by the pytest files."""
import hashlib
import json

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
    """ASCEND_MLA_KERNEL_ORACLE=1: every CPU kernel call of the test is checked against the
    rounding contract (kernel_contract.py: within the bound of the exact-sum reference, and the
    same bits with other thread counts). A way to run the whole numerics suite as a contract
    test of faster kernels."""
    import os
    if os.environ.get("ASCEND_MLA_KERNEL_ORACLE") != "1":
        return
    from kernel_contract import check

    from ascend_mla.runtime import kernels
    kernels.load_kernels()
    for name, fn in list(kernels.KERNELS.items()):
        def checked(*, _name=name, _fn=fn, **operands):
            return check(_name, _fn, operands)
        checked.__signature__ = __import__("inspect").signature(fn)
        monkeypatch.setitem(kernels.KERNELS, name, checked)


# --- Hugging Face checkpoints written by transformers (hf_checkpoints.py) ------------------------

@pytest.fixture(scope="session")
def hf_checkpoint(tmp_path_factory):
    """hf_checkpoint(kind="bf16", rope_interleave=True, **config overrides) -> the directory of a
    small DeepSeek-V3 checkpoint written by transformers' save_pretrained (hf_checkpoints.SMALL:
    the prolog's dims, 8 heads, layer 0 dense, layer 1 MoE), built once per session and kind:
    "bf16" (the 5.x format as written), "fp32", "sharded" (3 shards + index), "legacy" (the 4.x
    config format: rope_theta + rope_scaling), "fp8" (block FP8 + weight_scale_inv)."""
    pytest.importorskip("transformers", reason="the reference checkpoints are written by transformers")
    import hf_checkpoints as hf
    made = {}

    def get(kind="bf16", **overrides):
        key = (kind, json.dumps(overrides, sort_keys=True))
        if key not in made:
            tag = hashlib.sha1(key[1].encode()).hexdigest()[:8] if overrides else "base"
            root = tmp_path_factory.mktemp(f"hf-{tag}")
            if kind == "bf16":
                made[key] = hf.write_transformers_checkpoint(root / "bf16", **overrides)
            else:
                src = get("bf16", **overrides)
                copy = {"fp32": hf.fp32_copy, "sharded": hf.sharded_copy, "legacy": hf.legacy_config_copy,
                        "fp8": hf.fp8_copy}[kind]
                made[key] = copy(src, root / kind)
        return made[key]
    return get


@pytest.fixture(scope="session")
def hf_model():
    """hf_model(path, dtype="bfloat16") -> transformers' DeepseekV3ForCausalLM of that directory
    (eager attention, eval), cached per (path, dtype)."""
    pytest.importorskip("transformers", reason="the reference models are transformers'")
    import hf_checkpoints as hf
    cache = {}

    def get(path, dtype="bfloat16"):
        if (path, dtype) not in cache:
            cache[(path, dtype)] = hf.load_transformers(path, dtype)
        return cache[(path, dtype)]
    return get


@pytest.fixture(scope="session")
def toolchain():
    """(CANN's include folder, the recording ACL/HCCL double) for the C++ tests. The headers come
    from the torch-npu wheel, fetched once with pip: without network these tests skip, saying why."""
    import acl_double
    include, why = acl_double.headers()
    if include is None:
        pytest.skip(f"the CANN headers (torch-npu wheel) cannot be obtained here: {why}")
    return include, acl_double.build(include)
