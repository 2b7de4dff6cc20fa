"""The bf16 products of the CPU kernels, compiled by MLIR: bf16 x bf16 -> bf16 with float32
accumulation, written in the vector dialect, lowered to LLVM and run by MLIR's ExecutionEngine
(in the bindings the project pins). docs/numerics.md, "The CPU backend's rounding contract".

    y[b, m, n] = bf16( sum_k x[b, m, k] * w[b, k, n] )     (arith.truncf: half to even)

The sum over k runs in one fixed order, k = 0, 1, ..., each step one fused multiply-add into a
float32 accumulator (the product of two bf16 values is exact in float32, so the step rounds
once, as an add). Threads split the output columns, never k, so the bits are the same for any
thread count; the code is the same 16-lane vector code on every x86 CPU, so they are the same on
every CPU whose LLVM target has FMA (AVX2 or AVX-512: the lanes do not interact).

Weights are kept in the panel form this code streams: [N/16][K][16] (each 16-column panel's K
rows contiguous), which is FRACTAL_NZ's memory for a bf16 (K, N) matrix with K a multiple of 16,
so an NZ weight is read as it is. Activations are widened to float32 once per call (bf16 ->
float32 is exact). Rows are taken 8 at a time (a tile: 8 x 32 accumulators in registers), the
rest in tiles of 4, 2 and 1, so a decode product of 1, 2, 4 or 8 rows reads each weight byte
once, and a process compiles at most eight kernels (tile rows x 1 or 2 panels), each once.
"""
from __future__ import annotations

import ctypes
import functools
import os
import threading

import ml_dtypes
import numpy as np

MT = 8                    # rows per tile
V = 2                     # 16-column panels per work item (32 columns)


def _kernel_text(mt: int, v: int) -> str:
    """func.func @gemm: the product of `mt`-row tiles against work items of `v` panels."""
    acc = [f"%a{m}_{j}" for m in range(mt) for j in range(v)]
    vt = "vector<16xf32>"
    lines = [
        "func.func @gemm(%x: memref<?xf32>, %w: memref<?xi16>, %y: memref<?xbf16>, %K: index,"
        " %Kp: index, %ldx: index, %ldy: index, %xb: index, %wb: index, %yb: index, %G: index,"
        " %tiles: index, %q0: index, %q1: index) attributes {llvm.emit_c_interface} {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c16 = arith.constant 16 : index",
        f"  %cmt = arith.constant {mt} : index",
        f"  %cvw = arith.constant {16 * v} : index",
        "  %zero = arith.constant dense<0.0> : vector<16xf32>",
        "  %s16 = arith.constant dense<16> : vector<16xi32>",
        "  %panel = arith.muli %Kp, %c16 : index",
    ]
    lines += [f"  %m{m} = arith.constant {m} : index" for m in range(mt)]
    lines += [f"  %j{j} = arith.constant {j} : index" for j in range(v)]
    lines += [
        "  scf.for %q = %q0 to %q1 step %c1 {",
        "    %b = arith.divui %q, %G : index",
        "    %g = arith.remui %q, %G : index",
        "    %xb0 = arith.muli %b, %xb : index",
        "    %wb0 = arith.muli %b, %wb : index",
        "    %yb0 = arith.muli %b, %yb : index",
        "    %gp = arith.muli %g, %cvw : index",
        "    %gpanel = arith.divui %gp, %c16 : index",
    ]
    for j in range(v):
        lines += [f"    %pj{j} = arith.addi %gpanel, %j{j} : index",
                  f"    %po{j} = arith.muli %pj{j}, %panel : index",
                  f"    %wbase{j} = arith.addi %wb0, %po{j} : index"]
    lines += [
        "    scf.for %t = %c0 to %tiles step %c1 {",
        "      %r0 = arith.muli %t, %cmt : index",
    ]
    for m in range(mt):
        lines += [f"      %row{m} = arith.addi %r0, %m{m} : index",
                  f"      %xr{m} = arith.muli %row{m}, %ldx : index",
                  f"      %xbase{m} = arith.addi %xb0, %xr{m} : index"]
    lines.append(f"      %r:{len(acc)} = scf.for %k = %c0 to %K step %c1 iter_args("
                 + ", ".join(f"{a} = %zero" for a in acc) + ") -> (" + ", ".join([vt] * len(acc)) + ") {")
    lines.append("        %k16 = arith.muli %k, %c16 : index")
    for j in range(v):
        lines += [f"        %wo{j} = arith.addi %wbase{j}, %k16 : index",
                  f"        %wi{j} = vector.load %w[%wo{j}] : memref<?xi16>, vector<16xi16>",
                  f"        %we{j} = arith.extui %wi{j} : vector<16xi16> to vector<16xi32>",
                  f"        %ws{j} = arith.shli %we{j}, %s16 : vector<16xi32>",
                  f"        %wf{j} = arith.bitcast %ws{j} : vector<16xi32> to {vt}"]
    new = []
    for m in range(mt):
        lines += [f"        %xo{m} = arith.addi %xbase{m}, %k : index",
                  f"        %xs{m} = memref.load %x[%xo{m}] : memref<?xf32>",
                  f"        %xv{m} = vector.broadcast %xs{m} : f32 to {vt}"]
        for j in range(v):
            lines.append(f"        %n{m}_{j} = vector.fma %xv{m}, %wf{j}, %a{m}_{j} : {vt}")
            new.append(f"%n{m}_{j}")
    lines.append("        scf.yield " + ", ".join(new) + " : " + ", ".join([vt] * len(new)))
    lines.append("      }")
    i = 0
    for m in range(mt):
        lines += [f"      %yr{m} = arith.muli %row{m}, %ldy : index",
                  f"      %yo{m} = arith.addi %yb0, %yr{m} : index",
                  f"      %yc{m} = arith.addi %yo{m}, %gp : index"]
        for j in range(v):
            lines += [f"      %yj{m}_{j} = arith.addi %yc{m}, %cj{j} : index",
                      f"      %h{m}_{j} = arith.truncf %r#{i} : {vt} to vector<16xbf16>",
                      f"      vector.store %h{m}_{j}, %y[%yj{m}_{j}] : memref<?xbf16>, vector<16xbf16>"]
            i += 1
    lines += ["    }", "  }", "  return", "}"]
    text = "\n".join(lines)
    consts = "".join(f"  %cj{j} = arith.constant {16 * j} : index\n" for j in range(v))
    return text.replace("  scf.for %q =", consts + "  scf.for %q =", 1)


