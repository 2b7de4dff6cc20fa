"""w8a8 beyond the attention: the dense MLP, the shared and the routed experts in int8.

The int8 mla.grouped_matmul against a float64 reference, its aclnnGroupedMatmulV4 call (the
argument order read from torch_npu's schema in the torch-npu wheel), its C++ and the Python NPU
backend's call on the ACL recording double; the weights a w8a8 decoder holds (int8 experts
about half of bf16), stacked and per-expert checkpoints and their tp slices; the experts token
by token against the w8a8 formula in float64; fused and unfused decoders; whole-model logits of
a transformers checkpoint against transformers' fp32 forward; `ascend-mla generate --quant w8a8`."""
from __future__ import annotations

import json
import os
import re
import shutil
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla.dialect.decoder import GroupedMatmul
from ascend_mla.dialect.types import TensorInfo
from ascend_mla.models import checkpoint, deepseek
from ascend_mla.models.graph import GraphWriter

sys.path.insert(0, str(Path(__file__).parent))
from test_lowering_npu import double, names  # noqa: E402,F401  (the ACL recording double's fixture)

BF16 = ml_dtypes.bfloat16


def int8_gmm_graph(rows, k, n, groups, out="bf16"):
    g = GraphWriter()
    x = g.arg("x", TensorInfo((rows, k), "i8"))
    w = g.arg("w", TensorInfo((groups, k, n), "i8"))
    counts = g.arg("counts", TensorInfo((groups,), "i64"))
    scale = g.arg("scale", TensorInfo((groups, n), "bf16" if out == "bf16" else "f32"))
    per_token = g.arg("per_token_scale", TensorInfo((rows,), "f32"))
    g.ret(g.op(GroupedMatmul, x=x, w=w, group_list=counts, scale=scale, per_token_scale=per_token))
    return g.text()


def int8_gmm_inputs(rows, k, n, groups, counts, seed=0, scale_type=BF16):
    rng = np.random.default_rng(seed)
    return {"x": rng.integers(-127, 128, (rows, k)).astype(np.int8),
            "w": rng.integers(-127, 128, (groups, k, n)).astype(np.int8),
            "counts": np.asarray(counts, np.int64),
            "scale": (rng.uniform(0.5, 2.0, (groups, n)) / 127).astype(scale_type),
            "per_token_scale": (rng.uniform(0.5, 2.0, rows) / 127).astype(np.float32)}


def float64_reference(a):
    """y[r] = (x[r] @ w[e]) * per_token_scale[r] * scale[e], all in float64 (the int sums are
    exact there), rows past the groups zero."""
    y = np.zeros((a["x"].shape[0], a["w"].shape[2]))
    start = 0
    for e, count in enumerate(a["counts"]):
        rows = slice(start, start + count)
        acc = a["x"][rows].astype(np.float64) @ a["w"][e].astype(np.float64)
        y[rows] = acc * a["per_token_scale"][rows, None].astype(np.float64) * a["scale"][e].astype(np.float64)
        start += count
    return y


@pytest.mark.parametrize("k", [96, 2304])          # 2304: past the kernel's 1024-row exact chunks
def test_int8_grouped_matmul_against_float64(k):
    """The kernel sums exactly (int32), then multiplies by the row's and the channel's scale in
    float32 (two float32 roundings, each 2^-24 relative) and rounds once to bf16: every element
    is the float64 value rounded to bf16, or (at a rounding boundary the float32 steps crossed)
    its neighbour: within one bf16 ulp, 2^-8 relative; almost all exactly."""
    rows, n, groups = 40, 24, 5
    counts = [9, 0, 17, 1, 10]                        # an empty group; 3 rows past the last group
    a = int8_gmm_inputs(rows, k, n, groups, counts)
    (y,) = ascend_mla.compile(int8_gmm_graph(rows, k, n, groups), target="cpu")(**a)
    assert y.dtype == BF16 and y.shape == (rows, n)
    ref = float64_reference(a)
    got = y.astype(np.float64)
    assert not got[sum(counts):].any()
    nearest = ref.astype(BF16).astype(np.float64)
    assert np.mean(got == nearest) > 0.99
    np.testing.assert_allclose(got, ref, rtol=2.0 ** -8, atol=0)


