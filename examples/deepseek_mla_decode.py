"""The main job: DeepSeek-V3 MLA attention, prefill then decode, compiled and run on the CPU
interpreter, checked against an independent float64 implementation of the textbook formulas.

    python examples/deepseek_mla_decode.py [--heads 128] [--steps 3]

1. Prefill: `ascend_mla.ops.npu_mla_prolog_v2` (torch_npu style, eager) projects four prompts
   of different lengths and writes their latent and rope caches (paged, block size 16, a
   shuffled block table; padding tokens have cache index -1 and are skipped).
2. Decode: `mla_decode_step.mlir.in` (mla.prolog_v2 feeding mla.fused_infer_attention_score in
   MLA mode) is compiled once; every step runs it with that step's tokens, cache slots and kv
   lengths (a host tensor operand of the attention, not an attribute: no recompilation).
3. The attention output (the latent, per head, before W_uv) is compared with a float64
   reference that does NOT use the absorbed form or the de-interleaved RoPE order: it computes
   k_nope = W_uk c_kv per head and the interleaved RoPE, as the DeepSeek-V2 paper writes MLA.
"""
import argparse
import string
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np

import ascend_mla

BF16 = ml_dtypes.bfloat16
HE, HCQ, HCKV, D, DR = 7168, 1536, 512, 128, 64
BLOCK_SIZE = 16
EPS = 1e-6
TEMPLATE = string.Template((Path(__file__).parent / "mla_decode_step.mlir.in").read_text())


def rope_tables(positions):
    """cos/sin rows of width 64 as callers build them: concat(freqs, freqs) (numerics.md)."""
    inv_freq = 10000.0 ** (-np.arange(0, DR, 2) / DR)                 # (32,)
    angles = np.asarray(positions, np.float64)[..., None] * inv_freq  # (..., 32)
    angles = np.concatenate([angles, angles], axis=-1)
    return np.sin(angles).astype(BF16), np.cos(angles).astype(BF16)


def make_weights(rng, heads):
    def w(shape, fan_in):
        return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(BF16)
    weights = dict(
        w_dq=w((HE, HCQ), HE), w_uq_qr=w((HCQ, heads * (D + DR)), HCQ), w_uk=w((heads, D, HCKV), D),
        w_dkv_kr=w((HE, HCKV + DR), HE),
        gamma_cq=rng.uniform(0.8, 1.2, HCQ).astype(BF16), gamma_ckv=rng.uniform(0.8, 1.2, HCKV).astype(BF16))
    weights["w_uk"].flags.writeable = False   # a constant: the kernel converts it once
    return weights


# --- the independent reference (float64, textbook MLA) ---------------------------------------

