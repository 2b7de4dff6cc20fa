"""The PyTorch frontend: a `torch.nn.Module` -> a compiled mla program (docs/api.md 8).

    import ascend_mla.frontend.torch as frontend
    program = frontend.compile_module(module, example_inputs)    # torch.export, import, compile
    out = program(*inputs)                                       # as module(*inputs); caches in place
    program.report(), program.stages["input"]                    # as ascend_mla.compile's Program

Three steps:

1. capture: `torch.export.export(module, example_inputs)`, then `run_decompositions({})`: the
   graph is functionalized (an in-place `cache.index_copy_` becomes a functional index_copy
   plus a recorded input mutation) and no op is decomposed, so `linear`, `einsum`, `rms_norm`
   and the module's own arithmetic stay as the module wrote them (the default core-ATen table
   would turn each linear into a permute/mm/view chain: 140 nodes instead of 104 for one layer).
2. import: a walk over the FX graph. Parameters and constant buffers become `ml_program`
   extern globals named by their state-dict names (the Hugging Face names); the user's tensor
   inputs and the buffers the module mutates become function arguments (`mla.name` = the
   placeholder name, or the buffer's name; a buffer's is also marked `mla.buffer`: the module's
   own state, not the caller's input, which absorb-kv may replace by a latent cache); each `call_function` node goes through its
   converter (frontend/aten.py), with the module's source line as its location. The function
   returns the user outputs, then the new value of every mutated input or buffer.
3. compile: `ascend_mla.compile(text, weights=...)` with the default pipeline, whose first
   passes (raise-rms-norm, raise-rope) make mla.rms_norm and mla.rope of the written-out forms
   before fuse-prolog and fuse-attention run: imported and hand-written IR meet the same passes.

Why a direct FX walk and not torch-mlir's importer (measured here with torch-mlir 20261001 and
torch 2.13 on the reference module, DeepSeek-V3 tp=16): `torch_mlir.fx.export_and_import` to the
"torch" dialect fails on the reference module (its torch-backend pipeline rejects
`torch.aten.index_copy_` on a view of an input, and non-persistent buffers are rejected by
`import_frozen_program`); the "raw" output imports in 4.4 s to 104 MB of text because every
parameter is inlined as a `dense_resource` literal, scalars and lists are separate
`torch.constant.*` / `torch.prim.ListConstruct` ops (105 `torch.constant.int` for one layer), and
the `!torch.vtensor` types are opaque in our MLIR context (torch-mlir carries its own MLIR
bindings; the text must be printed and re-parsed as unregistered ops). Each converter would
then have to chase constant ops and parse type strings to learn what an FX node states
directly (`node.args`, `node.meta["val"]`), and weights would have to be recovered from blobs
instead of being named by `graph_signature`. The FX graph is the same ATen graph torch-mlir
starts from, so the walk loses nothing and adds no 80 MB dependency.
"""
from __future__ import annotations

import operator
import os
import re
from dataclasses import dataclass, field

import torch

from ..compiler import CompileError, Program, compile as compile_ir
from ..dialect.types import TensorInfo
from ..models.graph import GraphWriter, Value
from . import torch_ops  # noqa: F401   (the custom ops the converters know)
from .aten import CONVERTERS

DTYPES = {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32", torch.float64: "f64",
          torch.int64: "i64", torch.int32: "i32", torch.int8: "i8", torch.uint8: "ui8", torch.bool: "i1"}
COMPLEX = {torch.complex64: "f32"}          # carried as (..., 2) real tensors


class UnsupportedOperatorError(CompileError):
    """The module uses an op (or a form of one) that has no conversion to the mla dialect. The
    message names the op and the module's source line."""


@dataclass
class Imported:
    """A module imported into the mla dialect: IR text, weights, and how to call it."""
    text: str
    weights: dict
    inputs: list                 # the function's arguments: ("user", index) or ("buffer", name)
    outputs: list                # its results: ("user", index), ("mutation", input or buffer spec)
    source_name: str = "<module>"
    ops: int = 0                 # ATen nodes converted
    spec: object = field(default=None, repr=False)      # the export's call spec (pytree in/out)
    user_inputs: list = field(default_factory=list)      # the flattened user inputs' names