_PIPELINE = ("builtin.module(arith-expand{include-bf16=true},convert-scf-to-cf,convert-vector-to-llvm,"
             "expand-strided-metadata,finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,"
             "convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)")
_LOCK = threading.Lock()
_ENGINES: dict = {}


def compiled(key, source, symbol: str = "kernel"):
    """The packed-interface entry of a kernel, compiled once per process: `key` names it,
    `source()` gives its MLIR text (a func.func @`symbol` with llvm.emit_c_interface; memref
    arguments 1-D, then index / i64 / f32 scalars). Every CPU kernel's MLIR text is parsed here
    and nowhere else."""
    found = _ENGINES.get(key)
    if found is not None:
        return found[1]
    with _LOCK:
        found = _ENGINES.get(key)
        if found is None:
            from mlir import ir, passmanager
            from mlir.execution_engine import ExecutionEngine
            context = ir.Context()
            with context:
                module = ir.Module.parse(source())
                passmanager.PassManager.parse(_PIPELINE).run(module.operation)
                engine = ExecutionEngine(module, opt_level=3)
            entry = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(engine.raw_lookup(f"_mlir_ciface_{symbol}"))
            found = _ENGINES[key] = ((context, module, engine), entry)
    return found[1]


def _function(mt: int, v: int):
    """The compiled @gemm for (mt, v), once per process."""
    return compiled(("gemm", mt, v), functools.partial(_kernel_text, mt, v), "gemm")


class _Memref1(ctypes.Structure):
    _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                ("offset", ctypes.c_int64), ("size", ctypes.c_int64), ("stride", ctypes.c_int64)]


_MEMREF_BYTES = ctypes.sizeof(_Memref1)


def _memref(address: int, size: int) -> _Memref1:
    return _Memref1(address, address, 0, size, 1)


def _call(entry, x, w, y, ints):
    """entry's packed interface: a pointer to each argument (a memref descriptor's pointer, or
    an int64)."""
    descs = [x, w, y]
    pointers = [ctypes.pointer(d) for d in descs]
    values = [ctypes.c_int64(i) for i in ints]
    packed = (ctypes.c_void_p * (3 + len(values)))(
        *[ctypes.addressof(p) for p in pointers], *[ctypes.addressof(i) for i in values])
    entry(packed)


