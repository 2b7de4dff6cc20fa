"""Compile time of DeepSeek-V3 decode graphs: seconds per stage for 1, 8 and 61 layers.

    python bench/bench_compile.py [--layers 1,8,61] [--tp 8]

Stages: writing the IR (the model builder), parsing, verifying (every rule of every op), each
pass of the default pipeline (fusion, layout), and the lowering to aclnn kernel calls that
compile() ends with.
Prints ops per second of the whole compile and the per-layer cost, whose constancy from 8 to 61
layers shows the compiler is linear in the layer count. Packing the weights (fold-constants with
values: transposes, NZ packing, W_uk/W_uv slices) is data work proportional to the weights'
bytes, not to the IR: `--with-weights 1,8` times it separately, with random weights bound.
"""
import argparse
import platform
import time

from mlir import ir

from ascend_mla.compiler import runtime_inputs
from ascend_mla.dialect.diagnostics import DiagnosticCollector
from ascend_mla.dialect.dialect import make_context, verify_ops
from ascend_mla.models import deepseek
from ascend_mla.passes import PIPELINES, build_pass_manager, parse_pipeline
from ascend_mla.passes.weights import WeightTable


def cpu_flags() -> str:
    try:
        words = set(open("/proc/cpuinfo").read().split())
    except OSError:
        return platform.processor()
    return " ".join(f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in words)


def count_ops(module) -> int:
    n = 0

    def visit(op):
        nonlocal n
        n += 1
        return ir.WalkResult.ADVANCE
    module.operation.walk(visit)
    return n


def compile_stages(layers: int, tp: int, with_weights: bool = False) -> tuple[dict, int, int]:
    times = {}
    t = time.perf_counter()
    model = deepseek.build("deepseek-v3", tp=tp, layers=layers, batch=8, block_size=128)
    times["build IR"] = time.perf_counter() - t
    context = make_context()
    table = None                              # no weights: fold-constants has nothing to evaluate
    if with_weights:
        table = WeightTable()
        for name, value in model.weights.items():
            table.bind(name, value)
    with context, ir.Location.unknown(), DiagnosticCollector(context) as diags:
        t = time.perf_counter()
        module = ir.Module.parse(model.module)
        times["parse"] = time.perf_counter() - t
        before = count_ops(module)
        t = time.perf_counter()
        assert verify_ops(module.operation)
        times["verify"] = time.perf_counter() - t
        # the default pipeline, then the lowering compile() always ends with
        for element in parse_pipeline(PIPELINES["default"]) + [("lower-to-aclnn", "")]:
            pm = build_pass_manager([element], inputs=runtime_inputs(table))
            t = time.perf_counter()
            pm.run(module.operation)
            times[element[0]] = time.perf_counter() - t
        assert not diags.has_errors
        after = count_ops(module)
    return times, before, after


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", default="1,8,61")
    parser.add_argument("--tp", type=int, default=8)
    parser.add_argument("--with-weights", default="", help="layer counts to time with weights bound (e.g. 1,8)")
    args = parser.parse_args()
    print(f"CPU: {platform.machine()} {cpu_flags()}; DeepSeek-V3 decode, tp={args.tp}, batch 8")
    compile_stages(1, args.tp)                       # warm up imports and the IRDL load
    rows = []
    for layers in [int(x) for x in args.layers.split(",")]:
        times, before, after = compile_stages(layers, args.tp)
        compile_time = sum(v for k, v in times.items() if k != "build IR")
        rows.append((layers, times, before, after, compile_time))
    stages = list(rows[0][1])
    print(f"{'layers':>6} {'ops in':>7} {'ops out':>7} " + " ".join(f"{s[:13]:>13}" for s in stages)
          + f" {'compile':>8} {'ops/s':>8} {'ms/layer':>9}")
    for layers, times, before, after, compile_time in rows:
        print(f"{layers:>6} {before:>7} {after:>7} " + " ".join(f"{times[s]:>13.4f}" for s in stages)
              + f" {compile_time:>8.3f} {before / compile_time:>8.0f} {1000 * compile_time / layers:>9.2f}")
    print("(seconds; 'compile' = parse + verify + passes, without building the IR; target < 1 s at 61 layers)")
    for layers in [int(x) for x in args.with_weights.split(",") if x]:
        times, _, _ = compile_stages(layers, args.tp, with_weights=True)
        packed = times["fold-constants"]
        print(f"with weights, {layers} layer(s): fold-constants (packing) {packed:.3f} s = "
              f"{1000 * packed / layers:.0f} ms per layer; the rest {sum(times.values()) - packed - times['build IR']:.3f} s")


if __name__ == "__main__":
    main()
