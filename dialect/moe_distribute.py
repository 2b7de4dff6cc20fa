"""Expert parallelism: the MoE token exchange between ranks, explicit in the IR.

    mla.moe_distribute_dispatch   each (token, expert) pair sent to the rank that holds the
                                  expert (an all-to-all-v in the EP group)                  MDD-
    mla.moe_distribute_combine    each expert's output sent back to its token's rank and
                                  summed with the routing weights (+ the shared experts)    MDC-

They mirror torch_npu.npu_moe_distribute_dispatch_v2 / npu_moe_distribute_combine_v2 and lower
to aclnnMoeDistributeDispatchV2 / aclnnMoeDistributeCombineV2 (lowering/moe_distribute.py). The
documented constraints of those four documents are the rules below; docs/moe_distribute.md
states them in words, numbered, with their sources and where the documents disagree.

A program is the same text on every rank: no op carries a rank. Each rank holds
L = moe_expert_num / (ep_world_size - shared_expert_rank_num) routed experts, rank r the
experts [r L, (r + 1) L). Dispatch on rank r takes its own tokens x (BS, H) and their experts
expert_ids (BS, K), and gives the rows the other ranks sent to its experts:

    expand_x (A, H)           the received rows, grouped by local expert, within an expert by
                              source rank, within a source in its (token, k) order; the rows
                              past the received ones are zeros
    expert_token_nums (L,)    rows per local expert (expert_token_nums_type 1; 0: prefix sums)
    ep_recv_counts (ep L,)    the same counts per (local expert, source rank), as prefix sums
    assist_info_for_combine (A*128,), expand_scales (A,), dynamic_scales (A,)
                              what combine needs to send the rows back (their values are the
                              implementation's; the documents say to pass them on unread),
                              the routing weights carried with the rows (Atlas A2), and each
                              row's int8 scale (quant_mode 2)

A = (global_bs or BS * ep_world_size) * min(L, K): the most rows a rank can receive. Every
rank's x has at most global_bs / ep_world_size rows (BS may differ between ranks: a rank with
fewer tokens in a step); a program whose functions have different BS (decode and prefill) gives
every dispatch the same global_bs (rule MDD-021 and the documents' "the same on every rank and
layer", which the dataflow rule MDD-031 checks within a function).

Combine on rank r takes the rows its experts computed (expand_x (A, H), in dispatch's order)
and returns, for its own tokens, x[t] = shared_expert_x[t] + sum_k expert_scales[t, k] *
row(t, k), float32, rounded once to expand_x's type. `product` picks the product whose
constraints apply ("A3": Atlas A3, the default; "A2": Atlas A2).
"""
from __future__ import annotations

import re

from .opdef import OpDef, i64, operand, optional, string
from .primitive.checks import differs, dtype_in, nd_only, rank_is
from .registry import MLA
from .rules import DATAFLOW, RUNTIME, RuleSet, shape_text
from .types import TensorInfo

PRODUCTS = ("A3", "A2")
GROUPS = ("ep",)                                  # the communicator an EP program names
ROW_TYPES = ("bf16", "f16")                       # the token rows the documents take
ASSIST_ROW = 128                                  # assist_info_for_combine holds A * 128 entries
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# the values of comm_alg each document lists
COMM_ALGS = {"dispatch": {"A3": ("", "fullmesh_v1", "fullmesh_v2", "hierarchy"), "A2": ("", "fullmesh", "hierarchy")},
             "combine": {"A3": ("", "hierarchy"), "A2": ("", "fullmesh", "hierarchy")}}
A2_EP_SIZES = {"": (2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128, 256), "fullmesh": (2, 3, 4, 5, 6, 7, 8, 16, 32, 64, 128, 256),
               "hierarchy": (16, 32, 64)}


# --- the sizes every rule reads -----------------------------------------------------------------

def moe_ranks(op) -> int:
    return op.ep_world_size - op.shared_expert_rank_num


def local_experts(op) -> int | None:
    """L: the routed experts of one MoE-expert rank."""
    ranks = moe_ranks(op)
    return op.moe_expert_num // ranks if ranks > 0 and op.moe_expert_num % ranks == 0 else None


