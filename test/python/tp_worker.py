"""One rank of a tensor-parallel attention block (test_tensor_parallel.py starts two of these
with the environment torchrun gives its workers: RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT).

    python tp_worker.py OUT MODE        MODE: ok | bad_shard | die | decoder | decoder_w8a8 |
                                              lm_same | lm_batch | lm_checkpoint | lm_prompt | lm_fault

Every rank builds the same full random weights (seeded), takes its own slice (deepseek.build
tp=WORLD_SIZE, rank=RANK), compiles and runs two decode steps; rank 0 saves the outputs to
OUT/rank0.npz. bad_shard: rank 1's o_proj has the wrong width (its compile fails);
die: rank 1 ends before the first collective. lm_*: CausalLM.from_pretrained(TP_CHECKPOINT,
tp=2) and a generation, where rank 1 differs: its batch (lm_batch), its checkpoint
(TP_CHECKPOINT_1, lm_checkpoint), its prompt (lm_prompt). A failing rank prints one line and
exits 1.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys

import numpy as np

import ascend_mla
from ascend_mla.models import deepseek
from ascend_mla.runtime.distributed import init_from_environment

MODEL = dict(name="deepseek-v2-lite", layers=1, batch=2, block_size=16, seed=3)
STEPS = 2


def full_weights():
    return deepseek.build(**MODEL).weights


def run(model, steps=STEPS):
    program = ascend_mla.compile(model)
    outs = [np.asarray(program(**model.inputs(step))[0]).astype(np.float32) for step in range(steps)]
    return program, np.stack(outs)


# the whole decoder, small: 8 heads, layer 0 dense, layer 1 MoE (8 experts, 2 per token, 1 shared)
DECODER = dict(name="tiny", layers=2, batch=2, block_size=16, seed=5, decoder=True,
               config=dict(deepseek.CONFIGS["deepseek-v3"], num_attention_heads=8, num_hidden_layers=2,
                           vocab_size=256, intermediate_size=256, moe_intermediate_size=128, n_routed_experts=8,
                           n_shared_experts=1, num_experts_per_tok=2, n_group=4, topk_group=2,
                           first_k_dense_replace=1))


def longcat_decoder():
    """LongCat-Flash's layout, small: per layer two attention blocks (4 heads) and two dense
    MLPs, the shortcut MoE (4 routed + 2 identity experts, 2 per token, softmax router with
    correction bias), its LoRA scales (families.py: a config read as transformers means it)."""
    from ascend_mla.models import checkpoint
    config = checkpoint.read_config(dict(
        model_type="longcat_flash", vocab_size=256, hidden_size=256, num_layers=2, num_attention_heads=4,
        q_lora_rank=64, kv_lora_rank=64, qk_nope_head_dim=16, qk_rope_head_dim=16, head_dim=16, v_head_dim=16,
        ffn_hidden_size=128, expert_ffn_hidden_size=64, n_routed_experts=4, zero_expert_num=2, moe_topk=2))
    return dict(DECODER, name="longcat", config=config.build_config())


def run_decoder(tp=1, rank=0, steps=STEPS, quant="bf16", decoder=None):
    """The whole decoder's logits for `steps` decode steps (the same token ids on every rank)."""
    decoder = decoder or DECODER
    weights = deepseek.build(**decoder, quant=quant).weights
    model = deepseek.build(**decoder, tp=tp, rank=rank, weights=weights, quant=quant)
    program = ascend_mla.compile(model)
    return program, np.stack([np.asarray(program(**model.inputs(step))[0]) for step in range(steps)])


