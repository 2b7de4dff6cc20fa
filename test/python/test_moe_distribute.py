"""The MoE exchange (mla.moe_distribute_dispatch / combine): two ranks on gloo, each with its own
number of tokens, give every token what one process computing all experts gives; a world of
one runs rank 0's experts only and says so; the data rules; the NPU backend and the C++ host
code call aclnnMoeDistributeDispatchV2 / CombineV2 on the EP communicator."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from ml_dtypes import bfloat16

pytest.importorskip("torch")
sys.path.insert(0, str(Path(__file__).parent))
import ep_worker  # noqa: E402
import ranks  # noqa: E402

import ascend_mla  # noqa: E402
from ascend_mla.dialect.errors import VerificationError  # noqa: E402
from ascend_mla.dialect.moe_distribute import MoeDistributeDispatch  # noqa: E402
from ascend_mla.runtime.backend import run_kernel  # noqa: E402
from ascend_mla.runtime.distributed import CollectiveError  # noqa: E402

WORKER = Path(__file__).with_name("ep_worker.py")


def reference(x, ids, weights, experts, only=None):
    """float64 per token: sum_k w * bf16(x @ W[e]) (the grouped matmul rounds each expert's row
    to bf16), over every expert or those in `only`."""
    out = np.zeros(x.shape, np.float64)
    for t in range(len(x)):
        for j in range(ids.shape[1]):
            e = int(ids[t, j])
            if only is not None and e not in only:
                continue
            row = (x[t].astype(np.float64) @ experts[e].astype(np.float64)).astype(np.float32).astype(bfloat16)
            out[t] += weights[t, j] * row.astype(np.float64)
    return out


def bf16_bound(ref, x, experts):
    """The float32 products round to bf16 once per expert row (<= 2^-8 relative, reference
    included) and the combined sum once (<= 2^-8 |out|); float32 sums of 256 terms are far
    below that."""
    rows = np.abs(x.astype(np.float64)) @ np.abs(experts.astype(np.float64)).max(0)
    return 2.0 ** -8 * (np.abs(ref) + 2 * rows) + 1e-6


def test_two_ranks_with_their_own_tokens_get_every_experts_rows(tmp_path):
    results = ranks.launch(WORKER, tmp_path, "exchange")
    assert [r for r, _ in results] == [0, 0], results
    for rank in range(ep_worker.EP):
        got = np.load(tmp_path / f"rank{rank}.npz")
        x, ids, weights, experts = ep_worker.exchange_inputs(rank)
        assert got["out"].shape == x.shape                # 3 tokens on rank 0, 5 on rank 1
        ref = reference(x, ids, weights, experts)
        error = np.abs(got["out"].astype(np.float64) - ref)
        assert np.all(error <= bf16_bound(ref, x, experts)), error.max()
        # each token reached both ranks' experts: rank 0's alone would be far off
        mine = reference(x, ids, weights, experts, only=range(rank * 4, rank * 4 + 4))
        assert np.abs(mine - ref).max() > 0.1 * np.abs(ref).max()
        report = str(got["report"])
        assert "aclnnMoeDistributeDispatchV2 at" in report and f"rank {rank} of 2 (gloo)" in report


def test_a_world_of_one_runs_rank_0s_experts_and_says_so():
    program, out = ep_worker.run_exchange(0)
    x, ids, weights, experts = ep_worker.exchange_inputs(0)
    ref = reference(x, ids, weights, experts, only=range(4))
    assert np.all(np.abs(out.astype(np.float64) - ref) <= bf16_bound(ref, x, experts))
    collectives = program.report()["collectives"]
    assert [c["op"] for c in collectives] == ["aclnnMoeDistributeDispatchV2", "aclnnMoeDistributeCombineV2"]
    assert "here a world of one: rank 0's experts only" in collectives[0]["detail"]


def _dispatch(ids, mask=None, **attrs):
    x = np.ones((len(ids), 7168), bfloat16)
    return run_kernel(MoeDistributeDispatch, dict(x=x, expert_ids=np.asarray(ids, np.int32), scales=None,
                                                  x_active_mask=mask, expert_scales=None),
                      dict(ep_world_size=2, moe_expert_num=8, **attrs))


def test_dispatch_lists_rows_by_expert_then_source_with_prefix_sums():
    """Alone, rank 0 receives its own pairs for experts 0-3, grouped by expert; counts per expert,
    epRecvCounts as prefix sums over (expert, source); an inactive token (mask) is not sent."""
    ids = [[3, 5], [0, 3], [7, 1]]
    x = np.arange(3, dtype=np.float32)[:, None] * np.ones((3, 7168), np.float32)
    expand_x, _, assist, counts, recv, _ = run_kernel(
        MoeDistributeDispatch, dict(x=x.astype(bfloat16), expert_ids=np.asarray(ids, np.int32), scales=None,
                                    x_active_mask=None, expert_scales=None), dict(ep_world_size=2, moe_expert_num=8))
    assert counts.tolist() == [1, 1, 0, 2]                      # experts 0, 1, 2, 3 of rank 0
    assert recv.tolist() == [1, 1, 2, 2, 2, 2, 4, 4]            # (expert, source) prefix sums
    assert expand_x[:4, 0].astype(np.float32).tolist() == [1, 2, 0, 1]   # token 1 (e0), 2 (e1), 0 and 1 (e3)
    assert not expand_x[4:].astype(np.float32).any()
    assert assist.reshape(-1, 128)[:4, :3].tolist() == [[0, 1, 0], [0, 2, 1], [0, 0, 0], [0, 1, 1]]
    _, _, _, counts, _, _ = _dispatch(ids, mask=np.array([True, True, False]))
    assert counts.tolist() == [1, 0, 0, 2]


def test_quant_mode_2_sends_int8_rows_with_their_scale():
    """The documents' formula: ratio = 127 / max|x|, int8 = round(x * ratio), scale = 1 / ratio."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 7168)).astype(bfloat16)
    expand_x, scales, _, counts, _, _ = run_kernel(
        MoeDistributeDispatch, dict(x=x, expert_ids=np.array([[0, 1], [2, 4]], np.int32), scales=None,
                                    x_active_mask=None, expert_scales=None),
        dict(ep_world_size=2, moe_expert_num=8, quant_mode=2))
    assert expand_x.dtype == np.int8 and counts.tolist() == [1, 1, 1, 0]
    top = np.abs(x.astype(np.float32)).max(1)
    np.testing.assert_allclose(scales[:3], top[[0, 0, 1]] / 127, rtol=1e-6)
    dequantized = expand_x[:3].astype(np.float32) * scales[:3, None]
    assert np.abs(dequantized - x.astype(np.float32)[[0, 0, 1]]).max() <= 0.5 * scales[:3].max() * 1.0001


