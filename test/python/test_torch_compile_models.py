"""torch.compile(backend="ascend_mla") as a general backend (docs/api.md 10): models with nothing
to fuse -- transformers' Llama, Qwen2, GPT-2 and Mistral (small configs, random init), an MLP, a
CNN -- give eager's outputs and gradients, see their parameters change, and compute integers
and complex numbers exactly.

What the backend does with these graphs: those with no attention or cache write go to inductor
whole (the MLP, the CNN); those with attention are captured and partitioned, their attention
regions compiled into mla programs, and since no fused Ascend op comes out (these attentions
are not MLA) they run as PyTorch too; with grad mode on over parameters that require grad the
graph runs through inductor's AOTAutograd [TORCH-002].

Inductor compiles C++ for each graph (tens of CPU seconds each on a cold cache), so the
transformers models run with the PyTorch partitions eager here (`inductor=False`: the partition
and autograd logic is the same) and Llama with inductor is marked slow; the MLP and the CNN take
the default path, inductor included, forward and backward.

Bounds: float32 models. PyTorch partitions compute eager's ops (the same kernels: equal up to
the last bits, 1e-6 relative); inductor fuses and reorders float32 sums (measured < 1e-6
relative here); 1e-5 of the largest value bounds both.
"""
from __future__ import annotations

import copy
import warnings

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from ascend_mla.frontend.dynamo import FusionWarning  # noqa: E402
from ascend_mla.frontend.torch import AscendBackend, compile_module  # noqa: E402

RTOL = 1e-5


def close(a, b, rtol=RTOL):
    scale = max(a.abs().max().item(), 1e-30)
    return (a - b).abs().max().item() <= rtol * scale


SMALL = dict(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
             num_key_value_heads=2, max_position_embeddings=64)


def transformer(name):
    torch.manual_seed(0)
    if name == "gpt2":
        return transformers.GPT2LMHeadModel(transformers.GPT2Config(   # no dropout: the same function in train()
            vocab_size=64, n_embd=32, n_layer=1, n_head=4, n_positions=64, resid_pdrop=0.0, embd_pdrop=0.0,
            attn_pdrop=0.0))
    config = {"llama": transformers.LlamaConfig, "qwen2": transformers.Qwen2Config,
              "mistral": transformers.MistralConfig}[name](**SMALL)
    return transformers.AutoModelForCausalLM.from_config(config)


def check_model(model, inputs, loss_of, backend):
    """Eager against compiled, each on its own copy of the model: inference outputs, a training
    step's loss and gradients, then inference again after optimizer.step() on both copies."""
    compiled_model = copy.deepcopy(model)
    compiled = torch.compile(compiled_model, backend=backend)          # the default arguments
    model.eval(), compiled_model.eval()
    with torch.no_grad():
        assert close(model(*inputs), compiled(*inputs))
    model.train(), compiled_model.train()
    loss, compiled_loss = loss_of(model(*inputs)), loss_of(compiled(*inputs))
    assert compiled_loss.requires_grad and close(loss.detach(), compiled_loss.detach())
    loss.backward(), compiled_loss.backward()
    # float32 sums of a backward pass, reordered: 1e-4 of the largest gradient (a gradient that
    # is 0 in exact arithmetic -- a conv bias before BatchNorm -- is rounding noise in both)
    scale = max(p.grad.abs().max().item() for p in model.parameters())
    for (name, p), q in zip(model.named_parameters(), compiled_model.parameters()):
        assert q.grad is not None, f"{name}: no gradient through the compiled model"
        assert (p.grad - q.grad).abs().max().item() <= 1e-4 * scale, name
    for m in (model, compiled_model):
        torch.optim.SGD(m.parameters(), lr=0.5).step()
    model.eval(), compiled_model.eval()
    with torch.no_grad():
        after, compiled_after = model(*inputs), compiled(*inputs)
    assert close(after, compiled_after), "the compiled model does not see the new weights"
    return compiled


