"""deepseek.CausalLM against transformers itself: small DeepSeek-V3-architecture models (the
prolog's dims, 8 heads, a dense and a MoE layer, YaRN, random init; the session fixtures of
conftest.py / hf_checkpoints.py) written by transformers' save_pretrained, read back by
CausalLM.from_pretrained, compared with transformers' forward (bf16 and fp32) and its greedy
generate."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import ascend_mla
from ascend_mla.compiler import CompileError
from ascend_mla.models import deepseek

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

PROMPT = [[160, 82, 160, 20, 161, 113, 30, 158]]
# A prompt whose 8 greedy steps are all clear on the session checkpoint (found by trying seeded
# prompts with the criterion of the greedy test below).
GREEDY_PROMPT = [[395, 188, 338, 103, 483, 47, 137, 335]]


def relative(a, b) -> float:
    return float(torch.linalg.norm(a - b) / torch.linalg.norm(b))


def transformers_logits(model, ids):
    """transformers' logits of `ids` in bf16 (the checkpoint's dtype) and in fp32 (the same
    weights, exact in fp32)."""
    with torch.no_grad():
        bf16 = model(ids).logits.float()
        fp32 = copy.deepcopy(model).float()(ids).logits
    return bf16, fp32


@pytest.fixture(scope="module")
def v3(hf_checkpoint, hf_model):
    """The shared session checkpoint (hf_checkpoints.SMALL: 2 layers, layer 1 MoE, YaRN factor
    40, vocabulary 512, lm_head x8) and transformers' bf16 model of it."""
    path = hf_checkpoint()
    return path, hf_model(path)


@pytest.fixture(scope="module")
def lm(v3):
    return deepseek.CausalLM.from_pretrained(v3[0], block_size=16, max_positions=64, target="cpu")


def test_logits_equal_transformers_forward(v3, lm):
    """Prefill (8 tokens, one chunk) then two decode steps from the model's caches, against
    transformers' forward over the same 10 tokens. The tolerance is transformers' own noise:
    its bf16 run is ~1.4 % (relative L2) from its fp32 run on this model; ours rounds at other
    points (fused SwiGLU, MoE finalize, the fused prolog and attention), so it may differ from
    fp32 by up to twice that, never more."""
    _, model = v3
    ids = torch.tensor(PROMPT)
    lm.reset()
    steps = [lm(ids), lm(torch.tensor([[5]])), lm(torch.tensor([[250]]))]
    assert lm.position == 10 and steps[0].shape == (1, 8, 512) and steps[0].dtype == torch.float32
    ours = torch.cat(steps, dim=1)
    bf16, fp32 = transformers_logits(model, torch.cat([ids, torch.tensor([[5, 250]])], dim=1))
    noise = relative(bf16, fp32)
    assert 1e-3 < noise < 0.05, noise                        # the reference itself is sane
    assert relative(ours, fp32) < 2 * noise, (relative(ours, fp32), noise)
    # every layer's attention fused, in both functions of the one program; nothing refused
    report = lm.report()
    assert set(lm.programs) == {"decoder"}
    fused = [f["op"] for f in report["fused"]]
    assert fused.count("mla.prolog_v2") == 2 * 2 and fused.count("mla.fused_infer_attention_score") == 2 * 2
    assert report["refused"] == []


def test_greedy_tokens_equal_transformers_generate(v3, lm):
    """Greedy tokens equal transformers' generate for as long as its top-2 margin is clear: a
    random model has near-ties, where bf16 noise may pick either. A step is clear when the
    margin exceeds twice transformers' own bf16-vs-fp32 logit difference at that step (where
    transformers itself could flip, no implementation is wrong)."""
    _, model = v3
    ids, new = torch.tensor(GREEDY_PROMPT), 8
    eos, model.generation_config.eos_token_id = model.generation_config.eos_token_id, None
    try:                                       # CausalLM.generate has no early stop
        with torch.no_grad():
            ref = model.generate(ids, max_new_tokens=new, do_sample=False, pad_token_id=0, output_logits=True,
                                 return_dict_in_generate=True)
            fp32 = copy.deepcopy(model).float()(ref.sequences[:, :-1]).logits[0, 7:]
    finally:
        model.generation_config.eos_token_id = eos
    assert ref.sequences.shape == (1, 8 + new)
    theirs = torch.stack([step[0].float() for step in ref.logits])
    margins = torch.topk(theirs, 2).values.diff().abs()[:, 0]
    bound = 2 * (theirs - fp32).abs().max(dim=-1).values
    clear = next((i for i in range(new) if margins[i] <= bound[i]), new)
    assert clear >= 4, f"near-ties within 4 steps (margins {margins.tolist()}, bounds {bound.tolist()})"
    ours = lm.generate(ids, max_new_tokens=new, eos_token_id=None)
    assert isinstance(ours, torch.Tensor) and ours.dtype == torch.int64 and ours.shape == (1, 8 + new)
    assert ours[0, :8 + clear].tolist() == ref.sequences[0, :8 + clear].tolist(), (ours, ref.sequences, clear)
    assert lm.generate(ids, max_new_tokens=2, eos_token_id=None).tolist() == ours[:, :10].tolist()   # afresh


