"""w8a8 written in PyTorch: TorchMLA(quant="w8a8") and small modules through the importer and
raise-quant (passes/raise_quant.py): the written-out dynamic quant and int8 products become
mla.dynamic_quant / mla.quant_matmul, the graph fuses as deepseek.build's w8a8 graph does, and
the numbers are the module's (bit for bit where only the quant is raised)."""
from collections import Counter

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_deepseek_models import op_counts as counts  # noqa: E402
from test_torch_frontend import run_both, zero_caches  # noqa: E402

import ascend_mla  # noqa: E402
from ascend_mla.frontend import torch as frontend  # noqa: E402
from ascend_mla.models import deepseek  # noqa: E402
from ascend_mla.models.torch_mla import QuantLinear, dynamic_quant, torch_inputs  # noqa: E402

UNFUSED = "builtin.module(verify)"
RAISE_QUANT_ONLY = "builtin.module(verify,raise-quant)"


@pytest.fixture(scope="module")
def w8a8():
    """DeepSeek-V3 tp=16, one layer, batch 2, decode, w8a8: the built model, the module, its program."""
    model = deepseek.build("deepseek-v3", tp=16, batch=2, block_size=16, quant="w8a8")
    module = deepseek.TorchMLA(model.config).load_weights(model.weights)
    assert isinstance(module.model.layers[0].self_attn.q_a_proj, QuantLinear)
    return model, module, frontend.compile_module(module, torch_inputs(model, 0, zero_caches(model)))


def test_w8a8_module_fuses_as_the_built_w8a8_graph(w8a8):
    model, module, program = w8a8
    assert [(f["op"], f["detail"]) for f in program.report()["fused"]] == [
        ("mla.prolog_v2", "FQ-KVNQ"), ("mla.fused_infer_attention_score", "MLA mode")]
    imported = counts(program.stages["input"])
    assert imported["amax"] == 3 and "dynamic_quant" not in imported and "quant_matmul" not in imported
    raised = counts(program.stages["raise-quant"])
    assert raised["dynamic_quant"] == 3 and raised["quant_matmul"] == 4 and "amax" not in raised
    built = ascend_mla.compile(model)
    # the built tp-16 slice ends in its o_proj all-reduce (the identity in a world of one); the
    # module is one rank's slice without it
    assert counts(program.ir) == counts(built.ir) - Counter({"all_reduce": 1})
    # the same ops on the same weights: the same bits as the hand-built graph's program
    caches = zero_caches(model)
    got = program(*torch_inputs(model, 0, caches))
    inputs = model.inputs(0, caches=model.new_caches())
    expected = built(**inputs)
    assert np.array_equal(got.view(torch.int16).numpy(), expected[0].view(np.int16))
    for i, name in enumerate(model.cache_names):
        assert np.array_equal(caches[i].view(torch.int16).numpy(), inputs[name].view(np.int16)), name


def test_w8a8_compiled_equals_eager_over_decode_steps(w8a8):
    """The bf16 bounds of test_torch_frontend hold: the compiled program differs from the module
    where the bf16 one does (the input RmsNorm rounds once, not twice; FIA's summation order),
    and a bf16 ulp of difference in a quantized input moves its int8 code by at most one step,
    1/127 of its row's largest value, no more than bf16 rounding does through the projections.
    Measured: output 1.4-1.6% of max|attention| (bound 2^-5), caches at most 1.3% of a row's
    largest element off (bound 2^-5), >= 94% of the cache elements bit-equal after 3 steps (>= 90%)."""
    model, module, program = w8a8
    run_both(model, module, program, 3)


