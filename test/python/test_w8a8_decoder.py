"""w8a8 beyond the attention: the dense MLP, the shared and the routed experts in int8.

The int8 mla.grouped_matmul against a float64 reference, its aclnnGroupedMatmulV4 call and C++;
the weights a w8a8 decoder holds (int8 experts about half of bf16); whole-model logits of a
transformers checkpoint against transformers' fp32 forward; `ascend-mla generate --quant w8a8`."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
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
    source = tmp_path / "gmm.mlir"
    source.write_text(text)
    done = subprocess.run([str(Path(sys.executable).parent / "mla-translate"), "--emit-cpp", str(source)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    code = done.stdout
    assert '#include "aclnnop/aclnn_grouped_matmul_v4.h"' in code and code.count("aclCreateTensorList") >= 5
    import acl_double
    include, why = acl_double.headers()
    if include is None:
        pytest.skip(f"the CANN headers cannot be obtained here: {why}")
    cpp = tmp_path / "gmm.cpp"
    cpp.write_text(code)
    built = acl_double.compile_cpp(cpp, include, acl_double.build(include), None, syntax_only=True)
    assert built.returncode == 0, built.stderr[-3000:]


def tiny(**overrides):
    return dict(deepseek.CONFIGS["deepseek-v3"], num_attention_heads=8, num_hidden_layers=2, vocab_size=256,
                intermediate_size=256, moe_intermediate_size=128, n_routed_experts=8, n_shared_experts=1,
                num_experts_per_tok=2, n_group=4, topk_group=2, first_k_dense_replace=1, **overrides)


def _layer_bytes(model, i, part):
    prefix = f"model.layers.{i}.mlp.{part}"
    return sum(np.asarray(v).nbytes for k, v in model.weights.items() if k.startswith(prefix))


def test_w8a8_weights_per_layer_are_about_half():
    """int8 weights (1 byte) with one float32 scale per output channel (4 bytes per row of
    hidden_size 7168 or more inputs) against bf16 (2 bytes): (K + 4) / 2K of bf16, at most
    0.5 + 2/128 for the smallest K here (the experts' down projection reads I = 128); the router
    stays float32. Printed: the per-layer figures."""
    models = {q: deepseek.build("tiny", config=tiny(), layers=2, decoder=True, quant=q) for q in ("bf16", "w8a8")}
    for q, m in models.items():
        names = [k for k in m.weights if ".mlp." in k]
        assert all(m.weights[k].dtype == (np.int8 if q == "w8a8" else BF16) for k in names
                   if k.endswith(("proj", "proj.weight"))), q
    for part, layer in (("experts.", 1), ("shared_experts.", 1), ("gate_proj", 0), ("up_proj", 0), ("down_proj", 0)):
        bf16, int8 = _layer_bytes(models["bf16"], layer, part), _layer_bytes(models["w8a8"], layer, part)
        print(f"layer {layer} {part}: bf16 {bf16 / 2**20:.2f} MiB, w8a8 {int8 / 2**20:.2f} MiB ({int8 / bf16:.4f})")
        assert 0.5 < int8 / bf16 <= 0.5 + 2 / 128, (part, int8 / bf16)
    router = "model.layers.1.mlp.gate.weight"
    assert models["w8a8"].weights[router].dtype == np.float32
    program = ascend_mla.compile(models["w8a8"], target="cpu")
    lowered = program.stages["lower-to-aclnn"]
    assert lowered.count('callee = "aclnnGroupedMatmulV4GetWorkspaceSize"') == 2
    assert lowered.count('callee = "aclnnDynamicQuantGetWorkspaceSize"') >= 6     # experts 2, shared 2, dense 2
    (logits, *_) = program(**models["w8a8"].inputs(0))
    assert np.isfinite(logits).all()


def _stacked_checkpoint(src, dst):
    """The session checkpoint with its layer-1 experts stacked as transformers 5 holds them
    (experts.gate_up_proj (E, 2I, He), experts.down_proj (E, He, I))."""
    from safetensors.numpy import load_file, save_file
    tensors = load_file(os.path.join(src, "model.safetensors"))
    config = json.load(open(os.path.join(src, "config.json")))
    mlp = "model.layers.1.mlp.experts."
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


torch = pytest.importorskip("torch")
pytest.importorskip("transformers")
PROMPT = [[160, 82, 160, 20, 161, 113, 30, 158]]


def relative(a, b) -> float:
    return float(torch.linalg.norm(a - b) / torch.linalg.norm(b))


@pytest.fixture(scope="module")
def reference(hf_checkpoint, hf_model):
    """transformers' logits of PROMPT on the session checkpoint in fp32 and in bf16."""
    import copy
    model = hf_model(hf_checkpoint())
    ids = torch.tensor(PROMPT)
    with torch.no_grad():
        return model(ids).logits.float(), copy.deepcopy(model).float()(ids).logits


# Measured on this checkpoint (relative L2 of the logits against fp32, transformers' own bf16:
# 1.53 %): w8a8 5.9 % (4.4 % with the MLPs and experts bf16), w8a8c8 7.2 % (6.3 %). int8
# per-token activations and per-channel weights put ~1 % relative error into each of the 7
# quantized products on a token's path (2^-8 of a row's maximum per element, against bf16's
# 2^-9 of each element), which the two layers and the x8 lm_head carry to the logits: 6x
# transformers' bf16 noise bounds both with room.
@pytest.mark.parametrize("quant", ["w8a8", "w8a8c8"])
def test_w8a8_logits_against_transformers_fp32(quant, hf_checkpoint, reference):
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
    assert 'callee = "aclnnGroupedMatmulV4GetWorkspaceSize"' in lowered


def test_generate_cli_with_w8a8_quantizes_the_experts(capsys, hf_checkpoint):
    """`ascend-mla generate --quant w8a8` loads int8 MLPs and experts: its weights line reports
    less than 0.6x the bf16 run's (the attention's kv_b_proj, the embeddings and lm_head stay
    bf16), and the tokens are valid ids."""
    from ascend_mla.tools import ascend_mla_cli
    sizes = {}
    for quant in ("bf16", "w8a8"):
        code = ascend_mla_cli.main(["generate", hf_checkpoint(), "--prompt-ids", "5,6,7", "--max-new-tokens", "2",
                                    "--quant", quant])
        out, err = capsys.readouterr()
        assert code == 0, err
        lines = out.splitlines()
        assert f", {quant}, PA_BSND caches" in lines[0]
        loaded = next(line for line in lines if line.startswith("loaded in"))
        sizes[quant] = float(loaded.split("(")[1].split(" MiB")[0])
        assert len(lines[-1].split()) == 2 and all(0 <= int(t) < 512 for t in lines[-1].split())
    assert sizes["w8a8"] < 0.6 * sizes["bf16"], sizes