# --- source lines ---------------------------------------------------------------------------------

_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)\n\s*(.*)')


_TORCH = os.path.dirname(torch.__file__) + os.sep


def source_line(node):
    """(file, line, code) of the innermost frame of the node's stack trace outside torch itself
    (nn.Linear's forward is torch's; the line that called it is the module's), or None."""
    frames = [f for f in _FRAME.findall(node.meta.get("stack_trace") or "") if not f[0].startswith(_TORCH)]
    if not frames:
        return None
    file, line, _, code = frames[-1]
    return file, int(line), code.strip()


def _where(node) -> str:
    src = source_line(node)
    return f"{src[0]}:{src[1]}: `{src[2]}`" if src else "(no source line recorded)"


# --- the importer ---------------------------------------------------------------------------------

class Importer:
    """Walks a functionalized ExportedProgram and writes its IR (see the module docstring)."""

    def __init__(self, exported=None):
        self.ep = exported
        self.g = GraphWriter("forward")
        self.values: dict = {}            # FX node -> Value, list of Values, or None
        self._views: dict = {}            # Value name -> the Value it is a reshape of
        self._concats: dict = {}          # Value name -> (axis, parts): pieces a slice may take back
        self._splats: dict = {}           # Value name -> the one value of a filled tensor
        self.derived: list = []           # (argument, kind, source argument): inputs the caller computes
        self.memo: dict = {}              # values converters share (one slot mapping per positions)
        self.node = None

    # --- what converters use --------------------------------------------------------------
    def fail(self, what: str):
        raise UnsupportedOperatorError(
            f"{_target_name(self.node.target)} is not supported: {what}, at {_where(self.node)}")

    def value(self, arg):
        if isinstance(arg, torch.fx.Node):
            v = self.values[arg]
            if v is None:
                self.fail(f"the value of {arg.name} is used, but it has none")
            return v
        if isinstance(arg, (list, tuple)):
            return [self.value(a) for a in arg]
        return arg

    def _meta(self, node):
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            self.fail(f"a non-tensor value ({type(val).__name__})")
        return val

    def info(self, node) -> TensorInfo:
        """The node's type in IR (complex as float32 (..., 2))."""
        val = self._meta(node)
        if val.dtype in COMPLEX:
            return TensorInfo(tuple(int(d) for d in val.shape) + (2,), COMPLEX[val.dtype])
        if val.dtype not in DTYPES:
            self.fail(f"a tensor of type {val.dtype}")
        if any(not isinstance(d, int) for d in val.shape):
            self.fail("a tensor of symbolic shape (compile with static shapes)")
        return TensorInfo(tuple(int(d) for d in val.shape), DTYPES[val.dtype])

    def is_complex(self, node) -> bool:
        return isinstance(node, torch.fx.Node) and self._meta(node).dtype in COMPLEX

    def torch_dtype(self, node):
        return self._meta(node).dtype

    def shape(self, node) -> tuple:
        return self.info(node).shape

    def rank(self, node) -> int:
        return len(self._meta(node).shape)

    def reshape(self, v: Value, shape, name="view") -> Value:
        """v viewed with `shape`; a reshape back to an earlier shape of the same chain is that
        value itself (view(view(c, -1, 512), c.shape) is c)."""
        shape = tuple(shape)
        for earlier in self.view_chain(v):
            if earlier.shape == shape:
                return earlier
        r = self.g.reshape(v, shape, name)
        self._views[r.name] = v
        return r

    def view_chain(self, v: Value) -> list:
        chain = [v]
        while chain[-1].name in self._views:
            chain.append(self._views[chain[-1].name])
        return chain

    def splat(self, value: float, t: TensorInfo, name) -> Value:
        v = self.g.constant(value, t, name)
        self._splats[v.name] = value
        return v

    def slice(self, v: Value, dim: int, start: int, end: int, name) -> Value:
        """v[start:end] along dim: a piece of an earlier concatenation is that piece itself, a
        slice of a filled tensor a smaller filled tensor (values, not copies: no data moves)."""
        shape = list(v.shape)
        if (start, end) == (0, shape[dim]):
            return v
        if v.name in self._concats and self._concats[v.name][0] == dim:
            offset = 0
            for part in self._concats[v.name][1]:
                if (offset, offset + part.shape[dim]) == (start, end):
                    return part
                offset += part.shape[dim]
        shape[dim] = end - start
        if v.name in self._splats:
            return self.splat(self._splats[v.name], TensorInfo(tuple(shape), v.dtype), name)
        offsets = [0] * len(shape)
        offsets[dim] = start
        return self.g.extract_slice(v, offsets, shape, name)

    def concat(self, values, dim: int, name) -> Value:
        r = self.g.concat(values, dim, name)
        self._concats[r.name] = (dim, list(values))
        return r

    def broadcast(self, v: Value, shape, name) -> Value:
        """v broadcast to `shape` (NumPy rules): leading axes by a reshape, size-1 axes by copies."""
        shape = tuple(shape)
        if len(v.shape) < len(shape):
            v = self.reshape(v, (1,) * (len(shape) - len(v.shape)) + v.shape, name + "_rank")
        for axis, (a, b) in enumerate(zip(v.shape, shape)):
            if a != b:
                if a != 1:
                    self.fail(f"a value of shape {v.shape} broadcast to {shape}")
                v = self.g.concat([v] * b, axis, f"{name}_{axis}")
        return v

    def mask_lengths(self, mask, batch: int) -> Value:
        """The per-batch kv lengths of a boolean attention mask that is an input of the graph:
        a new argument the caller computes from the mask at each call (see `mask_lengths` below,
        which also checks that the mask is the causal mask of those lengths)."""
        source = self.values.get(mask)
        arg = next((a for a in self.g.args if source is not None and a[0].name == source.name), None)
        if arg is None:
            self.fail("an attention mask computed in the graph (a mask given as an input is converted)")
        for value, kind, of in self.derived:
            if of == (arg[1], batch):
                return value
        lengths = self.g.arg(f"{arg[1]}.lengths", TensorInfo((batch,), "i32"))
        self.derived.append((lengths, "mask_lengths", (arg[1], batch)))
        return lengths

    def permute(self, v: Value, permutation, name) -> Value:
        from ..dialect.primitive import Transpose
        if list(permutation) == list(range(len(permutation))):
            return v
        return self.g.op(Transpose, x=v, permutation=list(permutation), name=name)

    # --- the walk -------------------------------------------------------------------------
    def convert(self, node):
        """The value of one call_function node, through its converter; the ops it writes carry
        the node's source line as their location."""
        self.node = node
        converter = CONVERTERS.get(node.target)
        if converter is None:
            raise UnsupportedOperatorError(
                f"{_target_name(node.target)} has no conversion to the mla dialect, at {_where(node)} "
                f"(the converters: frontend/aten.py)")
        src = source_line(node)
        self.g.location = f'loc("{src[0]}":{src[1]}:0)' if src else None
        return converter(self, node)

    def run(self) -> Imported:
        from torch.export.graph_signature import InputKind, OutputKind, TensorArgument
        sig = self.ep.graph_signature
        placeholders = {n.name: n for n in self.ep.graph.nodes if n.op == "placeholder"}
        mutated_buffers = set(sig.buffers_to_mutate.values())
        inputs, weights = [], {}
        for index, spec in enumerate(sig.input_specs):
            if not isinstance(spec.arg, TensorArgument):
                continue                                  # a constant argument, specialised by export
            node = placeholders[spec.arg.name]
            self.node = node
            t = self.info(node)
            if spec.kind == InputKind.USER_INPUT:
                self.values[node] = self.g.arg(node.name, t)
                inputs.append(("user", spec.arg.name))
            elif spec.kind == InputKind.BUFFER and spec.target in mutated_buffers:
                self.values[node] = self.g.arg(spec.target, t, "mla.buffer")     # program-owned state
                inputs.append(("buffer", spec.target))
            elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
                tensor = self.ep.state_dict[spec.target] if spec.target in self.ep.state_dict \
                    else self.ep.constants[spec.target]
                tensor = tensor.detach()
                if tensor.dtype in COMPLEX:
                    tensor = torch.view_as_real(tensor)
                weights[spec.target] = tensor.contiguous()
                self.values[node] = self.g.weight(spec.target, t)
            else:
                raise UnsupportedOperatorError(f"input {spec.arg.name}: inputs of kind {spec.kind.name} "
                                               "are not supported")
        count = 0
        for node in self.ep.graph.nodes:
            if node.op != "call_function":
                continue
            self.values[node] = self.convert(node)
            count += node.target is not operator.getitem
        self.g.location = None
        output = next(n for n in self.ep.graph.nodes if n.op == "output")
        results, outputs = [], []
        for index, (spec, arg) in enumerate(zip(sig.output_specs, output.args[0])):
            if spec.kind == OutputKind.USER_OUTPUT and not isinstance(arg, torch.fx.Node):
                outputs.append(("constant", arg))             # a None or a number the module returns
                continue
            if not isinstance(arg, torch.fx.Node) or self.values.get(arg) is None:
                raise UnsupportedOperatorError(f"output {index}: the module returns {arg!r}, not a tensor "
                                               "(a compiled module returns tensors)")
            if spec.kind == OutputKind.USER_OUTPUT:
                outputs.append(("user", None))
            elif spec.kind in (OutputKind.USER_INPUT_MUTATION, OutputKind.BUFFER_MUTATION):
                kind = "user" if spec.kind == OutputKind.USER_INPUT_MUTATION else "buffer"
                name = next(n for n, s in zip(_input_names(sig), sig.input_specs)
                            if s.kind == (InputKind.USER_INPUT if kind == "user" else InputKind.BUFFER)
                            and (s.arg.name == spec.target if kind == "user" else s.target == spec.target))
                outputs.append(("mutation", (kind, name)))
            else:
                raise UnsupportedOperatorError(f"output {spec.arg}: outputs of kind {spec.kind.name} are not supported")
            results.append(self.value(arg))
        self.g.ret(*results)
        self.g.drop_unused()
        inputs += [(kind, of) for _, kind, of in self.derived]
        return Imported(self.g.text(), weights, inputs, outputs, _source_name(self.ep), count)


