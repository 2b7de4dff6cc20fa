"""ascend_mla.passes: the pass registry and the passes (each usable from mla-opt and Python)."""
from .registry import PASSES, PassFailure, PassOption, build_pass_manager, parse_pipeline, register_pass, run_pipeline

__all__ = ["PASSES", "PassFailure", "PassOption", "build_pass_manager", "parse_pipeline",
           "register_pass", "run_pipeline"]
