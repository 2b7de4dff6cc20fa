"""Layouts, lengths and output of the FIA kernel (runtime/kernels/fia.py): query-like layouts
to and from BNSD, the TND layouts as a packing of BNSD (Tnd), valid query and kv rows per batch
row, the compute and output dtypes, the operands' logical forms (NZ unpacked, INT4 widened) and
the last step (finish: rounding or post-quant, rows without keys zeroed, back to the layout)."""
from __future__ import annotations

import numpy as np

from ..formats import NZTensor
from .common import bfloat16
from .fia_quant import post_quantize, unpack_int4


def to_bnsd(x, layout, heads):
    """query-like (BSH, BSND, BNSD, BNSD_BSND) -> a (B, N, S, D) view."""
    if layout == "BSH":
        b, s, h = x.shape
        return x.reshape(b, s, heads, h // heads).transpose(0, 2, 1, 3)
    if layout == "BSND":
        return x.transpose(0, 2, 1, 3)
    return x


def from_bnsd(o, layout):
    if layout == "BSH":
        b, n, s, d = o.shape
        return o.transpose(0, 2, 1, 3).reshape(b, s, n * d)
    if layout in ("BSND", "BNSD_BSND"):
        return o.transpose(0, 2, 1, 3)
    return o


def per_batch(values, default, batch):
    if values is None:
        return list(default)
    values = [int(v) for v in values]
    return values * batch if len(values) == 1 else values[:batch]


def valid_query_rows(actual_seq_lengths, query_padding_size, batch, q_seq, incre):
    """Valid query rows per batch row (slices), and whether query left padding is on."""
    if incre:                                        # actual_seq_lengths is ignored
        return [slice(0, 1)] * batch, False
    lengths = per_batch(actual_seq_lengths, [q_seq] * batch, batch)
    left = query_padding_size is not None and actual_seq_lengths is not None
    if not left:
        return [slice(0, n) for n in lengths], False
    end = q_seq - padding(query_padding_size)       # right-aligned, `pad` rows after
    return [slice(end - n, end) for n in lengths], True


def valid_kv_rows(actual_seq_lengths_kv, kv_padding_size, keys, batch):
    """(lo, hi) physical kv rows per batch row, and whether kv left padding is on."""
    physical = [keys.length(b) for b in range(batch)]
    lengths = per_batch(actual_seq_lengths_kv, physical, batch)
    left = (kv_padding_size is not None and actual_seq_lengths_kv is not None
            and not keys.is_paged and not keys.is_list)    # else: right padding (S18)
    if not left:
        return [(0, n) for n in lengths], False
    pad = padding(kv_padding_size)
    return [(s - pad - n, s - pad) for s, n in zip(physical, lengths)], True


def padding(size):
    return max(int(np.asarray(size).reshape(-1)[0]), 0)



def compute_dtype_of(query_dtype):
    """The 16-bit type the kernel feeds to P.V and antiquant results (None: no rounding)."""
    dt = np.dtype(query_dtype)
    if dt == bfloat16:
        return bfloat16
    if dt in (np.float16, np.int8):
        return np.dtype(np.float16)
    return None


def output_dtype(query_dtype, quant_scale2):
    if quant_scale2 is not None:
        return np.dtype(np.int8)
    dt = np.dtype(query_dtype)
    return np.dtype(np.float16) if dt == np.int8 else dt


def finish(ops, o, lse, layout, out_dtype, lse_flag, valid_rows=None, quant_scale2=None,
            quant_offset2=None, tnd=None):
    if quant_scale2 is not None:
        out = post_quantize(o, quant_scale2, quant_offset2)
    else:
        out = ops.cast(o, out_dtype)
    if valid_rows is not None and not valid_rows.all():
        out[~np.broadcast_to(valid_rows[:, None, :], out.shape[:3])] = 0
    out = from_bnsd(out, layout)
    if tnd is not None:
        out, lse = tnd.out(out), tnd.lse(lse)
    return np.ascontiguousarray(out), (lse if lse_flag else np.zeros((1,), np.float32))


class Tnd:
    """The TND layouts as a packing of BNSD. Batch b's query tokens are rows
    [ends[b-1], ends[b]) of the packed T axis (actual_seq_lengths: cumulative ends); they become
    rows 0.. of a zero-padded (B, N, Q_S, D) query, Q_S the longest batch, and the output and
    lse rows are packed back. A packed key/value becomes a tensor list of per-batch
    (1, KV_N, L_b, D) tensors; a paged cache stays as it is (its lengths are per batch).
    NTD_TND reads (N, T, D) and writes TND; TND_NTD reads TND and writes (N, T, D)."""

    LAYOUTS = ("TND", "TND_NTD", "NTD_TND")

    def __init__(self, layout, q_ends, kv_lengths, paged):
        self.layout = layout
        self.q_starts, self.q_lens = starts_and_spans(q_ends)
        self.q_seq = max(self.q_lens, default=0)
        if paged:
            self.kv_lens = [int(v) for v in kv_lengths]
        else:
            self.kv_starts, spans = starts_and_spans(kv_lengths)
            self.kv_spans, self.kv_lens = spans, None     # the list elements have the spans

    def _tokens_first(self, x):
        """(T, N, D) view of a packed tensor."""
        x = np.asarray(x)
        return x.transpose(1, 0, 2) if self.layout == "NTD_TND" else x

    def query(self, x):
        if x is None:
            return None
        x = self._tokens_first(x)
        out = np.zeros((len(self.q_lens), x.shape[1], self.q_seq, x.shape[2]), x.dtype)
        for b, (start, n) in enumerate(zip(self.q_starts, self.q_lens)):
            out[b, :, :n] = x[start:start + n].transpose(1, 0, 2)
        return out

    def kv(self, x):
        x = self._tokens_first(logical(list_element(x)))
        return [x[start:start + n].transpose(1, 0, 2)[None]
                for start, n in zip(self.kv_starts, self.kv_spans)]

    def out(self, o):
        """(B, N, Q_S, Dv) -> (T, N, Dv), or (N, T, Dv) for TND_NTD."""
        rows = np.concatenate([o[b, :, :n].transpose(1, 0, 2) for b, n in enumerate(self.q_lens)]
                              + [np.zeros((0, o.shape[1], o.shape[3]), o.dtype)])
        return rows.transpose(1, 0, 2) if self.layout == "TND_NTD" else rows

    def lse(self, lse):
        """(B, N, Q_S, 1) -> (T, N, 1)."""
        return np.concatenate([lse[b, :, :n].transpose(1, 0, 2) for b, n in enumerate(self.q_lens)]
                              + [np.zeros((0, lse.shape[1], 1), lse.dtype)])


def starts_and_spans(ends):
    ends = [int(v) for v in ends]
    starts = [0] + ends[:-1]
    return starts, [e - s for s, e in zip(starts, ends)]


def list_element(x):
    """One array of a tensor-list operand."""
    return x[0] if isinstance(x, (list, tuple)) else x

def logical(arr):
    """The logical array: NZ unpacked, INT4 (native or packed in INT32) widened to int8."""
    if isinstance(arr, NZTensor):
        arr = arr.to_nd()
    arr = np.asarray(arr)
    if arr.dtype == np.int32:
        return unpack_int4(arr)
    if arr.dtype.name == "int4":
        return arr.astype(np.int8)
    return arr