def _input_names(sig):
    return [s.arg.name if s.kind.name == "USER_INPUT" else s.target for s in sig.input_specs]


def _target_name(target) -> str:
    if isinstance(target, torch._ops.OpOverload):
        return f"{target.namespace}.{target._opname}" + ("" if target._overloadname == "default"
                                                           else f".{target._overloadname}")
    return getattr(target, "__name__", str(target))


def _source_name(ep) -> str:
    for node in ep.graph.nodes:
        src = source_line(node) if node.op == "call_function" else None
        if src:
            return src[0]
    return "<module>"


# --- attention masks ------------------------------------------------------------------------------

MASK_RULE = "TORCH-001"      # the mask is not causal over per-batch lengths: the fused attention would differ


def mask_lengths(mask: torch.Tensor, batch: int | None = None):
    """The kv lengths (B,) int32 of a boolean SDPA mask (B or 1, 1, S, L) (True: attend) when it
    is the causal mask of those lengths -- row s of batch b sees exactly keys [0, length[b] - S + s]
    -- which is what mla.paged_attention computes; else None (left padding, a sliding window,
    a mask that hides a cached key). Cheap next to the attention: B * S * L comparisons."""
    if mask.dtype != torch.bool or mask.dim() != 4:
        return None
    s_len, length = mask.shape[2], mask.shape[3]
    lengths = mask[:, 0, -1, :].sum(dim=-1)                                   # keys of the last row
    expected = torch.arange(length, device=mask.device)[None, None, :] < \
        (lengths[:, None, None] - s_len + 1 + torch.arange(s_len, device=mask.device)[None, :, None])
    if not torch.equal(expected, mask[:, 0]) or bool((lengths < s_len).any()):
        return None
    if batch is not None and lengths.shape[0] != batch:
        lengths = lengths.expand(batch)
    return lengths.to(torch.int32).contiguous()