def reference_attention(weights, tokens, positions, heads, scale):
    """Latent attention output (heads, 512) of the last token over all `tokens` of a sequence."""
    f = {k: v.astype(np.float64) for k, v in weights.items()}
    x = tokens.astype(np.float64)                                      # (L, He)

    def rms(v, gamma):
        return v / np.sqrt((v * v).mean(-1, keepdims=True) + EPS) * gamma

    def rope_interleaved(v, pos):                                      # pairs (2i, 2i+1)
        theta = pos[:, None] * 10000.0 ** (-np.arange(0, DR, 2) / DR)
        a, b = v[..., 0::2], v[..., 1::2]
        c, s = np.cos(theta), np.sin(theta)
        if v.ndim == 3:
            c, s = c[:, None], s[:, None]
        out = np.empty_like(v)
        out[..., 0::2], out[..., 1::2] = a * c - b * s, b * c + a * s
        return out

    q = (rms(x @ f["w_dq"], f["gamma_cq"]) @ f["w_uq_qr"]).reshape(len(x), heads, D + DR)
    kv = x @ f["w_dkv_kr"]
    c_kv = rms(kv[:, :HCKV], f["gamma_ckv"])                            # (L, 512)
    k_pe = rope_interleaved(kv[:, HCKV:], positions)                    # (L, 64)
    q_nope, q_pe = q[-1, :, :D], rope_interleaved(q[-1:, :, D:], positions[-1:])[0]
    k_nope = np.einsum("ndc,lc->lnd", f["w_uk"], c_kv)                  # (L, heads, 128)
    scores = scale * (np.einsum("nd,lnd->nl", q_nope, k_nope) + q_pe @ k_pe.T)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ c_kv, np.abs(c_kv).max()  # (heads, 512), max|V|


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--heads", type=int, default=128, help="query heads N (DeepSeek-V3: 128)")
    parser.add_argument("--steps", type=int, default=3, help="decode steps")
    args = parser.parse_args()
    heads, steps = args.heads, args.steps
    rng = np.random.default_rng(2024)
    prompt_lengths = [16, 9, 13, 5]
    batch, prefill = len(prompt_lengths), max(prompt_lengths)
    blocks_per_seq = -(-(prefill + steps) // BLOCK_SIZE)
    num_blocks = batch * blocks_per_seq + 2
    block_table = rng.permutation(num_blocks)[: batch * blocks_per_seq].reshape(batch, blocks_per_seq).astype(np.int32)
    scale = 1.0 / np.sqrt(D + DR)

    weights = make_weights(rng, heads)
    nz = {k: ascend_mla.format_cast(weights[k], ascend_mla.FRACTAL_NZ) for k in ("w_dq", "w_uq_qr", "w_dkv_kr")}
    kv_cache = np.zeros((num_blocks, BLOCK_SIZE, 1, HCKV), BF16)
    kr_cache = np.zeros((num_blocks, BLOCK_SIZE, 1, DR), BF16)
    all_tokens = rng.standard_normal((batch, prefill + steps, HE)).astype(BF16)

    def slot(b, pos):
        return int(block_table[b, pos // BLOCK_SIZE]) * BLOCK_SIZE + pos % BLOCK_SIZE

    # 1. Prefill (eager, torch_npu style): padding tokens get cache index -1 (skipped).
    t0 = time.perf_counter()
    positions = np.arange(prefill)
    sin, cos = rope_tables(np.broadcast_to(positions, (batch, prefill)))
    cache_index = np.array([[slot(b, p) if p < n else -1 for p in positions]
                            for b, n in enumerate(prompt_lengths)], np.int64)
    ascend_mla.ops.npu_mla_prolog_v2(
        all_tokens[:, :prefill], nz["w_dq"], nz["w_uq_qr"], weights["w_uk"], nz["w_dkv_kr"],
        weights["gamma_cq"], weights["gamma_ckv"], sin, cos, cache_index, kv_cache, kr_cache,
        rmsnorm_epsilon_cq=EPS, rmsnorm_epsilon_ckv=EPS)

    # 2. Decode: the prompts' next tokens sit at position prompt_length + step.
    worst = 0.0
    lengths = list(prompt_lengths)
    text = TEMPLATE.substitute(B=batch, N=heads, NQ=heads * (D + DR), BLOCKS=num_blocks,
                               BS=BLOCK_SIZE, MAXB=blocks_per_seq, SCALE=repr(float(scale)))
    program = ascend_mla.compile(text, source_name="mla_decode_step.mlir", pipeline="builtin.module(verify)")
    for step in range(steps):
        x = np.stack([all_tokens[b, n] for b, n in enumerate(lengths)])[:, None]   # (B, 1, He)
        sin, cos = rope_tables(np.array(lengths)[:, None])
        slots = np.array([[slot(b, n)] for b, n in enumerate(lengths)], np.int64)
        out, _, _ = program(x, nz["w_dq"], nz["w_uq_qr"], weights["w_uk"], nz["w_dkv_kr"],
                            weights["gamma_cq"], weights["gamma_ckv"], sin, cos, slots,
                            kv_cache, kr_cache, block_table, np.array(lengths, np.int64) + 1)
        lengths = [n + 1 for n in lengths]
        for b, n in enumerate(lengths):
            # The sequence so far: its prompt, then one decode token per step.
            expected, v_max = reference_attention(weights, all_tokens[b, :n], np.arange(n), heads, scale)
            err = np.abs(out[b, 0].astype(np.float64) - expected).max() / v_max
            worst = max(worst, float(err))
    elapsed = time.perf_counter() - t0

    # The error is measured against the scale of the values attended over (max |c_kv|): the
    # output is their weighted average. bf16 keeps 8 significant bits (rounding 2^-9 ~ 2e-3
    # relative); the chain rounds at about six stages (projections, RmsNorm, query, RoPE,
    # caches, P before P.V), so a few 1e-3 is expected; 2^-6 ~ 1.6e-2 leaves room for that and
    # still fails on a real bug (a wrong head, token, block or rotation errs by order 1).
    ok = worst < 2.0 ** -6
    print(f"DeepSeek MLA (He={HE}, N={heads}, block {BLOCK_SIZE}): prefill {prompt_lengths} + "
          f"{steps} decode steps (compiled once) run on the {ascend_mla.get_backend()} backend in "
          f"{elapsed:.2f} s; worst error vs the float64 reference: {worst:.2e} of max|V| "
          f"({'OK' if ok else 'FAILED'}, bound 2^-6)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
