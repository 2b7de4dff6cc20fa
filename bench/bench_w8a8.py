"""w8a8 against bf16 on one checkpoint, in one run: the weights each layer holds, the logits'
distance from transformers' fp32 forward, and the CPU time of a decode step.

    python bench/bench_w8a8.py [--quick] [--checkpoint DIR] [--cpu-time]

Without --checkpoint it writes the tests' small DeepSeek-V3 checkpoint with transformers
(test/python/hf_checkpoints.SMALL: the MLA prolog's dims, 8 heads, layer 0 dense, layer 1 MoE
with 8 routed experts and 1 shared, vocab 512; random init). deepseek.CausalLM loads it three
ways: bf16, w8a8 and w8a8c8 (quantized at load). Per layer: MiB of the attention's weights and
of the MLP or MoE's (router included), and their ratio to bf16 in the same run. Accuracy: the
relative L2 distance of each one's logits of a 16-token prompt from transformers' fp32 forward
(over all tokens, and the median token's), next to transformers' own bf16 forward, and w8a8c8
once more with the weights-only latent-cache scale (checkpoint.kv_cache_scale) instead of the
calibrated one (CausalLM.calibrated_kv_scales). Time: median decode step (one token), interleaved
runs; the CPU interpreter's time, not a device's (int8 products in torch's int8 GEMM, or float32 BLAS without torch).

The emulated w8a8 (transformers' fp32 model with every int8 linear's weight and input rounded
as w8a8 rounds them) tells what of the distance is w8a8's own: a random model routes some
tokens on near-ties, which quantization noise may flip in the emulation as in the compiled
model."""
from __future__ import annotations

import argparse
import copy
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import numpy as np  # noqa: E402
from timing import CPU_TIME_HELP, machine, median_times, small_checkpoint  # noqa: E402  (before NumPy: --cpu-time's threads)

QUANTS = ("bf16", "w8a8", "w8a8c8")


def layer_mib(weights: dict, layers: int) -> list:
    """Per layer: (attention MiB, MLP/MoE MiB) of the weights held (int8 scales included)."""
    out = []
    for i in range(layers):
        prefix = f"model.layers.{i}."
        attention = sum(np.asarray(v).nbytes for k, v in weights.items()
                        if k.startswith((prefix + "self_attn.", prefix + "input_layernorm.")))
        mlp = sum(np.asarray(v).nbytes for k, v in weights.items()
                  if k.startswith((prefix + "mlp.", prefix + "post_attention_layernorm.")))
        out.append((attention / 2**20, mlp / 2**20))
    return out


def emulated_w8a8(model, ids):
    """transformers' fp32 forward with w8a8's arithmetic written in: every linear that
    quant="w8a8" makes int8 (checkpoint.w8a8_int8) gets its weight rounded per output channel
    (scale max|row| / 127) and its input rounded per token (max|x| / 127, half to even)."""
    import torch

    from ascend_mla.models.checkpoint import w8a8_int8
    emul = copy.deepcopy(model).float()
    storages = set()
    for name, p in emul.named_parameters():
        if w8a8_int8(name) or w8a8_int8(name.removesuffix(".weight")):
            scale = p.detach().abs().amax(dim=-1, keepdim=True).clamp_min(1e-30) / 127
            p.data = torch.clamp(torch.round(p.detach() / scale), -127, 127) * scale
            storages.add(p.untyped_storage().data_ptr())   # the experts' slices share it
    linear = torch.nn.functional.linear

    def quantized(x, w, b=None):
        if w.untyped_storage().data_ptr() in storages:
            scale = x.abs().amax(dim=-1, keepdim=True).clamp_min(1e-30) / 127
            x = torch.clamp(torch.round(x / scale), -127, 127) * scale
        return linear(x, w, b)
    torch.nn.functional.linear = quantized
    try:
        with torch.no_grad():
            return emul(ids).logits
    finally:
        torch.nn.functional.linear = linear