def tokens_bound(op, bs) -> int | None:
    """global_bs, or BS * ep_world_size when it is 0 (every rank the same BS)."""
    if op.global_bs:
        return op.global_bs
    return None if bs is None else bs * op.ep_world_size


def receive_rows(op, bs, k) -> int | None:
    """A: the rows a MoE-expert rank can receive, (global_bs or BS*ep) * min(L, K)."""
    bound, local = tokens_bound(op, bs), local_experts(op)
    return None if None in (bound, local, k) else bound * min(local, k)


def tp_copies(op) -> int:
    return max(op.tp_world_size, 1)


def recv_counts_size(op, bs, k) -> int | None:
    """ep_recv_counts' length: ep * max(tp, 1) * L; on Atlas A2 with comm_alg "hierarchy" also
    2 * (global_bs or BS * ep) * K * server_num entries (server_num = ep / 8, the servers of 8
    devices) for the reductions before each hop (docs/moe_distribute.md R-15)."""
    local = local_experts(op)
    if local is None:
        return None
    size = op.ep_world_size * tp_copies(op) * local
    if op.product == "A2" and op.comm_alg == "hierarchy":
        bound = tokens_bound(op, bs)
        if None in (bound, k):
            return None
        size += 2 * bound * k * max(op.ep_world_size // 8, 1)
    return size


# --- rules both ops have (registered on each op's own RuleSet with its own ID) -----------------

def _product(op, s):
    if op.product not in PRODUCTS:
        return f"expected \"A3\" (Atlas A3) or \"A2\" (Atlas A2), got {op.product!r}"


def _group(op, s):
    if not 1 <= len(op.group) < 128 or not _NAME.match(op.group):
        return f"expected a communicator name of 1 to 127 characters (letters, digits, _), got {op.group!r}"
    if op.group not in GROUPS:
        return f"expected {', '.join(repr(g) for g in GROUPS)} (the EP communicator a program may use), got {op.group!r}"


def _comm_alg(kind):
    def check(op, s):
        allowed = COMM_ALGS[kind][op.product]
        if op.comm_alg not in allowed:
            return f"expected one of {', '.join(repr(a) for a in allowed)} on Atlas {op.product}, got {op.comm_alg!r}"
    return check


def _ep_world_size(op, s):
    ep = op.ep_world_size
    if op.product == "A2":
        sizes = A2_EP_SIZES[op.comm_alg if op.comm_alg in A2_EP_SIZES else ""]
        if ep not in sizes:
            return f"expected one of {', '.join(map(str, sizes))} on Atlas A2 (comm_alg {op.comm_alg!r}), got {ep}"
        return None
    if op.comm_alg == "hierarchy":
        if not 16 <= ep <= 256 or ep % 16:
            return f"expected a multiple of 16 in [16, 256] with comm_alg \"hierarchy\", got {ep}"
    elif not 2 <= ep <= 768:
        return f"expected an EP group of 2 to 768 ranks, got {ep}"


def _shared_expert_rank_num(op, s):
    ranks = op.shared_expert_rank_num
    if not 0 <= ranks < op.ep_world_size:
        return f"expected [0, ep_world_size) = [0, {op.ep_world_size}), got {ranks}"
    if ranks and op.product == "A2":
        return f"Atlas A2 has no shared-expert ranks: expected 0, got {ranks}"
    if ranks and op.comm_alg == "hierarchy":
        return f"comm_alg \"hierarchy\" has no shared-expert ranks: expected 0, got {ranks}"


def _shared_expert_num(op, s):
    n, ranks = op.shared_expert_num, op.shared_expert_rank_num
    if op.product == "A2":
        if n:
            return f"Atlas A2 has no shared experts in the exchange: expected 0, got {n}"
        return None
    if not 0 <= n <= 4:
        return f"expected [0, 4], got {n}"
    if ranks == 0 and n not in (0, 1):
        return f"expected 0 or 1 without shared-expert ranks (shared_expert_rank_num 0), got {n}"
    if ranks and (n == 0 or ranks % n):
        return (f"expected a divisor of shared_expert_rank_num ({ranks}: each shared expert on as many "
                f"ranks), got {n}")


def _expert_shard_type(op, s):
    if op.expert_shard_type != 0:
        return f"expected 0 (the shared-expert ranks first), got {op.expert_shard_type}"


def _moe_expert_num(op, s):
    e, ranks = op.moe_expert_num, moe_ranks(op)
    most = 512 if op.product == "A3" and op.comm_alg == "hierarchy" else 1024
    if not 1 <= e <= most:
        return f"expected [1, {most}], got {e}"
    if e % ranks:
        return (f"expected a multiple of the MoE-expert ranks (ep_world_size - shared_expert_rank_num = "
                f"{ranks}), got {e}")
    local = e // ranks
    if op.product == "A2" and op.comm_alg != "hierarchy" and local > 24:
        return f"Atlas A2 holds at most 24 experts per rank (outside comm_alg \"hierarchy\"), got {local}"
    if op.product == "A3" and local * op.ep_world_size > 2048:
        return f"expected experts per rank * ep_world_size <= 2048, got {local} * {op.ep_world_size}"


def _tp_world_size(op, s):
    tp = op.tp_world_size
    if op.product == "A2":
        if tp:
            return f"Atlas A2 has no TP group in the exchange: expected 0, got {tp}"
        return None
    if tp not in (0, 1, 2):
        return f"expected 0 or 1 (no TP group) or 2, got {tp}"
    if tp == 2 and local_experts(op) != 1:
        return f"a TP group of 2 needs one expert per rank, got {local_experts(op)}"
    if tp == 2 and op.comm_alg in ("hierarchy", "fullmesh_v2"):
        return f"comm_alg {op.comm_alg!r} has no TP group: expected 0 or 1, got {tp}"


def _k_of(ids_name):
    def check(op, s):
        k = getattr(op, ids_name).shape[1]
        if k is None:
            return None
        most = 12 if op.comm_alg == "fullmesh_v2" else 16
        if not 0 < k <= most or k > op.moe_expert_num:
            return f"expected 0 < K <= {most} and K <= moe_expert_num ({op.moe_expert_num}) experts per token, got K = {k}"
    return check


def _bs_of(ids_name):
    def check(op, s):
        bs = getattr(op, ids_name).shape[0]
        if bs is None:
            return None
        if op.product == "A2":
            most = 512 if op.comm_alg == "hierarchy" else 256
        else:
            most = 256 if op.comm_alg in ("fullmesh_v2", "hierarchy") else 512
        if not 0 < bs <= most:
            return f"expected 0 < BS <= {most} tokens on this rank (Atlas {op.product}, comm_alg {op.comm_alg!r}), got {bs}"
    return check


def _hidden_of(name):
    def check(op, s):
        h = getattr(op, name).shape[-1]
        if h is None:
            return None
        if op.product == "A3":
            if not 1024 <= h <= 8192:
                return f"expected a hidden size H in [1024, 8192] on Atlas A3, got {h}"
            return None
        most = 10 * 1024 if op.comm_alg == "hierarchy" else 7168
        if not 0 < h <= most or h % 32:
            return f"expected a hidden size H in (0, {most}], a multiple of 32, on Atlas A2, got {h}"
    return check


def _global_bs_of(ids_name):
    def check(op, s):
        g, ep = op.global_bs, op.ep_world_size
        bs = getattr(op, ids_name).shape[0]
        if g == 0:
            return None
        if g < 0 or g % ep:
            return f"expected 0 or max BS * ep_world_size (a multiple of {ep}), got {g}"
        if bs is not None and bs > g // ep:
            return f"expected at least BS * ep_world_size = {bs * ep} (this rank's {bs} tokens), got {g}"
    return check


def _ids(name, rows_of):
    def check(op, s):
        t = getattr(op, name)
        rows = rows_of(op)
        if t.rank != 2 or t.dtype != "i32" or t.format != "ND" or differs(t.shape[:1], (rows,)):
            return f"expected an ND i32 tensor (BS, K) with BS = {rows} (the tokens), got {t}"
    return check


def _mask_of(ids_name):
    def check(op, s):
        t = op.x_active_mask
        if t is None:
            return None
        if op.product == "A2" and op.comm_alg == "hierarchy":
            return "not taken with comm_alg \"hierarchy\" on Atlas A2"
        bs, k = getattr(op, ids_name).shape
        shapes = [(bs,)] + ([(bs, k)] if op.product == "A3" else [])
        if t.dtype != "i1" or t.format != "ND" or all(differs(t.shape, want) for want in shapes):
            return f"expected an ND i1 tensor of shape {' or '.join(shape_text(w) for w in shapes)}, got {t}"
    return check


def _mask_order(op, s):
    """1-D mask: the active tokens come first."""
    mask = op.x_active_mask.value if op.x_active_mask is not None else None
    if mask is not None and mask.ndim == 1 and mask.size:
        flags = mask.astype(bool)
        first_off = int(flags.argmin()) if not flags.all() else flags.size
        if flags[first_off:].any():
            return f"expected the active tokens (true) before the inactive ones, got {flags.astype(int).tolist()}"


def _ids_values(name):
    def check(op, s):
        ids = getattr(op, name).value
        if ids.size == 0:
            return None
        if ids.min() < 0 or ids.max() >= op.moe_expert_num:
            bad = int(ids.min()) if ids.min() < 0 else int(ids.max())
            return f"value {bad} is outside [0, moe_expert_num) = [0, {op.moe_expert_num})"
        for t, row in enumerate(ids.reshape(ids.shape[0], -1)):
            if len(set(row.tolist())) != row.size:
                return f"row {t} names an expert twice: {row.tolist()}"
    return check


# --- mla.moe_distribute_dispatch ----------------------------------------------------------------

def _dispatch_symbols():
    return {"BS": lambda op, s: op.x.shape[0], "H": lambda op, s: op.x.shape[1],
            "K": lambda op, s: op.expert_ids.shape[1], "L": lambda op, s: local_experts(op),
            "A": lambda op, s: receive_rows(op, s.BS, s.K)}


def dispatch_results(op, s) -> dict:
    a, copies = s.A, tp_copies(op)
    rows = None if a is None else copies * a
    return {"expand_x": TensorInfo((rows, s.H), "i8" if op.quant_mode == 2 else op.x.dtype),
            "dynamic_scales": TensorInfo((rows,), "f32"),
            "assist_info_for_combine": TensorInfo((None if a is None else a * ASSIST_ROW,), "i32"),
            "expert_token_nums": TensorInfo((s.L,), "i64"),
            "ep_recv_counts": TensorInfo((recv_counts_size(op, s.BS, s.K),), "i32"),
            "expand_scales": TensorInfo((a,), "f32")}


dispatch_rules = RuleSet()
rule = dispatch_rules.rule
rule("MDD-001", "x")(rank_is("x", 2, " (BS, H)"))
rule("MDD-002", "x")(dtype_in("x", ROW_TYPES))
rule("MDD-003", "x")(nd_only("x"))
rule("MDD-004", "expert_ids")(_ids("expert_ids", lambda op: op.x.shape[0]))

def shared_rules(rule, prefix: str, kind: str, ids: str, rows: str):
    """The rules both ops have, <prefix>-005 .. -016 in this order; `ids` the operand holding
    expert_ids, `rows` the one whose last axis is H (BS is reported on x for dispatch)."""
    checks = [("product", _product), ("group", _group), ("comm_alg", _comm_alg(kind)),
              ("ep_world_size", _ep_world_size), ("shared_expert_rank_num", _shared_expert_rank_num),
              ("shared_expert_num", _shared_expert_num), ("expert_shard_type", _expert_shard_type),
              ("moe_expert_num", _moe_expert_num), ("tp_world_size", _tp_world_size), (ids, _k_of(ids)),
              (ids if kind == "combine" else rows, _bs_of(ids)), (rows, _hidden_of(rows))]
    for number, (param, check) in enumerate(checks, start=5):
        rule(f"{prefix}-{number:03d}", param)(check)


# MDD-005 product, -006 group, -007 comm_alg, -008 ep_world_size, -009 shared_expert_rank_num,
# -010 shared_expert_num, -011 expert_shard_type, -012 moe_expert_num, -013 tp_world_size,
# -014 K, -015 BS, -016 H
shared_rules(rule, "MDD", "dispatch", "expert_ids", "x")


@rule("MDD-017", "quant_mode")
def dispatch_quant_mode(op, s):
    if op.quant_mode not in (0, 2):
        return f"expected 0 (no quantization) or 2 (int8, a dynamic scale per row), got {op.quant_mode}"


@rule("MDD-018", "scales")
def dispatch_scales(op, s):
    t = op.scales
    if t is None:
        return None
    if op.quant_mode != 2:
        return "given with quant_mode 0: the smoothing scales are only read by the quantization (quant_mode 2)"
    if op.product == "A2" and op.comm_alg == "hierarchy":
        return "not taken with comm_alg \"hierarchy\" on Atlas A2"
    experts = op.moe_expert_num + (op.shared_expert_num if op.shared_expert_rank_num else 0)
    want = (experts, s.H)
    if differs(t.shape, want) or t.dtype != "f32" or t.format != "ND":
        return f"expected an ND f32 tensor {shape_text(want)} (one row per expert), got {t}"


rule("MDD-019", "x_active_mask")(_mask_of("expert_ids"))


@rule("MDD-020", "expert_scales")
def dispatch_expert_scales(op, s):
    t = op.expert_scales
    if t is None:
        return None
    if op.product == "A3" and op.comm_alg != "hierarchy":
        return f"not taken on Atlas A3 with comm_alg {op.comm_alg!r} (only \"hierarchy\" carries the weights)"
    want = (s.BS, s.K)
    if differs(t.shape, want) or t.dtype != "f32" or t.format != "ND":
        return f"expected an ND f32 tensor {shape_text(want)} (each token's K routing weights), got {t}"


rule("MDD-021", "global_bs")(_global_bs_of("x"))


@rule("MDD-022", "expert_token_nums_type")
def dispatch_counts_type(op, s):
    if op.expert_token_nums_type not in (0, 1):
        return f"expected 0 (prefix sums) or 1 (counts), got {op.expert_token_nums_type}"


def _result(name):
    def check(op, s):
        want, got = dispatch_results(op, s)[name], getattr(op, name)
        if differs(got.shape, want.shape) or got.dtype != want.dtype or got.format != "ND":
            return f"expected {want}, got {got}"
    return check


for _i, _name in enumerate(("expand_x", "dynamic_scales", "assist_info_for_combine", "expert_token_nums",
                            "ep_recv_counts", "expand_scales")):
    rule(f"MDD-{23 + _i:03d}", _name)(_result(_name))
rule("MDD-029", "expert_ids", kind=RUNTIME)(_ids_values("expert_ids"))
rule("MDD-030", "x_active_mask", kind=RUNTIME)(_mask_order)

# What every MoE-distribute op of a program must agree on ("the same on every rank and in every
# layer" in the four documents): checked across the ops of one function.
AGREED = ("group", "ep_world_size", "moe_expert_num", "tp_world_size", "expert_shard_type", "shared_expert_num",
          "shared_expert_rank_num", "global_bs", "comm_alg", "product")


def _agreed(op) -> dict:
    return {name: getattr(op, name) for name in AGREED}


def _same_in_every_layer(op, s):
    """Dataflow: every moe_distribute op of the function has this op's AGREED attributes."""
    me = op.operation
    block = me.block
    for other in block.operations:
        other = other.operation
        if other == me:
            break
        if other.name in ("mla.moe_distribute_dispatch", "mla.moe_distribute_combine"):
            theirs = _agreed(MLA.ops[other.name].wrap(other))
            differ = [k for k, v in _agreed(op).items() if theirs[k] != v]
            if differ:
                k = differ[0]
                return (f"{k} {getattr(op, k)!r} differs from the {theirs[k]!r} of an earlier '{other.name}' "
                        f"(every MoE exchange of a program uses the same {', '.join(AGREED)})")


rule("MDD-031", "group", kind=DATAFLOW)(_same_in_every_layer)

_COMMON = [i64("ep_world_size"), i64("moe_expert_num"), string("group", default="ep"),
           i64("tp_world_size", default=0), i64("expert_shard_type", default=0),
           i64("shared_expert_num", default=0), i64("shared_expert_rank_num", default=0),
           i64("global_bs", default=0), string("comm_alg", default=""), string("product", default="A3")]

MoeDistributeDispatch = MLA.add(OpDef(
    "mla.moe_distribute_dispatch",
    traits=(),                                  # a collective: every rank must run it
    operands=[operand("x"), operand("expert_ids"), optional("scales"), optional("x_active_mask"),
              optional("expert_scales")],
    attributes=_COMMON + [i64("quant_mode", default=0), i64("expert_token_nums_type", default=1)],
    results=["expand_x", "dynamic_scales", "assist_info_for_combine", "expert_token_nums", "ep_recv_counts",
             "expand_scales"],
    rules=dispatch_rules,
    symbols=_dispatch_symbols(),
    infer_results=dispatch_results,
    summary="each (token, expert) pair's row sent to the rank holding the expert (all-to-all-v in the EP group)",
))


# --- mla.moe_distribute_combine -----------------------------------------------------------------

def _combine_symbols():
    return {"BS": lambda op, s: op.expert_ids.shape[0], "K": lambda op, s: op.expert_ids.shape[1],
            "H": lambda op, s: op.expand_x.shape[1], "L": lambda op, s: local_experts(op),
            "A": lambda op, s: receive_rows(op, s.BS, s.K)}


combine_rules = RuleSet()
rule = combine_rules.rule
rule("MDC-001", "expand_x")(rank_is("expand_x", 2, " (A, H)"))
rule("MDC-002", "expand_x")(dtype_in("expand_x", ROW_TYPES))
rule("MDC-003", "expand_x")(nd_only("expand_x"))


@rule("MDC-004", "expert_ids")
def combine_ids(op, s):
    t = op.expert_ids
    if t.rank != 2 or t.dtype != "i32" or t.format != "ND":
        return f"expected an ND i32 tensor (BS, K), got {t}"


# MDC-005 .. MDC-016: as MDD-005 .. MDD-016
shared_rules(rule, "MDC", "combine", "expert_ids", "expand_x")
rule("MDC-017", "global_bs")(_global_bs_of("expert_ids"))


@rule("MDC-018", "expand_x")
def combine_rows(op, s):
    want = None if s.A is None else tp_copies(op) * s.A
    if differs(op.expand_x.shape[:1], (want,)):
        return (f"expected max(tp_world_size, 1) * A = {want} rows (A = (global_bs or BS * ep_world_size) * "
                f"min(experts per rank, K)), got {op.expand_x}")


@rule("MDC-019", "assist_info_for_combine")
def combine_assist(op, s):
    t, want = op.assist_info_for_combine, (None if s.A is None else s.A * ASSIST_ROW,)
    if differs(t.shape, want) or t.dtype != "i32" or t.format != "ND":
        return f"expected an ND i32 tensor {shape_text(want)} (A * 128: dispatch's assist_info_for_combine), got {t}"


@rule("MDC-020", "ep_send_counts")
def combine_send_counts(op, s):
    t, want = op.ep_send_counts, (recv_counts_size(op, s.BS, s.K),)
    if differs(t.shape, want) or t.dtype != "i32" or t.format != "ND":
        return f"expected an ND i32 tensor {shape_text(want)} (dispatch's ep_recv_counts), got {t}"


@rule("MDC-021", "expert_scales")
def combine_expert_scales(op, s):
    t, want = op.expert_scales, (s.BS, s.K)
    if differs(t.shape, want) or t.dtype != "f32" or t.format != "ND":
        return f"expected an ND f32 tensor {shape_text(want)} (each token's K routing weights), got {t}"


rule("MDC-022", "x_active_mask")(_mask_of("expert_ids"))


@rule("MDC-023", "expand_scales")
def combine_expand_scales(op, s):
    t = op.expand_scales
    if op.product == "A2" and t is None:
        return "missing: Atlas A2's combine takes dispatch's expand_scales (A,)"
    if t is None:
        return None
    if op.product == "A3" and op.comm_alg != "hierarchy":
        return f"not taken on Atlas A3 with comm_alg {op.comm_alg!r}"
    if differs(t.shape, (s.A,)) or t.dtype != "f32" or t.format != "ND":
        return f"expected an ND f32 tensor ({s.A},) (dispatch's expand_scales), got {t}"


@rule("MDC-024", "shared_expert_x")
def combine_shared_x(op, s):
    t = op.shared_expert_x
    if t is None:
        return None
    if op.product == "A2":
        return "not taken on Atlas A2"
    if op.shared_expert_rank_num:
        return (f"given with shared_expert_rank_num {op.shared_expert_rank_num}: the shared experts' rows "
                "come from their own ranks then")
    known = None not in t.shape and s.BS is not None
    shape_ok = t.rank == 2 and not differs(t.shape, (s.BS, s.H)) or t.rank == 3 and not differs(
        t.shape[2:], (s.H,)) and (not known or t.shape[0] * t.shape[1] == s.BS)
    if not shape_ok or t.dtype != op.expand_x.dtype or t.format != "ND":
        return (f"expected an ND {op.expand_x.dtype} tensor ({s.BS}, {s.H}) (or 3-D with the first two "
                f"dimensions' product {s.BS}), got {t}")


@rule("MDC-025", "comm_quant_mode")
def combine_comm_quant(op, s):
    if op.comm_quant_mode not in (0, 2):
        return f"expected 0 (no quantization) or 2 (int8 in transit), got {op.comm_quant_mode}"
    if op.comm_quant_mode == 2 and op.product == "A3" and op.tp_world_size >= 2:
        return "2 needs tp_world_size < 2 on Atlas A3"
    if op.comm_quant_mode == 2 and op.product == "A2" and op.comm_alg != "hierarchy":
        return "2 needs comm_alg \"hierarchy\" on Atlas A2"


@rule("MDC-026", "x")
def combine_result(op, s):
    want = TensorInfo((s.BS, s.H), op.expand_x.dtype)
    if differs(op.x.shape, want.shape) or op.x.dtype != want.dtype or op.x.format != "ND":
        return f"expected {want}, got {op.x}"


rule("MDC-027", "expert_ids", kind=RUNTIME)(_ids_values("expert_ids"))
rule("MDC-028", "x_active_mask", kind=RUNTIME)(_mask_order)


def _from_dispatch(name):
    """Dataflow: `name` is a result of one mla.moe_distribute_dispatch whose expert_ids and
    agreed attributes are this combine's (the documents: the two are used as a pair)."""
    index = {"assist_info_for_combine": 2, "ep_send_counts": 4, "expand_scales": 5}[name]

    def check(op, s):
        value = getattr(op, name)
        if value is None:
            return None
        owner = value.owner
        owner = getattr(owner, "operation", owner)
        if getattr(owner, "name", None) != "mla.moe_distribute_dispatch" or value.result_number != index:
            return f"expected result #{index} of an 'mla.moe_distribute_dispatch' (the pair's own), got another value"
        dispatch = MoeDistributeDispatch.wrap(owner)
        if dispatch.expert_ids != op.expert_ids:
            return "comes from a dispatch of other expert_ids than this combine's"
        differ = [k for k in AGREED if getattr(dispatch, k) != getattr(op, k)]
        if differ:
            k = differ[0]
            return f"comes from a dispatch whose {k} is {getattr(dispatch, k)!r}, here {getattr(op, k)!r}"
    return check


rule("MDC-029", "assist_info_for_combine", kind=DATAFLOW)(_from_dispatch("assist_info_for_combine"))
rule("MDC-029", "ep_send_counts", kind=DATAFLOW)(_from_dispatch("ep_send_counts"))
rule("MDC-029", "expand_scales", kind=DATAFLOW)(_from_dispatch("expand_scales"))

MoeDistributeCombine = MLA.add(OpDef(
    "mla.moe_distribute_combine",
    traits=(),                                  # a collective: every rank must run it
    operands=[operand("expand_x"), operand("expert_ids"), operand("assist_info_for_combine"),
              operand("ep_send_counts"), operand("expert_scales"), optional("x_active_mask"),
              optional("expand_scales"), optional("shared_expert_x")],
    attributes=_COMMON + [i64("comm_quant_mode", default=0)],
    results=["x"],
    rules=combine_rules,
    symbols=_combine_symbols(),
    infer_results=lambda op, s: {"x": TensorInfo((s.BS, s.H), op.expand_x.dtype)},
    summary="each expert row sent back to its token's rank, weighted and summed (+ shared experts); "
            "float32, one rounding",
))

MOE_DISTRIBUTE = (MoeDistributeDispatch, MoeDistributeCombine)
