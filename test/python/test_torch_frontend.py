"""The PyTorch frontend: TorchMLA (the reference bf16 module) through torch.export, the ATen
converters, the raise passes and the default pipeline; the compiled program against the module's
own eager output over decode and multi-token steps, caches included; the errors a user meets."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_deepseek_models import op_counts as counts  # noqa: E402

import ascend_mla  # noqa: E402
from ascend_mla.frontend import torch as frontend  # noqa: E402
from ascend_mla.models import deepseek  # noqa: E402
from ascend_mla.models.torch_mla import cache_tensors, torch_inputs  # noqa: E402

# Output tolerance, relative to max |eager - input| (the attention block's contribution). The
# compiled program rounds differently from the module in three places, each by bf16 rounding
# (2^-9 relative) per element: the raised RmsNorms round once where the module rounds twice, the
# raised RoPE once where it rounds three times, and FIA sums in another order than the module's
# attention op. Through a dozen bf16 stages in series this gives 0.7-0.8% measured; 2^-5 leaves
# room and still fails on any real error (a wrong head, position, slot or rotation errs by order 1).
TOLERANCE = 2.0 ** -5
# Caches: the kv cache holds RmsNorm(x @ W_dkv)[:512] and the rope cache RoPE of the rest, with
# x = RmsNorm(h) rounded once (raised) where the module rounds twice: a one-ulp difference in x
# moves the 7168-long products by bf16 rounding too. Measured: ~5% of the elements differ, by at
# most 1.0% of their row's largest element; bound 2^-5 of the row max, and at least 90% of the
# elements bit-equal (a slot, block or layout error would move nearly all of them).
CACHE_TOLERANCE = 2.0 ** -5
CACHE_EQUAL = 0.9


def reference(name="deepseek-v3", *, layers=1, seq=1, rope="interleave", tp=16):
    model = deepseek.build(name, tp=tp, layers=layers, batch=2, seq=seq, block_size=16)
    module = deepseek.TorchMLA(model.config, rope=rope).load_weights(model.weights)
    return model, module


def zero_caches(model):
    return cache_tensors(model)


@pytest.fixture(scope="module")
def decode():
    """DeepSeek-V3 tp=16 (N = 8), one layer, batch 2, decode: the module and its program."""
    model, module = reference()
    return model, module, frontend.compile_module(module, torch_inputs(model, 0, zero_caches(model)))


def run_both(model, module, program, steps):
    """Eager module and compiled program side by side, each on its own caches."""
    eager_caches, compiled_caches = zero_caches(model), zero_caches(model)
    for step in range(steps):
        with torch.no_grad():
            expected = module(*torch_inputs(model, step, eager_caches))
        got = program(*torch_inputs(model, step, compiled_caches))
        hidden = torch_inputs(model, step, [])[0].float()
        scale = (expected.float() - hidden).abs().max().item()
        error = (got.float() - expected.float()).abs().max().item() / scale
        assert got.dtype == torch.bfloat16 and got.shape == expected.shape
        assert error < TOLERANCE, f"step {step}: error {error:.2e} of max|attention| > {TOLERANCE:.2e}"
        for name, a, b in zip(model.cache_names, eager_caches, compiled_caches):
            a, b = a.float(), b.float()
            bound = CACHE_TOLERANCE * a.abs().amax(-1, keepdim=True)
            assert bool(((a - b).abs() <= bound).all()), f"step {step}: {name} differs beyond bf16 rounding"
            assert (a == b).float().mean().item() >= CACHE_EQUAL, f"step {step}: {name} mostly differs"
            assert bool((a != 0).any()), f"step {step}: nothing was written to {name}"


def test_reference_module_fuses_to_one_prolog_and_one_attention_per_layer():
    model, module = reference(layers=2)
    program = frontend.compile_module(module, torch_inputs(model, 0, zero_caches(model)))
    assert isinstance(program, ascend_mla.Program)
    # What is left besides the fused ops: per layer the input RmsNorm, W_uv, o_proj and the
    # residual, and the two rope-table lookups of each layer (the module looks them up per layer).
    assert counts(program.ir) == {"prolog_v2": 2, "fused_infer_attention_score": 2, "rms_norm": 2,
                                  "head_matmul": 2, "matmul": 2, "add": 2, "gather": 4}, counts(program.ir)
    assert [f["op"] for f in program.report()["fused"]] == ["mla.prolog_v2"] * 2 + ["mla.fused_infer_attention_score"] * 2
    assert program.report()["refused"] == []
    # the imported graph is the written-out one: the raise passes made the RmsNorms and RoPEs
    imported = counts(program.stages["input"])
    assert imported["rsqrt"] == 6 and imported["mean"] == 6 and "rope" not in imported and "rms_norm" not in imported
    raised = counts(program.stages["raise-rope"])
    assert raised["rms_norm"] == 6 and raised["rope"] == 4 and "rsqrt" not in raised
    # weights are the module's parameters under their HF names, transposed in the IR
    assert "global private @model.layers.1.self_attn.q_b_proj.weight(" in program.stages["input"]
    assert "transpose" not in program.ir


def test_compiled_equals_eager_over_decode_steps(decode):
    model, module, program = decode
    assert len(program.report()["fused"]) == 2
    run_both(model, module, program, 3)


def test_compiled_equals_eager_over_multi_token_steps():
    """Four new tokens per step: causal attention within the step (FIA sparse_mode 3)."""
    model, module = reference(seq=4)
    program = frontend.compile_module(module, torch_inputs(model, 0, zero_caches(model)))
    assert "sparse_mode = 3" in program.ir
    run_both(model, module, program, 2)


def test_unfused_import_equals_eager():
    """Without the passes the program is the module's own arithmetic, op for op."""
    model, module = reference()
    program = frontend.compile_module(module, torch_inputs(model, 0, zero_caches(model)),
                                      pipeline="builtin.module(verify)")
    assert program.report()["fused"] == []
    run_both(model, module, program, 2)


