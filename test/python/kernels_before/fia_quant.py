"""Quantization pieces of the FIA kernel (fia.py): KV antiquant, INT4 unpacking, full INT8
quant of P.V, output post-quant. The SEED SILENT choices are listed in fia.py's docstring."""
from __future__ import annotations

import numpy as np

from .common import round_to, saturate_int8

# keyAntiquantMode / valueAntiquantMode values (section 1.18(b)); mode 0 is per-channel or,
# with a one-element parameter, per-tensor.
_SEPARATE_KINDS = {1: "token", 2: "head", 3: "token_head", 4: "pa_token", 5: "pa_token_head"}


class KvDequant:
    """The scale and offset of one side (key or value) and how they are indexed.

    kind: "tensor" (one value), "channel" (KV_N, D), "head" (KV_N,), "token" (B, S'),
    "token_head" (B, KV_N, S'), "pa_token" (block_num, block_size) and "pa_token_head"
    (block_num, KV_N, block_size), the last two addressed through block_table.
    """

    def __init__(self, scale, offset, kind, kv_heads, block_table, block_size):
        self.scale = np.asarray(scale, np.float32)
        self.offset = None if offset is None else np.asarray(offset, np.float32)
        self.kind = kind
        self.kv_heads = kv_heads
        self.table = None if block_table is None else np.asarray(block_table)
        self.block_size = int(block_size)

    @classmethod
    def pair(cls, aq_scale, aq_offset, aq_mode, k_scale, k_offset, k_mode, v_scale, v_offset,
             v_mode, *, incre, kv_heads, block_table, block_size):
        """(key, value) dequant, or (None, None). Separate parameters win (S51)."""
        def make(scale, offset, kind):
            if kind is None:
                kind = "tensor" if np.size(scale) == 1 else "channel"
            return cls(scale, offset, kind, kv_heads, block_table, block_size)

        if k_scale is not None:
            return (make(k_scale, k_offset, _separate_kind(k_mode)),
                    make(v_scale, v_offset, _separate_kind(v_mode)))
        if aq_scale is not None:                       # leading dim 2: [key, value] (S43)
            kind = "token" if incre and int(aq_mode) == 1 else None
            return tuple(make(aq_scale[i], None if aq_offset is None else aq_offset[i], kind)
                         for i in (0, 1))
        return None, None

    def term(self, param, b, lo, hi):
        """The parameter for kv rows lo:hi of batch row b, broadcastable to (KV_N, L, D)."""
        kind, kv = self.kind, self.kv_heads
        if kind == "tensor":
            return param.reshape(())
        if kind == "channel":
            return param.reshape(kv, 1, -1)
        if kind == "head":
            return param.reshape(kv, 1, 1)
        if b is None:
            raise NotImplementedError(f"{kind} antiquant of a shared prefix is not defined")
        if kind == "token":
            return param.reshape(-1, param.shape[-1])[b, lo:hi].reshape(1, -1, 1)
        if kind == "token_head":
            return param.reshape(-1, kv, param.shape[-1])[b, :, lo:hi, None]
        ids = self.table[b, :-(-hi // self.block_size)]
        if kind == "pa_token":
            return param[ids].reshape(1, -1, 1)[:, lo:hi]
        return param[ids].transpose(1, 0, 2).reshape(kv, -1, 1)[:, lo:hi]   # pa_token_head


def _separate_kind(mode):
    mode = int(mode)
    if mode == 0:
        return None
    if mode not in _SEPARATE_KINDS:
        raise NotImplementedError(f"antiquant mode {mode} (per-token-group) has no CPU kernel")
    return _SEPARATE_KINDS[mode]


def dequantize(raw, deq, b, lo, hi, compute_dtype):
    """(x + offset) * scale in float32, rounded to the compute dtype (S42); raw if no deq."""
    if deq is None:
        return raw
    x = raw.astype(np.float32)
    if deq.offset is not None:
        x = x + deq.term(deq.offset, b, lo, hi)
    x = x * deq.term(deq.scale, b, lo, hi)
    return x if compute_dtype is None else round_to(x, compute_dtype)


def unpack_int4(packed):
    """INT32 holding 8 signed INT4 -> int8 with an 8x longer last dim (S52)."""
    shifts = np.arange(8, dtype=np.int32) * 4
    nibbles = (packed[..., None] >> shifts) & 0xF
    signed = np.where(nibbles >= 8, nibbles - 16, nibbles).astype(np.int8)
    return signed.reshape(*packed.shape[:-1], packed.shape[-1] * 8)


def scale_from_bits(x):
    """A per-tensor dequant scale: float32, or uint64 whose low 32 bits are its bits (S36)."""
    a = np.asarray(x).reshape(-1)[:1]
    if a.dtype == np.uint64:
        return (a & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32)[0]
    return np.float32(a[0])


F16_MAX = np.float32(65504)


def _f16(x):
    """Round to float16 (half to even) and back to float32: one step of the device's half
    arithmetic (a product or sum of two halves is exact in float32, then rounded once)."""
    return np.asarray(x, np.float32).astype(np.float16).astype(np.float32)


def _float19(scale):
    """The dequant scale as the Cube's fixpipe applies it: float32 with the low 13 mantissa
    bits cleared (sign, 8-bit exponent, 10-bit mantissa)."""
    return (np.float32(scale).view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)


class FullQuant:
    """Full INT8 quantization (int8 query, key and value), in the device's order.

    The PromptFlashAttention kernel computes the int8 path in half (prompt_flash_attention_
    base.h, PromptFlashAttentionTypeTraits<int8_t>: mmOutputType = softmaxType = half):
      s  = f16(sat(float(Q8.K8^T) * deq1))  fixpipe dequant (mm1 SetQuantScalar) into half,
      s  = f16(f16(s + pse) * f16(scale))    then pse (half) and the scale (Muls in half),
      e  = f16(exp(s - rowmax)), rowsum of the unrounded e (SoftmaxFlashV2: not normalized),
      P8 = sat(rint(f16(e * f16(quant_scale1))))   QuantCompute on the unnormalized e
           (prompt_flash_attention_s1s2_bns1_x910.h, after the softmax of each tile),
      O  = float(P8.V8) * deq2 / f16(rowsum)      bmm2 SetQuantScalar(deq2), then the division
           by the row sum after all of P.V (Bmm2UpdateDivNoTail, the sum cast to half).
    deq1 and deq2 are 19-bit floats in the fixpipe. CANN's golden for this path
    (_np_pfaattention_act_int8 in the FIA V2 ST executor) follows the same order. The rowmax is
    the global one (the device's 1024-column tiles rescale the running max: within ~1 ulp).
    """

    def __init__(self, dequant_scale1, quant_scale1, dequant_scale2):
        self.deq1 = _float19(scale_from_bits(dequant_scale1))
        self.qs1 = _f16(np.asarray(quant_scale1, np.float32).reshape(-1)[0])
        self.deq2 = _float19(scale_from_bits(dequant_scale2))

    def scores(self, ints, bias, scale):
        """Exact integer scores Q8.K8^T -> the half scores the softmax reads (float32)."""
        s = _f16(np.clip(ints.astype(np.float32) * self.deq1, -F16_MAX, F16_MAX))
        if bias is not None:
            s = _f16(s + _f16(bias))
        return _f16(s * _f16(scale))

    def pv(self, e, row_sum, v):
        """e = exp(s - rowmax), row_sum (Bg, N, S1, L / 1); v (Bg * KV_N, L, Dv) holding
        integers -> O (Bg, N, S1, Dv) float32, normalized."""
        p8 = saturate_int8(_f16(_f16(e) * self.qs1)).astype(np.float64)
        pairs, length = v.shape[0], v.shape[1]
        o32 = np.matmul(p8.reshape(pairs, -1, length), v)       # exact integer sums
        o = (o32.astype(np.float32) * self.deq2).reshape(*e.shape[:-1], -1)
        return o / np.maximum(_f16(row_sum), np.float32(2.0**-24))


class MlaFullQuant:
    """The MLA full-quant mode (aclnn V4 / torch_npu v2): an int8 query over the int8 latent
    cache, bf16 rope parts, per-(token, head) query scales dq and per-tensor key/value scales
    dk, dv, bf16 output. The documents give the interface, not the arithmetic; the order below
    is the device's A2 kernel (NON-SEED EVIDENCE, ops-transformer attention/incre_flash_attention
    /op_kernel: ifa_service_matmul_full_quant.h and incre_flash_attention_preload_mla.h with
    MM1_RES_ADD, MM1_DATO and QUANT_MM2_FP16 defined in ifa_public_define.h; the 512-key tiles
    of the MLA mode: incre_flash_attention_tiling.cpp, sInnerSize_ with ropeFlag_):
      acc = Q8.K8^T + Qr.Kr^T     one float32 accumulator: the exact int32 nope sum, converted in
                                  place, takes the bf16 rope products (so the rope part shares
                                  the dequant factor, which is why mla.prolog_v2 in FQ-KVQ writes
                                  query_rope * quant_scale_ckv / dequant_scale_q_nope),
      s   = acc * f32(f32(dq[token, head] * dk) * scale_value)      float32 rows,
    then per tile of 512 keys, online (m the running row max, e = exp(s - m)):
      P8  = rint(f16(e * 127 / max e))       the tile against its own max,
      Ot  = f16(f16(P8.V8 / 1024) * f16(max e)),  O = f16(f16(O * f16(exp(m_old - m))) + Ot),
    and at the end O * 1024 / rowsum * f32(dv * f32(1/127)), rounded to bf16. The exponentials
    come from the kernel's global-max ones (e_global / running max): within a float32 ulp of the
    device's exp(s - m). Not modelled: the flash-decode split of one row's keys across cores,
    which the device uses for small batches."""

    P_SCALE = np.float32(127.0)
    TILE = 512
    _TINY = np.float32(2.0**-126)

    def __init__(self, dequant_scale_query_bnsd, key_scale, value_scale, scale_value):
        dk = np.float32(np.asarray(key_scale, np.float32).reshape(-1)[0])
        self.factor = np.asarray(dequant_scale_query_bnsd, np.float32)[..., 0] * dk  # (B, N, S)
        self.factor = (self.factor * np.float32(scale_value)).astype(np.float32)
        self.out_scale = np.float32(np.asarray(value_scale, np.float32).reshape(-1)[0]
                                    * (np.float32(1.0) / self.P_SCALE))

    def for_rows(self, sel, rows):
        """The same quantization restricted to one group of batch rows and query rows."""
        part = object.__new__(MlaFullQuant)
        part.factor = self.factor[sel][:, :, rows]
        part.out_scale = self.out_scale
        return part

    def scores(self, acc, bias, scale):
        """acc (Bg, N, S1, L): the exact nope + rope sums; bias is None in MLA mode and the
        scale is already in the row factor."""
        return np.asarray(acc).astype(np.float32) * self.factor[..., None]

    def pv(self, e, row_sum, v):
        """e = exp(s - rowmax) (Bg, N, S1, L), row_sum (.., 1), v (Bg * KV_N, L, Dv) integers."""
        pairs, length = v.shape[0], v.shape[1]
        o = run = None
        for lo in range(0, length, self.TILE):
            tile = e[..., lo:lo + self.TILE]
            new = tile.max(axis=-1, keepdims=True)
            new = np.maximum(new if run is None else np.maximum(run, new), self._TINY)
            local = (tile / new).astype(np.float32)             # exp(s - running max)
            p_max = np.maximum(local.max(axis=-1, keepdims=True), self._TINY)
            p8 = np.rint(_f16(local * (self.P_SCALE / p_max))).astype(np.float64)
            ints = np.matmul(p8.reshape(pairs, -1, tile.shape[-1]),
                             np.asarray(v[:, lo:lo + self.TILE], np.float64))   # exact
            part = _f16(ints.astype(np.float32) * np.float32(1.0 / 1024)).reshape(*e.shape[:-1], -1)
            part = _f16(part * _f16(p_max))
            o = part if o is None else _f16(_f16(o * _f16(run / new)) + part)
            run = new
        return o * np.float32(1024) / np.maximum(row_sum, np.float32(2.0**-24)) * self.out_scale


def post_quantize(o, quant_scale2, quant_offset2):
    """(B, N, S, D) float32 -> int8: sat(rint(o * scale + offset)), per tensor or channel."""
    n, d = o.shape[1], o.shape[3]
    # per-channel (c = n * D + d) or per-tensor; a null quant_offset2 is offset 0 (S34)
    layout = (1, n, 1, d) if np.size(quant_scale2) > 1 else ()
    scale = np.asarray(quant_scale2, np.float32).reshape(layout)
    offset = 0 if quant_offset2 is None else np.asarray(quant_offset2, np.float32).reshape(layout)
    return saturate_int8(o * scale + offset)
