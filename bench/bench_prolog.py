"""Benchmark of the mla.prolog_v2 CPU kernel at DeepSeek-V3 decode shapes (not a test).

    python bench/bench_prolog.py [--quick] [--cpu-time] [--no-before]

He = 7168, N in {32, 128}, T in {8, 128}, bf16 (scenario NQ), PA_BSND. The kernel runs warm,
its weights converted once (NZ weights in their kernel_cache, weight_uk read-only). It is set
against, measured in the same run, interleaved (medians; the spread column says how noisy):
  before     the kernel before the speed work (test/python/kernels_before);
  torch      a PyTorch eager bf16 implementation of the same formulas (when torch is installed);
  f32 mm     the four matmul products alone in NumPy float32 (the floor of the numpy backend;
             timed in a group of its own: OpenBLAS's spinning workers would slow the others);
  bf16 mm    the kernel's own four products alone (gemm.py's calls on the same weights: the
             MLIR-compiled products by default, runtime/kernels/jit.py): their share of the kernel;
  read       reading the bf16 weights once at the memory bandwidth measured here (np.copyto,
             read + write bytes per second): the weight-read floor;
  peak       the products' FLOPs at this machine's float32 GEMM peak (a 2048^3 sgemm).
The kernel is bound by max(read, peak) at best; at small T a GEMM reaches only part of its peak
(its micro-kernels want more rows), so decode (T = 8) is measured against the read floor.
"""
from __future__ import annotations

import argparse

import ml_dtypes
import numpy as np
from timing import CPU_TIME_HELP, before_kernels, clock, machine, median_times  # first: sets threads

from ascend_mla.runtime.formats import format_cast
from ascend_mla.runtime.kernels import gemm, get_kernel

BF16 = np.dtype(ml_dtypes.bfloat16)
HE, HCQ, HCKV, D, DR = 7168, 1536, 512, 128, 64
BLOCK_SIZE = 128


def best_time(fn, repeats):
    fn()                                            # warm: caches, page faults, thread pools
    best = float("inf")
    for _ in range(repeats):
        start = clock()
        fn()
        best = min(best, clock() - start)
    return best


def memory_bandwidth(repeats):
    """Bytes moved per second by a 512 MB np.copyto (each byte read once and written once)."""
    src = np.ones(128 * 2**20, np.float32)
    dst = np.zeros_like(src)
    return 2 * src.nbytes / best_time(lambda: np.copyto(dst, src), repeats)


def sgemm_peak(repeats):
    a = np.random.default_rng(0).standard_normal((2048, 2048), np.float32)
    return 2 * 2048**3 / best_time(lambda: a @ a, repeats)