def main(out_dir, mode):
    world = init_from_environment(timeout_s=float(os.environ.get("TP_TIMEOUT", "60")))
    if mode in ("decoder", "decoder_w8a8", "decoder_longcat"):
        program, logits = run_decoder(world.size, world.rank, quant="w8a8" if mode == "decoder_w8a8" else "bf16",
                                      decoder=longcat_decoder() if mode == "decoder_longcat" else None)
        if world.rank == 0:
            np.savez(os.path.join(out_dir, "rank0.npz"), logits=logits, report=str(program.report()))
        return
    if mode.startswith("lm_"):
        run_lm(out_dir, mode, world)
        return
    weights = full_weights()
    if mode == "bad_shard" and world.rank == 1:
        key = "model.layers.0.self_attn.o_proj.weight"
        weights[key] = weights[key][:, :-8]
    if mode == "die" and world.rank == 1:
        os._exit(3)
    model = deepseek.build(**MODEL, tp=world.size, rank=world.rank, weights=weights)
    program, outs = run(model)
    gathered = ascend_mla.compile(GATHER)(x=np.full((2, 3), world.rank, np.float32))
    if world.rank == 0:
        np.savez(os.path.join(out_dir, "rank0.npz"), outs=outs, report=str(program.report()),
                 by_rows=gathered[0], by_columns=gathered[1])


def run_lm(out_dir, mode, world):
    """A CausalLM over tp 2, where rank 1 differs as `mode` says (lm_same: in nothing), or as
    TP_FAULT says (lm_fault: a JSON object of the faulty rank's "batch", "prompt",
    "max_new_tokens", "checkpoint" (TP_CHECKPOINT_1), "quant", or "die_at": the step after
    which it ends without a word). Rank 0 saves the tokens."""
    fault = {"lm_batch": {"batch": 2}, "lm_checkpoint": {"checkpoint": True}, "lm_prompt": {"prompt": [0, 5, 7]},
             "lm_same": {}}.get(mode) or json.loads(os.environ.get("TP_FAULT", "{}"))
    odd = world.rank == fault.get("rank", 1)
    mine = fault if odd else {}
    path = os.environ["TP_CHECKPOINT_1" if mine.get("checkpoint") else "TP_CHECKPOINT"]
    batch = mine.get("batch", 1)
    lm = deepseek.CausalLM.from_pretrained(path, tp=world.size, batch=batch, target="cpu", quant=mine.get("quant"))
    prompt = [mine.get("prompt", [0, 5, 7, 9])] * batch
    new = mine.get("max_new_tokens", 3)
    if "die_at" not in fault:
        tokens = lm.generate(prompt, max_new_tokens=new, eos_token_id=None)
    else:                       # every rank step by step (the same calls), the faulty one ending after step die_at
        tokens = [np.asarray(lm(prompt))[:, -1].argmax(-1)[:, None]]
        for step in range(new - 1):
            if step == mine.get("die_at"):
                os._exit(3)
            tokens.append(np.asarray(lm(tokens[-1]))[:, -1].argmax(-1)[:, None])
    if world.rank == 0:
        np.savez(os.path.join(out_dir, "rank0.npz"), tokens=np.asarray(tokens))


@contextlib.contextmanager
def silent_listener():
    """A port held by a program that accepts connections and never answers (the port's number
    inside the block)."""
    import socket
    import threading
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held, stop = [], threading.Event()

    def accept():
        listener.settimeout(0.5)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except OSError:
                pass
    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for c in held:
            c.close()
        listener.close()


# each rank's (2, 3) block gathered along rows (HCCL's own layout) and along columns (the
# rank axis moved next to dim 1: a permuted copy after the call)
GATHER = """
func.func @f(%x: tensor<2x3xf32> {mla.name = "x"}) -> (tensor<4x3xf32>, tensor<2x6xf32>) {
  %rows = "mla.all_gather"(%x) {world_size = 2 : i64, dim = 0 : i64} : (tensor<2x3xf32>) -> tensor<4x3xf32>
  %columns = "mla.all_gather"(%x) {world_size = 2 : i64, dim = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x6xf32>
  return %rows, %columns : tensor<4x3xf32>, tensor<2x6xf32>
}"""


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from ranks import worker_main
    worker_main(main)
