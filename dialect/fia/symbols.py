"""The FIA op's symbols (B, N, Q_S, KV_S, the cache form, ...), bound once per verification."""
from __future__ import annotations

from ..rules import DynamicDim, dim
from .common import MLA_D, TND_LAYOUTS, logical_last, seq_axis

# --- symbols (bound once per verification) --------------------------------------------------

def _head_dim(op, s, t):
    """Logical head dim of a key-like tensor (key, value, key_rope, prefix)."""
    if t.rank == 3 and (s.paged or op.input_layout == "BSH"):
        return logical_last(t) // s.KV_N
    return logical_last(t)


def _cache_form(op, s):
    """The paged cache layout from the key's rank and dims (seed L880, L954)."""
    k = op.key[0]
    if k.rank == 3:
        return "BnBsH"
    if k.rank == 4:
        if k.shape[1] == s.KV_N and k.shape[2] == op.block_size:
            return "BnNBsD"
        if s.mla and k.shape[1] == op.block_size and k.shape[2] == s.KV_N:
            return "BnBsND"   # the prolog's PA_BSND cache: BnBsH memory with N split out
    return None


MAX_BATCH = 65536     # FIA-043/044: the seed's B limit


def _rows(batch: int) -> int:
    """B for a per-batch-row list. Past the limit the lists are not built (2^31 Python ints
    would take minutes and gigabytes before FIA-043/044 refuse B): the rules reading them
    hold, and the limit rule reports."""
    if batch > MAX_BATCH:
        raise DynamicDim()
    return batch


def _per_batch(values, batch):
    """An actual length array's value per batch row: length 1 broadcasts, else the first B."""
    if values is None:
        return None
    values = [int(v) for v in values[:_rows(batch)]]
    return values * batch if len(values) == 1 else values


def _kv_lengths(op, s):
    """Physical KV_S per batch row without page attention (a tensor list: each element's S;
    TND: each batch's span of the packed T_kv)."""
    if s.tnd:
        return s.askv
    axis = seq_axis(op.input_layout)
    if s.is_list:
        return [dim(t, axis) for t in op.key]
    return [dim(op.key[0], axis)] * _rows(s.B)


def _prefix_length(op, s):
    if op.key_shared_prefix is None:
        return 0
    if op.actual_shared_prefix_len is not None:
        return int(op.actual_shared_prefix_len[0])
    return op.key_shared_prefix.shape[seq_axis(op.input_layout)]


def _max_blocks(op, s):
    """maxBlockNumPerSeq = ceil(max_b askv[b] / block_size) (seed L888)."""
    if not s.paged or s.askv is None or op.block_size <= 0:
        return None
    return -(-max(s.askv, default=0) // op.block_size)


def _spans(cumulative):
    """Per-batch lengths of cumulative ends [e0, e1, ...]: e0, e1 - e0, ..."""
    ends = [int(v) for v in cumulative]
    return [e - b for b, e in zip([0] + ends[:-1], ends)]


def _tnd_kv_lengths(op, s):
    """TND: cumulative ends of the packed key/value, or per-batch lengths under page attention
    (the cache is not packed: FIA V3/V4 "actualSeqLengthsKv ... each batch's actual length")."""
    values = op.actual_seq_lengths_kv
    return [int(v) for v in values] if s.paged else _spans(values)


def _query_rank_ok(op):
    """The query has its layout's rank (FIA-019), so its head dim can be read."""
    return op.query.rank == (3 if op.input_layout in ("BSH",) + TND_LAYOUTS else 4)


SYMBOLS = {
    "tnd": lambda op, s: op.input_layout in TND_LAYOUTS,
    # TND: B is the number of actual lengths, T the packed token axis
    "B": lambda op, s: len(op.actual_seq_lengths) if s.tnd else op.query.shape[0],
    "T": lambda op, s: op.query.shape[seq_axis(op.input_layout)],
    "Q_S": lambda op, s: (max(s.asl, default=0) if s.tnd
                          else op.query.shape[seq_axis(op.input_layout)]),
    "N": lambda op, s: op.num_heads,
    "KV_N": lambda op, s: op.num_key_value_heads or op.num_heads,
    "G": lambda op, s: s.N // s.KV_N,
    "D": lambda op, s: (op.query.shape[2] // s.N if op.input_layout == "BSH"
                        else op.query.shape[-1]),
    "H_kv": lambda op, s: s.KV_N * s.D,
    "Dk": lambda op, s: _head_dim(op, s, op.key[0]),
    "Dv": lambda op, s: _head_dim(op, s, op.value[0]),
    "incre": lambda op, s: s.Q_S == 1,
    "paged": lambda op, s: op.block_table is not None,
    "mla": lambda op, s: op.query_rope is not None or op.key_rope is not None,
    # the MLA full-quant mode (aclnn V4, torch_npu v2): an int8 query over int8 latent caches
    "mla_quant": lambda op, s: s.mla and op.query.dtype == "i8",
    # the absorbed MLA mode (query D 512 over the latent cache); with D 128 the MLA mode is a
    # prefill over per-head keys (MLA_PREFILL_D)
    "latent": lambda op, s: s.mla and _query_rank_ok(op) and s.D == MLA_D,
    "is_list": lambda op, s: len(op.key) > 1,
    "cache_form": _cache_form,
    "kv_lengths": _kv_lengths,
    "KV_S": lambda op, s: max(s.kv_lengths, default=0),
    # per-batch actual lengths (TND: from the cumulative ends)
    "asl": lambda op, s: (_spans(op.actual_seq_lengths) if s.tnd
                          else _per_batch(op.actual_seq_lengths, s.B)),
    "askv": lambda op, s: (_tnd_kv_lengths(op, s) if s.tnd
                           else _per_batch(op.actual_seq_lengths_kv, s.B)),
    # lengths with their defaults (the shape's S), for the interception rules
    "q_lengths": lambda op, s: s.asl if s.asl is not None else [s.Q_S] * _rows(s.B),
    "kv_valid": lambda op, s: s.askv if s.askv is not None else s.kv_lengths,
    "P": _prefix_length,
    "max_blocks": _max_blocks,
    # query left padding exists in the prompt branch only: with Q_S == 1 query_padding_size
    # and actual_seq_lengths are both ignored (L290, L688)
    "q_left_pad": lambda op, s: (not s.incre and op.query_padding_size is not None
                                 and op.present("actual_seq_lengths")),
    "kv_left_pad": lambda op, s: (op.kv_padding_size is not None
                                  and op.present("actual_seq_lengths_kv")),
    "left_pad": lambda op, s: s.q_left_pad or s.kv_left_pad,
    "separate": lambda op, s: op.key_antiquant_scale is not None,
    # the combined (legacy) antiquant parameters count only without separate ones (L936, S51)
    "combined": lambda op, s: (not s.separate and (op.antiquant_scale is not None
                                                   or op.antiquant_offset is not None)),
}