# --- the public functions -------------------------------------------------------------------------

def capture(module: torch.nn.Module, example_inputs, *, dynamic=None):
    """torch.export + functionalization, no decomposition (see the module docstring)."""
    if dynamic:
        raise ValueError("dynamic: dynamic shapes are not supported (the fused ops' rules are checked on "
                         "static shapes): compile one program per shape, or pass dynamic=None")
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"module: expected a torch.nn.Module, got {type(module).__name__}")
    example_inputs = tuple(example_inputs) if isinstance(example_inputs, (list, tuple)) else (example_inputs,)
    # A bound cache is traced by Dynamo (strict): it sees the cache object's tensors as the
    # wrapper's buffers, where the non-strict tracer would lift them as constants.
    exported = torch.export.export(module, example_inputs, strict=isinstance(module, WithCache))
    return exported.run_decompositions({})


def import_module(module: torch.nn.Module, example_inputs, *, dynamic=None) -> Imported:
    """The module as primitive-level mla IR text and its weights (what compile_module compiles)."""
    exported = capture(module, example_inputs, dynamic=dynamic)
    imported = Importer(exported).run()
    imported.spec = exported.call_spec
    imported.user_inputs = [s.arg.name for s in exported.graph_signature.input_specs if s.kind.name == "USER_INPUT"]
    return imported


