"""ascend_mla.dialect: the `mla` dialect — op declarations, IRDL, verifiers.

    from ascend_mla.dialect import make_context, MLA
    ctx = make_context()               # upstream dialects + mla, loaded once
    MLA.ops["mla.rms_norm"]            # the OpDef: operands, attributes, rules...
"""
from .dialect import MLA, Dialect, irdl_module_text, load_dialects, make_context, opdef_of, verify_ops
from .opdef import OpDef, OpSnapshot, f64, i1, i64, i64_array, operand, optional, string, variadic
from .rules import RUNTIME, STATIC, Rule, RuleSet
from .types import FRACTAL_NZ, ND, TensorInfo, describe_type, tensor_type

__all__ = [
    "MLA", "Dialect", "irdl_module_text", "load_dialects", "make_context", "opdef_of", "verify_ops",
    "OpDef", "OpSnapshot", "f64", "i1", "i64", "i64_array", "operand", "optional", "string",
    "variadic", "RUNTIME", "STATIC", "Rule", "RuleSet", "FRACTAL_NZ", "ND", "TensorInfo",
    "describe_type", "tensor_type",
]
