"""DSA's aclnn calls through the executor's backends and the C++ emitter, on one decode step
(test/lit/dialect/dsa-chain.mlir: prolog V3 -> lightning indexer -> sparse flash attention):

  - the CPU backend's results are the eager calls' (the kernels through the binds);
  - the NPU backend's marshalling, against the recording ACL/aclnn TEST DOUBLE built from the
    CANN headers and the declared prototypes (test/python/acl_double.py): each call's
    arguments in the documented order, the tensors' views, the host strings and integers,
    nullptr for absent optional tensors and outputs, the caches passed by reference;
  - the emitted C++ compiles against the CANN headers with the new functions declared as the
    DSA reference gives them, and makes the very calls the Python NPU backend makes.
"""
from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import acl_double  # noqa: E402
from test_emit_cpp import cpp_of, same_calls  # noqa: E402
from test_lowering_npu import double, names  # noqa: E402,F401  (the fixture)

import ascend_mla  # noqa: E402
from ascend_mla import ops  # noqa: E402
from ascend_mla.dialect.aclnn import ACLNN  # noqa: E402
from ascend_mla.dialect.dialect import load_functions  # noqa: E402

BF16 = np.dtype(ml_dtypes.bfloat16)
CHAIN = Path(__file__).resolve().parents[1] / "lit" / "dialect" / "dsa-chain.mlir"
UNFUSED = "builtin.module(verify)"


def step_inputs(seed=0):
    rng = np.random.default_rng(seed)

    def r(shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32).astype(BF16)
    nz = lambda w: ascend_mla.format_cast(w, 29)             # noqa: E731
    table = np.int32([[3, 0], [1, 2]])
    return {"x": r((2, 1024)), "w_dq": nz(r((1024, 1536), 0.03)), "w_uq_qr": nz(r((1536, 1536), 0.03)),
            "w_uk": r((8, 128, 512), 0.09), "w_dkv_kr": nz(r((1024, 576), 0.03)),
            "gamma_cq": r((1536,)), "gamma_ckv": r((512,)), "sin": r((2, 64)), "cos": r((2, 64)),
            "kv_cache": r((4, 128, 1, 512)), "kr_cache": r((4, 128, 1, 64)),
            "slots": np.int64([3 * 128 + 99, 1 * 128 + 20]), "index_query": r((2, 64, 128)),
            "index_cache": r((4, 128, 1, 128)), "index_weights": r((2, 64)),
            "query_ends": np.int32([1, 2]), "kv_lengths": np.int32([100, 21]), "block_table": table}


def test_the_step_on_the_cpu_is_the_eager_calls():
    program = ascend_mla.compile(CHAIN.read_text(), pipeline=UNFUSED, target="cpu")
    inputs = step_inputs()
    eager = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    out, query_norm, kv, kr = program(**inputs)
    q, q_rope, _, qn, _ = ops.npu_mla_prolog_v3(
        eager["x"], eager["w_dq"], eager["w_uq_qr"], eager["w_uk"], eager["w_dkv_kr"], eager["gamma_cq"],
        eager["gamma_ckv"], eager["sin"], eager["cos"], eager["kv_cache"], eager["kr_cache"],
        cache_index=eager["slots"], rmsnorm_epsilon_cq=1e-6, rmsnorm_epsilon_ckv=1e-6, query_norm_flag=True)
    lengths = dict(actual_seq_lengths_query=eager["query_ends"], block_table=eager["block_table"],
                   layout_query="TND")
    idx, _ = ops.npu_lightning_indexer(eager["index_query"], eager["index_cache"], eager["index_weights"],
                                       actual_seq_lengths_key=eager["kv_lengths"], layout_key="PA_BSND", **lengths)
    expected, _, _ = ops.npu_sparse_flash_attention(
        q, eager["kv_cache"], eager["kv_cache"], idx, 0.0721, actual_seq_lengths_kv=eager["kv_lengths"],
        query_rope=q_rope, key_rope=eager["kr_cache"], layout_kv="PA_BSND", attention_mode=2, **lengths)
    np.testing.assert_array_equal(np.asarray(out).view(np.uint16), expected.view(np.uint16))
    np.testing.assert_array_equal(np.asarray(query_norm).view(np.uint16), qn.view(np.uint16))
    np.testing.assert_array_equal(np.asarray(kv).view(np.uint16), eager["kv_cache"].view(np.uint16))


