"""One rank of an expert-parallel job (test_moe_distribute.py and test_expert_parallel.py start
these with the environment torchrun gives its workers: RANK, WORLD_SIZE, MASTER_ADDR,
MASTER_PORT).

    python ep_worker.py OUT MODE

exchange: the MoE exchange alone, each rank its own number of tokens (rank r: 3 + 2r), the
    experts a grouped matmul of the rank's experts (exchange_program below); rank r saves its
    tokens' output to OUT/rank{r}.npz.
decoder, decoder_w8a8: the whole small decoder (decoder() below) at ep = WORLD_SIZE, each rank
    its own rows; rank r saves its logits of two calls to OUT/rank{r}.npz. die: rank 1 ends
    before its first exchange; bad_experts: rank 1's experts have the wrong shape (its compile
    fails); stall: rank 1 sleeps three timeouts (TP_TIMEOUT) before its first exchange, rank 0
    writes how long it ran to OUT/rank0.seconds.
generate, generate_die: CausalLM.from_pretrained(EP_CHECKPOINT, ep=WORLD_SIZE).generate (below);
    generate_die: rank 1 ends before its third step of the first generation.
disagree_batch, disagree_checkpoint: CausalLM.from_pretrained(EP_CHECKPOINT, ep=WORLD_SIZE) where
    rank 1 asks for batch 2, or reads EP_CHECKPOINT_1.
npu_double: the exchange on the NPU backend over the recording ACL/HCCL double (its calls
    logged to OUT/rank{r}.jsonl).
A failing rank prints one line and exits 1.
"""
from __future__ import annotations

import os
import sys
import time

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


def decoder(rank: int, ep: int = 1, quant: str = "bf16"):
    """Rank `rank`'s model of the small decoder (tp_worker.DECODER: 8 experts, 2 per token, a
    shared expert): its own token ids (seed 5 + rank) and its own number of tokens per call
    (rank r: 1 + r per row), every rank's exchange sized for the larger (max_tokens 2 per row);
    ep 1: the same rows in one process, all experts."""
    from tp_worker import DECODER

    from ascend_mla.models import deepseek
    weights = deepseek.build(**DECODER, quant=quant).weights
    args = dict(DECODER, seed=5 + rank, seq=1 + rank, quant=quant, weights=weights)
    if ep > 1:
        args.update(ep=ep, rank=rank, max_tokens=DECODER["batch"] * 2)
    return deepseek.build(**args)


def run_decoder(rank: int, ep: int = 1, steps: int = 2, quant: str = "bf16"):
    model = decoder(rank, ep, quant)
    program = ascend_mla.compile(model)
    return program, np.stack([np.asarray(program(**model.inputs(step))[0]) for step in range(steps)])


def main(out_dir, mode):
    world = init_from_environment(timeout_s=float(os.environ.get("TP_TIMEOUT", "60")))
    if mode == "exchange":
        program, out = run_exchange(world.rank)
        np.savez(os.path.join(out_dir, f"rank{world.rank}.npz"), out=out.astype(np.float32), report=str(program.report()))
        return
    if mode == "npu_double":       # the NPU backend on the recording double (ASCEND_HOME_PATH, ACL_DOUBLE_LOG)
        os.environ["ACL_DOUBLE_LOG"] = os.path.join(out_dir, f"rank{world.rank}.jsonl")
        ascend_mla.set_backend("npu")
        run_exchange(world.rank)
        return
    if mode == "die" and world.rank == 1:
        os._exit(3)                    # before its first exchange
    if mode == "stall" and world.rank == 1:
        time.sleep(3 * float(os.environ["TP_TIMEOUT"]))      # alive, but not in the exchange
        os._exit(3)
    if mode == "stall":
        start = time.perf_counter()
        try:
            run_decoder(world.rank, world.size)
        finally:
            with open(os.path.join(out_dir, "rank0.seconds"), "w") as f:
                f.write(f"{time.perf_counter() - start:.1f}")
    if mode == "bad_experts" and world.rank == 1:
        from tp_worker import DECODER

        from ascend_mla.models import deepseek
        weights = deepseek.build(**DECODER).weights
        key = "model.layers.1.mlp.experts.down_proj"
        weights[key] = weights[key][:, :, :-8]     # a narrower intermediate size: rank 1's compile fails
        ascend_mla.compile(deepseek.build(**DECODER, ep=2, rank=1, weights=weights))
    if mode in ("decoder", "decoder_w8a8", "die", "bad_experts"):
        program, logits = run_decoder(world.rank, world.size, quant="w8a8" if mode == "decoder_w8a8" else "bf16")
        np.savez(os.path.join(out_dir, f"rank{world.rank}.npz"), logits=logits, report=str(program.report()))
        return
    if mode.startswith("disagree"):
        from ascend_mla.models import deepseek
        odd = world.rank == 1
        path = os.environ["EP_CHECKPOINT_1" if odd and mode == "disagree_checkpoint" else "EP_CHECKPOINT"]
        deepseek.CausalLM.from_pretrained(path, ep=world.size, batch=2 if odd and mode == "disagree_batch" else 1)
        return
    if mode.startswith("generate"):
        np.savez(os.path.join(out_dir, f"rank{world.rank}.npz"), **generate(os.environ["EP_CHECKPOINT"], world.rank,
                                                                              world.size, mode))
        return
    raise ValueError(f"mode: {mode!r}")


# each rank's prompts (one row each) and new tokens, two generations in a row: the same prompt
# length on both ranks, then other lengths and other counts (rank 1 prefills more tokens and
# decodes longer; rank 0 runs idle steps meanwhile)
PROMPTS = (([[5, 17, 42]], [[300, 2, 77]]), ([[5, 17, 42]], [[7, 100, 200, 300, 9]]))
NEW_TOKENS = ((4, 4), (3, 6))


def generate(path, rank, ep, mode):
    """rank's tokens of AutoCausalLM.from_pretrained(path, ep=ep).generate(its prompts) for each
    of the generations, and the bytes of its routed experts."""
    from ascend_mla.models import AutoCausalLM
    lm = AutoCausalLM.from_pretrained(path, ep=ep)
    if mode == "generate_die" and rank == 1:
        step, steps = lm._step, []

        def dying(*args):          # after the prefill and one decode step of both ranks
            steps.append(1)
            if len(steps) == 3:
                os._exit(3)
            return step(*args)
        lm._step = dying
    tokens = {f"tokens{g}": lm.generate(np.array(PROMPTS[g][rank]), max_new_tokens=NEW_TOKENS[g][rank],
                                         eos_token_id=None) for g in range(len(PROMPTS))}
    experts = sum(v.nbytes for k, v in lm.weights.items() if ".mlp.experts." in k)
    return dict(tokens, expert_bytes=experts, weight_bytes=sum(v.nbytes for v in lm.weights.values()),
                report=str(lm.report()), collectives=str(lm.programs["decoder"].report().get("collectives")))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from ranks import worker_main
    worker_main(main)