def make_layer(heads, tokens, rng):
    def matrix(rows, cols):
        return (rng.standard_normal((rows, cols), np.float32) / np.sqrt(rows)).astype(BF16)
    weight_uk = (rng.standard_normal((heads, D, HCKV), np.float32) / np.sqrt(D)).astype(BF16)
    weight_uk.flags.writeable = False              # a constant: the kernel converts it once
    angles = rng.uniform(0, 2 * np.pi, (tokens, DR // 2))
    block_num = -(-tokens // BLOCK_SIZE) + 1
    return dict(
        token_x=rng.standard_normal((tokens, HE), np.float32).astype(BF16),
        weight_dq=matrix(HE, HCQ), weight_uq_qr=matrix(HCQ, heads * (D + DR)), weight_uk=weight_uk,
        weight_dkv_kr=matrix(HE, HCKV + DR),
        rmsnorm_gamma_cq=np.ones(HCQ, BF16), rmsnorm_gamma_ckv=np.ones(HCKV, BF16),
        rope_sin=np.sin(np.concatenate([angles, angles], -1)).astype(BF16),
        rope_cos=np.cos(np.concatenate([angles, angles], -1)).astype(BF16),
        cache_index=rng.permutation(block_num * BLOCK_SIZE)[:tokens].astype(np.int64),
        kv_cache=np.zeros((block_num, BLOCK_SIZE, 1, HCKV), BF16),
        kr_cache=np.zeros((block_num, BLOCK_SIZE, 1, DR), BF16))


def kernel_call(layer, get=get_kernel):
    operands = dict(layer, dequant_scale_x=None, dequant_scale_w_dq=None,
                    dequant_scale_w_uq_qr=None, dequant_scale_w_dkv_kr=None, quant_scale_ckv=None,
                    quant_scale_ckr=None, smooth_scales_cq=None, rmsnorm_epsilon_cq=1e-5,
                    rmsnorm_epsilon_ckv=1e-5, cache_mode="PA_BSND")
    for name in ("weight_dq", "weight_uq_qr", "weight_dkv_kr"):
        operands[name] = format_cast(layer[name], 29)
    kernel = get("mla.prolog_v2")
    return lambda: kernel(**operands)


def f32_matmuls(layer):
    """The four products of the op, float32, nothing else."""
    x = layer["token_x"].astype(np.float32)
    dq, uq_qr, dkv_kr = (layer[k].astype(np.float32) for k in ("weight_dq", "weight_uq_qr", "weight_dkv_kr"))
    uk = layer["weight_uk"].astype(np.float32)
    heads, tokens = uk.shape[0], x.shape[0]

    def run():
        c_q = x @ dq
        q = (c_q @ uq_qr).reshape(tokens, heads, D + DR)
        np.matmul(np.ascontiguousarray(q[..., :D].transpose(1, 0, 2)), uk)
        x @ dkv_kr
    return run


def kernel_matmuls(layer):
    """The kernel's four bf16 products alone, through the kernel's own GEMM calls and packed
    weights (the bits of the kernel's products pin this library)."""
    x = layer["token_x"]
    dq, uq_qr, dkv_kr = (format_cast(layer[k], 29) for k in ("weight_dq", "weight_uq_qr", "weight_dkv_kr"))
    uk = layer["weight_uk"]
    heads, tokens = uk.shape[0], x.shape[0]

    def run():
        c_q = gemm.bf16_matmul(x, dq)
        q = gemm.bf16_matmul(c_q, uq_qr).reshape(tokens, heads, D + DR)
        gemm.head_matmul_bf16(q[..., :D], uk)
        gemm.bf16_matmul(x, dkv_kr)
    return run


def torch_eager(layer):
    """The same formulas in PyTorch eager, bf16 tensors, weights in nn.Linear (out, in) layout."""
    import torch
    import torch.nn.functional as F

    def bf16(a):
        return torch.from_numpy(np.ascontiguousarray(a).astype(np.float32)).to(torch.bfloat16)

    x = bf16(layer["token_x"])
    dq, uq_qr, dkv_kr = (bf16(layer[k].T) for k in ("weight_dq", "weight_uq_qr", "weight_dkv_kr"))
    uk = bf16(layer["weight_uk"])
    gamma_cq, gamma_ckv = bf16(layer["rmsnorm_gamma_cq"]).float(), bf16(layer["rmsnorm_gamma_ckv"]).float()
    cos, sin = bf16(layer["rope_cos"]).float(), bf16(layer["rope_sin"]).float()
    slots = torch.from_numpy(layer["cache_index"])
    kv_cache = torch.zeros(layer["kv_cache"].shape, dtype=torch.bfloat16).view(-1, HCKV)
    kr_cache = torch.zeros(layer["kr_cache"].shape, dtype=torch.bfloat16).view(-1, DR)
    tokens, heads = x.shape[0], uk.shape[0]

    def rms_norm(v, gamma):
        v = v.float()
        return v / torch.sqrt(v.pow(2).mean(-1, keepdim=True) + 1e-5) * gamma

    def rope(v, c, s):
        v = v.float()
        xd = torch.cat([v[..., 0::2], v[..., 1::2]], -1)
        return xd * c + torch.cat([-xd[..., DR // 2:], xd[..., :DR // 2]], -1) * s

    def run():
        c_q = rms_norm(F.linear(x, dq), gamma_cq).to(torch.bfloat16)
        q = F.linear(c_q, uq_qr).view(tokens, heads, D + DR)
        query = torch.einsum("tnd,ndc->tnc", q[..., :D], uk)
        query_rope = rope(q[..., D:], cos[:, None], sin[:, None]).to(torch.bfloat16)
        kv_kr = F.linear(x, dkv_kr)
        kv_cache.index_copy_(0, slots, rms_norm(kv_kr[:, :HCKV], gamma_ckv).to(torch.bfloat16))
        kr_cache.index_copy_(0, slots, rope(kv_kr[:, HCKV:], cos, sin).to(torch.bfloat16))
        return query, query_rope
    return run


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (about a minute)")
    parser.add_argument("--cpu-time", action="store_true", help=CPU_TIME_HELP)
    parser.add_argument("--no-before", action="store_true", help="leave out the kernel before the speed work")
    args = parser.parse_args()
    repeats = 5 if args.quick else 15
    try:
        import torch  # noqa: F401
        have_torch = True
    except ImportError:
        have_torch = False
    get_before = None if args.no_before else before_kernels()

    print(machine())
    bandwidth, peak = memory_bandwidth(3), sgemm_peak(3)
    print(f"memory bandwidth {bandwidth / 1e9:.1f} GB/s (np.copyto, read+write), "
          f"sgemm peak {peak / 1e9:.0f} GFLOP/s; times: medians of {repeats} interleaved runs (ms)")
    header = (f"{'N':>4} {'T':>4} | {'kernel':>8} {'before':>8} {'torch':>8} {'bf16 mm':>8} {'f32 mm':>8}"
              f" {'read':>7} {'peak':>7} | {'/before':>7} {'/torch':>7} {'/read':>6} {'mm/read':>7} | spread")
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    for heads in (32, 128):
        for tokens in (8, 128):
            layer = make_layer(heads, tokens, rng)
            weight_bytes = sum(layer[k].nbytes for k in ("weight_dq", "weight_uq_qr", "weight_uk", "weight_dkv_kr"))
            flops = 2 * tokens * (HE * HCQ + HCQ * heads * (D + DR) + heads * D * HCKV + HE * (HCKV + DR))
            candidates = {"kernel": kernel_call(layer)}
            if get_before is not None:
                candidates["before"] = kernel_call(layer, get_before)
            if have_torch:
                candidates["torch"] = torch_eager(layer)
            if gemm.bf16_engine() != "numpy":
                candidates["bf16 mm"] = kernel_matmuls(layer)
            # timed apart (as in bench_fia): NumPy's OpenBLAS workers spin for a while after
            # each call and take the cores from the torch-backed run that follows (measured:
            # the kernel 2.3x slower after an interleaved float32 product on 2 cores)
            t = median_times(candidates, repeats)
            t.update(median_times({"f32 mm": f32_matmuls(layer)}, repeats))
            ms = {k: v[0] * 1e3 for k, v in t.items()}
            read, compute = weight_bytes / bandwidth * 1e3, flops / peak * 1e3
            nan = float("nan")
            kernel = ms["kernel"]
            mm = ms.get("bf16 mm", nan)
            print(f"{heads:>4} {tokens:>4} | {kernel:8.2f} {ms.get('before', nan):8.2f} {ms.get('torch', nan):8.2f}"
                  f" {mm:8.2f} {ms['f32 mm']:8.2f} {read:7.2f} {compute:7.2f} | {kernel / ms.get('before', nan):7.2f}"
                  f" {kernel / ms.get('torch', nan):7.2f} {kernel / read:6.2f} {mm / read:7.2f} | "
                  + " ".join(f"{k} {v[1]:.0%}" for k, v in t.items()))


if __name__ == "__main__":
    main()