def test_complex_rope_form():
    """DeepSeek's view_as_complex RoPE is raised to mla.rope too; its output keeps the pairs
    interleaved where the fused prolog writes them apart, so the prolog stays unfused (the
    caches must hold what the module writes) and says why; the attention fuses."""
    model, module = reference(rope="complex")
    program = frontend.compile_module(module, torch_inputs(model, 0, zero_caches(model)))
    assert counts(program.stages["raise-rope"])["rope"] == 2
    assert [f["op"] for f in program.report()["fused"]] == ["mla.fused_infer_attention_score"]
    assert "[MLA-009]" in program.report()["refused"][0]["reason"]
    run_both(model, module, program, 2)


def test_compiled_torch_module_equals_the_built_model(decode):
    """The imported graph fuses into the same ops as deepseek.build's: same weights and inputs,
    the same numbers."""
    model, module, program = decode
    built = ascend_mla.compile(model)
    caches = zero_caches(model)
    got = program(*torch_inputs(model, 0, caches))
    inputs = model.inputs(0, caches=model.new_caches())
    expected = built(**inputs)
    assert np.array_equal(got.view(torch.int16).numpy(), expected[0].view(np.int16))
    assert np.array_equal(caches[0].view(torch.int16).numpy(), inputs["kv_cache.0"].view(np.int16))


def test_unsupported_op_names_the_op_and_the_source_line():
    class Softmax(torch.nn.Module):
        def forward(self, x):
            return torch.softmax(x, dim=-1)        # MARKER
    with pytest.raises(frontend.UnsupportedOperatorError) as caught:
        frontend.compile_module(Softmax(), (torch.ones(2, 8),))
    message = str(caught.value)
    assert "aten.softmax.int" in message and "has no conversion to the mla dialect" in message
    assert __file__ in message and "# MARKER" in message


def test_unsupported_form_of_a_converted_op():
    class Cube(torch.nn.Module):
        def forward(self, x):
            return x.pow(3)
    with pytest.raises(frontend.UnsupportedOperatorError, match=r"aten.pow.Tensor_Scalar is not supported: pow "
                                                                 r"with exponent 3 .* at .*test_torch_frontend.py:\d+"):
        frontend.compile_module(Cube(), (torch.ones(2, 8),))


