"""One rank of an expert-parallel job (test_moe_distribute.py and test_expert_parallel.py start
these with the environment torchrun gives its workers: RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT).

    python ep_worker.py OUT MODE

exchange: the MoE exchange alone, each rank its own number of tokens (rank r: 3 + 2r), the
    experts a grouped matmul of the rank's experts (exchange_program below); rank r saves its
    tokens' output to OUT/rank{r}.npz. A failing rank prints one line and exits 1.
"""
from __future__ import annotations

import os
import sys

import numpy as np
from ml_dtypes import bfloat16

import ascend_mla
from ascend_mla.runtime.distributed import init_from_environment

# Atlas A2 (fullmesh): 2 ranks, 8 experts (4 per rank), 2 per token, H = 256 (A2 takes any
# multiple of 32; a small H keeps the experts' weights small)
EP, EXPERTS, K, H = 2, 8, 2, 256
MOST = 5                                      # the most tokens a rank has: global_bs = MOST * EP


def exchange_inputs(rank: int):
    """Rank `rank`'s tokens, their experts and routing weights, and every expert's weight
    (the same seeded weights on every rank)."""
    rng = np.random.default_rng([7, rank])
    tokens = 3 + 2 * rank
    x = rng.standard_normal((tokens, H)).astype(bfloat16)
    ids = np.stack([rng.choice(EXPERTS, K, replace=False) for _ in range(tokens)]).astype(np.int32)
    weights = rng.random((tokens, K)).astype(np.float32)
    experts = (np.random.default_rng(11).standard_normal((EXPERTS, H, H)) / np.sqrt(H)).astype(bfloat16)
    return x, ids, weights, experts


def exchange_program(tokens: int) -> str:
    """dispatch -> the rank's experts (one grouped matmul, rows grouped by local expert) -> combine."""
    local, a = EXPERTS // EP, MOST * EP * min(EXPERTS // EP, K)
    common = (f'ep_world_size = {EP} : i64, moe_expert_num = {EXPERTS} : i64, global_bs = {MOST * EP} : i64, '
              f'product = "A2"')
    return f"""
func.func @f(%x: tensor<{tokens}x{H}xbf16> {{mla.name = "x"}}, %ids: tensor<{tokens}x{K}xi32> {{mla.name = "ids"}},
             %w: tensor<{tokens}x{K}xf32> {{mla.name = "w"}}, %wt: tensor<{local}x{H}x{H}xbf16> {{mla.name = "experts"}}) -> tensor<{tokens}x{H}xbf16> {{
  %r:6 = "mla.moe_distribute_dispatch"(%x, %ids) {{{common}, operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}} : (tensor<{tokens}x{H}xbf16>, tensor<{tokens}x{K}xi32>) -> (tensor<{a}x{H}xbf16>, tensor<{a}xf32>, tensor<{a * 128}xi32>, tensor<{local}xi64>, tensor<{EXPERTS}xi32>, tensor<{a}xf32>)
  %y = "mla.grouped_matmul"(%r#0, %wt, %r#3) {{operandSegmentSizes = array<i32: 1, 1, 1, 0, 0>}} : (tensor<{a}x{H}xbf16>, tensor<{local}x{H}x{H}xbf16>, tensor<{local}xi64>) -> tensor<{a}x{H}xbf16>
  %out = "mla.moe_distribute_combine"(%y, %ids, %r#2, %r#4, %w, %r#5) {{{common}, operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 1, 0>}} : (tensor<{a}x{H}xbf16>, tensor<{tokens}x{K}xi32>, tensor<{a * 128}xi32>, tensor<{EXPERTS}xi32>, tensor<{tokens}x{K}xf32>, tensor<{a}xf32>) -> tensor<{tokens}x{H}xbf16>
  return %out : tensor<{tokens}x{H}xbf16>
}}"""


def run_exchange(rank: int):
    x, ids, weights, experts = exchange_inputs(rank)
    local = EXPERTS // EP
    program = ascend_mla.compile(exchange_program(len(x)))
    out = program(x=x, ids=ids, w=weights, experts=experts[rank * local:(rank + 1) * local])[0]
    return program, np.asarray(out)


def main(out_dir, mode):
    world = init_from_environment(timeout_s=float(os.environ.get("TP_TIMEOUT", "60")))
    if mode == "exchange":
        program, out = run_exchange(world.rank)
        np.savez(os.path.join(out_dir, f"rank{world.rank}.npz"), out=out.astype(np.float32), report=str(program.report()))
        return
    raise ValueError(f"mode: {mode!r}")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from ranks import worker_main
    worker_main(main)