@pytest.mark.parametrize("pipeline", [UNFUSED, RAISE_QUANT_ONLY], ids=["as-written", "raise-quant"])
def test_unfused_and_raised_quant_change_no_bit(w8a8, pipeline):
    """Without passes the program is the module's arithmetic op for op (the quant pieces lowered
    to aclnnAbs, Amax, Round, ..., an int32 Matmul); with only raise-quant, its quant is
    mla.dynamic_quant / mla.quant_matmul. Either way the caches (written through the quantized
    kv projection) equal eager's bit for bit at every step, and so does the output of the first
    step, where attention over one key is exact; later steps differ only in the attention's
    summation order (bounded in run_both)."""
    model, module, _ = w8a8
    program = frontend.compile_module(module, torch_inputs(model, 0, zero_caches(model)),
                                      pipeline=pipeline)
    assert counts(program.ir).get("quant_matmul", 0) == (4 if pipeline == RAISE_QUANT_ONLY else 0)
    assert program.report()["fused"] == []
    eager_caches, compiled_caches = zero_caches(model), zero_caches(model)
    for step in range(2):
        with torch.no_grad():
            expected = module(*torch_inputs(model, step, eager_caches))
        got = program(*torch_inputs(model, step, compiled_caches))
        if step == 0:
            assert torch.equal(got, expected)
        for name, a, b in zip(model.cache_names, eager_caches, compiled_caches):
            assert torch.equal(a, b), f"step {step}: {name}"


class SmoothLinear(torch.nn.Module):
    """npu_dynamic_quant with smooth scales, then an int8 linear whose weight is widened first
    and transposed after (the other order than QuantLinear's); bf16 out."""

    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.smooth = torch.nn.Parameter(torch.rand(64, generator=g) + 0.5, requires_grad=False)
        self.weight = torch.nn.Parameter(torch.randint(-127, 128, (32, 64), generator=g, dtype=torch.int8),
                                         requires_grad=False)
        self.weight_scale = torch.nn.Parameter(torch.rand(32, 1, generator=g) / 100, requires_grad=False)

    def forward(self, x):
        z = x.float() * self.smooth
        scale = z.abs().amax(-1, keepdim=True) / 127
        xq = torch.round(z / scale).clamp(-127, 127).to(torch.int8)
        acc = torch.matmul(xq.to(torch.int32), self.weight.to(torch.int32).t())
        return (acc.float() * scale * self.weight_scale.view(-1)).to(torch.bfloat16)


def test_smooth_scales_and_the_other_weight_order_raise_bit_exact():
    module = SmoothLinear()
    x = torch.randn(3, 5, 64, generator=torch.Generator().manual_seed(1)).to(torch.bfloat16)
    program = frontend.compile_module(module, (x,))
    raised = counts(program.stages["raise-quant"])
    assert raised["dynamic_quant"] == 1 and raised["quant_matmul"] == 1 and "matmul" not in raised
    assert "operandSegmentSizes = array<i32: 1, 1>" in program.stages["raise-quant"]   # the smooth scales
    # the raised ops compute the written-out arithmetic exactly (same order, same roundings)
    assert torch.equal(program(x), module(x))


def test_the_row_maximum_written_with_max_values_raises_too():
    class MaxQuant(torch.nn.Module):
        def forward(self, x):
            x = x.float()
            scale = x.abs().max(dim=-1, keepdim=True).values / 127
            return torch.clamp(torch.round(x / scale), -128, 127).to(torch.int8), scale
    x = torch.randn(6, 32, generator=torch.Generator().manual_seed(4)).to(torch.bfloat16)
    program = frontend.compile_module(MaxQuant(), (x,))
    assert counts(program.ir) == {"dynamic_quant": 1}
    for got, expected in zip(program(x), MaxQuant()(x)):
        assert torch.equal(got, expected)