def test_a_shape_the_fused_ops_refuse_is_reported_with_its_rule():
    """DeepSeek-V2 (He = 5120): the prolog refuses (MLA-090); the program still compiles, runs
    unfused where refused, and the refusal names the rule and the module's line."""
    model, module = reference("deepseek-v2")
    program = frontend.compile_module(module, torch_inputs(model, 0, zero_caches(model)))
    refused = program.report()["refused"]
    assert len(refused) == 1 and "[MLA-090]" in refused[0]["reason"] and "got 5120" in refused[0]["reason"]
    line = int(refused[0]["location"].rsplit(":", 2)[-2])      # FILE:LINE:COL
    source = open(sys.modules[deepseek.TorchMLA.__module__].__file__).read().splitlines()
    assert "index_copy_" in source[line - 1]        # the kv cache store: the prolog's root
    assert any("MLA-090" in d and "remark" in d for d in program.diagnostics)
    run_both(model, module, program, 1)


def test_dynamic_shapes_are_refused_naming_the_parameter():
    model, module = reference()
    with pytest.raises(ValueError, match="dynamic: dynamic shapes are not supported"):
        frontend.compile_module(module, torch_inputs(model, 0, zero_caches(model)), dynamic=True)


def test_program_checks_the_call_structure(decode):
    model, module, program = decode
    with pytest.raises(TypeError, match="inputs: expected the structure"):
        program(*torch_inputs(model, 0, zero_caches(model))[:-1])


def test_module_owned_cache_buffers_are_program_state():
    """A cache the module registers as a buffer and mutates is an argument the program fills
    with the module's own tensor: compiled calls update the module's buffer, as eager calls do."""
    class Accumulate(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("cache", torch.zeros(4, 16, 1, 8, dtype=torch.bfloat16))

        def forward(self, rows, slots):
            self.cache.view(-1, 8).index_copy_(0, slots, rows)
            return rows * 2

    eager, compiled = Accumulate(), Accumulate()
    rows, slots = torch.randn(3, 8).to(torch.bfloat16), torch.tensor([5, 17, 40])
    program = frontend.compile_module(compiled, (rows, slots))
    assert ("buffer", "cache") in program.imported.inputs
    out = program(rows, slots)
    assert torch.equal(out, eager(rows, slots))
    assert torch.equal(compiled.cache, eager.cache) and compiled.cache.abs().sum() > 0


def test_deepseek_example_runs_end_to_end():
    from ascend_mla.tools.torch_example import deepseek_example
    result = deepseek_example(steps=1)
    assert [f["op"] for f in result["report"]["fused"]] == ["mla.prolog_v2", "mla.fused_infer_attention_score"]
    assert all(s["max_error"] / result["scale"] < TOLERANCE for s in result["steps"])


def test_deepseek_module_imports_without_torch():
    """torch stays optional: the model builders import without it; TorchMLA says what it needs."""
    code = textwrap.dedent("""
        import sys
        sys.modules["torch"] = None
        from ascend_mla.models import deepseek
        deepseek.build("deepseek-v3", tp=16)
        try:
            deepseek.TorchMLA
        except ImportError as e:
            print("ImportError", e)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ImportError")


def test_rotate_half_rope_form():
    """The plain rotate-half RoPE (Llama style) is another model: raise-rope makes mla.rope in
    mode "half", interleave-rope reorders the rope columns of q_b_proj and kv_a_proj_with_mqa
    so the fused prolog's interleaved RoPE computes it, and both ops fuse."""
    model, module = reference(rope="half")
    program = frontend.compile_module(module, torch_inputs(model, 0, zero_caches(model)))
    assert program.stages["raise-rope"].count('mode = "half"') == 2
    assert 'mode = "half"' not in program.stages["interleave-rope"]
    assert [f["op"] for f in program.report()["fused"]] == ["mla.prolog_v2", "mla.fused_infer_attention_score"]
    run_both(model, module, program, 2)


def test_an_element_selected_to_a_scalar_is_a_view():
    """x[0, 1] is two selects down to rank 0: a collapse with no groups (it recursed forever)."""
    class Scaled(torch.nn.Module):
        def forward(self, x):
            return x * x[0, 1]
    x = torch.randn(4, 8, generator=torch.Generator().manual_seed(0))
    program = frontend.compile_module(Scaled(), (x,))
    assert "tensor.collapse_shape" in program.stages["input"]
    assert torch.equal(program(x), Scaled()(x))
