"""Key / value sources of the FIA kernel (runtime/kernels/fia.py): K and V given per batch row
(a tensor, or a tensor list) or paged (block_table over a BnBsH, BnNBsD, PA_BSND or NZ cache),
the shared prefix, and the gather of a group's rows into float arrays, dequantized; bf16 pages
are gathered and converted in one pass (gather_bf16_pages)."""
from __future__ import annotations

import sys

import numpy as np

from ..formats import NZTensor, c0_for
from .common import bfloat16
from .fia_layouts import logical, to_bnsd
from .fia_ops import WORKSPACE
from .fia_quant import dequantize

LITTLE_ENDIAN = sys.byteorder == "little"            # the upper half is the second int16


def same_operand(a, b):
    if a is b:
        return True
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(x is y for x, y in zip(a, b))
    return False


class Dense:
    """K or V given per batch row: one (B, ...) tensor, or a tensor list with one per row."""

    is_paged = False

    def __init__(self, tensors, layout, kv_heads):
        self.is_list = len(tensors) > 1
        self.per_batch = [t for arr in tensors
                          for t in to_bnsd(logical(arr), layout, kv_heads)]
        self.head_dim = self.per_batch[0].shape[-1]

    def length(self, b):
        return self.per_batch[b].shape[1]

    def kv_heads(self, b):
        return self.per_batch[b].shape[0]

    def rows(self, b, lo, hi):
        return self.per_batch[b][:, lo:hi]           # (KV_N, hi - lo, D), a view


