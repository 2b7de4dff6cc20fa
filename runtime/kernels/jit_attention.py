"""The absorbed MLA attention (query D 512 + rope 64, one latent kv head, bf16 page caches in
PA_BSND) of FIA's decode and MTP calls and of mla.paged_attention (a prefill over the cache),
compiled by MLIR (jit.py), reading the caches' bf16 pages in place through the block table:
no gather, no float32 copy of K/V, no BLAS. Three kernels, each
split among threads by independent outputs, so the bits do not depend on the thread count:

  scores   s[b, r, l] = (q[b, r] . [kv ; kr][l]) * scale            rows r = (token, head)
  softmax  m = max_l s, e = exp(s - m), sum = sum_l e (float32), p = bf16(e), per row, over
           the keys the row sees (sparse mode 3: row s of Q_S sees l <= L - Q_S + s)
  values   o[b, r] = bf16( (sum_l p[b, r, l] * kv[l, :512]) / max(sum, 1e-30) )

the formulas and rounding points of docs/numerics.md ("FusedInferAttentionScore in MLA mode").
A bf16 pair read as one int32 is two float32 values by a shift and a mask (the lower element in
the low half), so the dot products run over even and odd elements in 16 lanes each, and each
score's lanes are summed by a fixed tree of shuffles: every sum has one order on every call.
"""
from __future__ import annotations

import functools

import numpy as np

from . import jit
from .fia_ops import WORKSPACE
from .jit import VF, Text

LATENT, ROPE = 512, 64
BLOCKS = (LATENT + ROPE) // 32          # 32-element blocks of a query row: 16 latent, 2 rope
RT, KT = 4, 4                           # scores: a tile of 4 rows x 4 keys (16 accumulators)
CHUNK = 16                              # keys per work item of the scores (they stay in L1)
VR, VWORDS = 8, 1                       # values: tiles of 8 rows x 32 columns (16 accumulators)
VI = "vector<16xi32>"
MAX_SCORES = 1 << 26                    # float32 scores of one call (256 MiB): more, batch rows split