def test_static_quant_raises_to_mla_quantize():
    """npu_quantize written out (a per-channel scale multiplies, ties to even, saturation at
    -128 and 127): one mla.quantize, the same codes as eager."""
    class StaticQuant(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = torch.nn.Parameter(torch.rand(48, generator=torch.Generator().manual_seed(5)) * 200,
                                            requires_grad=False)

        def forward(self, x):
            return torch.round(x.float() * self.scale).clamp(-128, 127).to(torch.int8)
    module = StaticQuant()
    x = torch.randn(5, 48, generator=torch.Generator().manual_seed(6)).to(torch.bfloat16)
    program = frontend.compile_module(module, (x,))
    assert counts(program.ir) == {"quantize": 1}
    got = program(x)
    assert torch.equal(got, module(x)) and {-128, 127} <= set(got.flatten().tolist())   # saturated


def test_quant_helpers_compute_what_torch_npu_documents():
    """dynamic_quant against the document's formula in float64 (scale = max|x| / 127, values
    round(x / scale) in [-127, 127]): the same codes, the scale within float32 rounding."""
    x = torch.randn(4, 96, generator=torch.Generator().manual_seed(2)).to(torch.bfloat16)
    q, scale = dynamic_quant(x)
    x64 = x.double()
    scale64 = x64.abs().amax(-1, keepdim=True) / 127
    assert q.dtype == torch.int8 and scale.dtype == torch.float32
    assert torch.allclose(scale.double(), scale64, rtol=2 ** -23, atol=0)
    assert torch.equal(q.long(), torch.round(x64 / scale.double()).long())
    assert q.abs().max().item() == 127


def test_a_quant_the_kernels_do_not_compute_runs_as_written():
    """bf16 arithmetic (npu_dynamic_quant works in float32) is not raised; its pieces lower to
    aclnnAbs, Amax, Div, Round, Maximum, Minimum and Cast and compute what torch computes."""
    class Bf16Quant(torch.nn.Module):
        def forward(self, x):
            scale = x.abs().amax(-1, keepdim=True) / 127
            return torch.round(x / scale).clamp(-128, 127).to(torch.int8)
    module = Bf16Quant()
    x = torch.randn(3, 40, generator=torch.Generator().manual_seed(3)).to(torch.bfloat16)
    program = frontend.compile_module(module, (x,))
    assert "dynamic_quant" not in counts(program.ir) and counts(program.ir)["amax"] == 1
    for name in ("aclnnAbs", "aclnnAmax", "aclnnRound", "aclnnMaximum", "aclnnMinimum", "aclnnCast"):
        assert f'callee = "{name}"' in program.lowered_ir
    assert torch.equal(program(x), module(x))


def test_w8a8c8_is_refused_by_name():
    model = deepseek.build("deepseek-v3", tp=16, batch=1, block_size=16, quant="w8a8c8")
    with pytest.raises(ValueError, match="quant: expected \"bf16\" or \"w8a8\""):
        deepseek.TorchMLA(model.config)


def test_w8a8_with_the_rotate_half_rope_fuses_too():
    """raise-quant runs before interleave-rope: the rope columns of the raised quant_matmul's
    int8 weight and per-channel scale are reordered, and the prolog fuses (FQ-KVNQ)."""
    model = deepseek.build("deepseek-v3", tp=16, batch=1, block_size=16, quant="w8a8", rope="half")
    module = deepseek.TorchMLA(model.config, rope="half").load_weights(model.weights)
    program = frontend.compile_module(module, torch_inputs(model, 0, zero_caches(model)))
    assert [(f["op"], f["detail"]) for f in program.report()["fused"]] == [
        ("mla.prolog_v2", "FQ-KVNQ"), ("mla.fused_infer_attention_score", "MLA mode")]


@pytest.mark.parametrize("forward, message", [
    (lambda x: x.amax(0), r"aten.amax is not supported: the maximum over dims \[0\]"),
    (lambda x: x.max(-1).indices.float(), r"aten._to_copy is not supported: the value of getitem_\d+ is used, but it has none"),
    (lambda x: x.to(torch.int32).clamp(0, 5), r"aten.clamp is not supported: i32 operands \(bf16, f16 and f32 tensors are converted\)"),
    (lambda x: x.to(torch.int32).abs(), r"aten.abs is not supported: i32 operands"),
    (lambda x: x.to(torch.uint8), r"aten._to_copy is not supported: a cast from f32 to ui8"),
    (lambda x: x.to(torch.int32).to(torch.int8), r"aten._to_copy is not supported: a cast from i32 to i8"),
], ids=["amax-dim0", "max-indices", "clamp-int", "abs-int", "to-unsigned", "int-narrowing"])
def test_forms_the_quant_converters_do_not_take_name_the_op_and_line(forward, message):
    class Module(torch.nn.Module):
        def forward(self, x):
            return forward(x)
    with pytest.raises(frontend.UnsupportedOperatorError, match=message) as caught:
        frontend.compile_module(Module(), (torch.ones(4, 8),))
    assert "test_torch_quant.py" in str(caught.value)
