"""Constants, the rule decorator and small helpers shared by the FIA rule modules."""
from __future__ import annotations

from ..rules import STATIC, RuleSet
from ..types import TensorInfo

OP_NAME = "mla.fused_infer_attention_score"

LAYOUTS = ("BSH", "BSND", "BNSD", "BNSD_BSND", "BNSD_NBSD", "BSND_NBSD", "TND", "TND_NTD",
           "NTD_TND")
# Input BNSD / BSND, output (N, B, S, D): the MLA mode's head-major outputs (torch_npu
# npu_fused_infer_attention_score_v2, "MLA场景约束", query D 512; vLLM-Ascend's decode calls them
# so that W_uv's batched product reads the output without a transpose).
NBSD_LAYOUTS = ("BNSD_NBSD", "BSND_NBSD")
# Variable-length layouts: the batches' tokens packed along T, cumulative actual lengths
# (seed L797, L880, L954 name TND; the later FIA documents define it, see the TND rules).
TND_LAYOUTS = ("TND", "TND_NTD", "NTD_TND")
TND_MAX_T = 1048576             # T <= 1M (FIA V3/V4 documents; PFA tiling TLIMIT)
TND_MAX_BATCH = 4096            # at most 4096 actual lengths (MAX_VAR_LEN_SEQ_LEN)
# non-MLA TND: (query/key D, value D) the PromptFlashAttention TND path computes
TND_HEAD_DIMS = ((64, 64), (128, 128), (192, 128), (192, 192))
FLOATS = ("f16", "bf16")
QUERY_TYPES = ("f16", "bf16", "i8")
KV_TYPES = ("f16", "bf16", "i8", "i4", "i32", "f8E5M2", "f8E4M3FN", "f4E2M1FN")  # seed L131
KV_TYPES_A2 = ("f16", "bf16", "i8", "i4", "i32")                                # seed L673
INT4 = ("i4", "i32")            # native INT4, or 8 INT4 packed in an INT32 (seed L947)
OUT_TYPES = ("f16", "bf16", "i8")
MASK_TYPES = ("i1", "i8", "ui8")
SCALE_TYPES = ("f16", "bf16", "f32")
S_LIMIT = 20971520              # 20M, seed L810
COMPRESSED_MASK = 2048          # sparse_mode 2/3/4 template, seed L872
MLA_HEADS = (1, 2, 4, 8, 16, 32, 64, 128)
MLA_BLOCK_SIZES = (16, 128)
MLA_D, MLA_ROPE_D = 512, 64
# The MLA mode's second query head dim: prefill with the rope part split off a per-head
# query/key of 128 + 64 (torch_npu npu_fused_infer_attention_score "MLA约束": query D 512 or 128).
MLA_PREFILL_D = 128
# `mla=LATENT` guards a rule of the absorbed (latent, query D 512) MLA mode only.
LATENT = "latent"
# B*N*Q_S*KV_S*D of the smallest shape in the seed's AI Core timeout table (L810-864)
TIMEOUT_WORK = 20 * 2097152 * 2097152 * 256

OPTIONAL_TENSORS = (
    "pse_shift", "atten_mask", "dequant_scale1", "quant_scale1", "dequant_scale2",
    "quant_scale2", "quant_offset2", "antiquant_scale", "antiquant_offset", "block_table",
    "query_padding_size", "kv_padding_size", "key_antiquant_scale", "key_antiquant_offset",
    "value_antiquant_scale", "value_antiquant_offset", "key_shared_prefix",
    "value_shared_prefix")
QUANT_OPERANDS = ("dequant_scale1", "quant_scale1", "dequant_scale2", "quant_scale2",
                  "quant_offset2")
ANTIQUANT_OPERANDS = ("antiquant_scale", "antiquant_offset", "key_antiquant_scale",
                      "key_antiquant_offset", "value_antiquant_scale", "value_antiquant_offset")

rules = RuleSet()
# Profiles: IR is verified as the aclnn V2 operator; the torch_npu-style eager calls of
# ascend_mla.ops add the rules about the caller's arrays (strides), which IR values do not have.
V2, PT = "V2", "PT"


class FiaRules(RuleSet):
    """A section of FIA rules. The package concatenates the sections in dependency order."""

    def rule(self, rule_id, params, *, branch=None, mla=None, tnd=None, kind=STATIC,
             severity="error", profiles=None):
        """A rule that only runs in one branch ("prompt" / "incre"), mode (mla True / False;
        LATENT: the MLA mode with query D 512) or
        layout family (tnd True: TND, TND_NTD, NTD_TND; False: the others).

        `params` is a parameter name, or a tuple of names for a rule about several operands: the
        check then runs once per name, as check(op, s, name), so a diagnostic names the operand
        at fault.
        """
        names = (params,) if isinstance(params, str) else tuple(params)
        register = super().rule

        def add(check):
            for name in names:
                def guarded(op, s, name=name):
                    if branch == "prompt" and s.incre or branch == "incre" and not s.incre:
                        return None
                    if mla == LATENT and not s.latent:
                        return None
                    if mla is not None and mla != LATENT and s.mla != mla:
                        return None
                    if tnd is not None and s.tnd != tnd:
                        return None
                    return check(op, s) if isinstance(params, str) else check(op, s, name)
                guarded.__name__, guarded.__doc__ = check.__name__, check.__doc__
                register(rule_id, name, kind=kind, severity=severity, profiles=profiles)(guarded)
            return check
        return add


# --- small helpers ---------------------------------------------------------------------------

def dims(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


def one_of(values) -> str:
    values = [str(v) for v in values]
    return ", ".join(values[:-1]) + " or " + values[-1] if len(values) > 1 else values[0]


def seq_axis(layout) -> int:
    """The S axis of a query-like (and non-paged key-like) tensor; T in the TND layouts."""
    return {"BSH": 1, "BSND": 1, "BSND_NBSD": 1, "TND": 0, "TND_NTD": 0,
            "NTD_TND": 1}.get(layout, 2)


def heads_axis(layout) -> int:
    """The N axis of a query-like (and non-paged key-like) tensor (not BSH)."""
    return {"BSND": 2, "BSND_NBSD": 2, "TND": 1, "TND_NTD": 1, "NTD_TND": 0}.get(layout, 1)


def logical_last(t: TensorInfo) -> int:
    """The last dim in elements: an INT32 K/V packs 8 INT4 values (seed L948)."""
    return t.shape[-1] * 8 if t.dtype == "i32" else t.shape[-1]


def is_int4(t) -> bool:
    return t is not None and t.dtype in INT4


def present(op, *names):
    return [n for n in names if op.present(n)]


def partner(name):
    """key_x <-> value_x."""
    if name.startswith("key_"):
        return "value_" + name[len("key_"):]
    return "key_" + name[len("value_"):]


def paired(op, name):
    """Both null or both non-null (L933, L975; prefixes L921)."""
    other = partner(name)
    if getattr(op, name) is None and getattr(op, other) is not None:
        return f"required with {other} (both or neither), got none"