class TorchProgram(Program):
    """A compiled module: an ascend_mla.Program (stages, report(), ir, weights) called as the
    module is: the same arguments (nested lists too), the module's outputs; inputs and buffers
    the module mutates are updated in place."""

    def __init__(self, program: Program, imported: Imported, module: torch.nn.Module):
        self.__dict__.update(program.__dict__)
        self.imported = imported
        self._buffers = {name: module.get_buffer(name) for kind, name in imported.inputs if kind == "buffer"}
        self._cache = getattr(module, "bound_cache", None)
        # a buffer absorb-kv replaced by a latent cache (zeros) must hold nothing yet: the
        # program cannot rebuild the latent rows of what the module cached before compiling
        for record in program.report()["rewritten"]:
            for name in record.get("replaces", ()):
                if bool(self._buffers[name].any()):
                    raise CompileError(
                        f"{name}: holds values (module steps run before compiling); absorb-kv replaced it "
                        f"by a latent cache the program owns, which starts at zeros, so the program would "
                        f"not see them: reset the module's caches before compiling [ABSORB-003]")

    cache_position = None

    def __call__(self, *args, **kwargs):
        if self.cache_position is not None:        # the bound cache: its tensors are the program's buffers
            if len(args) <= self.cache_position or args[self.cache_position] is not self._cache:
                raise TypeError(f"inputs: argument {self.cache_position} must be the cache the module was "
                                "compiled with (its tensors are written in place)")
            args = args[:self.cache_position] + args[self.cache_position + 1:]
        flat, spec = torch.utils._pytree.tree_flatten((args, kwargs))
        if spec != self.imported.spec.in_spec:
            raise TypeError(f"inputs: expected the structure the module was compiled with "
                            f"({self.imported.spec.in_spec}), got {spec}")
        by_name = dict(zip(self.imported.user_inputs, flat))
        given = []
        for kind, name in self.imported.inputs:
            if kind == "mask_lengths":
                name, batch = name
                lengths = mask_lengths(by_name[name], batch)
                if lengths is None:
                    raise CompileError(f"{name}: the attention mask is not the causal mask of per-batch kv "
                                       f"lengths (row s of batch b sees keys [0, length[b] - S + s]), which the "
                                       f"compiled attention computes; run the module eagerly for this call "
                                       f"[{MASK_RULE}]")
                given.append(lengths)
            else:
                given.append(by_name[name] if kind == "user" else self._buffers[name])
        results = iter(Program.run(self, *given))
        user = []
        for kind, what in self.imported.outputs:
            if kind == "constant":
                user.append(what)
                continue
            value = next(results)
            if kind == "user":
                user.append(value)
                continue
            where, name = what
            target = by_name[name] if where == "user" else self._buffers[name]
            if value is not target:                     # not written in place: copy it back
                target.copy_(value.reshape(target.shape))
        return torch.utils._pytree.tree_unflatten(user, self.imported.spec.out_spec)

    run = __call__

    def __repr__(self):
        return f"<TorchProgram: {self.imported.ops} ATen ops, {len(self.report()['fused'])} fused>"