def _lane_sums(t: Text, accs: list[str]) -> str:
    """One vector whose lane k is the sum of the lanes of accs[k] (16 vectors): a fixed tree of
    half-and-half shuffles and adds."""
    level, width = accs, 16
    while len(level) > 1:
        half = width // 2
        lo = [g * width + i for g in range(32 // width) for i in range(half)]
        hi = [g * width + half + i for g in range(32 // width) for i in range(half)]
        nxt = []
        for a, b in zip(level[0::2], level[1::2]):
            x = t.let(f"vector.shuffle {a}, {b} {lo} : {VF}, {VF}")
            y = t.let(f"vector.shuffle {a}, {b} {hi} : {VF}, {VF}")
            nxt.append(t.let(f"arith.addf {x}, {y} : {VF}"))
        level, width = nxt, half
    return level[0]


def _pair(t: Text, word: str) -> tuple[str, str]:
    """The even and odd bf16 elements of 16 int32 pairs, as float32 lanes (exact)."""
    even = t.let(f"arith.bitcast {t.let(f'arith.shli {word}, %s16 : {VI}')} : {VI} to {VF}")
    odd = t.let(f"arith.bitcast {t.let(f'arith.andi {word}, %hi16 : {VI}')} : {VI} to {VF}")
    return even, odd


_CONSTS = """  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant dense<0.0> : vector<16xf32>
  %s16 = arith.constant dense<16> : vector<16xi32>
  %hi16 = arith.constant dense<-65536> : vector<16xi32>"""


def _scores_text() -> str:
    t = Text()
    t("%b = arith.divui %q, %C : index")
    t("%ch = arith.remui %q, %C : index")
    t("%L64 = memref.load %lens[%b] : memref<?xi64>")
    t("%L = arith.index_cast %L64 : i64 to index")
    t("%Lm1 = arith.subi %L, %c1 : index")
    t("%lstart = arith.muli %ch, %cchunk : index")
    t("%live = arith.cmpi ult, %lstart, %L : index")
    t("scf.if %live {")
    t("%qb = arith.muli %b, %Rp : index")
    t("%tb = arith.muli %b, %W : index")
    t("%sb = arith.muli %qb, %Lp : index")
    t("scf.for %rt = %c0 to %Rp step %c4 {")
    t("scf.for %kt = %c0 to %cchunk step %c4 {")
    t("%l0 = arith.addi %lstart, %kt : index")
    t("%tile = arith.cmpi ult, %l0, %L : index")
    t("scf.if %tile {")
    # the 4 keys' rows (the last tile's keys past L read key L-1: scores never used)
    t("%blkpos = arith.divui %l0, %bs : index")
    t("%ti = arith.addi %tb, %blkpos : index")
    t("%blk32 = memref.load %table[%ti] : memref<?xi32>")
    t("%blk = arith.index_cast %blk32 : i32 to index")
    t("%base = arith.muli %blk, %bs : index")
    kv_off, kr_off = [], []
    for j in range(KT):
        pos = t.let(f"arith.addi %l0, %cj{j} : index")
        pos = t.let(f"arith.minui {pos}, %Lm1 : index")
        row = t.let(f"arith.addi %base, {t.let(f'arith.remui {pos}, %bs : index')} : index")
        kv_off.append(t.let(f"arith.muli {row}, %kvrow : index"))
        kr_off.append(t.let(f"arith.muli {row}, %krrow : index"))
    q_off = []
    for i in range(RT):
        row = t.let(f"arith.addi %qb, {t.let(f'arith.addi %rt, %cj{i} : index')} : index")
        q_off.append(t.let(f"arith.muli {row}, %cqrow : index"))
    accs = [f"%a{i}_{j}" for i in range(RT) for j in range(KT)]

    def block_loop(name, count, q_block0, mem, offs, init):
        t(f"{name}:{len(accs)} = scf.for %m = %c0 to {count} step %c1 iter_args("
          + ", ".join(f"{a} = {v}" for a, v in zip(accs, init)) + ") -> (" + ", ".join([VF] * len(accs)) + ") {")
        m16 = t.let("arith.muli %m, %c16 : index")
        mq = t.let(f"arith.muli {t.let(f'arith.addi %m, {q_block0} : index')}, %c32 : index")
        qs = []
        for i in range(RT):
            qi = t.let(f"arith.addi {q_off[i]}, {mq} : index")
            qo = t.let(f"arith.addi {qi}, %c16 : index")
            qs.append((t.let(f"vector.load %qv[{qi}] : memref<?xf32>, {VF}"),
                       t.let(f"vector.load %qv[{qo}] : memref<?xf32>, {VF}")))
        new = {}
        for j in range(KT):
            at = t.let(f"arith.addi {offs[j]}, {m16} : index")
            word = t.let(f"vector.load {mem}[{at}] : memref<?xi32>, {VI}")
            even, odd = _pair(t, word)
            for i in range(RT):
                a = f"%a{i}_{j}"
                x = t.let(f"vector.fma {qs[i][0]}, {even}, {a} : {VF}")
                new[a] = t.let(f"vector.fma {qs[i][1]}, {odd}, {x} : {VF}")
        t("scf.yield " + ", ".join(new[a] for a in accs) + " : " + ", ".join([VF] * len(accs)))
        t("}")
        return [f"{name}#{k}" for k in range(len(accs))]
    latent = block_loop("%lat", "%c16", "%c0", "%kv", kv_off, ["%zero"] * len(accs))
    rope = block_loop("%rop", "%c2", "%c16", "%kr", kr_off, latent)
    sums = _lane_sums(t, rope)
    sums = t.let(f"arith.mulf {sums}, {t.let(f'vector.broadcast %scale : f32 to {VF}')} : {VF}")
    for i in range(RT):
        part = t.let(f"vector.extract_strided_slice {sums} {{offsets = [{i * KT}], sizes = [{KT}], strides = [1]}}"
                     f" : {VF} to vector<{KT}xf32>")
        row = t.let(f"arith.addi %rt, %cj{i} : index")
        so = t.let(f"arith.addi %sb, {t.let(f'arith.muli {row}, %Lp : index')} : index")
        t(f"vector.store {part}, %s[{t.let(f'arith.addi {so}, %l0 : index')}] : memref<?xf32>, vector<{KT}xf32>")
    t("}")            # tile
    t("}")            # kt
    t("}")            # rt
    t("}")            # live
    consts = "\n".join(f"  %cj{j} = arith.constant {j} : index" for j in range(max(RT, KT)))
    return ("func.func @kernel(%qv: memref<?xf32>, %kv: memref<?xi32>, %kr: memref<?xi32>, %table: memref<?xi32>, "
            "%lens: memref<?xi64>, %s: memref<?xf32>, %Rp: index, %Lp: index, %W: index, %bs: index, "
            "%kvrow: index, %krrow: index, %C: index, %q0: index, %q1: index, %scale: f32) "
            f"attributes {{llvm.emit_c_interface}} {{\n{_CONSTS}\n{consts}\n"
            f"  %c2 = arith.constant 2 : index\n  %c32 = arith.constant 32 : index\n"
            f"  %cchunk = arith.constant {CHUNK} : index\n  %cqrow = arith.constant {BLOCKS * 32} : index\n"
            "  scf.for %q = %q0 to %q1 step %c1 {\n" + t.text(4) + "\n  }\n  return\n}")


def _softmax_text() -> str:
    """Rows g in [r0, r1) of (B, Rp): the keys row (b, r) sees, L_r = min(L_b, L_b - S + r / N
    + 1) (all L_b for S = 1), none for padding rows r >= R."""
    t = Text()
    t("%b = arith.divui %g, %Rp : index")
    t("%r = arith.remui %g, %Rp : index")
    t("%L64 = memref.load %lens[%b] : memref<?xi64>")
    t("%L = arith.index_cast %L64 : i64 to index")
    t("%tok = arith.divui %r, %N : index")
    t("%seen0 = arith.addi %L, %tok : index")
    t("%seen1 = arith.addi %seen0, %c1 : index")
    t("%early = arith.cmpi ult, %seen1, %S : index")          # L - S + tok + 1 < 0
    t("%seen2 = arith.subi %seen1, %S : index")
    t("%seen3 = arith.select %early, %c0, %seen2 : index")
    t("%real = arith.cmpi ult, %r, %R : index")
    t("%Lr = arith.select %real, %seen3, %c0 : index")
    t("%so = arith.muli %g, %Lp : index")
    t("%tail_n = arith.andi %Lr, %c15 : index")
    t("%full = arith.subi %Lr, %tail_n : index")
    t("%tail_mask = vector.create_mask %tail_n : vector<16xi1>")
    ninf = t.splat(float("-inf"))
    # the row max
    t(f"%mx = scf.for %l = %c0 to %full step %c16 iter_args(%m = {ninf}) -> ({VF}) {{")
    v = t.let(f"vector.load %s[{t.let('arith.addi %so, %l : index')}] : memref<?xf32>, {VF}")
    t(f"%m2 = arith.maximumf %m, {v} : {VF}")
    t(f"scf.yield %m2 : {VF}")
    t("}")
    vt = t.let(f"vector.maskedload %s[{t.let('arith.addi %so, %full : index')}], %tail_mask, {ninf} : memref<?xf32>, "
               f"vector<16xi1>, {VF} into {VF}")
    t(f"%mx2 = arith.maximumf %mx, {vt} : {VF}")
    t(f"%rowmax0 = vector.reduction <maximumf>, %mx2 : {VF} into f32")
    t("%ninf = arith.constant 0xFF800000 : f32")
    t("%isninf = arith.cmpf oeq, %rowmax0, %ninf : f32")
    t("%fz = arith.constant 0.0 : f32")
    t("%rowmax = arith.select %isninf, %fz, %rowmax0 : f32")       # no key: subtract 0
    t(f"%mv = vector.broadcast %rowmax : f32 to {VF}")

    def exp_round(t, index, mask, acc):
        s = (t.let(f"vector.load %s[{index}] : memref<?xf32>, {VF}") if mask is None else
             t.let(f"vector.maskedload %s[{index}], {mask}, {ninf} : memref<?xf32>, vector<16xi1>, {VF} into {VF}"))
        e = t.exp(t.let(f"arith.subf {s}, %mv : {VF}"))
        p = t.let(f"arith.extf {t.let(f'arith.truncf {e} : {VF} to vector<16xbf16>')} : vector<16xbf16> to {VF}")
        if mask is None:
            t(f"vector.store {p}, %s[{index}] : memref<?xf32>, {VF}")
        else:
            t(f"vector.maskedstore %s[{index}], {mask}, {p} : memref<?xf32>, vector<16xi1>, {VF}")
        return t.let(f"arith.addf {acc}, {e} : {VF}")
    t(f"%sm = scf.for %l = %c0 to %full step %c16 iter_args(%acc = %zero) -> ({VF}) {{")
    t(f"scf.yield {exp_round(t, t.let('arith.addi %so, %l : index'), None, '%acc')} : {VF}")
    t("}")
    sm = exp_round(t, t.let("arith.addi %so, %full : index"), "%tail_mask", "%sm")
    t(f"%rowsum = vector.reduction <add>, {sm} : {VF} into f32")
    t("%tiny = arith.constant 1.0e-30 : f32")
    t("%clamped = arith.maximumf %rowsum, %tiny : f32")
    t("memref.store %clamped, %sum[%g] : memref<?xf32>")
    t("memref.store %rowmax, %max[%g] : memref<?xf32>")
    # keys the row does not see (up to L_b, which the values read) weigh 0
    t("%fz32 = arith.constant 0.0 : f32")
    t("scf.for %l = %Lr to %L step %c1 {")
    t("memref.store %fz32, %s[" + t.let("arith.addi %so, %l : index") + "] : memref<?xf32>")
    t("}")
    return ("func.func @kernel(%s: memref<?xf32>, %lens: memref<?xi64>, %sum: memref<?xf32>, %max: memref<?xf32>, "
            "%Rp: index, %R: index, %Lp: index, %N: index, %S: index, %r0: index, %r1: index) "
            f"attributes {{llvm.emit_c_interface}} {{\n{_CONSTS}\n  %c15 = arith.constant 15 : index\n"
            "  scf.for %g = %r0 to %r1 step %c1 {\n" + t.text(4) + "\n  }\n  return\n}")


def _values_text(vr: int, words: int) -> str:
    """o for rows tiles of `vr` rows x 32 * `words` columns (2 * words accumulators a row:
    the even and the odd columns of each 16-pair word)."""
    t = Text()
    cols = 32 * words
    t("%b = arith.divui %q, %CC : index")
    t("%cc = arith.remui %q, %CC : index")
    t("%L64 = memref.load %lens[%b] : memref<?xi64>")
    t("%L = arith.index_cast %L64 : i64 to index")
    t("%nblk = arith.ceildivui %L, %bs : index")
    t("%qb = arith.muli %b, %Rp : index")
    t("%tb = arith.muli %b, %W : index")
    t(f"%col = arith.muli %cc, %c{cols} : index")
    t("%coli = arith.divui %col, %c2 : index")
    t(f"scf.for %rt = %c0 to %Rp step %c{vr} {{")
    rows = []
    for i in range(vr):
        rows.append(t.let(f"arith.addi %qb, {t.let(f'arith.addi %rt, %c{i} : index')} : index"))
    p_base = [t.let(f"arith.muli {r}, %Lp : index") for r in rows]
    per_row = 2 * words
    accs = [f"%a{i}_{k}" for i in range(vr) for k in range(per_row)]
    types = ", ".join([VF] * len(accs))
    t(f"%o:{len(accs)} = scf.for %blk = %c0 to %nblk step %c1 iter_args("
      + ", ".join(f"{a} = %zero" for a in accs) + f") -> ({types}) {{")
    t("%ti = arith.addi %tb, %blk : index")
    t("%id32 = memref.load %table[%ti] : memref<?xi32>")
    t("%id = arith.index_cast %id32 : i32 to index")
    t("%base = arith.muli %id, %bs : index")
    t("%l0 = arith.muli %blk, %bs : index")
    t("%left = arith.subi %L, %l0 : index")
    t("%count = arith.minui %left, %bs : index")
    t("%vbase = arith.muli %base, %kvrow : index")
    t("%vstart = arith.addi %vbase, %coli : index")
    p_start = [t.let(f"arith.addi {pb}, %l0 : index") for pb in p_base]
    inner = [f"%i{i}_{k}" for i in range(vr) for k in range(per_row)]
    t(f"%in:{len(accs)} = scf.for %o = %c0 to %count step %c1 iter_args("
      + ", ".join(f"{a} = {b}" for a, b in zip(inner, accs)) + f") -> ({types}) {{")
    vrow = t.let(f"arith.addi %vstart, {t.let('arith.muli %o, %kvrow : index')} : index")
    halves = []
    for h in range(words):
        at = t.let(f"arith.addi {vrow}, %c{16 * h} : index") if h else vrow
        word = t.let(f"vector.load %kv[{at}] : memref<?xi32>, {VI}")
        halves += list(_pair(t, word))                   # even, odd of columns [32h, 32h + 32)
    new = []
    for i in range(vr):
        p = t.let(f"memref.load %p[{t.let(f'arith.addi {p_start[i]}, %o : index')}] : memref<?xf32>")
        pv = t.let(f"vector.broadcast {p} : f32 to {VF}")
        for k in range(per_row):
            new.append(t.let(f"vector.fma {pv}, {halves[k]}, %i{i}_{k} : {VF}"))
    t(f"scf.yield {', '.join(new)} : {types}")
    t("}")
    t(f"scf.yield {', '.join(f'%in#{k}' for k in range(len(accs)))} : {types}")
    t("}")
    even_odd_lo = [x for i in range(8) for x in (i, 16 + i)]
    even_odd_hi = [x for i in range(8, 16) for x in (i, 16 + i)]
    for i in range(vr):
        r = t.let(f"arith.addi %rt, %c{i} : index")
        real = t.let(f"arith.cmpi ult, {r}, %R : index")
        t(f"scf.if {real} {{")
        sv = t.let(f"vector.broadcast {t.let(f'memref.load %sum[{rows[i]}] : memref<?xf32>')} : f32 to {VF}")
        out_row = t.let(f"arith.addi {t.let('arith.muli %b, %R : index')}, {r} : index")
        out = t.let(f"arith.addi {t.let(f'arith.muli {out_row}, %vrow : index')}, %col : index")
        for h in range(words):
            even = t.let(f"arith.divf %o#{i * per_row + 2 * h}, {sv} : {VF}")
            odd = t.let(f"arith.divf %o#{i * per_row + 2 * h + 1}, {sv} : {VF}")
            for part, lanes in enumerate((even_odd_lo, even_odd_hi)):
                cols16 = t.let(f"vector.shuffle {even}, {odd} {lanes} : {VF}, {VF}")
                t.store(cols16, "%out", t.let(f"arith.addi {out}, %c{32 * h + 16 * part} : index"), "bf16")
        t("}")
    t("}")
    consts = "\n".join(f"  %c{j} = arith.constant {j} : index" for j in sorted({2, 32, 48, cols, vr} | set(range(vr)) - {0, 1, 4, 16}))
    return ("func.func @kernel(%p: memref<?xf32>, %kv: memref<?xi32>, %table: memref<?xi32>, %lens: memref<?xi64>, "
            "%sum: memref<?xf32>, %out: memref<?xi16>, %Rp: index, %R: index, %Lp: index, %W: index, %bs: index, "
            "%kvrow: index, %vrow: index, %CC: index, %q0: index, %q1: index) "
            f"attributes {{llvm.emit_c_interface}} {{\n{_CONSTS}\n{consts}\n"
            "  scf.for %q = %q0 to %q1 step %c1 {\n" + t.text(4) + "\n  }\n  return\n}")


def _entries():
    return (jit.compiled(("mla_scores",), _scores_text), jit.compiled(("mla_softmax",), _softmax_text),
            jit.compiled(("mla_values", VR, VWORDS), functools.partial(_values_text, VR, VWORDS)))


@functools.lru_cache(maxsize=None)
def available() -> bool:
    """Can this process compile the attention kernels (checked once)?"""
    try:
        _entries()
        return True
    except Exception:                        # no ExecutionEngine
        return False


def serves(query, query_rope, kv_cache, kr_cache, block_size) -> bool:
    """Can `attention` run this call: the compiled kernels available (with ASCEND_MLA_MATMUL auto
    or jit), C-contiguous bf16 arrays, the query (..., 512) with its rope (..., 64), caches of
    (BlockNum, block_size, [1,] 512 / 64) elements (PA_BSND or BnBsH: the same memory)?"""
    from .common import bfloat16, mlir_kernels
    arrays = (query, query_rope, kv_cache, kr_cache)
    if not all(isinstance(a, np.ndarray) and a.dtype == bfloat16 and a.flags.c_contiguous and a.ndim for a in arrays):
        return False
    if query.shape[-1] != LATENT or query_rope.shape[-1] != ROPE or query.shape[:-1] != query_rope.shape[:-1] \
            or kv_cache.shape[-1] != LATENT or kr_cache.shape[-1] != ROPE:
        return False
    if kv_cache.size != kv_cache.shape[0] * block_size * LATENT or kr_cache.size != kr_cache.shape[0] * block_size * ROPE:
        return False
    return mlir_kernels() and available()


def attention(query, query_rope, kv_cache, kr_cache, block_table, kv_lengths, scale, block_size,
              lse: bool):
    """MLA attention (the module doc): query (B, S, N, 512) and query_rope (B, S, N, 64) bf16,
    the caches (BlockNum, BlockSize, 1, D) bf16, C-contiguous; kv_lengths (B,) ints, every
    block they reach listed in block_table (B, W) int32. Returns (out (B, S, N, 512) bf16,
    lse (B, N, S, 1) float32 or None)."""
    from .common import bfloat16
    b, s, n, _ = query.shape
    r = s * n
    rp = -(-r // max(RT, VR)) * max(RT, VR)
    lens = np.ascontiguousarray(kv_lengths, np.int64).reshape(b)
    lmax = int(lens.max()) if b else 0
    lp = max(KT, -(-lmax // KT) * KT)
    if b > 1 and b * rp * lp > MAX_SCORES:           # the scores of fewer batch rows at a time
        half = b // 2
        parts = [attention(query[i:j], query_rope[i:j], kv_cache, kr_cache, block_table[i:j], lens[i:j],
                           scale, block_size, lse) for i, j in ((0, half), (half, b))]
        return (np.concatenate([p[0] for p in parts]),
                None if not lse else np.concatenate([p[1] for p in parts]))
    # the query as float32 (exact), each 32-element block as its 16 even then its 16 odd
    # elements: a bf16 value is the float32 with its bits on top, so the bits are copied into
    # the upper halves of a buffer whose lower halves stay zero
    qf = WORKSPACE.zeros("mla_q", (b, rp, BLOCKS, 2, 16))
    upper = qf.view(np.int16)[..., 1::2]
    upper[:, :r, :LATENT // 32] = query.view(np.int16).reshape(b, r, LATENT // 32, 16, 2).swapaxes(-1, -2)
    upper[:, :r, LATENT // 32:] = query_rope.view(np.int16).reshape(b, r, ROPE // 32, 16, 2).swapaxes(-1, -2)
    if r < rp:
        upper[:, r:] = 0
    scores = WORKSPACE.empty("mla_scores", (b, rp, lp))
    sums = np.empty((b, rp), np.float32)
    maxes = np.empty((b, rp), np.float32)
    out = np.empty((b, s, n, LATENT), bfloat16)
    table = np.ascontiguousarray(block_table, np.int32)
    kv = kv_cache.reshape(-1).view(np.int32)
    kr = kr_cache.reshape(-1).view(np.int32)
    scores_fn, softmax_fn, values_fn = _entries()
    chunks = -(-lmax // CHUNK)
    w = table.shape[1]
    jit.parallel(b * chunks, lambda q0, q1: jit.invoke(
        scores_fn, (qf, kv, kr, table, lens, scores),
        (rp, lp, w, block_size, LATENT // 2, ROPE // 2, chunks, q0, q1), (scale,)), b * r * lmax * 576)
    jit.parallel(b * rp, lambda r0, r1: jit.invoke(
        softmax_fn, (scores, lens, sums, maxes), (rp, r, lp, n, s, r0, r1)), b * r * lmax * 8)
    column_chunks = LATENT // (32 * VWORDS)
    jit.parallel(b * column_chunks, lambda q0, q1: jit.invoke(
        values_fn, (scores, kv, table, lens, sums, out.reshape(-1).view(np.int16)),
        (rp, r, lp, w, block_size, LATENT // 2, LATENT, column_chunks, q0, q1)), b * r * lmax * 512)
    if not lse:
        return out, None
    with np.errstate(divide="ignore"):
        log = np.log(sums[:, :r]) + maxes[:, :r]
    seen = lens[:, None] - s + np.arange(r)[None, :] // n + 1
    log = np.where(seen > 0, log, -np.inf).astype(np.float32)
    return out, np.ascontiguousarray(log.reshape(b, s, n).transpose(0, 2, 1))[..., None]
