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
    row-parallel weights, which are per output channel, the DSA indexer's self_attn.indexer.*)

Expert parallelism (ep > 1; docs/parallel.md) splits only the routed experts, whole: rank r
holds the experts [r E/ep, (r+1) E/ep), the rows of the stacked `mlp.experts.gate_up_proj`,
`down_proj` (and their w8a8 scales) along the expert axis (per-expert tensors
`experts.{j}.*`: the loader reads only the rank's j, `expert_range`); everything else is
replicated (attention and the latent cache are data-parallel: each rank its own requests).

`part(name, shape, tp, rank, ep)` gives the index expressions (a list of tuples of slices,
concatenated along `axis`) of the rank's part, so a loader can read just those bytes from a
memory-mapped file; `take(name, value, tp, rank, ep)` applies them.
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
_STACKED = re.compile(r".*\.mlp\.experts\.(gate_up_proj|down_proj)(_scale)?$")     # (E, ...): ep splits axis 0
_PER_EXPERT = re.compile(r".*\.mlp\.experts\.(\d+)\.")

VOCAB = ("model.embed_tokens.weight", "lm_head.weight")


class ShardError(ValueError):
    """A tensor does not split evenly over the ranks."""


def _even(name, n, tp, what) -> int:
    if n % tp:
        raise ShardError(f"tp: {tp} does not divide {name}'s {what} ({n})")
    return n // tp


def expert_range(experts: int, ep: int, rank: int) -> range:
    """The routed experts rank `rank` of `ep` holds (all of them for ep 1, whatever the rank)."""
    if ep == 1:
        return range(experts)
    if experts % ep:
        raise ShardError(f"ep: {ep} does not divide the {experts} routed experts")
    per = experts // ep
    return range(rank * per, (rank + 1) * per)


def holds(name: str, experts: int, ep: int, rank: int) -> bool:
    """Whether rank `rank` of `ep` reads checkpoint tensor `name` at all (a per-expert tensor of
    another rank's expert: no)."""
    m = _PER_EXPERT.match(name)
    return ep == 1 or m is None or int(m.group(1)) in expert_range(experts, ep, rank)


def part(name: str, shape, tp: int, rank: int, ep: int = 1) -> Optional[tuple[list, int]]:
    """(index tuples, axis) of rank `rank`'s part of tensor `name` of `shape` (full size), or
    None when every rank holds all of it."""
    shape = tuple(shape)
    full = [slice(None)] * len(shape)
    if ep > 1:
        if tp > 1:
            raise ShardError(f"tp {tp} with ep {ep}: not built (docs/parallel.md)")
        if not _STACKED.match(name):
            return None
        experts = expert_range(shape[0], ep, rank)
        index = list(full)
        index[0] = slice(experts.start, experts.stop)
        return [tuple(index)], 0
    if tp == 1:
        return None

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


def take(name: str, value, tp: int, rank: int, ep: int = 1) -> np.ndarray:
    """Rank `rank`'s part of `value` (a full tensor, or a memory map: only the part is read)."""
    found = part(name, np.shape(value), tp, rank, ep)
    if found is None:
        return value
    pieces, axis = found
    if len(pieces) == 1:
        return np.ascontiguousarray(value[pieces[0]])
    return np.concatenate([value[p] for p in pieces], axis=axis)
