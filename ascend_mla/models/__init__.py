"""Model builders: DeepSeek-class MLA attention blocks as primitive-level mla graphs, and the
causal LMs of every supported MLA family from their Hugging Face checkpoints.

    from ascend_mla.models import deepseek
    model = deepseek.build("deepseek-v3", tp=8, layers=2)

    from ascend_mla.models import AutoCausalLM
    lm = AutoCausalLM.from_pretrained(path)             # dispatch on config.json's model_type
"""
from . import deepseek  # noqa: F401

__all__ = ["deepseek", "AutoCausalLM"]


def __getattr__(name):
    if name == "AutoCausalLM":          # the compiled causal LM (causal_lm.py), imported on first use
        from .causal_lm import AutoCausalLM
        return AutoCausalLM
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
