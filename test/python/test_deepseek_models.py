"""DeepSeek-class models through the compiler: what fuses, what is refused and why, and that the
fused and unfused programs agree with each other and with an independent float64 MLA
(ascend_mla/models/reference.py: non-absorbed, interleaved RoPE, YaRN recomputed) over several decode steps
of one compiled program."""
import collections
import json
import os

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla.models import deepseek
from ascend_mla.models.reference import attention_block

BF16 = ml_dtypes.bfloat16

# Tolerances, relative to max |attention contribution| (output - input hidden, the part the
# block computes). bf16: each stage rounds to 8 significant bits (2^-9 relative); two layers
# of about a dozen rounding stages in series (RmsNorms, four projections, RoPE, the absorbed
# query, the caches, P before P.V, W_uv, o_proj, the residual) give ~1% in practice (measured
# 0.6-1.0%); 2^-5 leaves room and still fails on any real error (a wrong head, position, block
# or rotation errs by order 1). int8: per-token activation quantization before each of the four
# projections adds ~0.4% of a row's max per stage (measured 2-3% with an int8 latent cache);
# 2^-4.
TOLERANCE = {"bf16": 2.0 ** -5, "w8a8": 2.0 ** -4, "w8a8c8": 2.0 ** -4}
TP = {"deepseek-v2-lite": 2, "kimi-k2": 8}        # tp giving a small, legal head count (N = 8)


def op_counts(ir_text):
    ops = collections.Counter()
    for line in ir_text.splitlines():
        if '"mla.' in line:
            ops[line.split('"mla.')[1].split('"')[0]] += 1
    return ops


def run_steps(model, program, steps, caches):
    outs = []
    for step in range(steps):
        inputs = model.inputs(step, caches)
        outs.append((inputs["hidden_states"], program(**inputs)))
    return outs


def check_against_reference(model, outputs, tolerance):
    seq = model.config["seq"]
    history = []
    for hidden, result in outputs:
        history.append(hidden)
        tokens = np.concatenate(history, axis=1)
        for b in range(model.config["batch"]):
            expected = attention_block(model.config, model.weights, tokens[b])[-seq:]
            delta = np.abs(expected - hidden[b].astype(np.float64)).max()
            error = np.abs(result[0][b].astype(np.float64) - expected).max() / delta
            assert error < tolerance, f"row {b}: error {error:.2e} of max|attention| > {tolerance:.2e}"


def test_deepseek_v3_tp8_two_layers_fuses_to_one_prolog_and_one_attention_per_layer():
    model = deepseek.build("deepseek-v3", tp=8, layers=2, batch=2, block_size=128)
    program = ascend_mla.compile(model)
    counts = op_counts(program.ir)
    # What is left besides the fused ops: per layer the input RmsNorm, W_uv, o_proj, the
    # all-reduce of its 8 ranks' partial sums and the residual, and the two rope-table lookups
    # shared by the layers.
    assert counts == {"prolog_v2": 2, "fused_infer_attention_score": 2, "rms_norm": 2,
                      "head_matmul": 2, "matmul": 2, "all_reduce": 2, "add": 2, "gather": 2}, counts
    assert [f["op"] for f in program.report()["fused"]] == ["mla.prolog_v2"] * 2 + \
        ["mla.fused_infer_attention_score"] * 2
    assert program.report()["refused"] == []
    # Weights are packed once, at compile time: no format_cast or transpose is left to run.
    assert "format_cast" not in program.ir and "transpose" not in program.ir
    assert any(name.endswith(".T.cast") for name in program.weights)


def test_a_decode_loop_compiles_once():
    """The kv lengths are the host-tensor operand actual_seq_kvlen, not an attribute: one
    program serves every step (the equivalence tests run it over several)."""
    model = deepseek.build("deepseek-v3", tp=16, layers=1, batch=2, block_size=16)
    fia = [line for line in ascend_mla.compile(model).ir.splitlines() if "fused_infer_attention_score" in line][0]
    assert "actual_seq_lengths_kv" not in fia
    assert fia.count("tensor<2xi64>") == 1          # seq_lengths, as the operand