def test_generate_stops_at_the_end_of_sequence_token_as_transformers(v3, lm):
    """With the third greedy token declared the end of sequence, generation ends there, in ours
    and in transformers' generate (the first steps of GREEDY_PROMPT are clear, see above); the
    default EOS is the checkpoint's, as transformers reads it."""
    _, model = v3
    ids = torch.tensor(GREEDY_PROMPT)
    full = lm.generate(ids, max_new_tokens=8, eos_token_id=None)
    eos = int(full[0, 8 + 2])
    stop = 8 + [int(t) for t in full[0, 8:]].index(eos) + 1         # its first occurrence
    ours = lm.generate(ids, max_new_tokens=8, eos_token_id=[eos, 511 if eos != 511 else 510])
    assert ours.tolist() == full[:, :stop].tolist()
    with torch.no_grad():
        theirs = model.generate(ids, max_new_tokens=8, do_sample=False, eos_token_id=eos, pad_token_id=0)
    assert theirs.tolist() == ours.tolist()
    assert lm.eos_token_id == (model.generation_config.eos_token_id,) and lm.pad_token_id is None
    with pytest.raises(ValueError, match=r"eos_token_id: expected token ids in \[0, 512\)"):
        lm.generate(ids, eos_token_id=512)
    with pytest.raises(ValueError, match="pad_token_id: expected a token id"):
        lm.generate(ids, eos_token_id=3, pad_token_id="0")


def clear_steps(model, prompt, new) -> tuple[list, int]:
    """transformers' greedy continuation of one unpadded prompt and how many of its first steps
    are clear (top-2 margin above twice its own bf16-vs-fp32 logit difference, as above)."""
    ids = torch.tensor([prompt])
    with torch.no_grad():
        ref = model.generate(ids, max_new_tokens=new, do_sample=False, pad_token_id=0, output_logits=True,
                             return_dict_in_generate=True, min_new_tokens=new)
        fp32 = copy.deepcopy(model).float()(ref.sequences[:, :-1]).logits[0, len(prompt) - 1:]
    theirs = torch.stack([step[0].float() for step in ref.logits])
    margins = torch.topk(theirs, 2).values.diff().abs()[:, 0]
    bound = 2 * (theirs - fp32).abs().max(dim=-1).values
    return ref.sequences[0, len(prompt):].tolist(), next((i for i in range(new) if margins[i] <= bound[i]), new)