def invoke(entry, buffers, scalars=(), floats=()):
    """Call a compiled kernel through its packed C interface: `buffers` are its memref
    arguments as (address, elements) or NumPy arrays (their first element's address and their
    size), then the int64/index `scalars`, then the f32 `floats` (in that order in the kernel's
    signature). Each packed slot points at the argument: for a memref, at a pointer to its
    descriptor."""
    refs = [(b.ctypes.data, b.size) if isinstance(b, np.ndarray) else b for b in buffers]
    n = len(refs)
    descs = (_Memref1 * max(1, n))(*[(a, a, 0, size, 1) for a, size in refs])
    d = ctypes.addressof(descs)
    holders = (ctypes.c_void_p * max(1, n))(*[d + k * _MEMREF_BYTES for k in range(n)])
    ints = (ctypes.c_int64 * max(1, len(scalars)))(*scalars)
    reals = (ctypes.c_float * max(1, len(floats)))(*floats)
    h, i, f = ctypes.addressof(holders), ctypes.addressof(ints), ctypes.addressof(reals)
    packed = (ctypes.c_void_p * (n + len(scalars) + len(floats)))(
        *[h + 8 * k for k in range(n)], *[i + 8 * k for k in range(len(scalars))],
        *[f + 4 * k for k in range(len(floats))])
    entry(packed)