def test_refused_presets_say_which_rule_and_still_run():
    v2 = ascend_mla.compile(deepseek.build("deepseek-v2", tp=16, layers=1, block_size=16))
    (refusal,) = v2.report()["refused"]
    assert refusal["pattern"] == "mla.prolog_v2 NQ" and "[MLA-090]" in refusal["reason"]   # He = 5120
    assert "got 5120" in refusal["reason"]
    assert op_counts(v2.ir)["prolog_v2"] == 0 and op_counts(v2.ir)["fused_infer_attention_score"] == 1
    lite = ascend_mla.compile(deepseek.build("deepseek-v2-lite", tp=2, layers=1, block_size=16))
    (refusal,) = lite.report()["refused"]
    assert "[MLA-006]" in refusal["reason"]        # no q_a_proj / q_a_layernorm (q_lora_rank None)
    assert any("remark" in d and "MLA-006" in d for d in lite.diagnostics)
    # the refusals are also in the report's text
    assert "MLA-090" in str(v2.report())


def test_block_size_64_is_refused_by_both_fusions():
    program = ascend_mla.compile(deepseek.build("deepseek-v3", tp=16, layers=1, block_size=64))
    reasons = {r["pattern"].split()[0]: r["reason"] for r in program.report()["refused"]}
    assert "[MLA-099]" in reasons["mla.prolog_v2"]
    assert "block_size" in reasons["mla.paged_attention"]


# (model, quant, cache mode, query tokens, block size)
# The default suite keeps one case per quant mode and both cache layouts (w8a8c8 over PA_NZ with
# FIA's full-quant mode); the others run with -m slow (each costs 10-15 s of CPU).
CASES = [("deepseek-v3", "bf16", "PA_BSND", 1, 16),
         pytest.param("deepseek-v3", "w8a8", "PA_NZ", 2, 16, marks=pytest.mark.slow),
         ("deepseek-r1", "w8a8c8", "PA_NZ", 3, 128),
         pytest.param("kimi-k2", "bf16", "PA_NZ", 4, 16, marks=pytest.mark.slow),
         pytest.param("deepseek-v2", "bf16", "PA_NZ", 1, 16, marks=pytest.mark.slow),
         ("deepseek-v2-lite", "w8a8", "PA_BSND", 1, 16)]
ALL_CASES = [(n, q, c, s, b) for n in deepseek.CONFIGS for q in deepseek.QUANTS
             for c in deepseek.CACHE_MODES for s in (1, 3)
             for b in ((16, 128) if (q, c) == ("w8a8c8", "PA_NZ") else (16,))]


def _equivalence(name, quant, cache_mode, seq, steps=3, rope="interleave", block_size=16):
    model = deepseek.build(name, tp=TP.get(name, 16), layers=2, batch=2, seq=seq, block_size=block_size,
                           quant=quant, cache_mode=cache_mode, rope=rope)
    fused = ascend_mla.compile(model)
    unfused = ascend_mla.compile(model, pipeline="builtin.module(verify)")
    assert op_counts(unfused.ir)["prolog_v2"] == 0
    a = run_steps(model, fused, steps, model.new_caches())
    b = run_steps(model, unfused, steps, model.new_caches())
    # Fused against unfused, each result relative to its own range: the output, and every cache
    # (an int8 cache of layer 2 flips a code by one where layer 1's outputs differ). The fused
    # w8a8c8 attention (FIA's MLA full-quant mode) quantizes P to int8 per 512-key tile (step
    # 1/127 of the tile's max, ~0.4% of an attention output per layer) where the primitive keeps
    # it in bf16; through the per-token int8 quantization of o_proj and the second layer, this
    # measured 1-2.3% of max|output| and 1/64 of an int8 cache's range. Both programs are also
    # checked against the float64 reference with TOLERANCE, so the same bound applies here.
    tolerance = TOLERANCE[quant]
    for (_, fa), (_, fb) in zip(a, b):
        for x, y in zip(fa, fb):
            x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
            assert np.abs(x - y).max() <= tolerance * np.abs(y).max()
    check_against_reference(model, a, tolerance)
    check_against_reference(model, b, tolerance)
    return fused