def compile_module(module: torch.nn.Module, example_inputs, *, dynamic=None, **compile_kwargs) -> TorchProgram:
    """Capture `module` with torch.export, import it into the mla dialect and compile it with
    ascend_mla.compile (keywords: pipeline, target). Returns a Program called like the module.
    A transformers Cache among the inputs (a StaticCache) is bound: its tensors become the
    program's caches, written in place (see WithCache); later calls pass the same cache."""
    example_inputs = tuple(example_inputs) if isinstance(example_inputs, (list, tuple)) else (example_inputs,)
    position = next((i for i, x in enumerate(example_inputs) if _is_cache(x)), None)
    if position is not None:
        module = WithCache(module, example_inputs[position], position)
        example_inputs = example_inputs[:position] + example_inputs[position + 1:]
    imported = import_module(module, example_inputs, dynamic=dynamic)
    if all(kind == "constant" for kind, _ in imported.outputs):
        raise CompileError(f"{type(module).__name__}.forward returns no tensor (None, a Python constant or "
                           f"nothing) and mutates no input: there is nothing to compile")
    compile_kwargs.setdefault("source_name", imported.source_name)
    program = TorchProgram(compile_ir(imported.text, weights=imported.weights, **compile_kwargs), imported, module)
    program.cache_position = position
    return program


def _is_cache(x) -> bool:
    return any(c.__name__ == "Cache" and c.__module__.startswith("transformers") for c in type(x).__mro__)


class WithCache(torch.nn.Module):
    """`module` called with a transformers cache at argument `position`, the cache's tensors
    registered as buffers of this wrapper (cache.layers.{i}.keys / .values / .cumulative_length:
    the same tensor objects the cache holds), so that torch.export sees its in-place writes
    as buffer mutations and the compiled program writes the cache's own tensors."""

    def __init__(self, module: torch.nn.Module, cache, position: int):
        super().__init__()
        layers = getattr(cache, "layers", None)
        if not layers or not any(getattr(layer, "is_initialized", False) for layer in layers):
            raise ValueError("cache: expected a transformers cache whose layers hold their tensors (a StaticCache "
                             "after one eager step, or after lazy_initialization); it allocates them on first use")
        if any(type(layer).__name__ != "StaticLayer" for layer in layers):
            raise ValueError(f"cache: expected a StaticCache (fixed-size tensors written in place), got layers "
                             f"{sorted({type(layer).__name__ for layer in layers})} (a DynamicCache grows by "
                             f"torch.cat: a new shape each step; use torch.compile(backend=\"ascend_mla\") for it)")
        self.inner = module
        self.position = position
        object.__setattr__(self, "bound_cache", cache)           # not a submodule
        holders = torch.nn.ModuleList()
        for layer in layers:              # a layer the module does not use holds nothing yet
            holder = torch.nn.Module()
            if layer.is_initialized:
                for name in ("keys", "values", "cumulative_length"):
                    holder.register_buffer(name, getattr(layer, name))
            holders.append(holder)
        self.cache = torch.nn.Module()
        self.cache.layers = holders

    def forward(self, *args, **kwargs):
        args = args[:self.position] + (self.bound_cache,) + args[self.position:]
        return self.inner(*args, **kwargs)


# --- the end-to-end example (what `ascend-mla run --from-torch` is to call) -----------------------

INPUT_NAMES = ("hidden_states", "positions", "slot_mapping", "block_table", "seq_lengths")


def torch_inputs(model, step: int, caches: list) -> tuple:
    """TorchMLA's arguments for decode step `step` of a built model (deepseek.Model.inputs),
    with `caches` ([kv_cache.0, kr_cache.0, ...] torch tensors) as the caches."""
    from ..runtime.interop import numpy_to_torch
    inputs = model.inputs(step, caches={})
    return tuple(numpy_to_torch(inputs[k]) for k in INPUT_NAMES) + (caches,)