def test_prompts_of_different_lengths_with_an_attention_mask(v3):
    """Two prompts (8 and 5 tokens) left-padded with transformers' attention mask: each row's
    greedy tokens are transformers' for that prompt alone wherever its steps are clear, and
    the padded batch gives transformers' padded generate; a right-padded mask the same tokens;
    lm(ids, attention_mask) gives the logits of the real tokens and zeros for the padding."""
    path, model = v3
    lm2 = deepseek.CausalLM.from_pretrained(path, batch=2, block_size=16, max_positions=64, target="cpu")
    long, short = GREEDY_PROMPT[0], GREEDY_PROMPT[0][3:]
    ids = torch.tensor([long, [0] * 3 + short])
    mask = torch.tensor([[1] * 8, [0] * 3 + [1] * 5])
    ours = lm2.generate(ids, max_new_tokens=6, attention_mask=mask, eos_token_id=None)
    assert ours.shape == (2, 8 + 6) and ours[:, :8].tolist() == ids.tolist()
    for row, prompt in enumerate((long, short)):
        alone, clear = clear_steps(model, prompt, 6)
        assert clear >= 3, (row, clear)
        assert ours[row, 8:8 + clear].tolist() == alone[:clear], (row, ours[row], alone, clear)
    with torch.no_grad():
        theirs = model.generate(ids, attention_mask=mask, max_new_tokens=6, min_new_tokens=6, do_sample=False,
                                pad_token_id=0)
    assert theirs[:, 8:11].tolist() == ours[:, 8:11].tolist()
    right = lm2.generate(torch.tensor([long, short + [0] * 3]), max_new_tokens=6, eos_token_id=None,
                         attention_mask=torch.tensor([[1] * 8, [1] * 5 + [0] * 3]))
    assert right[:, 8:].tolist() == ours[:, 8:].tolist()
    lm2.reset()
    logits = lm2(ids, attention_mask=mask)
    assert lm2.positions.tolist() == [8, 5] and lm2.position == 8
    assert float(logits[1, :3].abs().max()) == 0 and float(logits[1, 3:].abs().min()) > 0
    with pytest.raises(ValueError, match="attention_mask: row 0 has padding between real tokens"):
        lm2.generate(ids, attention_mask=torch.tensor([[1, 0] * 4, [1] * 8]))
    with pytest.raises(ValueError, match="input_ids: expected at least one prompt token per row"):
        lm2.generate(ids, attention_mask=torch.tensor([[1] * 8, [0] * 8]))


def test_greedy_stop_pads_finished_rows_and_ends_with_the_last():
    """transformers' rule on a batch: a row that produced an EOS id is finished, its later
    tokens are the pad; done when every row is; without EOS ids never done early."""
    from ascend_mla.models.causal_lm import GreedyStop

    def logits(*tokens):
        out = np.zeros((len(tokens), 8), np.float32)
        out[np.arange(len(tokens)), tokens] = 1
        return out
    stop = GreedyStop((2, 3), pad=0, rows=2)
    assert stop.next(logits(5, 2)).tolist() == [[5], [2]] and not stop.done
    assert stop.next(logits(6, 7)).tolist() == [[6], [0]] and not stop.done     # row 1 padded
    assert stop.next(logits(3, 4)).tolist() == [[3], [0]] and stop.done
    never = GreedyStop((), pad=0, rows=1)
    for _ in range(3):
        never.next(logits(2))
    assert not never.done


def test_greedy_stop_refuses_non_finite_logits_of_a_row_still_generating():
    """argmax over NaN picks token 0: generate would go on silently wrong. A finished row's
    logits are not read (its token is the pad), so they may be anything."""
    from ascend_mla.models.causal_lm import GreedyStop
    stop = GreedyStop((2,), pad=0, rows=2)
    assert stop.next(np.array([[0, 0, 1, 0], [1, 0, 0, 0]], np.float32)).tolist() == [[2], [0]]
    assert stop.next(np.array([[np.nan, 0, 0, 0], [0, 0, 0, 1]], np.float32)).tolist() == [[0], [3]]
    with pytest.raises(FloatingPointError, match="logits: row 1 holds NaN or Inf"):
        stop.next(np.array([[0, 0, 0, 0], [0, np.inf, 0, 0]], np.float32))


@pytest.mark.slow       # a second model (~15 s); the attention's rope modes are also in test_checkpoint.py
def test_rope_half_moe_layer_equals_transformers(hf_checkpoint, hf_model):
    """rope_interleave false (Llama-style rotate-half RoPE) on a one-layer model whose only
    layer is MoE: logits of a 5-token prefill (padded to a chunk of 8) and one decode step."""
    path = hf_checkpoint(rope_interleave=False, num_hidden_layers=1, first_k_dense_replace=0)
    lm = deepseek.CausalLM.from_pretrained(path, block_size=16, max_positions=32, target="cpu")
    ids = torch.tensor([[11, 22, 33, 44, 55]])
    ours = torch.cat([lm(ids), lm(torch.tensor([[66]]))], dim=1)
    bf16, fp32 = transformers_logits(hf_model(path), torch.tensor([[11, 22, 33, 44, 55, 66]]))
    noise = relative(bf16, fp32)
    assert relative(ours, fp32) < 2 * noise, (relative(ours, fp32), noise)
    assert "mode = \"half\"" in lm.programs["decoder"].stages["input"]


