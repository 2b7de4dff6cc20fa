"""Masks and pse_shift of the FIA kernel (runtime/kernels/fia.py): which (query row, key) pairs
are masked for each batch row, by sparse_mode, pre/next_tokens and atten_mask (S5-S11)."""
from __future__ import annotations

import numpy as np

BIG = 1 << 40  # pre/next_tokens beyond any sequence length (avoids int64 overflow)


class Masks:
    """masked(i, j) for the S1 valid query rows and L = P + askv keys of a batch row."""

    def __init__(self, mask, sparse_mode, pre_tokens, next_tokens, incre, left_padding):
        self.incre = incre
        self.mode = int(sparse_mode)
        self.pre = int(np.clip(pre_tokens, -BIG, BIG))
        self.next = int(np.clip(next_tokens, -BIG, BIG))
        self.left_padding = left_padding
        self.mask = None
        if mask is not None:
            m = np.asarray(mask)
            if incre:                                     # (B, KV_S) / (B,1,KV_S) / (B,1,1,KV_S)
                m = m.reshape(m.shape[0], 1, m.shape[-1])
            elif m.ndim == 2:                             # (Q_S, KV_S)
                m = m[None]
            elif m.ndim == 4:                             # (B|1, 1, Q_S, KV_S)
                m = m[:, 0]
            self.mask = m

    def _user(self, b, rows, cols):
        m = self.mask[b if self.mask.shape[0] > 1 else 0]
        return m[rows, cols] != 0

    def for_batch(self, b, s1, length, q_start, kv_start):
        cols = slice(kv_start, kv_start + length)
        if self.incre:
            return None if self.mask is None else self._user(b, slice(0, 1), cols)
        i = np.arange(s1)[:, None]
        j = np.arange(length)[None, :]
        diag = length - s1                       # bottom-right alignment of modes 3 and 4
        if self.mode == 0:
            if self.mask is None:
                return None
            masked = self._user(b, slice(q_start, q_start + s1), cols)
            if not self.left_padding:
                masked = masked | (j < i - self.pre) | (j > i + self.next)
            return masked
        if self.mode == 1:
            return self._user(b, slice(q_start, q_start + s1), cols)
        if self.mode == 2:
            return j > i
        if self.mode == 3:
            return j > i + diag
        return (j < i + diag - self.pre) | (j > i + diag + self.next)


def pse_for_batch(pse, b, rows, kv_start, length):
    if pse is None:
        return None
    p = np.asarray(pse)
    p = p[b if p.shape[0] > 1 else 0]                    # (N, Q_S', KV_S')
    if p.shape[1] == 1:                                  # incre
        rows = slice(0, 1)
    return p[:, rows, kv_start:kv_start + length].astype(np.float32)
