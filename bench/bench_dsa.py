"""Benchmark: DeepSeek Sparse Attention's CPU kernels at DeepSeek-V3.2 decode shapes.

    python bench/bench_dsa.py [--quick] [--cpu-time]

DeepSeek-V3.2's decode step as vLLM-Ascend calls it: B = 8 sequences of one token (TND),
PA_BSND caches of block 128 behind a shuffled block table, kv lengths 4k and 16k.
  - lightning indexer: 64 heads of 128, sparse_count 2048, sparse_mode 3;
  - sparse flash attention: 128 heads of 512 + 64 over the 2048 selected tokens (the
    indexer's own selection), attention_mode 2.
Each kernel (through the kernel registry) is timed against a torch eager implementation of
the same math in the same run:
  - indexer: the batch's keys gathered from the cache, relu(q @ k^T) in float32, the weighted
    head sum, torch.topk of the visible scores, -1 past the visible count;
  - sparse attention: the selected latent and rope rows gathered, softmax(scale * q . k^T) in
    float32 with P rounded to bf16, P . V, bf16 out.
Both sides start from the same bf16 caches and produce the operator's outputs (checked equal:
the same index sets, attention within bf16 tolerance). Times are medians of interleaved runs
after a warm-up; the spread column says how noisy the machine was. Not a test.
"""
from __future__ import annotations

import argparse

# isort: off
from timing import CPU_TIME_HELP, machine, median_times  # before NumPy: --cpu-time's one BLAS thread
import ml_dtypes
import numpy as np
# isort: on

from ascend_mla.runtime.kernels import get_kernel

BF16 = np.dtype(ml_dtypes.bfloat16)
BATCH, BLOCK, TOP_K = 8, 128, 2048
IDX_HEADS, IDX_D = 64, 128
HEADS, D_LATENT, D_ROPE = 128, 512, 64


def make_problem(kv_len, seed=0):
    rng = np.random.default_rng(seed)
    per = -(-kv_len // BLOCK)
    n_blocks = BATCH * per + 3
    table = rng.permutation(n_blocks)[:BATCH * per].reshape(BATCH, per).astype(np.int32)

    def r(shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32).astype(BF16)
    return dict(
        table=table, lengths=np.full(BATCH, kv_len, np.int32), ends=np.arange(1, BATCH + 1, dtype=np.int32),
        index_q=r((BATCH, IDX_HEADS, IDX_D)), index_cache=r((n_blocks, BLOCK, 1, IDX_D)),
        index_w=r((BATCH, IDX_HEADS)), query=r((BATCH, HEADS, D_LATENT), 0.5),
        query_rope=r((BATCH, HEADS, D_ROPE), 0.5), kv=r((n_blocks, BLOCK, 1, D_LATENT), 0.5),
        kr=r((n_blocks, BLOCK, 1, D_ROPE), 0.5))


def indexer_kernel(p):
    return get_kernel("mla.lightning_indexer")(
        query=p["index_q"], key=p["index_cache"], weights=p["index_w"], actual_seq_lengths_query=p["ends"],
        actual_seq_lengths_key=p["lengths"], block_table=p["table"], layout_query="TND",
        layout_key="PA_BSND", sparse_count=TOP_K, sparse_mode=3)[0]


def attention_kernel(p, indices, scale):
    return get_kernel("mla.sparse_flash_attention")(
        query=p["query"], key=p["kv"], value=p["kv"], sparse_indices=indices, block_table=p["table"],
        actual_seq_lengths_query=p["ends"], actual_seq_lengths_kv=p["lengths"], query_rope=p["query_rope"],
        key_rope=p["kr"], scale_value=scale, layout_query="TND", layout_kv="PA_BSND", sparse_mode=3,
        attention_mode=2)[0]


def torch_bf16(torch, a):
    return torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16)


def torch_indexer(torch, t, kv_len):
    """The indexer's math in torch eager, per decode token (sees all kv_len keys)."""
    out = torch.full((BATCH, 1, TOP_K), -1, dtype=torch.int32)
    rows = (t["table"].long()[:, :, None] * BLOCK + torch.arange(BLOCK)).reshape(BATCH, -1)[:, :kv_len]
    keys = t["index_cache"].reshape(-1, IDX_D)[rows].float()                        # (B, L, D)
    scores = torch.relu(torch.bmm(t["index_q"].float(), keys.transpose(1, 2)))     # (B, H, L)
    index = torch.bmm(t["index_w"].float()[:, None, :], scores)[:, 0]             # (B, L)
    k = min(TOP_K, kv_len)
    out[:, 0, :k] = torch.topk(index, k, dim=-1).indices.int()
    return out


def torch_attention(torch, t, indices, scale):
    """Sparse MLA attention in torch eager: the selected rows gathered per token."""
    slots = (t["table"].long().gather(1, indices[:, 0].long() // BLOCK) * BLOCK + indices[:, 0].long() % BLOCK)
    k = torch.cat([t["kv"].reshape(-1, D_LATENT)[slots], t["kr"].reshape(-1, D_ROPE)[slots]], -1).float()
    q = torch.cat([t["query"], t["query_rope"]], -1).float()                       # (B, N, 576)
    x = torch.bmm(q, k.transpose(1, 2)) * scale
    p = torch.softmax(x, dim=-1).to(torch.bfloat16).float()
    return torch.bmm(p, k[..., :D_LATENT]).to(torch.bfloat16)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--cpu-time", action="store_true", help=CPU_TIME_HELP)
    args = parser.parse_args()
    repeats = 5 if args.quick else 15
    import torch
    scale = 1 / np.sqrt(192)
    print(machine())
    print(f"DSA decode, B={BATCH} TND tokens, PA_BSND block {BLOCK}, top-{TOP_K}; medians of {repeats} "
          f"interleaved runs (ms)")
    print(f"{'kernel':>24} {'kv len':>7} {'ours':>9} {'torch':>9} {'ours/torch':>11} | spread")
    for kv_len in (4096, 16384):
        p = make_problem(kv_len)
        t = {k: (torch_bf16(torch, v) if v.dtype == BF16 else torch.from_numpy(v)) for k, v in p.items()}
        with torch.inference_mode():
            ours_idx = indexer_kernel(p)
            theirs_idx = torch_indexer(torch, t, kv_len).numpy()
            assert all(set(a) == set(b) for a, b in zip(ours_idx.reshape(BATCH, -1).tolist(),
                                                        theirs_idx.reshape(BATCH, -1).tolist())), "index sets differ"
            ours_out = np.asarray(attention_kernel(p, ours_idx, scale), np.float32)
            theirs_out = torch_attention(torch, t, torch.from_numpy(ours_idx), scale).float().numpy()
            assert np.allclose(ours_out, theirs_out, rtol=2 ** -7, atol=2 ** -8), "attention differs"
            indices_t = torch.from_numpy(ours_idx)
            rows = [("lightning_indexer", median_times({
                "ours": lambda: indexer_kernel(p), "torch": lambda: torch_indexer(torch, t, kv_len)}, repeats)),
                ("sparse_flash_attention", median_times({
                    "ours": lambda: attention_kernel(p, ours_idx, scale),
                    "torch": lambda: torch_attention(torch, t, indices_t, scale)}, repeats))]
        for name, times in rows:
            ours, theirs = times["ours"][0] * 1e3, times["torch"][0] * 1e3
            print(f"{name:>24} {kv_len:>7} {ours:9.2f} {theirs:9.2f} {ours / theirs:11.2f} | "
                  + " ".join(f"{k} {v[1]:.0%}" for k, v in times.items()))


if __name__ == "__main__":
    main()
