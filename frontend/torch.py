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
2. import (frontend/importer.py): a walk over the FX graph. Parameters and constant buffers become `ml_program`
   extern globals named by their state-dict names (the Hugging Face names); the user's tensor
   inputs and the buffers the module mutates become function arguments (`mla.name` = the
   placeholder name, or the buffer's name; a buffer's is also marked `mla.buffer`: the module's
   own state, not the caller's input, which absorb-kv may replace by a latent cache); each `call_function` node goes through its
   converter (frontend/aten.py), with the module's source line as its location. The function
   returns the user outputs, then the new value of every mutated input or buffer.
3. compile: `ascend_mla.compile(text, weights=...)` with the default pipeline, whose first
   passes (raise-rms-norm, raise-rope) make mla.rms_norm and mla.rope of the written-out forms
   before fuse-prolog and fuse-attention run: imported and hand-written IR meet the same passes.

The import step and why it is a direct FX walk: frontend/importer.py.
"""
from __future__ import annotations

import torch

from ..compiler import CompileError, Program
from ..compiler import compile as compile_ir
from .dynamo import AscendBackend, GraphReport  # noqa: F401  (API: the torch.compile backend)
from .importer import (  # noqa: F401
    COMPLEX,
    DTYPES,
    MASK_RULE,
    Imported,
    Importer,
    UnsupportedOperatorError,
    mask_lengths,
    source_line,
    target_name,
)

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
    program = TorchProgram(compile_ir(imported.graph, weights=imported.weights, **compile_kwargs), imported, module)
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


# --- torch.compile ------------------------------------------------------------------------------------


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
