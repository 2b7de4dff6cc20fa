"""DeepSeek-class models, the public names (docs/api.md 5, 8, 9):

    from ascend_mla.models import deepseek
    model = deepseek.build("deepseek-v3", tp=8, layers=2)          # an attention block (models/blocks.py)
    lm = deepseek.CausalLM.from_pretrained(path)                   # the whole decoder (models/causal_lm.py)
    module = deepseek.TorchMLA(model.config)                       # the PyTorch reference (models/torch_mla.py)

The graphs are built in models/blocks.py; CausalLM and the PyTorch modules build on it, and this
module names them all, the PyTorch ones (torch is optional) imported on first use.
"""
from __future__ import annotations

from .blocks import (  # noqa: F401
    ATTENTIONS,
    BF16,
    CACHE_MODES,
    CONFIG_SIZES,
    CONFIGS,
    KV_SCALE,
    QUANTIZED,
    QUANTS,
    QUERY_SCALE,
    Model,
    build,
    from_pretrained,
    load_weights,
    projections,
    query_scale_table,
    query_scaled,
    random_weights,
    rope_tables,
    shard,
    softmax_scale,
    weight_specs,
)
from .decoder import attention_ids, layer_blocks, layer_ids  # noqa: F401


def __getattr__(name):
    # TorchMLA, TorchMLANaive need torch, which is optional: imported on first use.
    if name in ("TorchMLA", "TorchMLANaive"):
        from . import torch_mla
        return getattr(torch_mla, name)
    if name == "CausalLM":            # the whole decoder from a checkpoint (causal_lm.py)
        from .causal_lm import CausalLM
        return CausalLM
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