def fia_fuses(quant, cache_mode, block_size):
    """Whether the attention of a model fuses: FIA's MLA full-quant mode (an int8 latent cache)
    takes NZ caches with block size 128 only (FIA-MLAQ-5, -6)."""
    return quant != "w8a8c8" or (cache_mode, block_size) == ("PA_NZ", 128)


@pytest.mark.parametrize("name,quant,cache_mode,seq,block_size", CASES)
def test_fused_and_unfused_agree_with_each_other_and_the_float64_reference(name, quant, cache_mode, seq,
                                                                           block_size):
    fused = _equivalence(name, quant, cache_mode, seq, block_size=block_size)
    expected = {"deepseek-v2": 0, "deepseek-v2-lite": 0}.get(name, 2)
    assert op_counts(fused.ir)["prolog_v2"] == expected
    assert op_counts(fused.ir)["fused_infer_attention_score"] == (2 if fia_fuses(quant, cache_mode, block_size) else 0)


def test_w8a8c8_fuses_to_prolog_v2_and_the_fia_full_quant_mode_only_over_nz_caches_of_block_128():
    """What serving code deploys (mla_prolog_v2 in FQ-KVQ, then FIA full-quant) for PA_NZ caches
    with block size 128; other caches keep the int8 attention primitive, refused by the rule."""
    def compiled(cache_mode, block_size):
        return ascend_mla.compile(deepseek.build("deepseek-v3", tp=16, layers=1, batch=2, block_size=block_size,
                                                 quant="w8a8c8", cache_mode=cache_mode))
    fused = compiled("PA_NZ", 128)
    assert [(f["op"], f["detail"]) for f in fused.report()["fused"]] == [
        ("mla.prolog_v2", "FQ-KVQ"), ("mla.fused_infer_attention_score", "MLA full-quant mode")]
    assert fused.report()["refused"] == [] and op_counts(fused.ir)["paged_attention"] == 0
    fia = next(line for line in fused.ir.splitlines() if '"mla.fused_infer_attention_score"' in line)
    assert "query_quant_mode = 3" in fia and "tensor<2x1x8xf32>" in fia and fia.count("tensor<1xf32>") >= 2
    for cache_mode, block_size, rule in [("PA_BSND", 128, "FIA-MLAQ-5"), ("PA_NZ", 16, "FIA-MLAQ-6")]:
        program = compiled(cache_mode, block_size)
        (refusal,) = program.report()["refused"]
        assert refusal["pattern"] == "mla.paged_attention" and f"[{rule}]" in refusal["reason"], refusal
        assert op_counts(program.ir)["prolog_v2"] == 1 and op_counts(program.ir)["fused_infer_attention_score"] == 0


@pytest.mark.parametrize("quant,cache_mode,seq", [("bf16", "PA_BSND", 1),
                                                  pytest.param("w8a8", "PA_NZ", 3, marks=pytest.mark.slow)])
def test_rotate_half_rope_fuses_by_reordering_the_rope_columns(quant, cache_mode, seq):
    """rope="half" is another model (pairs (x[i], x[i + 32]), checked against the float64
    reference with that rotation): interleave-rope reorders the rope columns of the two
    projections so the fused prolog's interleaved RoPE computes it, and every layer fuses."""
    fused = _equivalence("deepseek-v3", quant, cache_mode, seq, rope="half")
    assert 'mode = "half"' in fused.stages["raise-rope"] and 'mode = "half"' not in fused.stages["interleave-rope"]
    assert op_counts(fused.ir)["prolog_v2"] == 2 and op_counts(fused.ir)["fused_infer_attention_score"] == 2
    # not the interleaved model under another name: the two rotations give other outputs
    model = deepseek.build("deepseek-v3", tp=16, layers=2, batch=2, seq=seq, block_size=16, quant=quant,
                           cache_mode=cache_mode)
    half = deepseek.build("deepseek-v3", tp=16, layers=2, batch=2, seq=seq, block_size=16, quant=quant,
                          cache_mode=cache_mode, rope="half")
    a = run_steps(model, ascend_mla.compile(model), 2, model.new_caches())[-1][1][0]
    b = run_steps(half, fused, 2, half.new_caches())[-1][1][0]
    assert not np.array_equal(a, b)


