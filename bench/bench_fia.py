"""Benchmark: mla.fused_infer_attention_score, MLA decode, DeepSeek-V3 shapes.

    python bench/bench_fia.py [--quick] [--cpu-time] [--no-before]

B = 8, N = 128 query heads, Q_S = 1, one latent kv head (D = 512 + rope 64), block size 128,
PA_BSND caches with a shuffled block table, kv lengths 1k and 8k. The CPU kernel (through the
kernel registry, as a program runs it: ASCEND_MLA_MATMUL=auto, the MLIR-compiled MLA attention)
is timed against, in the same run:
  - torch eager, absorbed form on a contiguous bf16 kv (B, L, 576): upcast to float32 (CPU bf16
    GEMMs are several times slower than float32 ones), scores = one bmm (B, N, 576) x
    (B, 576, L), softmax, (B, N, L) x (B, L, 512), output bf16;
  - the same with the kv already float32 (conversion not timed): a lower bound;
  - NumPy dense: the same absorbed form with NumPy matmuls (one per batch row), kv converted
    from bf16 per call;
  - before: the kernel before the speed work (test/python/kernels_before; torch's MKL products);
  - kernel/np: the kernel with ASCEND_MLA_MATMUL=numpy (its NumPy path, BLAS products).
Times are medians of interleaved runs after a warm-up (the machine may be shared; the spread
column says how noisy it was). Not a test.
"""
from __future__ import annotations

import argparse
import os

import ml_dtypes
import numpy as np
from timing import CPU_TIME_HELP, before_kernels, machine, median_times  # first: sets threads

from ascend_mla.runtime.kernels import get_kernel

BF16 = np.dtype(ml_dtypes.bfloat16)
N_HEADS, D_LATENT, D_ROPE, BLOCK = 128, 512, 64, 128