@pytest.mark.slow
def test_w8a8_from_an_fp8_checkpoint(hf_checkpoint, hf_model):
    """The hub's block-FP8 format, quantized at load to int8 linears (w8a8: the prolog's
    FQ-KVNQ, int8 MLPs and experts). Reference: transformers' fp32 model of the dequantized FP8
    weights. int8 per-channel weights and per-token activations round every projection input to
    1/127 of its row's range (against bf16's 1/256 relative): the logits stay within 4x
    transformers' own bf16 noise (measured 3.0x with the attention alone int8, 3.65x with the
    MLPs and experts too)."""
    import hf_checkpoints
    base, fp8 = hf_checkpoint(), hf_checkpoint("fp8")
    reference = copy.deepcopy(hf_model(base)).float()
    weights = {k: torch.from_numpy(np.asarray(v, np.float32)) for k, v in hf_checkpoints.fp8_dequantized(fp8).items()}
    reference.load_state_dict(weights, strict=False)
    lm = deepseek.CausalLM.from_pretrained(fp8, quant="w8a8", block_size=16, max_positions=32, target="cpu")
    ids = torch.tensor(PROMPT)
    ours = lm(ids)                             # compiles at the first call
    assert sum(f["detail"] == "FQ-KVNQ" for f in lm.report()["fused"]) == 2 * 2     # layers x functions
    with torch.no_grad():
        fp32 = reference(ids).logits
        bf16 = copy.deepcopy(reference).to(torch.bfloat16)(ids).logits.float()
    noise = relative(bf16, fp32)
    assert relative(ours, fp32) < 4 * noise, (relative(ours, fp32), noise)


def tiny_config(**overrides):
    return dict(deepseek.CONFIGS["deepseek-v3"], num_attention_heads=8, num_hidden_layers=2, vocab_size=256,
                intermediate_size=256, moe_intermediate_size=128, n_routed_experts=8, n_shared_experts=1,
                num_experts_per_tok=2, n_group=4, topk_group=2, first_k_dense_replace=1, **overrides)


def test_a_tp_slice_of_one_chosen_moe_layer_compiles_and_runs():
    """Rank 0 of tp=2 for layer 1 alone (the MoE layer): 4 heads, half of every MLP's
    intermediate dimension, half of the vocabulary; weight and cache names keep the layer's index."""
    model = deepseek.build("tiny", config=tiny_config(), tp=2, layer=1, batch=2, seq=1, block_size=16, decoder=True)
    assert model.cache_names == ["kv_cache.1", "kr_cache.1"]
    names = set(model.weights)
    assert "model.layers.1.mlp.experts.gate_up_proj" in names and not any(".layers.0." in n for n in names)
    assert model.weights["model.layers.1.mlp.experts.gate_up_proj"].shape == (8, 128, 7168)   # 2 x 128 / 2
    program = ascend_mla.compile(model, target="cpu")
    fused = [f["op"] for f in program.report()["fused"]]
    assert fused == ["mla.prolog_v2", "mla.fused_infer_attention_score"] or \
        sorted(fused) == ["mla.fused_infer_attention_score", "mla.prolog_v2"]
    # alone (a world of one) the all-reduces are the identity, but lm_head's all-gather has no
    # other ranks' logits: running the slice needs its ranks (test_tensor_parallel.py runs two)
    assert [c["op"] for c in program.report()["collectives"]] == ["HcclAllReduce"] * 3 + ["HcclAllGather"]
    from ascend_mla.runtime.distributed import CollectiveError
    with pytest.raises(CollectiveError, match=r"mla.all_gather over 2 ranks in a world of one"):
        program(**model.inputs(0))


def test_refusals_name_what_they_refuse(lm):
    with pytest.raises(CompileError, match="norm_topk_prob"):
        deepseek.build("tiny", config=tiny_config(norm_topk_prob=False), decoder=True)
    with pytest.raises(CompileError, match="scoring_func"):
        deepseek.build("tiny", config=tiny_config(scoring_func="relu"), decoder=True)
    with pytest.raises(ValueError, match="layer: expected an index in"):
        deepseek.build("tiny", config=tiny_config(), layer=2)
    with pytest.raises(ValueError, match=r"input_ids: the model was compiled for batch 1"):
        lm(torch.tensor([[1], [2]]))
    with pytest.raises(ValueError, match="max_new_tokens"):
        lm.generate(torch.tensor(PROMPT), max_new_tokens=100)