def parallel(count: int, job, work: int = 1 << 30) -> None:
    """job(start, stop) over [0, count) split into contiguous ranges, one per thread (one range
    when `work`, the call's multiply-adds or elements, is below _MIN_PARALLEL: a wake-up costs
    more). Each output is computed by one thread in one order, so the bits do not depend on
    the split."""
    threads = min(count, thread_count() if work >= _MIN_PARALLEL else 1)
    if threads <= 1:
        if count:
            job(0, count)
        return
    _POOL.run([functools.partial(job, count * p // threads, count * (p + 1) // threads)
               for p in range(threads)])


# --- threads: work items (column groups) split among the cores; the GIL is released in the call

def thread_count() -> int:
    env = os.environ.get("ASCEND_MLA_NUM_THREADS")
    if env:
        return max(1, int(env))
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return os.cpu_count() or 1


class _Pool:
    """Persistent worker threads; run(jobs) runs each callable, the caller taking the first."""

    def __init__(self):
        self.lock = threading.Lock()
        self.workers = []

    def _worker(self, inbox):
        while True:
            job, done = inbox.get()
            try:
                job()
            except BaseException as e:           # re-raised by run()
                done.error = e
            done.set()

    def run(self, jobs):
        if len(jobs) == 1:
            jobs[0]()
            return
        import queue
        with self.lock:
            while len(self.workers) < len(jobs) - 1:
                inbox = queue.SimpleQueue()
                thread = threading.Thread(target=self._worker, args=(inbox,), daemon=True)
                thread.start()
                self.workers.append(inbox)
            inboxes = self.workers[:len(jobs) - 1]
        events = []
        for inbox, job in zip(inboxes, jobs[1:]):
            done = threading.Event()
            done.error = None
            inbox.put((job, done))
            events.append(done)
        jobs[0]()
        for done in events:
            done.wait()
            if done.error is not None:
                raise done.error


_POOL = _Pool()
# below this many multiply-adds per call one thread does it all (a wake-up costs more)
_MIN_PARALLEL = 1 << 18


# --- the products ---------------------------------------------------------------------------

def panels(w: np.ndarray) -> np.ndarray:
    """A bf16 (..., K, N) weight in the panel form [..., N/16 (padded to V panels), K, 16], as
    int16 bits, contiguous: what `product` streams."""
    bits = np.asarray(w).view(np.int16)
    *batch, k, n = bits.shape
    groups = -(-n // (16 * V))
    padded = np.zeros((*batch, k, groups * 16 * V), np.int16)
    padded[..., :n] = bits
    return np.ascontiguousarray(padded.reshape(*batch, k, groups * V, 16).swapaxes(-3, -2))


def product(x: np.ndarray, w_panels: np.ndarray, n: int, out: np.ndarray | None = None) -> np.ndarray:
    """bf16(x @ w) per batch: x (B, M, K) holding bf16 values (any float dtype, any strides),
    w_panels (B, N16, Kp, 16) int16 from `panels` (or an NZ weight's memory, Kp >= K rows each,
    rows past K never read), n the logical N. Returns a bfloat16 (B, M, N) array, or writes
    `out` (a bfloat16 (B, M, N) array whose rows may be strided, columns contiguous)."""
    bfloat16 = ml_dtypes.bfloat16
    b, m, k = x.shape
    wb_count, n16, kp, lanes = w_panels.shape
    assert lanes == 16 and wb_count == b and kp >= k and n16 * 16 >= n, (x.shape, w_panels.shape, n)
    groups = n16 // V
    tail = n16 - groups * V                      # a last panel alone (v = 1)
    width = n16 * 16
    xf = np.empty((b, m, k), np.float32)
    xf[...] = x                                  # bf16 -> float32: exact
    direct = out is not None and n == width and out.strides[-1] == 2 and \
        all(s % 2 == 0 and s >= 0 for s in out.strides)
    y = out if direct else np.empty((b, m, width), bfloat16)
    if m == 0 or b == 0 or n == 0:
        if out is not None and not direct:
            out[...] = y[..., :n]
        return out if out is not None else y[..., :n]
    ldy, yb = y.strides[1] // 2, y.strides[0] // 2
    w_flat = w_panels.reshape(-1)
    wb = n16 * kp * 16
    full, rest = divmod(m, MT)
    jobs = []
    threads = thread_count() if b * m * n * k >= _MIN_PARALLEL else 1
    blocks, start = [(full, 0, MT)], full * MT
    for mt in (4, 2, 1):                         # the rest in tiles of 4, 2, 1: few kernels
        if rest & mt:
            blocks.append((1, start, mt))
            start += mt
    for rows, start, mt in blocks:
        if not rows:
            continue
        x_desc = _memref(xf.ctypes.data + start * k * 4, xf.size)
        y_desc = _memref(y.ctypes.data + start * ldy * 2, y.size)
        w_desc = _memref(w_flat.ctypes.data, w_flat.size)
        for v, items, first in ((V, groups, 0), (1, tail, groups * V)):
            if not items:
                continue
            entry = _function(mt, v)
            # a v = 1 item g reads panel g (its columns g*16): offset the weight and y for the tail
            w_off = first * kp * 16 if v == 1 else 0
            y_off = first * 16 if v == 1 else 0
            wd = _memref(w_flat.ctypes.data + w_off * 2, w_flat.size) if w_off else w_desc
            yd = _memref(y.ctypes.data + (start * ldy + y_off) * 2, y.size) if y_off else y_desc
            total = b * items
            parts = min(threads, total)
            for p in range(parts):
                q0, q1 = total * p // parts, total * (p + 1) // parts
                if q1 > q0:
                    ints = (k, kp, k, ldy, m * k, wb, yb, items, rows, q0, q1)
                    jobs.append(functools.partial(_call, entry, x_desc, wd, yd, ints))
    # one batch of jobs per thread (each job a contiguous range): run them all
    per_thread = [jobs[i::threads] for i in range(min(threads, len(jobs)))]
    _POOL.run([functools.partial(_run_all, js) for js in per_thread])
    if direct:
        return out
    if out is not None:
        out[...] = y[..., :n]
        return out
    return y[..., :n]


def _run_all(jobs):
    for job in jobs:
        job()


@functools.lru_cache(maxsize=None)
def available() -> bool:
    """Can this process compile and run the products (MLIR's ExecutionEngine, an x86-64 or
    other LLVM host target)? Checked once, on a small product against its exact value."""
    try:
        bfloat16 = ml_dtypes.bfloat16
        rng = np.random.default_rng(0)
        x = rng.standard_normal((3, 1, 40)).astype(bfloat16).reshape(1, 3, 40)
        w = rng.standard_normal((1, 40, 40)).astype(bfloat16)
        got = product(x, panels(w), 40)
        want = (x.astype(np.float64) @ w.astype(np.float64)).astype(np.float32).astype(bfloat16)
        return bool(np.array_equal(got.astype(np.float32), want.astype(np.float32)))
    except Exception:                            # no ExecutionEngine, no host target
        return False


# --- MLIR text shared by the kernels ---------------------------------------------------------
# Element types by NumPy dtype name: memref element type of a kernel argument.
MLIR_TYPES = {"bfloat16": "bf16", "float16": "f16", "float32": "f32", "int8": "i8", "int32": "i32", "int64": "i64"}
VF = "vector<16xf32>"
# how a kernel's memref holds each element type: 16-bit floats as their bits (LLVM would call
# conversion helpers the execution engine lacks for masked bf16 vectors)
STORAGE = {"bf16": "i16", "f16": "i16", "f32": "f32", "i8": "i8", "i32": "i32", "i64": "i64"}


def memref(dtype: str) -> str:
    return f"memref<?x{STORAGE[dtype]}>"


class Text:
    """The lines of a kernel, with fresh SSA names (`fresh`) and the 16-lane loads, stores and
    functions the kernels share. Rounding points are explicit: a load widens (exact), a store
    to bf16/f16 is one arith.truncf (half to even)."""

    def __init__(self):
        self.lines, self.count = [], 0

    def fresh(self, stem="v") -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def __call__(self, line: str) -> None:
        self.lines.append(line)

    def let(self, rhs: str, stem="v") -> str:
        name = self.fresh(stem)
        self.lines.append(f"{name} = {rhs}")
        return name

    def load(self, mem: str, index: str, dtype: str, mask: str | None = None) -> str:
        """16 elements of `mem` (of `memref(dtype)`) at `index`, as f32 lanes (masked-off lanes
        read as 0). 16-bit floats are read as their bits (i16) and widened exactly."""
        st = STORAGE[dtype]
        vt = f"vector<16x{st}>"
        if mask is None:
            raw = self.let(f"vector.load {mem}[{index}] : memref<?x{st}>, {vt}")
        else:
            zero = self.let(f"arith.constant dense<0{'.0' * (st == 'f32')}> : {vt}")
            raw = self.let(f"vector.maskedload {mem}[{index}], {mask}, {zero} : memref<?x{st}>, "
                           f"vector<16xi1>, {vt} into {vt}")
        if dtype == "f32":
            return raw
        half = self.let(f"arith.bitcast {raw} : {vt} to vector<16x{dtype}>")
        return self.let(f"arith.extf {half} : vector<16x{dtype}> to {VF}")

    def store(self, value: str, mem: str, index: str, dtype: str, mask: str | None = None) -> None:
        """16 f32 lanes into `mem` (of `memref(dtype)`), rounded once (arith.truncf)."""
        st = STORAGE[dtype]
        vt = f"vector<16x{st}>"
        if dtype != "f32":
            half = self.let(f"arith.truncf {value} : {VF} to vector<16x{dtype}>")
            value = self.let(f"arith.bitcast {half} : vector<16x{dtype}> to {vt}")
        if mask is None:
            self(f"vector.store {value}, {mem}[{index}] : memref<?x{st}>, {vt}")
        else:
            self(f"vector.maskedstore {mem}[{index}], {mask}, {value} : memref<?x{st}>, vector<16xi1>, {vt}")

    def splat(self, value: float) -> str:
        text = repr(float(value)) if np.isfinite(value) else f"0x{np.float32(value).view(np.uint32):08X}"
        return self.let(f"arith.constant dense<{text}> : {VF}", "k")

    def exp(self, x: str) -> str:
        """exp of 16 f32 lanes: Cephes' expf (range reduction by ln 2 in two parts, a degree-5
        polynomial, 2^n by the exponent bits), within 2 ulp; exp(-inf) = 0, NaN stays NaN,
        arguments below -87.3 give 0 (denormal results flushed). One fixed sequence of float32
        operations: the same bits on every call and CPU."""
        lo, hi = self.splat(-88.3762626647949), self.splat(88.3762626647949)
        c = self.let(f"arith.maximumf {x}, {lo} : {VF}")
        c = self.let(f"arith.minimumf {c}, {hi} : {VF}")
        t = self.let(f"vector.fma {c}, {self.splat(1.44269504088896341)}, {self.splat(0.5)} : {VF}")
        fx = self.let(f"math.floor {t} : {VF}")
        r = self.let(f"vector.fma {fx}, {self.splat(-0.693359375)}, {c} : {VF}")
        r = self.let(f"vector.fma {fx}, {self.splat(2.12194440e-4)}, {r} : {VF}")
        y = self.splat(1.9875691500e-4)
        for p in (1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1):
            y = self.let(f"vector.fma {y}, {r}, {self.splat(p)} : {VF}")
        z = self.let(f"arith.mulf {r}, {r} : {VF}")
        y = self.let(f"vector.fma {y}, {z}, {r} : {VF}")
        y = self.let(f"arith.addf {y}, {self.splat(1.0)} : {VF}")
        n = self.let(f"arith.fptosi {fx} : {VF} to vector<16xi32>")
        n = self.let(f"arith.addi {n}, {self.let('arith.constant dense<127> : vector<16xi32>')} : vector<16xi32>")
        n = self.let(f"arith.shli {n}, {self.let('arith.constant dense<23> : vector<16xi32>')} : vector<16xi32>")
        y = self.let(f"arith.mulf {y}, {self.let(f'arith.bitcast {n} : vector<16xi32> to {VF}')} : {VF}")
        nan = self.let(f"arith.cmpf uno, {x}, {x} : {VF}")
        return self.let(f"arith.select {nan}, {x}, {y} : vector<16xi1>, {VF}")

    def text(self, indent: int = 0) -> str:
        pad = " " * indent
        return "\n".join(pad + line for line in self.lines)