def make_problem(batch, kv_len, seed=0):
    rng = np.random.default_rng(seed)
    blocks_per_seq = -(-kv_len // BLOCK)
    n_blocks = batch * blocks_per_seq + 7
    table = rng.permutation(n_blocks)[:batch * blocks_per_seq].reshape(batch, blocks_per_seq)
    kv_cache = (rng.standard_normal((n_blocks, BLOCK, 1, D_LATENT)) * 0.5).astype(BF16)
    kr_cache = (rng.standard_normal((n_blocks, BLOCK, 1, D_ROPE)) * 0.5).astype(BF16)
    query = (rng.standard_normal((batch, 1, N_HEADS, D_LATENT)) * 0.5).astype(BF16)
    query_rope = (rng.standard_normal((batch, 1, N_HEADS, D_ROPE)) * 0.5).astype(BF16)
    # the contiguous (B, L, 576) kv the dense baselines read: the same rows, gathered once
    rows = (table[:, :, None] * BLOCK + np.arange(BLOCK)).reshape(batch, -1)[:, :kv_len]
    dense = np.concatenate([kv_cache.reshape(-1, D_LATENT)[rows],
                            kr_cache.reshape(-1, D_ROPE)[rows]], axis=-1)
    q_dense = np.concatenate([query, query_rope], axis=-1).reshape(batch, N_HEADS, -1)
    return dict(query=query, query_rope=query_rope, kv_cache=kv_cache, kr_cache=kr_cache,
                table=table.astype(np.int32), kv_len=kv_len, dense=dense, q_dense=q_dense)


def run_kernel(p, scale, get=get_kernel):
    fia = get("mla.fused_infer_attention_score")
    return fia(query=p["query"], key=p["kv_cache"], value=p["kv_cache"],
               query_rope=p["query_rope"], key_rope=p["kr_cache"], block_table=p["table"],
               block_size=BLOCK, actual_seq_lengths_kv=[p["kv_len"]], num_heads=N_HEADS,
               num_key_value_heads=1, scale_value=scale, input_layout="BSND",
               sparse_mode=0)[0]


def torch_absorbed(torch, q, kv, scale):
    """Eager absorbed MLA decode on contiguous kv; float32 compute, bf16 output."""
    qf, kvf = q.float(), kv.float()
    scores = torch.bmm(qf, kvf.transpose(1, 2)) * scale
    probs = torch.softmax(scores, dim=-1)
    return torch.bmm(probs, kvf[..., :D_LATENT]).to(torch.bfloat16)


def numpy_absorbed(q, kv, scale):
    """The same per batch row with 2-D NumPy matmuls (stacked np.matmul is far slower)."""
    out = np.empty((q.shape[0], N_HEADS, D_LATENT), BF16)
    for b in range(q.shape[0]):
        qf, kvf = q[b].astype(np.float32), kv[b].astype(np.float32)
        scores = (qf @ kvf.T) * np.float32(scale)
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        out[b] = scores @ kvf[:, :D_LATENT]
    return out


def with_backend(backend, fn):
    def run():
        previous = os.environ.get("ASCEND_MLA_MATMUL")
        os.environ["ASCEND_MLA_MATMUL"] = backend
        try:
            return fn()
        finally:
            if previous is None:
                del os.environ["ASCEND_MLA_MATMUL"]
            else:
                os.environ["ASCEND_MLA_MATMUL"] = previous
    return run


def to_torch_bf16(torch, a):
    return torch.from_numpy(np.ascontiguousarray(a).view(np.int16)).view(torch.bfloat16)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (about a minute)")
    parser.add_argument("--cpu-time", action="store_true", help=CPU_TIME_HELP)
    parser.add_argument("--no-before", action="store_true", help="leave out the kernel before the speed work")
    args = parser.parse_args()
    repeats = 5 if args.quick else 15
    import torch
    get_before = None if args.no_before else before_kernels()
    scale = 1 / np.sqrt(192)
    print(machine())
    print(f"MLA decode, B=8 N={N_HEADS} Q_S=1 D={D_LATENT}+{D_ROPE} block={BLOCK} PA_BSND, "
          f"medians of {repeats} interleaved runs (ms)")
    header = (f"{'kv len':>7} {'kernel':>9} {'before':>9} {'torch bf16':>11} {'torch f32kv':>12}"
              f" {'kernel/np':>10} {'numpy':>9} | {'k/before':>8} {'k/torch':>8} {'k/f32kv':>8}"
              f" {'knp/np':>7} | spread")
    print(header)
    for kv_len in (1024, 8192):
        p = make_problem(8, kv_len)
        q_t, kv_t = to_torch_bf16(torch, p["q_dense"]), to_torch_bf16(torch, p["dense"])
        kv_f32 = kv_t.float()
        # the kernel and the baselines compute the same attention
        ref = torch_absorbed(torch, q_t, kv_t, scale).float().numpy()
        got = np.asarray(run_kernel(p, scale), np.float32).reshape(8, N_HEADS, D_LATENT)
        assert np.allclose(got, ref, rtol=2**-6, atol=2**-7), "kernel != torch baseline"

        # torch-backed and NumPy-BLAS-backed runs are timed in separate groups: the idle
        # worker threads of one library spin for a while and would slow the other down
        torch_group = {"kernel": with_backend("auto", lambda: run_kernel(p, scale))}
        if get_before is not None:
            torch_group["before"] = with_backend("torch", lambda: run_kernel(p, scale, get_before))
        torch_group.update({"torch": lambda: torch_absorbed(torch, q_t, kv_t, scale),
                            "torch32": lambda: torch_absorbed(torch, q_t, kv_f32, scale)})
        with torch.inference_mode():
            t = median_times(torch_group, repeats)
        t.update(median_times({
            "kernel_np": with_backend("numpy", lambda: run_kernel(p, scale)),
            "numpy": lambda: numpy_absorbed(p["q_dense"], p["dense"], scale)}, repeats))
        ms = {k: v[0] * 1e3 for k, v in t.items()}
        nan = float("nan")
        k = ms["kernel"]
        print(f"{kv_len:>7} {k:9.1f} {ms.get('before', nan):9.1f} {ms['torch']:11.1f} {ms['torch32']:12.1f}"
              f" {ms['kernel_np']:10.1f} {ms['numpy']:9.1f} | {k / ms.get('before', nan):8.2f}"
              f" {k / ms['torch']:8.2f} {k / ms['torch32']:8.2f} {ms['kernel_np'] / ms['numpy']:7.2f} | "
              + " ".join(f"{name} {v[1]:.0%}" for name, v in t.items()))


if __name__ == "__main__":
    main()
