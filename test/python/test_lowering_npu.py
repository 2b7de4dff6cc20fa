"""The NPU backend against the ACL/aclnn recording TEST DOUBLE (test/python/acl_double.py):
the recorded calls follow the documented two-phase protocol for every op."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import acl_double  # noqa: E402
from test_lowering import lowered  # noqa: E402

import ascend_mla  # noqa: E402
from ascend_mla.dialect.types import numpy_dtype  # noqa: E402
from ascend_mla.runtime import npu  # noqa: E402
from ascend_mla.runtime.formats import NZTensor, nz_physical_shape  # noqa: E402

LIT = Path(__file__).resolve().parents[1] / "lit"
bf16 = ml_dtypes.bfloat16


@pytest.fixture(scope="module")
def double(tmp_path_factory):
    include, why = acl_double.headers()
    if include is None:
        pytest.skip(f"the CANN headers (torch-npu wheel) cannot be obtained here: {why}")
    root = acl_double.build(include)
    log = tmp_path_factory.mktemp("acl") / "calls.jsonl"
    saved = {k: os.environ.get(k) for k in ("ASCEND_HOME_PATH", "ACL_DOUBLE_LOG")}
    os.environ["ASCEND_HOME_PATH"], os.environ["ACL_DOUBLE_LOG"] = str(root), str(log)
    npu.reset()
    ascend_mla.set_backend("npu")
    recorder = Recorder(log)
    yield recorder
    ascend_mla.set_backend("cpu")
    npu.reset()
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    ascend_mla.set_backend("auto")


class Recorder:
    def __init__(self, path):
        self.path, self.mark = path, 0

    def calls(self) -> list[dict]:
        """The calls recorded since the previous `calls()`."""
        text = Path(self.path).read_text() if Path(self.path).exists() else ""
        new, self.mark = text[self.mark:], len(text)
        import json
        return [json.loads(line) for line in new.splitlines() if line.strip()]


def names(calls):
    return [c["fn"] for c in calls]


def _zeros(t):
    info_shape = [d for d in t.shape]
    dtype = numpy_dtype(str(t.element_type))
    enc = t.encoding
    if enc is not None:
        logical = tuple(info_shape) if len(info_shape) != 4 else None
        return NZTensor(np.zeros(nz_physical_shape(logical, dtype), dtype), logical)
    return np.zeros(info_shape, dtype)


def test_rms_norm_protocol(double):
    x = np.arange(8 * 64, dtype=np.float32).reshape(8, 64).astype(bf16)
    gamma = np.ones(64, bf16)
    double.calls()
    y = ascend_mla.ops.rms_norm(x, gamma, epsilon=1e-6)
    calls = double.calls()
    fns = names(calls)
    one = next(c for c in calls if c["fn"] == "aclnnRmsNormGetWorkspaceSize")
    x_t, gamma_t, eps, y_t, rstd_t = one["args"]
    assert (x_t["view"], x_t["strides"], x_t["dtype"], x_t["format"], x_t["storage"]) == ([8, 64], [64, 1], 27, 2, [8, 64])
    assert gamma_t["view"] == [64] and eps == 1e-6
    assert (y_t["view"], y_t["dtype"]) == ([8, 64], 27) and (rstd_t["view"], rstd_t["dtype"]) == ([8, 1], 0)
    # phase one, repeatable executor, workspace of the returned size, launch, sync, copy back
    order = [fns.index(f) for f in ("aclnnRmsNormGetWorkspaceSize", "aclSetAclOpExecutorRepeatable",
                                    "aclnnRmsNorm", "aclrtSynchronizeStream")]
    assert order == sorted(order)
    launch = next(c for c in calls if c["fn"] == "aclnnRmsNorm")
    assert launch["workspace_size"] == 4096 and launch["workspace"]
    assert fns.index("aclrtMalloc") < fns.index("aclnnRmsNorm")
    downloads = [c for c in calls if c["fn"] == "aclrtMemcpy" and c["kind"] == 2]
    assert downloads and downloads[-1]["count"] == 8 * 64 * 2
    # the double copies the first input into each output: y carries x's bytes
    assert np.array_equal(np.asarray(y, np.float32), np.asarray(x, np.float32))
    # the same call again: the executor is reused, phase one does not run
    ascend_mla.ops.rms_norm(x, gamma, epsilon=1e-6)
    again = names(double.calls())
    assert "aclnnRmsNormGetWorkspaceSize" not in again and "aclnnRmsNorm" in again


def test_mla_full_quant_is_v4(double):
    """FIA's MLA full-quant mode: aclnnFusedInferAttentionScoreV4 with the (B, S, N) query scale
    in dequantScaleQueryOptional, keyRopeAntiquantScaleOptional nullptr, queryQuantMode 3, the
    per-tensor key/value scales as the key/value antiquant scales, the NZ int8 cache."""
    from ascend_mla.dialect.aclnn_functions import FIA_V4
    source = next(split for split in (LIT / "dialect" / "fia.mlir").read_text().split("// -----")
                  if "@mla_full_quant(" in split)
    fn = lowered(source)
    with fn._keep[0]:
        inputs = [_zeros(t) for t in fn._keep[1].body.operations[0].type.inputs]
    double.calls()
    fn(inputs, backend="npu")
    calls = double.calls()
    args = next(c for c in calls if c["fn"] == "aclnnFusedInferAttentionScoreV4GetWorkspaceSize")["args"]
    at = {p.c_name: args[i] for i, p in enumerate(FIA_V4.params)}
    assert at["dequantScaleQueryOptional"]["view"] == [2, 1, 8]
    assert at["keyRopeAntiquantScaleOptional"] is None and at["queryQuantMode"] == 3
    assert at["keyAntiquantScaleOptional"]["view"] == [1] == at["valueAntiquantScaleOptional"]["view"]
    key = at["key"]["tensor_list"][0]
    assert (key["view"], key["format"], key["storage"]) == ([4, 128, 512], 29, [4, 16, 8, 16, 32])
    assert at["inputLayout"] == "BSND" and at["softmaxLse"] is None


def test_fused_w8a8c8_deepseek_layer_makes_the_full_quant_v4_call(double):
    """fuse-attention's MLA full-quant FIA (a w8a8c8 layer over PA_NZ caches, block size 128):
    the documented V4 call over the latent cache the prolog wrote, in place, as the NZ int8
    tensor, with the (B, S, N) query scale, queryQuantMode 3 and the (1,) kv scale as the key
    and value antiquant scales."""
    from ascend_mla.dialect.aclnn_functions import FIA_V4
    from ascend_mla.models import deepseek
    model = deepseek.build("deepseek-v3", tp=16, layers=1, batch=2, block_size=128, quant="w8a8c8",
                           cache_mode="PA_NZ")
    program = ascend_mla.compile(model, target="npu")
    inputs = model.inputs(0)
    double.calls()
    program(**inputs)
    calls = double.calls()
    launched = [c["fn"] for c in calls if c["fn"].startswith("aclnn") and "GetWorkspaceSize" not in c["fn"]]
    assert launched.count("aclnnFusedInferAttentionScoreV4") == 1 and "aclnnScatterPaKvCache" not in launched
    prolog = next(c for c in calls if c["fn"].startswith("aclnnMlaPrologV2") and c["fn"].endswith("GetWorkspaceSize"))
    args = next(c for c in calls if c["fn"] == "aclnnFusedInferAttentionScoreV4GetWorkspaceSize")["args"]
    at = {p.c_name: args[i] for i, p in enumerate(FIA_V4.params)}
    assert at["queryQuantMode"] == 3 and at["inputLayout"] == "BSND" and at["blockSize"] == 128
    assert (at["query"]["view"], at["query"]["dtype"]) == ([2, 1, 8, 512], 2)          # ACL_INT8
    assert (at["dequantScaleQueryOptional"]["view"], at["dequantScaleQueryOptional"]["dtype"]) == ([2, 1, 8], 0)
    assert at["keyAntiquantScaleOptional"]["view"] == [1] == at["valueAntiquantScaleOptional"]["view"]
    assert at["keyAntiquantScaleOptional"]["buffer"] == at["valueAntiquantScaleOptional"]["buffer"]
    key = at["key"]["tensor_list"][0]
    assert (key["view"], key["dtype"], key["format"], key["storage"]) == ([5, 128, 512], 2, 29, [5, 16, 8, 16, 32])
    assert at["value"]["tensor_list"][0]["buffer"] == key["buffer"]
    # the latent cache the prolog updated in place
    assert key["buffer"] in {a["buffer"] for a in prolog["args"] if isinstance(a, dict) and "buffer" in a}
    assert at["keyRopeAntiquantScaleOptional"] is None and at["softmaxLse"] is None


def test_mla_decode_step_protocol(double):
    """prolog_v2 (PA_NZ) -> nz_cache_view -> FIA in MLA mode (V3): weights in FRACTAL_NZ with
    their storage shape, caches passed by reference, views over the cache buffers, nullptrs."""
    source = (LIT / "dialect" / "mla-chain.mlir").read_text().split("// -----")[1]
    fn = lowered(source)
    ctx = fn._keep[0]
    with ctx:
        inputs = [_zeros(t) for t in fn._keep[1].body.operations[0].type.inputs]
    kv_cache = inputs[10]
    double.calls()
    fn(inputs, backend="npu")
    calls = double.calls()
    fns = names(calls)
    assert fns.count("aclnnMlaPrologV2WeightNzGetWorkspaceSize") == 1
    assert fns.count("aclnnFusedInferAttentionScoreV3GetWorkspaceSize") == 1
    prolog = next(c for c in calls if c["fn"] == "aclnnMlaPrologV2WeightNzGetWorkspaceSize")["args"]
    assert len(prolog) == 25
    w_dq = prolog[1]
    assert (w_dq["view"], w_dq["format"], w_dq["storage"]) == ([7168, 1536], 29, [96, 448, 16, 16])
    assert prolog[12:19] == [None] * 7                   # no quant scales: nullptr
    assert prolog[19:22] == [1e-6, 1e-6, "PA_NZ"]
    assert prolog[24] is None                            # dequantScaleQNope: not written outside FQ-KVQ
    kv_ref = prolog[10]
    fia = next(c for c in calls if c["fn"] == "aclnnFusedInferAttentionScoreV3GetWorkspaceSize")["args"]
    key = fia[1]["tensor_list"][0]
    # the NZ view of the latent cache: same buffer, FRACTAL_NZ, NZ storage shape
    assert (key["view"], key["format"], key["storage"]) == ([4, 16, 512], 29, [4, 32, 1, 16, 16])
    assert (key["buffer"], key["buffer_offset"]) == (kv_ref["buffer"], kv_ref["buffer_offset"])
    assert fia[6] == {"int_array": [20, 9]}              # actualSeqLengthsKv: a host list
    assert fia[24]["view"] == [2, 1, 8, 64]              # queryRope
    assert fia[26] is None                               # keyRopeAntiquantScale
    assert fia[31] == "BSND" and fia[-1] is None         # inputLayout; softmaxLse without the flag
    assert fns.index("aclnnMlaPrologV2WeightNz") < fns.index("aclnnFusedInferAttentionScoreV3GetWorkspaceSize")
    assert kv_cache is not None
    # a second run reuses both executors
    fn(inputs, backend="npu")
    assert not [f for f in names(double.calls()) if f.endswith("GetWorkspaceSize")]


def test_phase_one_reruns_when_a_host_value_changes(double):
    """Lowered IR whose kv lengths are a run-time host tensor (aclnn.read_int_array): phase one
    runs again exactly when the values change."""
    fn = lowered(_NSA_LOWERED_SOURCE)
    q = np.zeros((2, 4, 192), np.float16)
    k = np.zeros((4, 128, 192), np.float16)
    v = np.zeros((4, 128, 128), np.float16)
    table = np.zeros((2, 2), np.int32)
    double.calls()
    for lengths, expected in (([200, 100], 1), ([200, 100], 0), ([250, 100], 1)):
        fn([q, k, v, table, np.array(lengths, np.int64)], backend="npu")
        calls = double.calls()
        ones = [c for c in calls if c["fn"] == "aclnnNsaCompressAttentionInferGetWorkspaceSize"]
        assert len(ones) == expected
        if ones:
            assert ones[0]["args"][6] == {"int_array": lengths}
    assert fn.stats("npu").phase_one == [2] and fn.stats("npu").reused == [1]


def test_aclnn_status_becomes_an_exception(double):
    x, gamma = np.ones((4, 32), bf16), np.ones(32, bf16)
    os.environ["ACL_DOUBLE_FAIL"] = "aclnnRmsNormGetWorkspaceSize:161002"
    try:
        with pytest.raises(npu.AclError, match="aclnnRmsNormGetWorkspaceSize failed: 161002 ACLNN_ERR_PARAM_INVALID") as e:
            ascend_mla.ops.rms_norm(x, gamma, epsilon=1e-3)
        assert e.value.status == 161002
    finally:
        del os.environ["ACL_DOUBLE_FAIL"]


def test_npu_unavailable_names_what_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("ASCEND_HOME_PATH", str(tmp_path))
    monkeypatch.delenv("ASCEND_TOOLKIT_HOME", raising=False)
    monkeypatch.setenv("LD_LIBRARY_PATH", "")
    saved = npu._backend
    npu._backend, npu._failure = None, None
    try:
        with pytest.raises(ascend_mla.BackendUnavailable, match="libascendcl.so, libopapi.so, libnnopbase.so not found") as e:
            ascend_mla.set_backend("npu")
        assert isinstance(e.value, RuntimeError)
        ascend_mla.set_backend("auto")
        assert ascend_mla.get_backend() == "cpu"          # "auto" falls back
    finally:
        npu._backend, npu._failure = saved, None


_NSA_LOWERED_SOURCE = """
func.func @nsa(%q: tensor<2x4x192xf16>, %k: tensor<4x128x192xf16>, %v: tensor<4x128x128xf16>,
               %table: tensor<2x2xi32>, %lengths: tensor<2xi64>) -> (tensor<2x4x128xf16>, tensor<2x1x4xi32>) {
  %stream = "aclnn.current_stream"() : () -> !aclnn.stream
  %null = "aclnn.null"() : () -> !aclnn.nullptr
  %kv_len = "aclnn.read_int_array"(%lengths) : (tensor<2xi64>) -> !aclnn.int_array
  %heads = arith.constant 4 : i64
  %kv_heads = arith.constant 1 : i64
  %sel = arith.constant 64 : i64
  %count = arith.constant 4 : i64
  %cmp = arith.constant 32 : i64
  %stride = arith.constant 16 : i64
  %scale = arith.constant 0.07 : f64
  %layout = "aclnn.string"() {value = "TND"} : () -> !aclnn.cstring
  %page = arith.constant 128 : i64
  %sparse = arith.constant 0 : i64
  %out = "aclnn.alloc"() : () -> tensor<2x4x128xf16>
  %topk = "aclnn.alloc"() : () -> tensor<2x1x4xi32>
  %size, %exec = "aclnn.nsa_compress_attention_infer_get_workspace_size"(%q, %k, %v, %null, %table, %null, %kv_len, %null, %null,
      %heads, %kv_heads, %sel, %count, %cmp, %stride, %scale, %layout, %page, %sparse, %out, %topk)
      {callee = "aclnnNsaCompressAttentionInferGetWorkspaceSize"}
      : (tensor<2x4x192xf16>, tensor<4x128x192xf16>, tensor<4x128x128xf16>, !aclnn.nullptr, tensor<2x2xi32>,
         !aclnn.nullptr, !aclnn.int_array, !aclnn.nullptr, !aclnn.nullptr, i64, i64, i64, i64, i64, i64, f64,
         !aclnn.cstring, i64, i64, tensor<2x4x128xf16>, tensor<2x1x4xi32>) -> (i64, !aclnn.executor)
  %ws = "aclnn.workspace"(%size) : (i64) -> tensor<?xi8>
  "aclnn.launch"(%ws, %size, %exec, %stream) {callee = "aclnnNsaCompressAttentionInfer"}
      : (tensor<?xi8>, i64, !aclnn.executor, !aclnn.stream) -> ()
  "aclnn.synchronize"(%stream) : (!aclnn.stream) -> ()
  return %out, %topk : tensor<2x4x128xf16>, tensor<2x1x4xi32>
}
"""


def test_unfused_deepseek_layer_protocol(double):
    """Every primitive call of an unfused w8a8 DeepSeek layer: phase one, a repeatable executor,
    the launch of that executor; arguments as the documents order them; caches by reference."""
    from ascend_mla.models import deepseek
    model = deepseek.build("deepseek-v3", tp=16, layers=1, batch=2, block_size=16, quant="w8a8")
    program = ascend_mla.compile(model, pipeline="builtin.module(verify)", target="npu")
    inputs = model.inputs(0)
    double.calls()
    hidden, kv, kr = program(**inputs)
    assert kv is inputs["kv_cache.0"] and kr is inputs["kr_cache.0"]
    calls = double.calls()
    executors = {}
    for i, c in enumerate(calls):
        if c["fn"].endswith("GetWorkspaceSize"):
            nxt = calls[i + 1]
            assert nxt["fn"] == "aclSetAclOpExecutorRepeatable"
            executors[nxt["id"]] = c["fn"][:-len("GetWorkspaceSize")]
        elif c["fn"].startswith("aclnn"):
            assert executors[c["executor"]] == c["fn"] and c["workspace"]
    launched = [c["fn"] for c in calls if c["fn"].startswith("aclnn") and "GetWorkspaceSize" not in c["fn"]]
    assert {"aclnnQuantMatmulV4", "aclnnDynamicQuant", "aclnnCast", "aclnnInterleaveRope",
            "aclnnScatterPaKvCache", "aclnnFusedInferAttentionScoreV4", "aclnnEmbedding",
            "aclnnPermute", "aclnnAdd", "aclnnRmsNorm", "aclnnMatmul"} <= set(launched)

    def args(fn):
        return [c["args"] for c in calls if c["fn"] == fn + "GetWorkspaceSize"]
    cache_buffers = []
    for a in args("aclnnScatterPaKvCache"):
        key, ref, slots, value, value_ref = a[:5]
        assert key["view"][0] == 2 and slots["view"] == [2] and slots["dtype"] == 9
        assert value["view"] == [] and a[5:8] == [None] * 3 and a[8:10] == ["Norm", "None"] and a[10:] == [None, None]
        cache_buffers.append(ref["buffer"])
    assert len(set(cache_buffers)) == 2
    fia = args("aclnnFusedInferAttentionScoreV4")[0]
    assert fia[6] == {"int_array": [1, 1]}                       # the kv lengths, a host list
    assert fia[1]["tensor_list"][0]["buffer"] == cache_buffers[0]  # the latent cache, in place
    (add,) = args("aclnnAdd")
    assert add[2] == {"dtype": 0, "value": 1}                    # alpha: a float scalar 1
    qmm = args("aclnnQuantMatmulV4")[0]
    assert qmm[0]["dtype"] == 2 and qmm[3] is None and qmm[4]["view"] == [2] and qmm[6:8] == [False, False]
    (cast,) = args("aclnnCast")
    assert cast[1] == 27                                         # ACL_BF16
    # the caches came back from the device into the caller's arrays
    downloads = [c for c in calls if c["fn"] == "aclrtMemcpy" and c["kind"] == 2]
    assert {d["buffer"] for d in downloads[-2:]} == set(cache_buffers)