def attention_errors(path, fp32_model, ids, kv_scales: dict) -> dict:
    """Each layer's attention block alone (deepseek.build(layer=i) of the checkpoint's weights:
    input norm, attention, o_proj) fed transformers' fp32 input of that layer: the relative L2
    distance of its output (o_proj's, the residual taken off) from transformers' fp32 attention.
    One row per mode; w8a8c8 once per latent-cache scale in `kv_scales` ({label: {layer: scale}})."""
    import torch

    import ascend_mla
    from ascend_mla.models import checkpoint, deepseek
    config = checkpoint.read_config(path)
    seen = {}
    hooks = []
    for i, layer in enumerate(fp32_model.model.layers):
        hooks.append(layer.register_forward_pre_hook(
            lambda m, a, k, i=i: seen.__setitem__(("in", i), k.get("hidden_states", a[0] if a else None)), with_kwargs=True))
        hooks.append(layer.self_attn.register_forward_hook(lambda m, a, y, i=i: seen.__setitem__(("out", i), y[0])))
    with torch.no_grad():
        fp32_model(ids)
    for h in hooks:
        h.remove()
    modes = [("bf16", "bf16", None), ("w8a8", "w8a8", None)] + [(f"w8a8c8, {k}", "w8a8c8", v) for k, v in kv_scales.items()]
    out = {}
    for i in range(config.num_hidden_layers):
        hidden = seen[("in", i)][0].float().numpy().astype(deepseek.BF16)[None]
        ref = seen[("out", i)][0].double().numpy()
        for label, quant, scales in modes:
            weights = deepseek.load_weights(path, layers=[i], quant=quant, config=config)
            if scales is not None:
                weights[f"model.layers.{i}.self_attn.kv_scale"] = np.full((1, config.kv_lora_rank), scales[i], np.float32)
            model = deepseek.build(config=config.build_config(), weights=weights, rope=config.rope, layer=i, quant=quant,
                                   seq=ids.shape[1], block_size=16, max_positions=ids.shape[1])
            inputs = dict(model.inputs(0), hidden_states=hidden)
            got = np.asarray(ascend_mla.compile(model)(**inputs)[0], np.float64)[0] - hidden[0].astype(np.float64)
            out.setdefault(label, []).append(float(np.linalg.norm(got - ref) / np.linalg.norm(ref)))
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="two timed runs instead of five")
    p.add_argument("--checkpoint", help="a Hugging Face DeepSeek checkpoint directory (default: write a small one)")
    p.add_argument("--cpu-time", action="store_true", help=CPU_TIME_HELP)
    args = p.parse_args(argv)
    repeat = 2 if args.quick else 5

    import torch
    from transformers import AutoModelForCausalLM

    import ascend_mla
    from ascend_mla.models import checkpoint, deepseek

    print(machine())
    ascend_mla.set_backend("cpu")
    with tempfile.TemporaryDirectory() as tmp:
        path = args.checkpoint or small_checkpoint(tmp)
        lms = {q: deepseek.CausalLM.from_pretrained(path, quant=None if q == "bf16" else q, block_size=16,
                                                    max_positions=64, target="cpu") for q in QUANTS}
        # w8a8c8 with the weights-only latent-cache scale (checkpoint.kv_cache_scale) instead of
        # the calibrated one: what the calibration gains, in the same run
        gammas = {i: lms["bf16"].weights[f"model.layers.{i}.self_attn.kv_a_layernorm.weight"]
                  for i in range(lms["bf16"].config["num_hidden_layers"])}
        weights_only = deepseek.CausalLM.from_pretrained(
            path, quant="w8a8c8", block_size=16, max_positions=64, target="cpu",
            kv_scale={i: float(checkpoint.kv_cache_scale(g)[0, 0]) for i, g in gammas.items()})
        model = AutoModelForCausalLM.from_pretrained(path, dtype=torch.bfloat16, attn_implementation="eager").eval()
        c = model.config
        prompt = np.random.default_rng(0).integers(2, c.vocab_size, (1, 16)).astype(np.int64)
        with torch.no_grad():
            ids = torch.from_numpy(prompt)
            bf16_ref = model(ids).logits.float()
            fp32_ref = copy.deepcopy(model).float()(ids).logits
        w8a8_ref = emulated_w8a8(model, ids)
        print(f"checkpoint: {os.path.basename(os.path.normpath(path))}: {c.num_hidden_layers} layers, hidden "
              f"{c.hidden_size}, {c.num_attention_heads} heads, {getattr(c, 'n_routed_experts', 0)} routed experts")

        def relative(a, ref=fp32_ref):
            a = torch.as_tensor(np.asarray(a, np.float32))
            return float(torch.linalg.norm(a - ref) / torch.linalg.norm(ref))

        def per_token(a, ref=fp32_ref):        # the median token's distance: blind to a lone routing flip
            a = torch.as_tensor(np.asarray(a, np.float32))
            return float(torch.median(torch.linalg.norm(a - ref, dim=-1) / torch.linalg.norm(ref, dim=-1)))

        sizes = {q: layer_mib(lm.weights, c.num_hidden_layers) for q, lm in lms.items()}
        totals = {q: sum(np.asarray(v).nbytes for v in lm.weights.values()) / 2**20 for q, lm in lms.items()}
        print(f"\n{'weights (MiB)':<26}" + "".join(f"{q:>18}" for q in QUANTS))
        for i in range(c.num_hidden_layers):
            for j, part in enumerate(("attention", "MoE" if lms["bf16"].config.get("n_routed_experts")
                                      and f"model.layers.{i}.mlp.gate.weight" in lms["bf16"].weights else "MLP")):
                base = sizes["bf16"][i][j]
                cells = "".join(f"{sizes[q][i][j]:>9.2f} ({sizes[q][i][j] / base:.3f})" for q in QUANTS)
                print(f"layer {i} {part:<18}{cells}")
        print(f"{'all weights':<26}" + "".join(f"{totals[q]:>9.2f} ({totals[q] / totals['bf16']:.3f})" for q in QUANTS))

        print(f"\nlogits of {prompt.shape[1]} tokens, relative L2 from transformers' fp32 forward: transformers "
              f"bf16 {100 * relative(bf16_ref):.2f} %, transformers fp32 with w8a8's rounding written in "
              f"{100 * relative(w8a8_ref):.2f} %")
        print(f"  {'':<34}all tokens  median token")
        for q, lm in [*lms.items(), ("w8a8c8, weights-only cache scale", weights_only)]:
            lm.reset()
            logits = lm(prompt)
            extra = f"   (from the emulated w8a8: {100 * relative(logits, w8a8_ref):.2f} %)" if q == "w8a8" else ""
            print(f"  {q:<34}{100 * relative(logits):8.2f} %{100 * per_token(logits):10.2f} %{extra}")
        print(f"  {'transformers bf16':<34}{100 * relative(bf16_ref):8.2f} %{100 * per_token(bf16_ref):10.2f} %")
        scales = [float(lms["w8a8c8"].weights[f"model.layers.{i}.self_attn.kv_scale"][0, 0]) for i in gammas]
        print("  latent-cache scale per layer: calibrated " + ", ".join(f"{s:.2f}" for s in scales) +
              "; weights-only " + ", ".join(f"{float(checkpoint.kv_cache_scale(g)[0, 0]):.2f}" for g in gammas.values()))

        weights_only_scales = {i: float(checkpoint.kv_cache_scale(g)[0, 0]) for i, g in gammas.items()}
        calibrated = {i: float(lms["w8a8c8"].weights[f"model.layers.{i}.self_attn.kv_scale"][0, 0]) for i in gammas}
        errors = attention_errors(path, copy.deepcopy(model).float(), ids,
                                  {"calibrated": calibrated, "weights-only": weights_only_scales})
        print("\neach layer's attention output for transformers' fp32 input of that layer, relative L2 from "
              "transformers' fp32 attention (the int8 latent cache's share: in quadrature over w8a8):")
        for label, per_layer in errors.items():
            share = ""
            if label.startswith("w8a8c8"):
                share = "   cache: " + ", ".join(f"{100 * np.sqrt(max(e * e - w * w, 0)):.2f} %"
                                                 for e, w in zip(per_layer, errors["w8a8"]))
            print(f"  {label:<34}" + "".join(f"{100 * e:8.2f} %" for e in per_layer) + share)

        def step(lm):
            def run():
                lm.reset()
                lm(prompt[:, :1])               # one decode token from empty caches
            return run
        for lm in lms.values():
            step(lm)()                          # compiles @decode
        times = median_times({q: step(lm) for q, lm in lms.items()}, repeat)
        base = times["bf16"][0]
        print(f"\ndecode step, median of {repeat} interleaved runs (CPU interpreter):")
        for q, (median, spread) in times.items():
            print(f"  {q:<8}{1000 * median:8.1f} ms  (bf16 time / this: {base / median:.2f}; spread {spread:.2f})")


if __name__ == "__main__":
    main()