def test_int8_grouped_matmul_f16_out_with_f32_scales():
    """The document's other per-token combination: FLOAT32 scale -> FLOAT16 out; one rounding
    to f16 (11 significant bits: 2^-11 relative), within one f16 ulp of float64."""
    rows, k, n, groups = 12, 64, 8, 3
    a = int8_gmm_inputs(rows, k, n, groups, [4, 4, 4], seed=1, scale_type=np.float32)
    (y,) = ascend_mla.compile(int8_gmm_graph(rows, k, n, groups, out="f16"), target="cpu")(**a)
    assert y.dtype == np.float16
    np.testing.assert_allclose(y.astype(np.float64), float64_reference(a), rtol=2.0 ** -10, atol=0)


def test_int8_grouped_matmul_lowers_to_the_quantized_aclnn_call(tmp_path):
    """aclnnGroupedMatmulV4 with the scale list 4th and the per-token scale list 8th (its
    prototype's order: x, weight, bias, scale, offset, antiquantScale, antiquantOffset,
    perTokenScale, groupList, ...), bias/offset/antiquant null; the C++ emitter creates both
    lists and, with the CANN headers, compiles."""
    text = int8_gmm_graph(16, 32, 8, 2)
    lowered = ascend_mla.compile(text, target="cpu").stages["lower-to-aclnn"]
    call = next(line for line in lowered.splitlines() if "aclnnGroupedMatmulV4GetWorkspaceSize" in line)
    kinds = call.split(" : (")[1].split(") -> ")[0].split(", ")
    assert kinds[:9] == ["!aclnn.tensor_list", "!aclnn.tensor_list", "!aclnn.nullptr", "!aclnn.tensor_list",
                         "!aclnn.nullptr", "!aclnn.nullptr", "!aclnn.nullptr", "!aclnn.tensor_list", "tensor<2xi64>"]
    import acl_double
    code = acl_double.emit_cpp(text, tmp_path, "gmm")
    assert '#include "aclnnop/aclnn_grouped_matmul_v4.h"' in code and code.count("aclCreateTensorList") >= 5
    acl_double.check_cpp_syntax(code, tmp_path, "gmm")


