"""Eager ops, torch_npu style (docs/api.md section 2).

Each function builds a one-op mla module, verifies it and runs it on the selected backend
(ascend_mla/eager.py). Keyword names, defaults and result order are the public contract.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np

from .dialect.dsa import (
    KvQuantSparseFlashAttention,
    LightningIndexer,
    PrologV3,
    QuantLightningIndexer,
    SparseFlashAttention,
)
from .dialect.fia import FusedInferAttentionScore
from .dialect.nsa import NsaCompressAttentionInfer
from .dialect.opdef import KindError
from .dialect.primitive import DynamicQuant, FormatCast, KvRmsNormRopeCache, RmsNorm, Rope, TransposeBatchMatmul
from .dialect.prolog import Prolog, PrologV2
from .dialect.types import TensorInfo
from .eager import call, workspace_size
from .errors import VerificationError, VerificationWarning
from .runtime.formats import NZTensor, c0_for
from .runtime.interop import is_torch, torch_to_numpy


def rms_norm(x, gamma, *, epsilon=1e-5):
    """`mla.rms_norm` eagerly: x / sqrt(mean(x^2, -1) + epsilon) * gamma (float32 arithmetic)."""
    return call(RmsNorm, {"x": x, "gamma": gamma}, {"epsilon": epsilon})[0]


def npu_nsa_compress_attention_infer(query, key, value, scale_value, head_num, key_value_head_num,
                                     select_block_size, select_block_count, page_block_size,
                                     compress_block_size, compress_stride, *, atten_mask=None,
                                     block_table=None, topk_mask=None, actual_seq_qlen=None,
                                     actual_cmp_seq_kvlen=None, actual_sel_seq_kvlen=None,
                                     layout="TND", sparse_mode=0):
    """`mla.nsa_compress_attention_infer` eagerly: NSA compressed attention over the paged
    key/value, with the top-K selection blocks of each kv head. Returns (output, topk_indices).

    The host int arrays may be lists, tuples, NumPy arrays or torch tensors."""
    operands = {"query": query, "key": key, "value": value, "atten_mask": atten_mask,
                "block_table": block_table, "topk_mask": topk_mask}
    attributes = {"scale_value": scale_value, "head_num": head_num,
                  "key_value_head_num": key_value_head_num,
                  "select_block_size": select_block_size,
                  "select_block_count": select_block_count, "page_block_size": page_block_size,
                  "compress_block_size": compress_block_size, "compress_stride": compress_stride,
                  "actual_seq_qlen": actual_seq_qlen,
                  "actual_cmp_seq_kvlen": actual_cmp_seq_kvlen,
                  "actual_sel_seq_kvlen": actual_sel_seq_kvlen,
                  "layout": layout, "sparse_mode": sparse_mode}
    return call(NsaCompressAttentionInfer, operands, _torch_style_ints(NsaCompressAttentionInfer,
                                                                       attributes))


def npu_mla_prolog(token_x, weight_dq, weight_uq_qr, weight_uk, weight_dkv_kr, rmsnorm_gamma_cq,
                   rmsnorm_gamma_ckv, rope_sin, rope_cos, cache_index, kv_cache, kr_cache, *,
                   dequant_scale_x=None, dequant_scale_w_dq=None, dequant_scale_w_uq_qr=None,
                   dequant_scale_w_dkv_kr=None, quant_scale_ckv=None, quant_scale_ckr=None,
                   smooth_scales_cq=None, rmsnorm_epsilon_cq=1e-05, rmsnorm_epsilon_ckv=1e-05,
                   cache_mode="PA_BSND"):
    """`mla.prolog` eagerly, checked against the aclnnMlaProlog document (scenarios NQ, PQ-KVNQ,
    PQ-KVQ). weight_dq, weight_uq_qr and weight_dkv_kr are NZ tensors (format_cast(w, 29)).
    Returns (query, query_rope, kv_cache_out, kr_cache_out); the caches are updated in place and
    returned themselves."""
    return _mla_prolog(Prolog, locals(), profile="V1E")


def npu_mla_prolog_v2(token_x, weight_dq, weight_uq_qr, weight_uk, weight_dkv_kr, rmsnorm_gamma_cq,
                      rmsnorm_gamma_ckv, rope_sin, rope_cos, cache_index, kv_cache, kr_cache, *,
                      dequant_scale_x=None, dequant_scale_w_dq=None, dequant_scale_w_uq_qr=None,
                      dequant_scale_w_dkv_kr=None, quant_scale_ckv=None, quant_scale_ckr=None,
                      smooth_scales_cq=None, rmsnorm_epsilon_cq=1e-05, rmsnorm_epsilon_ckv=1e-05,
                      cache_mode="PA_BSND"):
    """`mla.prolog_v2` eagerly, checked against torch_npu.npu_mla_prolog_v2's document (all five
    scenarios; He = 7168, N >= 8, no empty tensors). Returns (query, query_rope, kv_cache_out,
    kr_cache_out, dequant_scale_q_nope); the caches are updated in place and returned themselves."""
    return _mla_prolog(PrologV2, locals(), profile="PT")


def _mla_prolog(opdef, arguments, profile):
    operands = {o.name: arguments[o.name] for o in opdef.kernel_operands}
    attributes = {a.name: arguments[a.name] for a in opdef.attributes}
    return call(opdef, operands, attributes, profile=profile)


def npu_fused_infer_attention_score(
        query, key, value, *, pse_shift=None, atten_mask=None, actual_seq_lengths=None,
        actual_seq_lengths_kv=None, dequant_scale1=None, quant_scale1=None, dequant_scale2=None,
        quant_scale2=None, quant_offset2=None, antiquant_scale=None, antiquant_offset=None,
        block_table=None, query_padding_size=None, kv_padding_size=None,
        key_antiquant_scale=None, key_antiquant_offset=None, value_antiquant_scale=None,
        value_antiquant_offset=None, key_shared_prefix=None, value_shared_prefix=None,
        actual_shared_prefix_len=None, query_rope=None, key_rope=None,
        key_rope_antiquant_scale=None, num_heads=1, scale_value=1.0, pre_tokens=2147483647,
        next_tokens=2147483647, input_layout="BSH", num_key_value_heads=0, sparse_mode=0,
        inner_precise=0, block_size=0, antiquant_mode=0, softmax_lse_flag=False,
        key_antiquant_mode=0, value_antiquant_mode=0, scale=None):
    """`mla.fused_infer_attention_score` eagerly (aclnnFusedInferAttentionScoreV2; with
    query_rope/key_rope its MLA mode). Returns (attention_out, softmax_lse).

    key and value are an array or a list of arrays (the tensor list: one (1, ...) tensor per
    batch row); value may be the very array given as key (the MLA latent cache). `scale` is an
    alias of `scale_value`. A PA_NZ cache is passed as an NZTensor (docs/attention.md).
    softmax_lse is float32 (B, N, Q_S, 1) ((T, N, 1) in TND) with softmax_lse_flag, else a (1,)
    zero tensor. key_rope_antiquant_scale is torch_npu's reserved keyword (every document:
    "reserved, no effect"): ignored with a warning [FIA-API-1]. The MLA full-quant mode has no
    keywords here (dequant_scale_query is npu_fused_infer_attention_score_v2's)."""
    return _fia_v1(locals())


def _fia_v1(arguments: dict, run=call):
    """npu_fused_infer_attention_score's arguments (all its keywords): the reserved one warned
    about, the `scale` alias resolved."""
    _reserved({"key_rope_antiquant_scale": arguments["key_rope_antiquant_scale"]})
    scale, scale_value = arguments["scale"], arguments["scale_value"]
    if scale is not None:
        if not _same(scale_value, 1.0) and not _same(scale_value, scale):
            raise TypeError("npu_fused_infer_attention_score: got both scale_value and its alias "
                            "scale; give one")
        arguments = {**arguments, "scale_value": scale}   # its kind is checked with the others
    return _fia(arguments, run)


def _fia(arguments: dict, run=call):
    """Call the op with the parameters named in `arguments` (the others: absent / default);
    `run`: eager.call, or eager.workspace_size for the workspace getters."""
    operands = {o.name: arguments.get(o.name) for o in FusedInferAttentionScore.kernel_operands}
    operands["key"] = _tensor_list(arguments["key"])
    operands["value"] = _tensor_list(arguments["value"])
    attributes = {a.name: arguments.get(a.name, a.default)
                  for a in FusedInferAttentionScore.attributes}
    if operands["block_table"] is not None:
        _nz_cache_views(operands, _one_element_int(attributes["block_size"]))
    return run(FusedInferAttentionScore, operands,
               _torch_style_ints(FusedInferAttentionScore, attributes), profile="PT")


def _nz_cache_views(operands: dict, block_size):
    """The paged caches given as torch_npu's FIA documents take an NZ cache, the 5-D
    (block_num, KV_N, D/C0, block_size, C0) view of its bytes (C0 = 32 bytes / element size;
    vLLM-Ascend's `k_nope.view(-1, N_kv, D // 16, block_size, 16)`), become the FRACTAL_NZ
    (block_num, block_size, KV_N*D) tensor over the same memory: what `nz_cache_view` gives for
    the (block_num, block_size, KV_N, D) PA_NZ cache, the same bytes. Other shapes are left to
    the rules (FIA-169 names the 5-D form). The key given again as value stays one object."""
    seen = {}

    def view(x):
        if id(x) in seen:
            return seen[id(x)]
        try:
            arr = torch_to_numpy(x) if is_torch(x) else x
        except KindError:        # not a tensor the op takes: the argument rules name it (ARG-002)
            arr = None
        out = x
        if isinstance(arr, np.ndarray) and arr.ndim == 5 and arr.flags.c_contiguous:
            blocks, kv_n, d1, bs, c0 = arr.shape
            if c0 == c0_for(arr.dtype) and bs == block_size and bs % 16 == 0:
                out = NZTensor(arr.reshape(blocks, kv_n * d1, bs // 16, 16, c0),
                               (blocks, bs, kv_n * d1 * c0))
        seen[id(x)] = out
        return out

    for name in ("key", "value"):
        operands[name] = [view(x) for x in operands[name]]
    if operands.get("key_rope") is not None:
        operands["key_rope"] = view(operands["key_rope"])


def npu_fused_infer_attention_score_v2(
        query, key, value, *, query_rope=None, key_rope=None, pse_shift=None, atten_mask=None,
        actual_seq_qlen=None, actual_seq_kvlen=None, block_table=None, dequant_scale_query=None,
        dequant_scale_key=None, dequant_offset_key=None, dequant_scale_value=None,
        dequant_offset_value=None, dequant_scale_key_rope=None, quant_scale_out=None,
        quant_offset_out=None, quant_scale_p=None, learnable_sink=None, num_query_heads=1,
        num_key_value_heads=0, softmax_scale=1.0, pre_tokens=2147483647,
        next_tokens=2147483647, input_layout="BSH", sparse_mode=0, block_size=0,
        query_quant_mode=0, key_quant_mode=0, value_quant_mode=0, inner_precise=0,
        return_softmax_lse=False, query_dtype=None, key_dtype=None, value_dtype=None,
        query_rope_dtype=None, key_rope_dtype=None, key_shared_prefix_dtype=None,
        value_shared_prefix_dtype=None, dequant_scale_query_dtype=None,
        dequant_scale_key_dtype=None, dequant_scale_value_dtype=None,
        dequant_scale_key_rope_dtype=None, out_dtype=None):
    """torch_npu 2.14's spelling of the same op, `mla.fused_infer_attention_score`: the
    keywords map onto npu_fused_infer_attention_score's (table V2_NAMES; actual_seq_qlen and
    actual_seq_kvlen are the lists actual_seq_lengths / actual_seq_lengths_kv). Returns
    (attention_out, softmax_lse); a rejected call names the v2 keyword the caller passed.

    The MLA full-quant mode (an int8 query and latent cache: dequant_scale_query with
    query_quant_mode 3, dequant_scale_key / dequant_scale_value per tensor) is the op's
    (FIA-MLAQ-*, docs/attention.md). What the op does not model is rejected [FIA-API-2]:
    learnable_sink, out_dtype. The reserved keywords (dequant_scale_key_rope, quant_scale_p,
    the *_dtype ones) are ignored with a warning [FIA-API-1]."""
    return _fia_v2(locals())


def _fia_v2(arguments: dict, run=call):
    """npu_fused_infer_attention_score_v2's arguments (all its keywords) mapped onto the op's."""
    _reserved({name: arguments[name] for name in V2_RESERVED})
    for name, why in V2_NOT_MODELLED.items():
        default = _V2_DEFAULTS[name]
        if arguments[name] is not None if default is None else not _same(arguments[name], default):
            raise VerificationError(f"'{FusedInferAttentionScore.name}' op {name}: not "
                                    f"supported: {why} [FIA-API-2]")
    mapped = {V2_NAMES.get(name, name): value for name, value in arguments.items()
              if name not in V2_RESERVED and name not in V2_NOT_MODELLED}
    try:
        return _fia(mapped, run)
    except VerificationError as error:
        raise VerificationError(_v2_spelling(str(error)), error.findings) from None


def _npu_fused_infer_attention_score_v2_get_max_workspace(query, key, value, **keywords):
    """torch_npu's workspace getter for graph capture: the bytes npu_fused_infer_attention_score_v2
    with these arguments asks for, as a uint8 tensor of that size (torch when the query is).
    The size is the lowered call's phase one (aclnnFusedInferAttentionScoreV3/V4
    GetWorkspaceSize) on the selected backend: 0 on the CPU, whose kernel needs none. Every
    rule of the call applies, with the v2 keywords' spelling."""
    size = _fia_v2(_v2_call_arguments(query, key, value, keywords), run=workspace_size)
    buffer = np.zeros((size,), np.uint8)
    return _like_query(buffer, query)


def _npu_fused_infer_attention_score_get_max_workspace(query, key, value, **keywords):
    """The same getter for npu_fused_infer_attention_score (torch_npu's v1 spelling)."""
    size = _fia_v1(_call_arguments(_V1_DEFAULTS, "npu_fused_infer_attention_score", query, key,
                                   value, keywords), run=workspace_size)
    return _like_query(np.zeros((size,), np.uint8), query)


def _fia_v2_out(query, key, value, *, workspace=None, out=None, attention_out=None,
                softmax_lse=None, **keywords):
    """npu_fused_infer_attention_score_v2.out: the call, its results written into the caller's
    tensors (`out=[attention_out, softmax_lse]`, as vLLM-Ascend passes them, or by keyword),
    which are returned. attention_out must have the type of the call's result [FIA-API-3];
    softmax_lse is written when return_softmax_lse is true (then of the result's type,
    FIA-API-3) and left as it is otherwise. `workspace`, when given, must hold the getter's
    bytes [FIA-API-4]. Every check runs before anything is written."""
    arguments = _v2_call_arguments(query, key, value, keywords)
    return _write_out(lambda run: _fia_v2(arguments, run), arguments["return_softmax_lse"],
                      workspace, out, attention_out, softmax_lse)


def _fia_v1_out(query, key, value, *, workspace=None, out=None, attention_out=None,
                softmax_lse=None, **keywords):
    """npu_fused_infer_attention_score.out: as npu_fused_infer_attention_score_v2.out, with
    npu_fused_infer_attention_score's keywords (softmax_lse written with softmax_lse_flag)."""
    arguments = _call_arguments(_V1_DEFAULTS, "npu_fused_infer_attention_score", query, key,
                                value, keywords)
    return _write_out(lambda run: _fia_v1(arguments, run), arguments["softmax_lse_flag"],
                      workspace, out, attention_out, softmax_lse)


def _write_out(fia, lse_flag, workspace, out, attention_out, softmax_lse):
    """The .out overloads: `fia(run)` calls the op (run=call) or asks its workspace
    (run=workspace_size)."""
    if out is not None:
        if attention_out is not None or softmax_lse is not None or len(out) != 2:
            raise TypeError("npu_fused_infer_attention_score(_v2).out: give out=[attention_out, "
                            "softmax_lse] or the two keywords")
        attention_out, softmax_lse = out
    if attention_out is None:
        raise TypeError("npu_fused_infer_attention_score(_v2).out: attention_out (out[0]) is required")
    need = 0 if workspace is None else fia(workspace_size)
    if _nbytes(workspace) < need:
        raise VerificationError(f"'{FusedInferAttentionScore.name}' op workspace: expected at "
                                f"least {need} bytes (the call's phase one), got "
                                f"{_nbytes(workspace)} [FIA-API-4]")
    result, lse = fia(call)
    targets = [("attention_out", attention_out, result)]
    if lse_flag:
        targets.append(("softmax_lse", softmax_lse, lse))
    for name, target, value in targets:
        got, want = _described(target), _described(value)
        if got != want:
            raise VerificationError(f"'{FusedInferAttentionScore.name}' op {name}: expected an "
                                    f"out tensor {want} (the call's result), got {got} [FIA-API-3]")
    for _, target, value in targets:
        np.copyto(_host_view(target), _host_view(value))
    return attention_out, softmax_lse


def _v2_call_arguments(query, key, value, keywords: dict) -> dict:
    return _call_arguments(_V2_DEFAULTS, "npu_fused_infer_attention_score_v2", query, key, value,
                           keywords)


def _call_arguments(defaults, function, query, key, value, keywords: dict) -> dict:
    """Every parameter of `function`, the given ones and the defaults; TypeError for a keyword
    it does not have (as Python's call would)."""
    unknown = set(keywords) - set(defaults)
    if unknown:
        raise TypeError(f"{function}: unexpected keyword argument(s) {', '.join(sorted(unknown))}")
    return {**defaults, **keywords, "query": query, "key": key, "value": value}


def _host_view(x):
    """A NumPy view of a CPU tensor's memory (torch or NumPy)."""
    return torch_to_numpy(x) if is_torch(x) else np.asarray(x)


def _described(x) -> str:
    arr = _host_view(x) if x is not None else None
    return "none" if arr is None else f"{arr.dtype.name} {tuple(arr.shape)}"


def _nbytes(x) -> int:
    return 0 if x is None else int(_host_view(x).nbytes)


def _like_query(array, query):
    """`array` as a torch tensor when the query is one."""
    if is_torch(query):
        import torch
        return torch.from_numpy(array)
    return array


# npu_fused_infer_attention_score_v2 keyword -> npu_fused_infer_attention_score keyword
V2_NAMES = {
    "actual_seq_qlen": "actual_seq_lengths", "actual_seq_kvlen": "actual_seq_lengths_kv",
    "dequant_scale_key": "key_antiquant_scale", "dequant_offset_key": "key_antiquant_offset",
    "dequant_scale_value": "value_antiquant_scale",
    "dequant_offset_value": "value_antiquant_offset", "quant_scale_out": "quant_scale2",
    "quant_offset_out": "quant_offset2", "num_query_heads": "num_heads",
    "softmax_scale": "scale_value", "key_quant_mode": "key_antiquant_mode",
    "value_quant_mode": "value_antiquant_mode", "return_softmax_lse": "softmax_lse_flag"}
# torch_npu's document: "reserved, not used yet" (预留参数，暂未使用)
V2_RESERVED = ("dequant_scale_key_rope", "quant_scale_p", "query_dtype", "key_dtype",
               "value_dtype", "query_rope_dtype", "key_rope_dtype", "key_shared_prefix_dtype",
               "value_shared_prefix_dtype", "dequant_scale_query_dtype", "dequant_scale_key_dtype",
               "dequant_scale_value_dtype", "dequant_scale_key_rope_dtype")
V2_NOT_MODELLED = {
    "learnable_sink": "the op has no sink operand (aclnn V4's learnable sink)",
    "out_dtype": "the output dtype follows the inputs (int8 with quant_scale_out, bfloat16 "
                 "in the MLA full-quant mode, float16 for another int8 query, else the query's)"}


_V2_DEFAULTS = {p.name: p.default for p in
                inspect.signature(npu_fused_infer_attention_score_v2).parameters.values()
                if p.default is not inspect.Parameter.empty}
_V1_DEFAULTS = {p.name: p.default for p in
                inspect.signature(npu_fused_infer_attention_score).parameters.values()
                if p.default is not inspect.Parameter.empty}
# torch_npu's .out overloads (vLLM-Ascend's graph capture calls v2's, with its getter)
npu_fused_infer_attention_score_v2.out = _fia_v2_out
npu_fused_infer_attention_score.out = _fia_v1_out


def _v2_spelling(message: str) -> str:
    """A diagnostic about an op parameter, led by the v2 keyword the caller passed."""
    for v2_name, name in V2_NAMES.items():
        message = message.replace(f" op {name}:", f" op {v2_name} ({name}):")
    return message


def _reserved(arguments: dict):
    """torch_npu's reserved keywords: accepted, ignored, and said so."""
    for name, value in arguments.items():
        if value is not None:
            warnings.warn(f"'{FusedInferAttentionScore.name}' op {name}: reserved by the "
                          f"operator (no effect in this version) and ignored [FIA-API-1]",
                          VerificationWarning, stacklevel=3)


def _same(a, b) -> bool:
    """a == b, False for values without one truth value (arrays)."""
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _tensor_list(tensors) -> list:
    """An aclTensorList argument: one array, or a list/tuple of them (None: empty)."""
    if tensors is None:
        return []
    return list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]



def _torch_style_ints(opdef, attributes: dict) -> dict:
    """An int parameter given as a one-element integral tensor (NumPy or torch, any rank) is
    its value, as torch's argument parser takes it (torch_npu's own tests pass e.g.
    key_antiquant_mode that way). Anything else is left to the host-parameter kind check."""
    return {name: _one_element_int(value) if opdef.attribute_by_name[name].kind == "i64" else value
            for name, value in attributes.items()}


def _one_element_int(value):
    if isinstance(value, (int, np.integer)) or not hasattr(value, "item"):
        return value
    size = value.numel() if callable(getattr(value, "numel", None)) else getattr(value, "size", None)
    if size != 1:
        return value
    item = value.item()
    return item if isinstance(item, int) and not isinstance(item, bool) else value


# --- the serving engines' calls (vLLM-Ascend's MLA backend; docs/attention.md "Serving clients") --

def npu_interleave_rope(x, cos, sin):
    """torch_npu.npu_interleave_rope: `mla.rope` (mode "interleave") with torch_npu's rules
    (ROPE-008..010: x (B, N, S, 64) f16/bf16, cos/sin (B, 1, S or 1, 64)): x's pairs
    de-interleaved, then x*cos + rotate_half(x)*sin in float32, rounded to x's type."""
    return call(Rope, {"x": x, "cos": cos, "sin": sin}, {"mode": "interleave"}, profile="PT")[0]


def npu_kv_rmsnorm_rope_cache(kv, gamma, cos, sin, index, k_cache, ckv_cache, *, k_rope_scale=None,
                              c_kv_scale=None, k_rope_offset=None, c_kv_offset=None, v=None,
                              epsilon=1e-5, cache_mode="Norm", is_output_kv=False):
    """torch_npu.npu_kv_rmsnorm_rope_cache, `mla.kv_rmsnorm_rope_cache`: RmsNorm of kv's latent
    part into ckv_cache, the interleaved RoPE of its rope part into k_cache, at the token slots
    `index` (cache_mode PA / PA_BNSD / PA_NZ; an int8 cache takes its scale). Returns (k_cache,
    ckv_cache, k_embed_out, y_out): the caches updated in place and returned themselves.
    `v` (the V2 form for other head dims) is not modelled [KVR-015]."""
    if v is not None:
        raise VerificationError(f"'{KvRmsNormRopeCache.name}' op v: not supported: the v input "
                                f"(aclnnKvRmsNormRopeCacheV2's Dk 192 / Dv 128 form) is not "
                                f"modelled [KVR-015]")
    operands = {"kv": kv, "gamma": gamma, "cos": cos, "sin": sin, "index": index,
                "k_cache": k_cache, "ckv_cache": ckv_cache, "k_rope_scale": k_rope_scale,
                "c_kv_scale": c_kv_scale, "k_rope_offset": k_rope_offset,
                "c_kv_offset": c_kv_offset}
    return call(KvRmsNormRopeCache, operands, {"epsilon": epsilon, "cache_mode": cache_mode,
                                               "is_output_kv": is_output_kv})


def npu_transpose_batchmatmul(input, weight, *, bias=None, scale=None, perm_x1=None, perm_x2=None,
                              perm_y=None, batch_split_factor=1):
    """torch_npu.npu_transpose_batchmatmul, `mla.transpose_batchmatmul`: (input^perm_x1 @
    weight)^perm_y, output (M, B, N) in input's type (float32 sums). bias ("not supported yet" in
    torch_npu's document) and the int8 output of `scale` are not modelled [TBMM-009]."""
    for name, value in (("bias", bias), ("scale", scale)):
        if value is not None:
            raise VerificationError(f"'{TransposeBatchMatmul.name}' op {name}: not supported "
                                    f"(bias: not supported by the operator yet; scale: the int8 "
                                    f"output is not modelled) [TBMM-009]")
    attributes = {"perm_x1": perm_x1, "perm_x2": perm_x2, "perm_y": perm_y,
                  "batch_split_factor": batch_split_factor}
    attributes = {k: (list(v) if isinstance(v, tuple) else v) for k, v in attributes.items()}
    return call(TransposeBatchMatmul, {"x": input, "w": weight},
                _torch_style_ints(TransposeBatchMatmul, attributes))[0]


def npu_dynamic_quant(input, *, smooth_scales=None, group_index=None, dst_type=None,
                      quant_mode="pertoken", dst_type_max=0.0):
    """torch_npu.npu_dynamic_quant, `mla.dynamic_quant`: per-token symmetric int8, scale =
    max|x * smooth| / 127, y = rint(x * smooth / scale). Returns (y int8, scale float32 (x's
    shape without the last dim)). torch_npu's rules: DQ-008/009. MoE groups (group_index), int4
    and float8 outputs, other quant modes and dst_type_max are not modelled [DQ-010]."""
    given = {"group_index": group_index, "dst_type": dst_type, "quant_mode": quant_mode,
             "dst_type_max": dst_type_max}
    unmodelled = [name for name, off in (("group_index", group_index is not None),
                                         ("dst_type", not _is_int8(dst_type)),
                                         ("quant_mode", quant_mode != "pertoken"),
                                         ("dst_type_max", not _same(dst_type_max, 0.0))) if off]
    if unmodelled:
        name = unmodelled[0]
        shown = "a tensor" if name == "group_index" else repr(given[name])
        raise VerificationError(f"'{DynamicQuant.name}' op {name}: not supported: only the "
                                f"per-token int8 quantization is modelled (group_index None, "
                                f"dst_type None or int8, quant_mode \"pertoken\", dst_type_max "
                                f"0), got {shown} [DQ-010]")
    return call(DynamicQuant, {"x": input, "smooth_scales": smooth_scales}, {"rounding": "half_even"},
                profile="PT")


def _is_int8(dst_type) -> bool:
    """None, or int8 spelled as torch (torch.int8), NumPy (np.int8) or a string."""
    name = getattr(dst_type, "__name__", None) or str(dst_type)
    return dst_type is None or name.replace("torch.", "") == "int8"


def npu_format_cast(input, acl_format, *, customize_dtype=None, input_dtype=None):
    """torch_npu.npu_format_cast(x, 29 | 2): the FRACTAL_NZ tensor (an NZTensor) or the ND array
    again, as `ascend_mla.format_cast`, checked against `mla.format_cast`'s rules (FC-002 rank,
    FC-003 element type) and torch_npu's format values [FC-004]. acl_format may also be a
    tensor whose format is taken (the npu_format_cast.Tensor overload). customize_dtype /
    input_dtype are not modelled [FC-004]."""
    from .runtime.formats import FRACTAL_NZ, ND, describe_value, format_cast, get_format
    if hasattr(acl_format, "shape"):
        acl_format = get_format(acl_format)
    if customize_dtype is not None or input_dtype is not None or acl_format not in (ND, FRACTAL_NZ):
        raise VerificationError(f"'{FormatCast.name}' op acl_format: expected 2 (ND) or 29 "
                                f"(FRACTAL_NZ) without customize_dtype / input_dtype, got "
                                f"{acl_format} [FC-004]")
    info = describe_value("input", torch_to_numpy(input) if is_torch(input) else input)
    target = "FRACTAL_NZ" if acl_format == FRACTAL_NZ else "ND"
    snapshot = FormatCast.snapshot_from_parts({"x": info}, {}, results={
        "y": TensorInfo(info.shape, info.dtype, target)})
    verdict = FormatCast.check(snapshot)
    if not verdict.ok:
        raise VerificationError("\n".join(f.text(FormatCast.name) for f in verdict.errors),
                                verdict.errors)
    return format_cast(input, acl_format)


# --- DeepSeek Sparse Attention (docs/dsa.md): torch_npu's signatures, vLLM-Ascend's forms --------

INT64_MAX = 9223372036854775807


def npu_lightning_indexer(query, key, weights, *, actual_seq_lengths_query=None,
                          actual_seq_lengths_key=None, block_table=None, layout_query="BSND",
                          layout_key="BSND", sparse_count=2048, sparse_mode=3,
                          pre_tokens=INT64_MAX, next_tokens=INT64_MAX, return_value=False):
    """torch_npu.npu_lightning_indexer, `mla.lightning_indexer`: per query token the indices of
    the sparse_count visible tokens with the highest ReLU-weighted index score, in descending
    order (ties: the lower index first), -1 after them. Returns (sparse_indices int32,
    sparse_values: the scores in the query's type with return_value, else an empty (0,) tensor).
    TND queries and keys take cumulative int32 lengths; a PA_BSND key per-batch lengths and a
    block table."""
    return _dsa_call(LightningIndexer, locals())


def npu_quant_lightning_indexer(query, key, weights, query_dequant_scale, key_dequant_scale,
                                query_quant_mode, key_quant_mode, *, actual_seq_lengths_query=None,
                                actual_seq_lengths_key=None, block_table=None, layout_query="BSND",
                                layout_key="BSND", sparse_count=2048, sparse_mode=3,
                                pre_tokens=INT64_MAX, next_tokens=INT64_MAX, query_dtype=None,
                                key_dtype=None):
    """torch_npu.npu_quant_lightning_indexer, `mla.quant_lightning_indexer`: the indexer over
    int8 q/k with per-(token, head) fp16 dequant scales and fp16 weights (Atlas A2/A3).
    Returns sparse_indices (int32)."""
    return _dsa_call(QuantLightningIndexer, locals())[0]


def npu_sparse_flash_attention(query, key, value, sparse_indices, scale_value, *, block_table=None,
                               actual_seq_lengths_query=None, actual_seq_lengths_kv=None,
                               query_rope=None, key_rope=None, sparse_block_size=1,
                               layout_query="BSND", layout_kv="BSND", sparse_mode=3,
                               pre_tokens=INT64_MAX, next_tokens=INT64_MAX, attention_mode=0,
                               return_softmax_lse=False, sinks=None):
    """torch_npu.npu_sparse_flash_attention, `mla.sparse_flash_attention`: MLA-absorbed attention
    (attention_mode 2: value is the latent key) over the tokens sparse_indices selects. Returns
    (attention_out, softmax_max, softmax_sum); the two fp32 softmax statistics are empty (0,)
    tensors without return_softmax_lse. `sinks` is Ascend 950's (aclnnSparseFlashAttentionV2):
    rejected on Atlas A2/A3 [SFA-14] unless the call runs under
    ascend_mla.eager.profile("ASCEND950")."""
    return _dsa_call(SparseFlashAttention, locals())


def npu_kv_quant_sparse_flash_attention(query, key, value, sparse_indices, scale_value,
                                        key_quant_mode, value_quant_mode, *, key_dequant_scale=None,
                                        value_dequant_scale=None, block_table=None,
                                        actual_seq_lengths_query=None, actual_seq_lengths_kv=None,
                                        sparse_block_size=1, layout_query="BSND", layout_kv="BSND",
                                        sparse_mode=3, pre_tokens=INT64_MAX, next_tokens=INT64_MAX,
                                        attention_mode=0, quant_scale_repo_mode=1, tile_size=128,
                                        rope_head_dim=64, key_dtype=None, value_dtype=None,
                                        sinks=None):
    """torch_npu.npu_kv_quant_sparse_flash_attention, `mla.kv_quant_sparse_flash_attention`:
    sparse attention over the per-tile int8 latent cache of packed 656-byte rows (512 int8, the
    64 bf16 rope values, 4 fp32 scales); query is [q_nope | q_rope] (576). Returns
    attention_out (.., 512) in the query's type."""
    return _dsa_call(KvQuantSparseFlashAttention, locals())[0]


def npu_mla_prolog_v3(token_x, weight_dq, weight_uq_qr, weight_uk, weight_dkv_kr, rmsnorm_gamma_cq,
                      rmsnorm_gamma_ckv, rope_sin, rope_cos, kv_cache, kr_cache, *, cache_index=None,
                      dequant_scale_x=None, dequant_scale_w_dq=None, dequant_scale_w_uq_qr=None,
                      dequant_scale_w_dkv_kr=None, quant_scale_ckv=None, quant_scale_ckr=None,
                      smooth_scales_cq=None, actual_seq_len=None, k_nope_clip_alpha=None,
                      rmsnorm_epsilon_cq=1e-05, rmsnorm_epsilon_ckv=1e-05, cache_mode="PA_BSND",
                      query_norm_flag=False, weight_quant_mode=0, kv_cache_quant_mode=0,
                      query_quant_mode=0, ckvkr_repo_mode=0, quant_scale_repo_mode=0, tile_size=128,
                      qc_qr_scale=1.0, kc_scale=1.0, token_x_dtype=None, weight_dq_dtype=None,
                      weight_uq_qr_dtype=None, weight_dkv_kr_dtype=None, kv_cache_dtype=None):
    """torch_npu.npu_mla_prolog_v3, `mla.prolog_v3`: the MLA prolog with the DSA indexer's query
    latent (query_norm, with query_norm_flag), the scale corrections and the per-tile packed
    int8 cache. weight_dq, weight_uq_qr, weight_dkv_kr are NZ tensors (format_cast(w, 29)).
    Returns (query, query_rope, dequant_scale_q_nope, query_norm, dequant_scale_q_norm); the
    caches are updated in place. An output the call does not produce is an empty (0,) tensor."""
    return _dsa_call(PrologV3, locals())[:5]


def _dsa_call(opdef, arguments: dict):
    operands = {o.name: arguments[o.name] for o in opdef.kernel_operands}
    attributes = {a.name: arguments[a.name] for a in opdef.attributes}
    return call(opdef, operands, _torch_style_ints(opdef, attributes), profile="PT")