def test_the_npu_backend_marshals_the_documented_arguments(double):     # noqa: F811
    program = ascend_mla.compile(CHAIN.read_text(), pipeline=UNFUSED, target="npu")
    double.calls()
    program(**step_inputs())
    calls = double.calls()
    fns = names(calls)
    for fn in ("aclnnMlaPrologV3WeightNz", "aclnnLightningIndexer", "aclnnSparseFlashAttention"):
        assert fns.count(fn + "GetWorkspaceSize") == 1 and fns.count(fn) == 1
    assert fns.index("aclnnMlaPrologV3WeightNz") < fns.index("aclnnLightningIndexerGetWorkspaceSize") \
        < fns.index("aclnnSparseFlashAttentionGetWorkspaceSize")
    args = {c["fn"]: c["args"] for c in calls if c["fn"].endswith("GetWorkspaceSize")}
    prolog = args["aclnnMlaPrologV3WeightNzGetWorkspaceSize"]
    assert len(prolog) == len(ACLNN.functions["aclnnMlaPrologV3WeightNz"].params) == 37
    assert (prolog[1]["view"], prolog[1]["format"]) == ([1024, 1536], 29)        # weightDq, NZ
    assert prolog[9]["view"] == [4, 128, 1, 512] and prolog[11]["view"] == [2]   # kvCacheRef, cacheIndex
    assert prolog[12:21] == [None] * 9                                         # the optional scales
    assert prolog[21:24] == [1e-6, 1e-6, "PA_BSND"]
    assert prolog[24:32] == [0, 0, 0, 0, 0, 128, 1.0, 1.0]                      # modes, tileSize, alphas
    assert prolog[32]["view"] == [2, 8, 512] and prolog[34] is None             # query; no dequantScaleQNope
    assert prolog[35]["view"] == [2, 1536] and prolog[36] is None               # queryNorm; no scale
    li = args["aclnnLightningIndexerGetWorkspaceSize"]
    assert [a["view"] for a in li[:6]] == [[2, 64, 128], [4, 128, 1, 128], [2, 64], [2], [2], [2, 2]]
    assert li[6:13] == ["TND", "PA_BSND", 2048, 3, 2 ** 63 - 1, 2 ** 63 - 1, False]
    assert li[13]["view"] == [2, 1, 2048] and li[13]["dtype"] == 3 and li[14]["view"] == [0]
    sfa = args["aclnnSparseFlashAttentionGetWorkspaceSize"]
    assert len(sfa) == 21
    assert sfa[1]["buffer"] == sfa[2]["buffer"] == prolog[9]["buffer"]          # key = value = the cache
    assert sfa[3]["view"] == [2, 1, 2048]                                        # the indexer's output
    assert [a["view"] for a in sfa[7:9]] == [[2, 8, 64], [4, 128, 1, 64]]       # queryRope, keyRope
    assert sfa[9:18] == [pytest.approx(0.0721), 1, "TND", "PA_BSND", 3, 2 ** 63 - 1, 2 ** 63 - 1, 2, False]


@pytest.fixture
def dsa_functions():
    load_functions()
    return [ACLNN.functions[n] for n in ("aclnnLightningIndexer", "aclnnQuantLightningIndexer",
                                          "aclnnSparseFlashAttention", "aclnnSparseFlashAttentionV2",
                                          "aclnnKvQuantSparseFlashAttention", "aclnnMlaPrologV3WeightNz")]


