"""The torch_npu-style primitive calls a PyTorch module may make, as torch custom ops.

Serving code for MLA on Ascend (vLLM-Ascend, torchair) writes the attention over the paged latent
cache as one call to a torch_npu kernel (`torch_npu._npu_paged_attention_mla`), not as einsums
over gathered pages. On a machine without torch_npu these ops stand in for it: each is a
`torch.library` custom op with a plain-PyTorch CPU implementation (the module's eager meaning),
kept whole by `torch.export` and converted to its one mla op by the importer.

    torch.ops.ascend_mla.paged_attention(query, key_cache, value_cache, block_table, seq_lengths,
                                         query_rope, key_rope_cache, scale)   -> mla.paged_attention
    torch.ops.ascend_mla.attention(query, key, value, seq_lengths, scale)
        dense K/V caches with per-batch lengths (torch_npu.npu_fused_infer_attention_score with
        actual_seq_lengths_kv over a static cache)                           -> mla.paged_attention
                                                                                (one block per batch)
"""
from __future__ import annotations

import torch

LIBRARY = "ascend_mla"


@torch.library.custom_op(f"{LIBRARY}::paged_attention", mutates_args=())
def paged_attention(query: torch.Tensor, key_cache: torch.Tensor, value_cache: torch.Tensor,
                    block_table: torch.Tensor, seq_lengths: torch.Tensor,
                    query_rope: torch.Tensor | None = None, key_rope_cache: torch.Tensor | None = None,
                    scale: float = 1.0) -> torch.Tensor:
    """Causal attention of query (B, S, N, D) over paged caches (BlockNum, BlockSize, Nkv, D):
    batch b's keys are the first seq_lengths[b] slots of its blocks block_table[b]; query row s
    sits at position seq_lengths[b] - S + s and sees the keys up to it. Scores add
    query_rope . key_rope (MLA). float32 scores and softmax, the probabilities rounded to the
    values' type before P.V, the output rounded to the query's type (as the NPU kernels)."""
    batch, s_len, heads, _ = query.shape
    block_size, kv_heads = key_cache.shape[1], key_cache.shape[2]
    out = query.new_empty(query.shape[:3] + value_cache.shape[3:])
    for b in range(batch):
        length = int(seq_lengths[b])
        blocks = block_table[b, :-(-length // block_size)].long()

        def keys(cache):        # (length, Nkv, D) -> (N, length, D), kv head per query head
            rows = cache[blocks].reshape(-1, kv_heads, cache.shape[-1])[:length]
            return rows.float().repeat_interleave(heads // kv_heads, dim=1).transpose(0, 1)
        q = query[b].float().transpose(0, 1)                        # (N, S, D)
        scores = q @ keys(key_cache).transpose(1, 2)
        if query_rope is not None:
            scores = scores + query_rope[b].float().transpose(0, 1) @ keys(key_rope_cache).transpose(1, 2)
        scores = scores * scale
        position = torch.arange(length - s_len, length)[:, None]
        scores = scores.masked_fill(torch.arange(length)[None, :] > position, float("-inf"))
        p = torch.softmax(scores, dim=-1).to(value_cache.dtype).float()
        out[b] = (p @ keys(value_cache)).transpose(0, 1).to(out.dtype)
    return out


@paged_attention.register_fake
def _(query, key_cache, value_cache, block_table, seq_lengths, query_rope=None, key_rope_cache=None, scale=1.0):
    return query.new_empty(query.shape[:3] + value_cache.shape[3:])


@torch.library.custom_op(f"{LIBRARY}::attention", mutates_args=())
def attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, seq_lengths: torch.Tensor,
              scale: float = 1.0) -> torch.Tensor:
    """Causal attention of query (B, S, N, D) over dense caches key (B, L, Nkv, D) and value
    (B, L, Nkv, Dv) with per-batch lengths: batch b's keys are key[b, :seq_lengths[b]], query
    row s sits at position seq_lengths[b] - S + s (what serving code hands FIA as
    actual_seq_lengths_kv over a static cache; Hugging Face builds the same mask for SDPA).
    A dense cache of L rows per batch is a paged cache of B blocks of L rows with block
    table [[0], [1], ...]: the numerics are paged_attention's."""
    blocks = torch.arange(query.shape[0], dtype=torch.int32).view(-1, 1)
    return paged_attention(query, key, value, blocks, seq_lengths, None, None, scale)


@attention.register_fake
def _(query, key, value, seq_lengths, scale=1.0):
    return query.new_empty(query.shape[:3] + value.shape[3:])