@pytest.mark.slow
@pytest.mark.parametrize("name,quant,cache_mode,seq,block_size", ALL_CASES)
def test_every_preset_quant_and_cache_mode(name, quant, cache_mode, seq, block_size):
    _equivalence(name, quant, cache_mode, seq, steps=2, block_size=block_size)


# --- Hugging Face checkpoints -------------------------------------------------------------------

TINY = dict(hidden_size=256, num_attention_heads=4, q_lora_rank=64, kv_lora_rank=32,
            qk_nope_head_dim=16, qk_rope_head_dim=8, v_head_dim=16, rms_norm_eps=1e-6,
            num_hidden_layers=2, rope_theta=10000.0, max_position_embeddings=4096,
            rope_scaling=dict(type="yarn", factor=40, original_max_position_embeddings=4096,
                              beta_fast=32, beta_slow=1, mscale=1.0, mscale_all_dim=1.0))


def write_checkpoint(path, config, seed=0):
    """A small checkpoint as a Hugging Face directory: config.json and two safetensors shards."""
    from safetensors.numpy import save_file
    rng = np.random.default_rng(seed)
    full = dict(config, layers=config["num_hidden_layers"], heads=config["num_attention_heads"], quant="bf16")
    weights = deepseek.random_weights(full, rng)
    weights["model.embed_tokens.weight"] = np.zeros((8, config["hidden_size"]), BF16)   # not attention
    keys = sorted(weights)
    save_file({k: weights[k] for k in keys[::2]}, os.path.join(path, "model-00001-of-00002.safetensors"))
    save_file({k: weights[k] for k in keys[1::2]}, os.path.join(path, "model-00002-of-00002.safetensors"))
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(config, f)
    return weights


def test_load_weights_reads_the_attention_weights_by_checkpoint_name(tmp_path):
    written = write_checkpoint(tmp_path, TINY)
    loaded = deepseek.load_weights(str(tmp_path), layers=[1])
    expected = {k for k in written if k.startswith("model.layers.1.")}
    assert set(loaded) == expected
    for k in expected:
        assert loaded[k].dtype == written[k].dtype and np.array_equal(loaded[k], written[k])


def test_from_pretrained_with_a_tp_slice_runs_and_matches_the_reference(tmp_path):
    """A checkpoint of a small MLA config (the fused ops refuse its dimensions, with remarks)
    compiled at tp=2: rank 0's heads, checked against the float64 block on the same slice."""
    write_checkpoint(tmp_path, TINY)
    model = deepseek.from_pretrained(str(tmp_path), tp=2, layers=2, batch=2, block_size=16)
    assert model.weights["model.layers.0.self_attn.q_b_proj.weight"].shape == (2 * 24, 64)
    assert model.weights["model.layers.0.self_attn.o_proj.weight"].shape == (256, 2 * 16)
    program = ascend_mla.compile(model)
    assert program.report()["refused"]             # He = 256: the prolog's rules say no
    check_against_reference(model, run_steps(model, program, 2, model.new_caches()), TOLERANCE["bf16"])


def test_build_rejects_bad_arguments_naming_them():
    for kwargs, word in [(dict(name="deepseek-v9"), "name"), (dict(tp=3), "tp"), (dict(quant="fp8"), "quant"),
                         (dict(cache_mode="NZ"), "cache_mode"), (dict(layers=0), "layers"), (dict(seq=0), "seq")]:
        with pytest.raises(ValueError, match=word):
            deepseek.build(**kwargs)