def test_the_prototypes_are_the_references(dsa_functions):
    """The declarations the C++ program and the double are built from: the DSA reference's
    prototypes (argument names and order, C types)."""
    li, qli, sfa, sfa2, kqsfa, pv3 = dsa_functions
    assert [p.c_name for p in li.params] == [
        "query", "key", "weights", "actualSeqLengthsQueryOptional", "actualSeqLengthsKeyOptional",
        "blockTableOptional", "layoutQueryOptional", "layoutKeyOptional", "sparseCount", "sparseMode",
        "preTokens", "nextTokens", "returnValues", "sparseIndicesOut", "sparseValuesOut"]
    assert [p.c_name for p in sfa2.params] == [p.c_name for p in sfa.params][:9] + ["sinksOptional"] + \
        [p.c_name for p in sfa.params][9:]
    assert [p.c_type for p in sfa.params][9:13] == ["double", "int64_t", "char *", "char *"]
    assert [p.c_name for p in pv3.params][9:12] == ["kvCacheRef", "krCacheRef", "cacheIndexOptional"]
    assert [p.c_type for p in pv3.params][9] == "aclTensor *"
    assert [p.c_name for p in pv3.params][-5:] == ["queryOut", "queryRopeOut", "dequantScaleQNopeOutOptional",
                                                    "queryNormOutOptional", "dequantScaleQNormOutOptional"]
    assert "queryNormFlag" not in [p.c_name for p in pv3.params]
    assert [p.c_name for p in qli.params][8:10] == ["queryQuantMode", "keyQuantMode"]
    assert [p.c_name for p in kqsfa.params][-4:] == ["quantScaleRepoMode", "tileSize", "ropeHeadDim", "out"]
    assert "aclnnStatus aclnnLightningIndexerGetWorkspaceSize(\n    const aclTensor *query," in li.prototypes()


def test_the_cpp_step_compiles_and_makes_the_python_backends_calls(toolchain, tmp_path, monkeypatch):
    program = ascend_mla.compile(CHAIN.read_text(), pipeline=UNFUSED)
    code = cpp_of(program)
    for header in ("aclnn_mla_prolog_v3_weight_nz.h", "aclnn_lightning_indexer.h", "aclnn_sparse_flash_attention.h"):
        assert f'#include "aclnnop/{header}"' in code
    launches = same_calls(program, step_inputs(), toolchain, tmp_path, monkeypatch)
    assert launches == ["aclnnMlaPrologV3WeightNz", "aclnnLightningIndexer", "aclnnSparseFlashAttention"]


def test_every_dsa_call_compiles_against_the_headers(toolchain, tmp_path):
    """Each of the five ops' calls (and V2) in C++, compiled against the CANN headers and the
    declared prototypes (syntax only)."""
    include, root = toolchain
    text = (CHAIN.parent / "dsa.mlir").read_text()
    seen = set()
    for i, chunk in enumerate(text.split("// -----")):
        if '"mla.' not in chunk or "dynamic" in chunk:
            continue                      # a dynamic shape has no C++ program (the emitter says so)
        program = ascend_mla.compile(chunk, pipeline=UNFUSED, target="cpu")
        source = tmp_path / f"split{i}.cpp"
        source.write_text(cpp_of(program))
        built = acl_double.compile_cpp(source, include, root, None, syntax_only=True)
        assert built.returncode == 0, built.stderr[-3000:]
        seen |= {line.split('"aclnnop/')[1].rstrip('"') for line in source.read_text().splitlines()
                 if line.startswith('#include "aclnnop/')}
    assert {"aclnn_lightning_indexer.h", "aclnn_quant_lightning_indexer.h", "aclnn_sparse_flash_attention.h",
            "aclnn_sparse_flash_attention_v2.h", "aclnn_kv_quant_sparse_flash_attention.h",
            "aclnn_mla_prolog_v3_weight_nz.h"} <= seen