@pytest.mark.parametrize("ids, mask, rule", [
    ([[0, 9], [1, 2]], None, "MDD-029"),          # an expert outside [0, moe_expert_num)
    ([[3, 3], [1, 2]], None, "MDD-029"),          # one expert twice in a row
    ([[0, 1], [1, 2]], [False, True], "MDD-030"),  # an active token after an inactive one
])
def test_the_data_rules(ids, mask, rule):
    mask_type = "" if mask is None else ", %m: tensor<2xi1> {mla.name = \"mask\"}"
    segments = "1, 1, 0, 0, 0" if mask is None else "1, 1, 0, 1, 0"
    operands = "%x, %ids" + ("" if mask is None else ", %m")
    types = "tensor<2x7168xbf16>, tensor<2x2xi32>" + ("" if mask is None else ", tensor<2xi1>")
    program = ascend_mla.compile(f"""
func.func @f(%x: tensor<2x7168xbf16> {{mla.name = "x"}}, %ids: tensor<2x2xi32> {{mla.name = "ids"}}{mask_type}) -> tensor<4xi64> {{
  %r:6 = "mla.moe_distribute_dispatch"({operands}) {{ep_world_size = 2 : i64, moe_expert_num = 8 : i64, operandSegmentSizes = array<i32: {segments}>}} : ({types}) -> (tensor<8x7168xbf16>, tensor<8xf32>, tensor<1024xi32>, tensor<4xi64>, tensor<8xi32>, tensor<8xf32>)
  return %r#3 : tensor<4xi64>
}}""")
    inputs = dict(x=np.ones((2, 7168), bfloat16), ids=np.asarray(ids, np.int32))
    if mask is not None:
        inputs["mask"] = np.asarray(mask)
    with pytest.raises(VerificationError, match=rf"\[{rule}\]"):
        program(**inputs)


def test_the_combines_data_rules():
    """MDC-027 / MDC-028: the combine checks the ids and the mask it is given as dispatch does."""
    from ascend_mla.dialect.moe_distribute import MoeDistributeCombine
    from ascend_mla.runtime.backend import _check_data
    ex = np.zeros((8, 7168), bfloat16)
    operands = dict(expand_x=ex, expert_ids=np.array([[0, 0], [1, 2]], np.int32),
                    assist_info_for_combine=np.zeros(1024, np.int32), ep_send_counts=np.zeros(8, np.int32),
                    expert_scales=np.ones((2, 2), np.float32), x_active_mask=None, expand_scales=None,
                    shared_expert_x=None)
    attrs = dict(ep_world_size=2, moe_expert_num=8)
    with pytest.raises(VerificationError, match=r"row 0 names an expert twice: \[0, 0\] \[MDC-027\]"):
        _check_data(MoeDistributeCombine, operands, attrs)
    operands.update(expert_ids=np.array([[0, 1], [1, 2]], np.int32), x_active_mask=np.array([False, True]))
    with pytest.raises(VerificationError, match=r"\[MDC-028\]"):
        _check_data(MoeDistributeCombine, operands, attrs)


