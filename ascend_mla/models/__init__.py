"""Model builders: DeepSeek-class MLA attention blocks as primitive-level mla graphs.

    from ascend_mla.models import deepseek
    model = deepseek.build("deepseek-v3", tp=8, layers=2)
"""
from . import deepseek  # noqa: F401

__all__ = ["deepseek"]