def logits_of(model):
    return lambda *inputs: model(*inputs).logits


class Logits(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, ids):
        return self.model(ids).logits


@pytest.mark.parametrize("name", ["llama", "qwen2", "gpt2", "mistral"])
def test_transformers_models(name):
    model = Logits(transformer(name))
    ids = torch.randint(0, 64, (2, 8), generator=torch.Generator().manual_seed(1))
    backend = AscendBackend(inductor=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_model(model, (ids,), lambda logits: logits.float().square().mean(), backend)
    # nothing fuses: no program is kept; the attention says why, once per graph and rule
    assert not backend.programs
    assert all(p["kind"] == "pytorch" for r in backend.reports for p in r["partitions"])
    assert any("TORCH-002" in p["reason"] for r in backend.reports for p in r["partitions"])
    fusion = [str(w.message) for w in caught if issubclass(w.category, FusionWarning)]
    assert fusion and len(fusion) == len(set(fusion)), fusion


@pytest.mark.slow              # inductor's C++ for a forward and a backward graph: ~1 min of CPU
def test_llama_through_inductor():
    model = Logits(transformer("llama"))
    ids = torch.randint(0, 64, (2, 8), generator=torch.Generator().manual_seed(1))
    backend = AscendBackend()
    check_model(model, (ids,), lambda logits: logits.float().square().mean(), backend)
    assert {p["kind"] for r in backend.reports for p in r["partitions"]} == {"inductor"}


def test_mlp_and_cnn_through_inductor():
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8))
    cnn = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), torch.nn.ReLU(),
                              torch.nn.AdaptiveAvgPool2d(2), torch.nn.Flatten(), torch.nn.Linear(32, 4))
    for model, x in ((mlp, torch.randn(4, 16)), (cnn, torch.randn(2, 3, 8, 8))):
        backend = AscendBackend()
        check_model(model, (x,), lambda y: y.square().sum(), backend)
        # no attention, no cache write: the whole graph is inductor's, forward and training
        reports = [p for r in backend.reports for p in r["partitions"]]
        assert reports and all(p["kind"] == "inductor" for p in reports)


BIG = [0, 5, 2 ** 24 + 1, 2 ** 31 - 1, 2 ** 40 + 3, -7, 123456789, 2 ** 53 + 1, 2 ** 63 - 1]


def test_integer_arithmetic_is_exact():
    x = torch.tensor([BIG], dtype=torch.int64)

    class AddOne(torch.nn.Module):
        def forward(self, x):
            return x + 1

    # through torch.compile (a graph with nothing to fuse: inductor's) and through compile_module
    # (every op converted: mla.add of i64, exact and wrapping as torch's)
    assert torch.equal(torch.compile(AddOne(), backend=AscendBackend())(x), x + 1)
    program = compile_module(AddOne(), (x,))
    got = torch.as_tensor(program(x))
    assert torch.equal(got, x + 1)
    assert got[0, 4].item() == 2 ** 40 + 4

    class Positions(torch.nn.Module):         # int32 y promoted to int64 (arith.extsi), then exact
        def forward(self, x, y):
            return (x - 3 * y) * 2 + y

    y = torch.tensor([[3, -2, 7, 0, 1, 2 ** 31 - 1, -2 ** 31, 5, 9]], dtype=torch.int32)
    assert torch.equal(torch.as_tensor(compile_module(Positions(), (x, y))(x, y)), Positions()(x, y))


def test_complex_inputs_run():
    a = torch.randn(4, 8, dtype=torch.complex64, generator=torch.Generator().manual_seed(0))
    b = torch.randn(4, 8, dtype=torch.complex64, generator=torch.Generator().manual_seed(1))

    def rotate(x, freqs):
        return torch.view_as_real(x * freqs).flatten(-2) * 2.0

    compiled = torch.compile(rotate, backend=AscendBackend())
    assert close(compiled(a, b), rotate(a, b))