class Paged:
    """A paged cache: block_table[b] lists the blocks of batch row b (section 1.12)."""

    is_paged = True
    is_list = False

    def __init__(self, cache, block_table, block_size, kv_heads):
        self.table = np.asarray(block_table)
        self.block_size = bs = int(block_size)
        self.blocks = nz_blocks(cache, bs, kv_heads) if isinstance(cache, NZTensor) else None
        self.nz = self.blocks is not None
        if self.nz:
            self.head_dim = self.blocks.shape[2] * self.blocks.shape[4]
            return
        cache = logical(cache)
        if cache.ndim == 3:                                      # BnBsH: never BnNBsD
            nb, _, h = cache.shape
            self.blocks = cache.reshape(nb, bs, kv_heads, h // kv_heads).transpose(0, 2, 1, 3)
        elif cache.shape[1] == kv_heads and cache.shape[2] == bs:
            self.blocks = cache                                  # BnNBsD
        else:
            self.blocks = cache.transpose(0, 2, 1, 3)            # BnBsND (PA_BSND) view
        self.head_dim = self.blocks.shape[-1]

    def length(self, b):
        return self.table.shape[1] * self.block_size

    def kv_heads(self, b):
        return self.blocks.shape[1]

    def bits(self):
        """The blocks' 16-bit patterns (a view)."""
        return self.blocks.view(np.int16)

    def rows(self, b, lo, hi):
        n_blocks = -(-hi // self.block_size)
        ids = self.table[b, :n_blocks]
        g = self.blocks[as_slice(ids)]
        if self.nz:                           # (nblk, KV_N, D/C0, bs, C0) -> (KV_N, nblk*bs, D)
            kv, w1, c0 = g.shape[1], g.shape[2], g.shape[4]
            g = g.transpose(1, 0, 3, 2, 4).reshape(kv, -1, w1 * c0)
        else:                                 # (nblk, KV_N, bs, D) -> (KV_N, nblk*bs, D)
            g = g.transpose(1, 0, 2, 3).reshape(g.shape[1], -1, g.shape[3])
        return g[:, lo:hi]


def kv_source(operand, layout, kv_heads, block_table, block_size):
    tensors = list(operand) if isinstance(operand, (list, tuple)) else [operand]
    if block_table is not None:
        return Paged(tensors[0], block_table, block_size, kv_heads)
    return Dense(tensors, layout, kv_heads)



def nz_blocks(cache, bs, kv_heads):
    """(block_num, KV_N, D/C0, block_size, C0) view of an NZ paged cache, or None when its
    fractals are padded (block_size % 16 or D % C0): that cache is read through to_nd()."""
    c0 = c0_for(cache.dtype)
    if len(cache.shape) == 3:
        nb, _, h = cache.shape
        d = h // kv_heads
    else:
        nb, _, _, d = cache.shape
    if bs % 16 or d % c0:
        return None
    return cache.data.reshape(nb, kv_heads, d // c0, bs, c0)


def as_slice(ids):
    """Consecutive block ids -> a slice (a view); otherwise the id array (a gather)."""
    if len(ids) and ids[-1] - ids[0] == len(ids) - 1 and np.all(np.diff(ids) == 1):
        return slice(int(ids[0]), int(ids[-1]) + 1)
    return ids


def gather_kv(ops, keys, values, ropes, group, kv_rows, deq_k, deq_v, prefix_k, prefix_v,
               compute_dtype, full_quant):
    """K = [prefix ; kv rows lo:hi] (+ rope columns) and V of each batch row of the group,
    dequantized, as float arrays (Bg, KV_N, L, D). V is None when value is the key operand:
    it is then the first Dv columns of K."""
    if (prefix_k is None and deq_k is None and deq_v is None
            and bf16_pages(keys, values, ropes)):
        return gather_bf16_pages(ops, keys, values, ropes, group, kv_rows[group[0]][1])
    dtype = np.float64 if full_quant else np.float32
    d, d_rope = keys.head_dim, 0 if ropes is None else ropes.head_dim
    p = 0 if prefix_k is None else prefix_k.shape[1]
    lo, hi = kv_rows[group[0]]
    k_g = np.empty((len(group), keys.kv_heads(group[0]), p + hi - lo, d + d_rope), dtype)
    k_g[:, :, :p, d:] = 0                                # a shared prefix has no rope part
    share_v = values is keys and deq_v is deq_k and prefix_v is prefix_k
    v_g = None if share_v else np.empty(k_g.shape[:3] + (values.head_dim,), dtype)
    for i, b in enumerate(group):
        lo, hi = kv_rows[b]
        if p:
            k_g[i, :, :p, :d] = dequantize(prefix_k, deq_k, None, 0, p, compute_dtype)
        ops.fill(k_g[i, :, p:, :d],
                 dequantize(keys.rows(b, lo, hi), deq_k, b, lo, hi, compute_dtype))
        if ropes is not None:
            ops.fill(k_g[i, :, p:, d:], ropes.rows(b, lo, hi))
        if v_g is not None:
            if p:
                v_g[i, :, :p] = dequantize(prefix_v, deq_v, None, 0, p, compute_dtype)
            v_g[i, :, p:] = dequantize(values.rows(b, lo, hi), deq_v, b, lo, hi, compute_dtype)
    return k_g, v_g


def bf16_pages(keys, values, ropes):
    """Are K, V and the rope part all paged bf16 caches (read from row 0: no left padding)?"""
    return LITTLE_ENDIAN and all(
        s is None or (s.is_paged and s.blocks.dtype == bfloat16) for s in (keys, values, ropes))


def gather_bf16_pages(ops, keys, values, ropes, group, length):
    """gather_kv for bf16 page attention: one block gather per cache, converting on the way.

    A bf16 value is exactly the float32 with its 16 bits on top and 16 zero bits below. The
    workspace's lower halves are zero and only its upper halves are ever written, so copying
    the cache's 16-bit patterns into the upper halves is the gather and the conversion at once.
    """
    n_blocks = -(-length // keys.block_size)
    ids = keys.table[group, :n_blocks]
    shape = (len(group), keys.kv_heads(group[0]), n_blocks * keys.block_size)
    d = keys.head_dim
    k_g = WORKSPACE.zeros("k", shape + (d + (0 if ropes is None else ropes.head_dim),))
    gather_rows(ops, upper_halves(k_g[..., :d], keys), keys, ids, length)
    if ropes is not None:
        gather_rows(ops, upper_halves(k_g[..., d:], ropes), ropes, ids, length)
    if values is keys:                                   # V = K[..., :Dv]
        return k_g[:, :, :length], None
    v_g = WORKSPACE.zeros("v", shape + (values.head_dim,))
    gather_rows(ops, upper_halves(v_g, values), values, ids, length)
    return k_g[:, :, :length], v_g[:, :, :length]


def gather_rows(ops, dst, pages, ids, length):
    """dst[:, j] = the blocks ids[:, j], up to row `length` of the concatenated blocks: the
    last block's rows past it are never read (at decode most of a 128-row block), so they are
    not copied. Row axis: -2 of a block in both layouts ((KV_N, bs, D) and NZ's
    (KV_N, D/C0, bs, C0)) and of dst's."""
    full, rest = divmod(length, pages.block_size)
    bits = pages.bits()
    if full:
        ops.gather_blocks(dst[:, :full], bits, ids[:, :full])
    if rest:
        ops.gather_blocks(dst[:, full:, ..., :rest, :], bits[..., :rest, :], ids[:, full:])


def upper_halves(dst, pages):
    """The upper 16 bits of each float32 of dst (Bg, KV_N, n_blocks * bs, D), as an int16 view
    shaped (Bg, n_blocks) + the shape of one of the cache's blocks."""
    bg, kv_heads, rows, d = dst.shape
    bs = pages.block_size
    upper = dst.view(np.int16)[..., 1::2].reshape(bg, kv_heads, rows // bs, bs, d)
    if not pages.nz:                                     # block (KV_N, bs, D)
        return upper.transpose(0, 2, 1, 3, 4)
    c0 = pages.blocks.shape[4]                           # block (KV_N, D/C0, bs, C0)
    return upper.reshape(bg, kv_heads, rows // bs, bs, d // c0, c0).transpose(0, 2, 1, 4, 3, 5)

def shared_prefix(key_prefix, value_prefix, prefix_len, layout, kv_heads):
    """The first P rows (KV_N, P, D) of the shared prefix, or (None, None)."""
    if key_prefix is None:
        return None, None
    keys = kv_source(key_prefix, layout, kv_heads, None, 0)
    values = kv_source(value_prefix, layout, kv_heads, None, 0)
    p = keys.length(0) if prefix_len is None else int(prefix_len[0])
    return keys.rows(0, 0, p), values.rows(0, 0, p)
