"""Torch-level canonicalization of an exported ATen graph before the import: one spelling per
computation, so that the converters (one per op, recognising nothing across ops) and the passes
see one form.

Eager attention -> SDPA. transformers' `eager_attention_forward` (and most hand-written
attention) spells attention out:

    scores = matmul(q, transpose(k, -2, -1)) * scale [+ mask]
    p = softmax(scores, -1, dtype=float32).to(q.dtype) [dropout with p = 0: a clone]
    out = matmul(p, v)

which is `scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=scale)`, the form
`attn_implementation="sdpa"` calls: the SDPA converter takes it from there (mla.paged_attention
over the caches, lengths from the mask; frontend/aten.py), so both implementations fuse the
same way. inductor makes the same rewrite (torch/_inductor/fx_passes/fuse_attention.py). The
numerics are the fused attention's: scores in float32 (eager rounds q.k^T and the scaled scores
to q's type first), softmax in float32, P rounded to v's type before P.V (as eager), within the
bound docs/frontend.md states. A chain whose intermediate values are read elsewhere (the
probabilities returned with output_attentions=True) stays as written.
"""
from __future__ import annotations

import torch

aten = torch.ops.aten

MATMULS = (aten.matmul.default, aten.bmm.default)
SOFTMAXES = (aten.softmax.int, aten._softmax.default, aten._safe_softmax.default)
PASSTHROUGH = (aten.clone.default, aten.alias.default, aten.contiguous.default)


def _only_user(node):
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def _rank(node) -> int:
    val = node.meta.get("val") if isinstance(node, torch.fx.Node) else None
    return val.dim() if isinstance(val, torch.Tensor) else -1


def _swaps_last_two(node) -> bool:
    """transpose(k, -2, -1) / permute(k, [..., -1, -2]) of a rank-4 key."""
    rank = _rank(node.args[0])
    if rank != 4:
        return False
    if node.target == aten.transpose.int:
        return sorted(d % rank for d in node.args[1:3]) == [rank - 2, rank - 1]
    if node.target == aten.permute.default:
        return [d % rank for d in node.args[1]] == [0, 1, 3, 2]
    return False


def _attention_at(softmax):
    """(q, k, v, mask, scale, out node, chain nodes) of the eager attention whose softmax is
    `softmax`, or None."""
    rank = _rank(softmax)
    if rank != 4 or softmax.args[1] % rank != rank - 1:
        return None
    if softmax.target == aten._softmax.default and softmax.args[2]:
        return None                                   # half_to_float: another output type
    chain = [softmax]
    node, mask, scale = softmax.args[0], None, 1.0
    if node.target == aten.add.Tensor and isinstance(node.args[1], torch.fx.Node) and len(node.users) == 1:
        mask = node.args[1]
        if _rank(mask) != 4 or not mask.meta["val"].is_floating_point():
            return None
        chain.append(node)
        node = node.args[0]
    if node.target in (aten.mul.Tensor, aten.div.Tensor) and isinstance(node.args[1], (int, float)) \
            and len(node.users) == 1:
        factor = float(node.args[1])
        if factor == 0:
            return None
        scale = factor if node.target == aten.mul.Tensor else 1.0 / factor
        chain.append(node)
        node = node.args[0]
    if node.target not in MATMULS or len(node.users) != 1:
        return None
    chain.append(node)
    q, key_t = node.args[:2]
    if not isinstance(key_t, torch.fx.Node) or not _swaps_last_two(key_t) or _rank(q) != 4:
        return None
    k = key_t.args[0]
    if len(key_t.users) == 1:
        chain.append(key_t)
    # forward: the cast back to q's type, a no-op dropout (a clone), the product with v
    node = _only_user(softmax)
    while node is not None and (node.target in PASSTHROUGH or node.target == aten._to_copy.default):
        if node.target == aten._to_copy.default and set(node.kwargs) - {"dtype"}:
            return None
        chain.append(node)
        node = _only_user(node)
    if node is None or node.target not in MATMULS or node.args[0] is not chain[-1] or _rank(node.args[1]) != 4:
        return None
    v = node.args[1]
    q_val, k_val, v_val, out_val = (n.meta["val"] for n in (q, k, v, node))
    if not (q_val.dtype == k_val.dtype == v_val.dtype == out_val.dtype) or q_val.shape[-1] != k_val.shape[-1]:
        return None
    return q, k, v, mask, scale, node, chain


def eager_attention_to_sdpa(graph: torch.fx.Graph) -> int:
    """Rewrite every eager attention of `graph` into aten.scaled_dot_product_attention (see the
    module docstring); returns how many."""
    count = 0
    for softmax in [n for n in graph.nodes if n.op == "call_function" and n.target in SOFTMAXES]:
        found = _attention_at(softmax)
        if found is None:
            continue
        q, k, v, mask, scale, out, chain = found
        with graph.inserting_before(out):
            sdpa = graph.call_function(aten.scaled_dot_product_attention.default, (q, k, v),
                                       {"attn_mask": mask, "scale": scale})
        sdpa.meta = dict(softmax.meta)              # the source line of the attention
        sdpa.meta["val"] = out.meta["val"]
        out.replace_all_uses_with(sdpa)
        graph.erase_node(out)
        left = list(chain)
        while left:                                 # each erased once its readers are gone
            dead = [n for n in left if not n.users]
            if not dead:
                break
            for node in dead:
                graph.erase_node(node)
            left = [n for n in left if n not in dead]
        count += 1
    return count