def test_shared_expert_ranks_are_refused_on_the_cpu_backend():
    """Which shared-expert rank a token's copy goes to is not documented: not guessed."""
    with pytest.raises(CollectiveError, match="shared_expert_rank_num 1: which shared-expert rank"):
        _dispatch([[0, 1]], shared_expert_rank_num=1, shared_expert_num=1)


def test_the_c_plus_plus_calls_the_exchange_on_the_ep_communicator(toolchain, tmp_path):
    """--emit-cpp: the EP communicator (made once), its name and rank read with HcclGetCommName /
    HcclGetRankId, then aclnnMoeDistributeDispatchV2 and CombineV2 with them; the code
    type-checks against CANN's acl.h and hccl.h and the declared prototypes."""
    import acl_double
    from test_emit_cpp import cpp_of
    program = ascend_mla.compile(ep_worker.exchange_program(3))
    code = cpp_of(program)
    source = tmp_path / "moe.cpp"
    source.write_text(code)
    include, root = toolchain
    checked = acl_double.compile_cpp(source, include, root, None, syntax_only=True)
    assert checked.returncode == 0, checked.stderr[-3000:]
    order = [code.index(f"{fn}(") for fn in ("HcclCommInitRootInfo", "HcclGetCommName", "HcclGetRankId",
                                             "aclnnMoeDistributeDispatchV2GetWorkspaceSize",
                                             "aclnnGroupedMatmulV4GetWorkspaceSize",
                                             "aclnnMoeDistributeCombineV2GetWorkspaceSize")]
    assert order == sorted(order)
    assert code.count("HcclCommInitRootInfo(") == 1 and "ascend_mla_check_world" in code
    assert '#include "aclnnop/aclnn_moe_distribute_dispatch_v2.h"' in code


def test_the_npu_backend_refuses_the_exchange_in_a_world_of_one(monkeypatch):
    """On a device the other ranks' experts exist nowhere in a world of one: refused, saying how."""
    from ascend_mla.runtime.collective import NpuCommunicator, npu_comm_query
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    with pytest.raises(CollectiveError, match=r"world of one: the other ranks' experts do not exist on the device "
                                              r"\(run with torchrun --nproc-per-node 2\)"):
        npu_comm_query(object(), NpuCommunicator("ep", 2, None), "name")


def test_the_npu_backend_calls_the_exchange_with_the_communicators_name_and_rank(toolchain, tmp_path):
    """Two ranks on the NPU backend over the recording double: the EP communicator from the
    root info rank 0 broadcasts, its name and rank read (HcclGetCommName / HcclGetRankId), then
    both phases of aclnnMoeDistributeDispatchV2 and CombineV2 with groupEp = that name and the
    documented arguments."""
    import acl_double
    _, root = toolchain
    results = ranks.launch(WORKER, tmp_path, "npu_double", env={"ASCEND_HOME_PATH": str(root)})
    assert [r for r, _ in results] == [0, 0], results
    for rank in range(2):
        calls = acl_double.read_log(tmp_path / f"rank{rank}.jsonl")
        names = [c["fn"] for c in calls]
        init = next(c for c in calls if c["fn"] == "HcclCommInitRootInfo")
        assert init["nRanks"] == 2 and init["rank"] == rank and init["root_ok"]
        assert names.count("HcclCommInitRootInfo") == 1 and names.count("HcclGetCommName") == 1
        order = [names.index(f) for f in ("HcclCommInitRootInfo", "HcclGetCommName", "HcclGetRankId",
                                          "aclnnMoeDistributeDispatchV2GetWorkspaceSize",
                                          "aclnnMoeDistributeDispatchV2",
                                          "aclnnMoeDistributeCombineV2GetWorkspaceSize", "aclnnMoeDistributeCombineV2")]
        assert order == sorted(order)
        dispatch = calls[order[3]]["args"]
        # groupEp, epWorldSize, epRankId (the double's rank id), moeExpertNum, groupTp, ...
        assert dispatch[5:10] == ["double_comm_0", 2, 0, 8, ""]
        assert dispatch[15:19] == [0, ep_worker.MOST * 2, 1, ""]          # quantMode, globalBs, counts, commAlg
        combine = calls[order[5]]["args"]
        assert combine[12:16] == ["double_comm_0", 2, 0, 8]