def deepseek_example(name: str = "deepseek-v3", *, tp: int = 16, layers: int = 1, batch: int = 2,
                     seq: int = 1, steps: int = 3, block_size: int = 16, rope: str = "interleave",
                     form: str = "absorbed", seed: int = 0, pipeline: str = "default", target: str = "auto",
                     quant: str = "bf16") -> dict:
    """The PyTorch path end to end: the reference module TorchMLA (form "absorbed", bf16 or
    w8a8) or TorchMLANaive (form "naive", bf16: Hugging Face's naive attention over a static K/V
    cache, which absorb-kv rewrites) with a built model's (random) weights, compiled by
    compile_module, run for `steps` decode steps of `seq` tokens next to the eager module, each
    with its own caches. Returns {"program", "module" (the compiled one), "report", "steps":
    [{"max_error", "cache_max_error", "eager_seconds", "compiled_seconds"}], "compile_seconds",
    "scale"} where max_error is max|compiled - eager| of the block's output, scale max|eager -
    input| (the attention's contribution, what the error is relative to) and cache_max_error
    that of the caches (None for the naive form: its program keeps latent caches instead of the
    module's K/V cache)."""
    import time
    from ..models import deepseek
    if form not in ("absorbed", "naive"):
        raise ValueError(f"form: expected \"absorbed\" or \"naive\", got {form!r}")
    if form == "naive" and quant != "bf16":
        raise ValueError(f"quant: the naive form is bf16, got {quant!r}")
    model = deepseek.build(name, tp=tp, layers=layers, batch=batch, seq=seq, block_size=block_size, seed=seed,
                           quant=quant)
    if form == "naive":
        module = deepseek.TorchMLANaive(model.config).load_weights(model.weights)
        eager_module = deepseek.TorchMLANaive(model.config).load_weights(model.weights)
        eager_caches, compiled_caches = None, None

        def inputs(step, caches):
            return module.inputs(model, step)
    else:
        module = eager_module = deepseek.TorchMLA(model.config, rope=rope).load_weights(model.weights)
        eager_caches = [torch.zeros_like(t) for t in cache_tensors(model)]
        compiled_caches = [t.clone() for t in eager_caches]

        def inputs(step, caches):
            return torch_inputs(model, step, caches)
    start = time.perf_counter()
    example = inputs(0, None if compiled_caches is None else [t.clone() for t in compiled_caches])
    program = compile_module(module, example, pipeline=pipeline, target=target)
    result = {"program": program, "module": module, "report": program.report(),
              "compile_seconds": time.perf_counter() - start, "steps": [], "scale": 0.0}
    for step in range(steps):
        start = time.perf_counter()
        with torch.no_grad():
            expected = eager_module(*inputs(step, eager_caches))
        eager = time.perf_counter() - start
        start = time.perf_counter()
        got = program(*inputs(step, compiled_caches))
        compiled = time.perf_counter() - start
        hidden = inputs(step, [])[0].float()
        result["scale"] = max(result["scale"], (expected.float() - hidden).abs().max().item())
        result["steps"].append({
            "max_error": (got.float() - expected.float()).abs().max().item(),
            "cache_max_error": None if eager_caches is None else max(
                (a.float() - b.float()).abs().max().item() for a, b in zip(eager_caches, compiled_caches)),
            "eager_seconds": eager, "compiled_seconds": compiled})
    return result


def cache_tensors(model) -> list:
    """Zeroed caches of a built model as torch tensors, in TorchMLA's order."""
    from ..runtime.interop import numpy_to_torch
    return [numpy_to_torch(a) for a in model.new_caches().values()]


# --- torch.compile ------------------------------------------------------------------------------------

from .dynamo import AscendBackend, GraphReport  # noqa: E402  (the backend builds on the importer above)

DEFAULT_BACKEND = None


def ascend_mla_backend(gm, example_inputs):
    """torch.compile(backend="ascend_mla") (the `torch_dynamo_backends` entry point): one
    AscendBackend shared by every such call; its reports are `default_backend().reports`."""
    return default_backend()(gm, example_inputs)


def default_backend() -> AscendBackend:
    global DEFAULT_BACKEND
    if DEFAULT_BACKEND is None:
        DEFAULT_BACKEND = AscendBackend()
    return DEFAULT_BACKEND