def test_the_int8_arguments_are_torch_npus_and_in_the_prototypes_order():
    """torch_npu's npu_grouped_matmul schema (the torch-npu 2.14 wheel's
    npu_native_functions_by_codegen.yaml) takes `scale` and `per_token_scale` as optional tensor
    lists, in the order of aclnnGroupedMatmulV4's scaleOptional and perTokenScaleOptional among
    the quantization lists (bias, scale, offset, antiquant scale and offset, per-token scale)."""
    import zipfile

    import acl_double

    from ascend_mla.dialect.aclnn_functions import GROUPED_MATMUL_V4
    include, why = acl_double.headers()             # fetches the wheel once
    if include is None:
        pytest.skip(f"the torch-npu wheel cannot be obtained here: {why}")
    wheel = next((acl_double.BUILD / "wheel").glob("torch_npu-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        schema = z.read("torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml").decode()
    func = next(line for line in schema.splitlines() if "func: npu_grouped_matmul(" in line)
    lists = re.findall(r"Tensor\[\]\? (\w+)=None", func)
    assert lists[:6] == ["bias", "scale", "offset", "antiquant_scale", "antiquant_offset", "per_token_scale"], func
    c_names = [p.c_name for p in GROUPED_MATMUL_V4.params]
    assert c_names[2:8] == ["biasOptional", "scaleOptional", "offsetOptional", "antiquantScaleOptional",
                            "antiquantOffsetOptional", "perTokenScaleOptional"]


def tiny(**overrides):
    return {**deepseek.CONFIGS["deepseek-v3"], **dict(
        num_attention_heads=8, num_hidden_layers=2, vocab_size=256, intermediate_size=256, moe_intermediate_size=128,
        n_routed_experts=8, n_shared_experts=1, num_experts_per_tok=2, n_group=4, topk_group=2,
        first_k_dense_replace=1), **overrides}


def _layer_bytes(model, i, part):
    prefix = f"model.layers.{i}.mlp.{part}"
    return sum(np.asarray(v).nbytes for k, v in model.weights.items() if k.startswith(prefix))


def test_w8a8_weights_per_layer_are_about_half():
    """int8 weights (1 byte) with one float32 scale per output channel (4 bytes per row of K
    inputs) against bf16 (2 bytes): (K + 4) / 2K of bf16, at most 0.5 + 2/128 for the smallest
    K here (the experts' down projection reads I = 128); the router stays float32. Printed:
    the per-layer figures (hidden size 7168, DeepSeek-V3's)."""
    models = {q: deepseek.build("tiny", config=tiny(), layers=2, decoder=True, quant=q) for q in ("bf16", "w8a8")}
    for q, m in models.items():
        linears = [k for k in m.weights if ".mlp." in k and k.endswith(("proj", "proj.weight"))]
        assert len(linears) == 3 + 2 + 3 and all(m.weights[k].dtype == (np.int8 if q == "w8a8" else BF16)
                                                 for k in linears), q
    for part, layer in (("experts.", 1), ("shared_experts.", 1), ("gate_proj", 0), ("up_proj", 0), ("down_proj", 0)):
        bf16, int8 = _layer_bytes(models["bf16"], layer, part), _layer_bytes(models["w8a8"], layer, part)
        print(f"layer {layer} {part}: bf16 {bf16 / 2**20:.2f} MiB, w8a8 {int8 / 2**20:.2f} MiB ({int8 / bf16:.4f})")
        assert 0.5 < int8 / bf16 <= 0.5 + 2 / 128, (part, int8 / bf16)
    assert models["w8a8"].weights["model.layers.1.mlp.gate.weight"].dtype == np.float32


def test_fused_and_unfused_w8a8_decoders_agree_bit_for_bit():
    """The int8 MLP and experts are the same ops with or without the fusion passes (no fusion
    touches them); the attention's fused kernels keep the unfused rounding points: one prefill
    of 4 tokens through the whole w8a8 decoder gives the same logits bits either way."""
    m = deepseek.build("tiny", config=tiny(), layers=2, seq=4, block_size=16, decoder=True, quant="w8a8")
    fused = ascend_mla.compile(m, target="cpu")
    unfused = ascend_mla.compile(m, pipeline="builtin.module(verify)", target="cpu")
    assert len(fused.report()["fused"]) == 4 and unfused.report()["fused"] == []
    a, b = fused(**m.inputs(0))[0], unfused(**m.inputs(0))[0]
    assert np.isfinite(a).all() and np.array_equal(a, b)


def test_a_w8a8_tp_slice_of_a_moe_layer_compiles():
    """Rank 0 of tp=2, the MoE layer alone: half of every expert's intermediate rows (gate and
    up halves) with their scales, half of the down projection's columns with every row's scale;
    each rank quantizes its own slice of the activations per token."""
    m = deepseek.build("tiny", config=tiny(), tp=2, layer=1, batch=2, block_size=16, decoder=True, quant="w8a8")
    w = m.weights
    assert w["model.layers.1.mlp.experts.gate_up_proj"].shape == (8, 128, 7168)
    assert w["model.layers.1.mlp.experts.gate_up_proj_scale"].shape == (8, 128, 1)
    assert w["model.layers.1.mlp.experts.down_proj"].shape == (8, 7168, 64)
    assert w["model.layers.1.mlp.experts.down_proj_scale"].shape == (8, 7168, 1)
    lowered = ascend_mla.compile(m, target="cpu").stages["lower-to-aclnn"]
    assert lowered.count('callee = "aclnnGroupedMatmulV4GetWorkspaceSize"') == 2


def _stacked_checkpoint(src, dst):
    """The session checkpoint's layer-1 experts (alone) stacked as transformers 5 holds them
    (experts.gate_up_proj (E, 2I, He), experts.down_proj (E, He, I))."""
    from safetensors.numpy import load_file, save_file
    mlp = "model.layers.1.mlp.experts."
    tensors = {k: v for k, v in load_file(os.path.join(src, "model.safetensors")).items() if k.startswith(mlp)}
    config = json.load(open(os.path.join(src, "config.json")))
    experts = range(config["n_routed_experts"])
    tensors[mlp + "gate_up_proj"] = np.stack([np.concatenate([tensors.pop(f"{mlp}{e}.gate_proj.weight"),
                                                              tensors.pop(f"{mlp}{e}.up_proj.weight")]) for e in experts])
    tensors[mlp + "down_proj"] = np.stack([tensors.pop(f"{mlp}{e}.down_proj.weight") for e in experts])
    os.makedirs(dst)
    shutil.copy(os.path.join(src, "config.json"), dst)
    save_file(tensors, os.path.join(dst, "model.safetensors"))
    return dst


def test_stacked_and_per_expert_checkpoints_quantize_alike(hf_checkpoint, tmp_path):
    """Per-channel int8 of the stacked experts equals that of each expert's tensors stacked at
    load (causal_lm.stack_experts), scales included; every weight within half a step."""
    from ascend_mla.models.causal_lm import stack_experts
    base = hf_checkpoint()
    stacked = _stacked_checkpoint(base, tmp_path / "stacked")
    config = checkpoint.read_config(base)
    experts = lambda n: ".layers.1.mlp.experts." in n      # noqa: E731
    per_expert = stack_experts(checkpoint.load_tensors(base, config, names=experts, ignore=lambda n: True,
                                                       quant="w8a8"), config, [1])
    whole = checkpoint.load_tensors(stacked, config, names=experts, ignore=lambda n: True, quant="w8a8")
    assert sorted(whole) == sorted(per_expert) == [f"model.layers.1.mlp.experts.{p}" for p in
                                                   ("down_proj", "down_proj_scale", "gate_up_proj", "gate_up_proj_scale")]
    for name in whole:
        assert np.array_equal(whole[name], per_expert[name]), name
    q, scale = whole["model.layers.1.mlp.experts.gate_up_proj"], whole["model.layers.1.mlp.experts.gate_up_proj_scale"]
    assert q.dtype == np.int8 and scale.shape == q.shape[:2] + (1,) and np.abs(q).max(axis=-1).min() == 127
    from safetensors.numpy import load_file
    original = load_file(os.path.join(stacked, "model.safetensors"))["model.layers.1.mlp.experts.gate_up_proj"]
    # half a step, and float32 rounding of q * scale (test_checkpoint.py: the same bound)
    assert np.all(np.abs(q * scale - original.astype(np.float32)) <= scale / 2 * (1 + 1e-5))
    # tp=2: each rank holds its rows of the gate half and of the up half, scales alike, and
    # every column of down_proj's rows with the whole rows' scales (quantized before slicing)
    ranks = [checkpoint.load_tensors(stacked, config, names=experts, ignore=lambda n: True, quant="w8a8", tp=2,
                                     rank=r) for r in (0, 1)]
    inter = q.shape[1] // 2
    for name in ("model.layers.1.mlp.experts.gate_up_proj", "model.layers.1.mlp.experts.gate_up_proj_scale"):
        halves = [np.concatenate([r[name][:, :inter // 2] for r in ranks], 1),
                  np.concatenate([r[name][:, inter // 2:] for r in ranks], 1)]
        assert np.array_equal(np.concatenate(halves, 1), whole[name]), name
    down = "model.layers.1.mlp.experts.down_proj"
    assert np.array_equal(np.concatenate([r[down] for r in ranks], 2), whole[down])
    assert all(np.array_equal(r[down + "_scale"], whole[down + "_scale"]) for r in ranks)


PROMPT = [[160, 82, 160, 20, 161, 113, 30, 158]]


def relative(a, b) -> float:
    import torch
    return float(torch.linalg.norm(a - b) / torch.linalg.norm(b))


@pytest.fixture(scope="module")
def reference(hf_checkpoint, hf_model):
    """transformers' (bf16, fp32) logits of PROMPT on the session checkpoint."""
    import copy
    torch = pytest.importorskip("torch")
    model = hf_model(hf_checkpoint())
    ids = torch.tensor(PROMPT)
    with torch.no_grad():
        return model(ids).logits.float(), copy.deepcopy(model).float()(ids).logits


# Measured on this checkpoint (relative L2 of the logits against fp32; transformers' own bf16:
# 1.53 %): w8a8 5.9 % (4.4 % with the MLPs and experts bf16), w8a8c8 5.8 % with its latent-cache
# scale calibrated (7.2 % with the weights-only 127 / (8 max|gamma|)). Each layer
# rounds 5 activations to int8 per token (the attention's input, q_b's, o_proj's, the MLP's or
# experts' two) in steps of 2^-7 of the row's maximum (an error of ~1 % of a typical element,
# where bf16 rounds each element within 2^-9 of itself), and the weights per channel alike. Carried through two layers
# and the x8 lm_head that stays below 6x transformers' bf16 distance with room (3.8x and 4.7x);
# what is w8a8's own is shown by transformers with w8a8's rounding written in
# (bench/bench_w8a8.py): 5.6 % here, as far from fp32.
@pytest.fixture(scope="module")
def latents(hf_checkpoint, hf_model):
    """transformers' fp32 latent (kv_a_layernorm's output) of PROMPT per layer, (tokens, 512) float64."""
    import copy
    torch = pytest.importorskip("torch")
    model = copy.deepcopy(hf_model(hf_checkpoint())).float()
    out = {}
    hooks = [layer.self_attn.kv_a_layernorm.register_forward_hook(
        lambda m, a, y, i=i: out.__setitem__(i, y[0].double().numpy())) for i, layer in enumerate(model.model.layers)]
    with torch.no_grad():
        model(torch.tensor(PROMPT))
    for h in hooks:
        h.remove()
    return out


def latent_cache(lm, layer, tokens):
    """The first `tokens` rows of a layer's latent cache (PA_BSND, identity block table), float64;
    an int8 cache dequantized with its layer's static scale."""
    rows = np.asarray(lm._caches[f"kv_cache.{layer}"]).reshape(-1, 512)[:tokens].astype(np.float64)
    if lm._caches[f"kv_cache.{layer}"].dtype == np.int8:
        rows = rows / float(lm.weights[f"model.layers.{layer}.self_attn.kv_scale"][0, 0])
    return rows


def rms(a) -> float:
    return float(np.sqrt(np.mean(np.square(a))))


def test_the_w8a8c8_latent_cache_costs_one_calibrated_int8_step(hf_checkpoint, latents):
    """The int8 latent cache against transformers' fp32 latent (layer 0: its input is the
    embedding, the same in every mode). Two errors add up, independent of each other: w8a8's own
    (the int8 kv_a_proj and its int8 input, measured here on the bf16 cache of quant="w8a8")
    and the cache's rounding, uniform within half a step: rms step / sqrt(12). With the scale
    calibrated (127 over the largest |latent| of the calibration tokens; a latent row spans
    max/rms of about 4-5.5) that is about 1.2 % of the latent's rms, hence the 1.5 % bound; the
    weights-only bound 127 / (8 max|gamma|) makes steps twice as coarse (2.3 %, the cause of
    w8a8c8's extra error). The total is the quadrature sum of the two, 15 % of room for the
    rms of 4096 samples of the rounding error."""
    kw = dict(block_size=16, max_positions=32, target="cpu")
    w8a8 = deepseek.CausalLM.from_pretrained(hf_checkpoint(), quant="w8a8", **kw)
    c8 = deepseek.CausalLM.from_pretrained(hf_checkpoint(), quant="w8a8c8", **kw)
    w8a8(np.asarray(PROMPT))
    c8(np.asarray(PROMPT))
    tokens, ref = len(PROMPT[0]), latents[0]
    own = rms(latent_cache(w8a8, 0, tokens) - ref) / rms(ref)
    step = 1 / float(c8.weights["model.layers.0.self_attn.kv_scale"][0, 0])
    rounding = step / np.sqrt(12) / rms(ref)
    assert rounding < 0.015, (rounding, step)
    error = rms(latent_cache(c8, 0, tokens) - ref) / rms(ref)
    assert error < 1.15 * np.hypot(own, rounding), (error, own, rounding)
    for i in range(2):           # every layer's cache uses most of the int8 range
        assert np.abs(c8._caches[f"kv_cache.{i}"]).max() >= 64


def test_w8a8c8_calibrates_on_given_tokens_or_takes_given_scales(hf_checkpoint):
    """calibration=PROMPT: layer 0's largest |latent| on PROMPT maps to 127 exactly (its latent
    does not depend on any cache), layer 1's within the few % of noise layer 0's int8 cache adds
    to its input. kv_scale: the scales used as given (the cache is round(latent * scale) of the
    w8a8 model's bf16 latent within one level: the w8a8c8 graph quantizes the float32 value,
    within 2^-9 of the bf16 one). Bad values name the parameter."""
    kw = dict(block_size=16, max_positions=32, target="cpu")
    prompt = np.asarray(PROMPT)
    calibrated = deepseek.CausalLM.from_pretrained(hf_checkpoint(), quant="w8a8c8", calibration=prompt, **kw)
    calibrated(prompt)
    assert np.abs(calibrated._caches["kv_cache.0"]).max() == 127
    assert np.abs(calibrated._caches["kv_cache.1"]).max() >= 120
    given = deepseek.CausalLM.from_pretrained(hf_checkpoint(), quant="w8a8c8", kv_scale={0: 20.0, 1: 30.0}, **kw)
    assert [float(given.weights[f"model.layers.{i}.self_attn.kv_scale"].max()) for i in range(2)] == [20.0, 30.0]
    w8a8 = deepseek.CausalLM.from_pretrained(hf_checkpoint(), quant="w8a8", **kw)
    given(prompt)
    w8a8(prompt)
    tokens = prompt.shape[1]
    want = np.clip(np.rint(latent_cache(w8a8, 0, tokens) * 20.0), -127, 127)
    got = np.asarray(given._caches["kv_cache.0"]).reshape(-1, 512)[:tokens]
    assert np.abs(got - want).max() <= 1 and np.mean(got == want) > 0.9
    for bad, message in [(dict(quant="w8a8", kv_scale=10.0), "only quant=\"w8a8c8\""),
                         (dict(quant="w8a8c8", kv_scale=-1.0), "kv_scale: expected a positive finite number"),
                         (dict(quant="w8a8c8", kv_scale={0: 10.0}), "kv_scale: expected one scale for each layer"),
                         (dict(quant="w8a8c8", kv_scale={"0": 1.0, "1": 1.0}), "kv_scale: expected one scale for each"),
                         (dict(quant="w8a8c8", kv_scale={0: 1.0, 1: float("nan")}), "for layer 1, got nan"),
                         (dict(quant="w8a8c8", calibration=[[0, 512]]), "calibration: expected token ids in [0, 512)")]:
        with pytest.raises(ValueError, match=re.escape(message)):
            deepseek.CausalLM.from_pretrained(hf_checkpoint(), **bad, **kw)


@pytest.mark.parametrize("quant", ["w8a8", "w8a8c8"])
def test_w8a8_logits_against_transformers_fp32(quant, hf_checkpoint, reference):
    import torch
    bf16, fp32 = reference
    lm = deepseek.CausalLM.from_pretrained(hf_checkpoint(), quant=quant, block_size=16, max_positions=32,
                                           target="cpu")
    mlp = [k for k in lm.weights if ".mlp." in k and not k.endswith(("_scale", "gate.weight", "bias"))]
    assert len(mlp) == 3 + 2 + 3 and all(lm.weights[k].dtype == np.int8 for k in mlp), mlp
    ours = lm(torch.tensor(PROMPT))
    noise = relative(bf16, fp32)
    assert 1e-3 < noise < 0.05, noise
    error = relative(ours, fp32)
    print(f"{quant}: logits {100 * error:.2f} % from fp32 (transformers bf16 {100 * noise:.2f} %)")
    assert error < 6 * noise, (error, noise)
    lowered = lm.programs["decoder"].stages["lower-to-aclnn"]
    # per function (decode, prefill): the experts' two int8 grouped matmuls, dynamic quant of
    # their inputs and of the shared experts' and the dense MLP's two products each
    assert lowered.count('callee = "aclnnGroupedMatmulV4GetWorkspaceSize"') == 2 * 2
    # (select-layout gives the dense int8 weights FRACTAL_NZ: aclnnQuantMatmulWeightNz)
    assert len(re.findall(r'callee = "aclnnQuantMatmul(V4|WeightNz)GetWorkspaceSize"', lowered)) >= 2 * 4
    assert lowered.count('callee = "aclnnDynamicQuantGetWorkspaceSize"') >= 2 * 6


def test_generate_cli_with_w8a8_quantizes_the_experts(capsys, hf_checkpoint):
    """`ascend-mla generate --quant w8a8` loads int8 MLPs and experts: the MiB of weights it
    reports are less than 0.6x the bf16 checkpoint's file (kv_b_proj, the embedding, lm_head,
    the norms stay bf16; the router float32), and the tokens are valid ids."""
    from ascend_mla.tools import ascend_mla_cli
    path = hf_checkpoint()
    code = ascend_mla_cli.main(["generate", path, "--prompt-ids", "5,6,7", "--max-new-tokens", "2",
                                "--quant", "w8a8"])
    out, err = capsys.readouterr()
    assert code == 0, err
    lines = out.splitlines()
    assert ", w8a8, PA_BSND caches" in lines[0]
    loaded = next(line for line in lines if line.startswith("loaded in"))
    mib = float(loaded.split("(")[1].split(" MiB")[0])
    assert mib < 0.6 * os.path.getsize(os.path.join(path, "model.safetensors")) / 2**20, loaded
    assert len(lines[-1].split()) == 2 and all(0 <= int(t) < 512 for t in lines[-1].split())


def _dynamic_quant(v):
    """npu_dynamic_quant's formula in float32: scale = max|v| / 127, q = rint(v / scale)."""
    v = np.asarray(v, np.float32)
    scale = np.abs(v).max() / np.float32(127)
    return np.clip(np.rint(v / scale), -127, 127), np.float64(scale)


def test_int8_experts_compute_the_w8a8_formula_token_by_token():
    """The routed experts of models/decoder.py under w8a8 (dynamic quant of the routed rows, int8
    grouped matmul, SwiGLU, again for down, finalize) against a float64 loop over each token's
    chosen experts with the same quantization formula and rounding points (bf16 after each
    product and after SwiGLU). Same inputs give the same int8 values but where a bf16 rounding
    of an intermediate differs by an ulp: the outputs agree to bf16 precision (2^-8 relative
    L2 bound), far closer than either is to the unquantized float64 MoE (~1 %, int8 steps)."""
    from ascend_mla.dialect.decoder import MoeFinalizeRouting, MoeGatingTopK, MoeInitRouting
    from ascend_mla.models import decoder
    tokens, he, inter, experts, k = 6, 512, 64, 8, 2
    m = deepseek.build("tiny", config=tiny(hidden_size=he, moe_intermediate_size=inter), layers=2, decoder=True,
                       quant="w8a8", seed=3)
    keys = {f"model.layers.1.mlp.experts.{p}": p for p in ("gate_up_proj", "gate_up_proj_scale", "down_proj",
                                                            "down_proj_scale")}
    g = GraphWriter()
    args = {key: g.arg(short, TensorInfo(m.weights[key].shape, "i8" if m.weights[key].dtype == np.int8 else "f32"))
            for key, short in keys.items()}
    x = g.arg("x", TensorInfo((tokens, he), "bf16"))
    logits = g.arg("logits", TensorInfo((tokens, experts), "f32"))
    weights, chosen = g.op(MoeGatingTopK, x=logits, k=k, norm_type=1, routed_scaling_factor=2.5)
    rows, row_idx, counts = g.op(MoeInitRouting, x=x, expert_idx=chosen, expert_num=experts)
    routed = decoder._experts(g, args.__getitem__, 1, rows, counts, True)
    g.ret(g.op(MoeFinalizeRouting, expanded_x=routed, expanded_row_idx=row_idx, scales=weights), weights, chosen)
    rng = np.random.default_rng(7)
    xs = rng.standard_normal((tokens, he)).astype(BF16)
    program = ascend_mla.compile(g, target="cpu")
    out, w, idx = program(**{short: m.weights[key] for key, short in keys.items()}, x=xs,
                          logits=rng.standard_normal((tokens, experts)).astype(np.float32))
    assert sorted(set(idx.reshape(-1).tolist())) != [int(idx[0, 0])]          # several experts in use

    wq = {p: m.weights[f"model.layers.1.mlp.experts.{p}"] for p in keys.values()}
    bf = lambda v: np.asarray(v, np.float64).astype(BF16).astype(np.float64)      # noqa: E731

    def linear(v, weight, scale, exact):
        if exact:                       # the unquantized product of the dequantized weight
            return np.asarray(v, np.float64) @ (weight.astype(np.float64) * scale.astype(np.float64)).T
        q, s = _dynamic_quant(v)
        return bf(q @ weight.astype(np.float64).T * s * scale.astype(BF16).astype(np.float64).reshape(-1))

    def moe(exact):
        y = np.zeros((tokens, he))
        for t in range(tokens):
            for j in range(k):
                e = int(idx[t, j])
                gu = linear(xs[t].astype(np.float64), wq["gate_up_proj"][e], wq["gate_up_proj_scale"][e], exact)
                gate, up = gu[:inter].astype(np.float32), gu[inter:].astype(np.float32)
                act = gate / (np.float32(1) + np.exp(-gate)) * up
                act = act if exact else bf(act)
                y[t] += float(w[t, j]) * linear(act, wq["down_proj"][e], wq["down_proj_scale"][e], exact)
        return y

    ours, ref, exact = out.astype(np.float64), moe(False), moe(True)
    error, int8_effect = (np.linalg.norm(ours - r) / np.linalg.norm(r) for r in (ref, exact))
    print(f"experts: {error:.2e} from the float64 w8a8 formula, {int8_effect:.2e} from the unquantized MoE")
    assert error < 2.0 ** -8 and int8_effect > 4 * error, (error, int8_effect)


def test_the_npu_backend_passes_both_scale_lists(double):
    """(Last in the file: the double's fixture keeps the npu backend set until the module
    ends.) The Python NPU backend against the ACL recording double: aclnnGroupedMatmulV4's phase
    one gets one-tensor lists for x (INT8), weight (INT8), scale (BFLOAT16 (E, N)) and the
    per-token scale (FLOAT (M,)), bias/offset/antiquant nullptr, a BFLOAT16 out list."""
    from test_lowering import lowered

    from ascend_mla.dialect.aclnn_functions import GROUPED_MATMUL_V4
    fn = lowered(int8_gmm_graph(16, 32, 8, 2))
    a = int8_gmm_inputs(16, 32, 8, 2, [7, 9])
    double.calls()
    fn([a[k] for k in ("x", "w", "counts", "scale", "per_token_scale")], backend="npu")
    calls = double.calls()
    args = next(c for c in calls if c["fn"] == "aclnnGroupedMatmulV4GetWorkspaceSize")["args"]
    at = {p.c_name: args[i] for i, p in enumerate(GROUPED_MATMUL_V4.params)}
    INT8, FLOAT, BFLOAT16 = 2, 0, 27                 # aclDataType
    view = lambda name: [(t["view"], t["dtype"]) for t in at[name]["tensor_list"]]   # noqa: E731
    assert view("x") == [([16, 32], INT8)] and view("weight") == [([2, 32, 8], INT8)]
    assert view("scaleOptional") == [([2, 8], BFLOAT16)] and view("perTokenScaleOptional") == [([16], FLOAT)]
    assert view("out") == [([16, 8], BFLOAT16)]
    assert all(at[n] is None for n in ("biasOptional", "offsetOptional", "antiquantScaleOptional",
                                       "antiquantOffsetOptional", "activationInputOptional"))
    assert (at["splitItem"], at["groupType"], at["groupListType"], at["actType"]) == (3, 0, 1, 0)
    assert "aclnnGroupedMatmulV4" in names(calls)
