"""Which part of each checkpoint tensor a tensor-parallel rank holds (docs/parallel.md).

One table for the whole model, by Hugging Face name:

    column parallel (rows of an (out, in) weight; the ranks' outputs are disjoint)
        self_attn.q_b_proj / q_proj / kv_b_proj   the rank's heads (head-major rows; LongCat's
                                                  self_attn.{0,1}.* alike)
        mlp.gate_proj / up_proj, shared_experts.*, experts.{j}.gate_proj / up_proj, mlps.{0,1}.*
                                                  the rank's slice of the intermediate dimension
        mlp.experts.gate_up_proj (E, 2I, He)      the rank's rows of the gate half and of the up half
                                                  (and of its w8a8 scales gate_up_proj_scale (E, 2I, 1))
        model.embed_tokens, lm_head               the rank's rows of the vocabulary
    row parallel (columns; each rank's product is a partial sum, all-reduced after it)
        self_attn.o_proj, mlp.down_proj, shared_experts.down_proj, experts.{j}.down_proj
        mlp.experts.down_proj (E, He, I)          the rank's slice of I (last axis)
    replicated: everything else (norms, q_a_proj, kv_a_proj_with_mqa, the router, scales of
    row-parallel weights, which are per output channel)

`part(name, shape, tp, rank)` gives the index expressions (a list of tuples of slices,
concatenated along `axis`) of the rank's part, so a loader can read just those bytes from a
memory-mapped file; `take(name, value, tp, rank)` applies them.
"""
from __future__ import annotations

import re
from typing import Optional

import numpy as np

_ROWS = re.compile(r".*\.(self_attn\.(\d+\.)?(q_b_proj|q_proj|kv_b_proj)|(mlp\.(experts\.\d+\.|shared_experts\.)?|"
                   r"mlps\.\d+\.)(gate_proj|up_proj))\.(weight|weight_scale)$|^(model\.embed_tokens|lm_head)\.weight$")
_COLUMNS = re.compile(r".*\.(self_attn\.(\d+\.)?o_proj|(mlp\.(experts\.\d+\.|shared_experts\.)?|mlps\.\d+\.)"
                      r"down_proj)\.weight$")
_STACKED_GATE_UP = re.compile(r".*\.mlp\.experts\.gate_up_proj(_scale)?$")     # w8a8: (E, 2I, 1) scales
_STACKED_DOWN = re.compile(r".*\.mlp\.experts\.down_proj$")

VOCAB = ("model.embed_tokens.weight", "lm_head.weight")


class ShardError(ValueError):
    """A tensor does not split evenly over the ranks."""


def _even(name, n, tp, what) -> int:
    if n % tp:
        raise ShardError(f"tp: {tp} does not divide {name}'s {what} ({n})")
    return n // tp


def part(name: str, shape, tp: int, rank: int) -> Optional[tuple[list, int]]:
    """(index tuples, axis) of rank `rank`'s part of tensor `name` of `shape` (full size), or
    None when every rank holds all of it."""
    if tp == 1:
        return None
    shape = tuple(shape)
    full = [slice(None)] * len(shape)

    def at(axis, start, stop):
        index = list(full)
        index[axis] = slice(start, stop)
        return tuple(index)
    if _STACKED_GATE_UP.match(name):              # (E, 2I, He): gate rows then up rows
        inter = _even(name, shape[1], 2, "gate/up rows") if shape[1] % 2 == 0 else None
        if inter is None:
            raise ShardError(f"{name}: expected an even number of gate/up rows, got {shape[1]}")
        k = _even(name, inter, tp, "intermediate size")
        return [at(1, rank * k, (rank + 1) * k), at(1, inter + rank * k, inter + (rank + 1) * k)], 1
    if _STACKED_DOWN.match(name):                 # (E, He, I)
        k = _even(name, shape[2], tp, "intermediate size")
        return [at(2, rank * k, (rank + 1) * k)], 2
    if _ROWS.match(name):
        k = _even(name, shape[0], tp, "rows")
        return [at(0, rank * k, (rank + 1) * k)], 0
    if _COLUMNS.match(name):
        k = _even(name, shape[1], tp, "columns")
        return [at(1, rank * k, (rank + 1) * k)], 1
    return None


def take(name: str, value, tp: int, rank: int) -> np.ndarray:
    """Rank `rank`'s part of `value` (a full tensor, or a memory map: only the part is read)."""
    found = part(name, np.shape(value), tp, rank)
    if found is None:
        return value
    pieces, axis = found
    if len(pieces) == 1:
        return np.ascontiguousarray(value[pieces[0]])
    return np.concatenate([value[p] for p in pieces], axis=axis)
