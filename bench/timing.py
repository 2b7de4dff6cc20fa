"""What the kernel benchmarks share: the machine line printed with every figure, interleaved
median timing, and the kernels as they were before the speed work (test/python/kernels_before)
for a before/after column measured in the same run."""
from __future__ import annotations

import os
import statistics
import sys
import time

# --cpu-time: one thread in every library (set before NumPy or torch is imported) and the
# process's CPU time as the clock. On a loaded machine the wall clock of a call mostly measures
# waiting for a core; the CPU time it consumed does not, for one thread.
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                                     "ASCEND_MLA_NUM_THREADS")}
CPU_TIME = "--cpu-time" in sys.argv
if CPU_TIME:
    os.environ.update(ONE_THREAD)
clock = time.process_time if CPU_TIME else time.perf_counter
CPU_TIME_HELP = ("one thread per library, timed by the process's CPU time (robust on a loaded "
                 "machine; the default is the wall clock with every library's default threads)")

FLAGS = ("avx2", "fma", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "asimd", "bf16", "sve")


def cpu_flags() -> str:
    try:
        flags = next(line for line in open("/proc/cpuinfo") if line.startswith(("flags", "Features"))).split()
    except (OSError, StopIteration):
        return "unknown"
    return " ".join(f for f in FLAGS if f in flags) or "none of " + "/".join(FLAGS)


def machine() -> str:
    """CPU model, cores, the flags that decide the bf16 paths, thread pools, load."""
    model = "unknown CPU"
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo")
                     if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    try:
        import torch
        threads = f"torch {torch.__version__} ({torch.get_num_threads()} threads)"
    except ImportError:
        threads = "no torch"
    load = "load average {:.1f} {:.1f} {:.1f}".format(*os.getloadavg())
    clock = "clock: process CPU time, one thread" if CPU_TIME else "clock: wall"
    isa = os.environ.get("ONEDNN_MAX_CPU_ISA")
    if isa:                 # a capped oneDNN stands in for a CPU without the capped instructions
        model += f" (ONEDNN_MAX_CPU_ISA={isa}: oneDNN and the kernels' bf16 choice as on a CPU with no more)"
    return (f"CPU: {model}, {os.cpu_count()} logical cores, flags: {cpu_flags()}\n"
            f"{threads}, ASCEND_MLA_MATMUL={os.environ.get('ASCEND_MLA_MATMUL', 'auto')}, {load}, {clock}")


def median_times(candidates: dict, repeats: int) -> dict:
    """name -> (median seconds, spread). The runs are interleaved (one of each in turn) so that
    load from other processes falls on every candidate alike; the spread, (q3 - q1) / median
    of a candidate's runs, says how noisy the machine was."""
    for fn in candidates.values():
        fn()                                    # warm: converted weights, buffers, imports
    times = {name: [] for name in candidates}
    for _ in range(repeats):
        for name, fn in candidates.items():
            start = clock()
            fn()
            times[name].append(clock() - start)
    out = {}
    for name, t in times.items():
        median = statistics.median(t)
        q = statistics.quantiles(t, n=4) if len(t) >= 2 else [median] * 3
        out[name] = (median, (q[2] - q[0]) / median if median else 0.0)
    return out


def before_kernels():
    """get_kernel of the kernels before the speed work (a frozen copy kept as the tests'
    rounding contract's reference), or None when the test tree is not there."""
    here = os.path.dirname(os.path.abspath(__file__))
    tests = os.path.join(here, os.pardir, "test", "python")
    if not os.path.isdir(os.path.join(tests, "kernels_before")):
        return None
    sys.path.insert(0, tests)
    import kernels_before
    return kernels_before.get_kernel


def small_checkpoint(directory: str, family: str = "deepseek_v3") -> str:
    """The tests' small DeepSeek-V3 checkpoint (test/python/hf_checkpoints.SMALL: the MLA
    prolog's dims, a dense and a MoE layer, random init), written by transformers into
    `directory`: what the whole-model benchmarks run without --checkpoint. Another `family`:
    its small checkpoint of examples/write_checkpoint.FAMILIES (test_families.py's)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "test", "python"))
    import hf_checkpoints
    if family == "deepseek_v3":
        return hf_checkpoints.write_transformers_checkpoint(os.path.join(directory, "deepseek-v3-small"))
    from write_checkpoint import write_family_checkpoint
    return write_family_checkpoint(family, os.path.join(directory, f"{family}-small"))[0]


# The whole-model benchmarks' families: each one's attention and hidden dims (DeepSeek-V3's are
# the tests' SMALL checkpoint), 2 layers (one dense, one MoE), few heads, a small vocab and MLPs.
FAMILIES = {
    "deepseek-v3": None,
    "deepseek-v2": dict(hidden_size=5120, num_attention_heads=8, q_lora_rank=1536, topk_method="group_limited_greedy",
                        n_group=2, topk_group=1),
    "deepseek-v2-lite": dict(hidden_size=2048, num_attention_heads=16, q_lora_rank=None, topk_method="greedy",
                             n_group=1, topk_group=1),
}


def family_checkpoint(directory: str, family: str) -> str:
    """A small checkpoint of `family` (FAMILIES) written by transformers into `directory`."""
    overrides = FAMILIES[family]
    if overrides is None:
        return small_checkpoint(directory)
    import torch
    from transformers import DeepseekV2Config, DeepseekV2ForCausalLM
    config = DeepseekV2Config(vocab_size=512, intermediate_size=256, moe_intermediate_size=64, num_hidden_layers=2,
                              num_key_value_heads=overrides["num_attention_heads"], kv_lora_rank=512,
                              qk_nope_head_dim=128, qk_rope_head_dim=64, v_head_dim=128, n_routed_experts=8,
                              n_shared_experts=1, num_experts_per_tok=2, first_k_dense_replace=1,
                              max_position_embeddings=4096, bos_token_id=0, eos_token_id=1, **overrides)
    torch.manual_seed(0)
    path = os.path.join(directory, family)
    DeepseekV2ForCausalLM(config).to(torch.bfloat16).save_pretrained(path)
    return path
