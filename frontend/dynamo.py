"""`torch.compile(backend="ascend_mla")`: the mla compiler as a TorchDynamo backend (docs/api.md 10).

    from ascend_mla.frontend.torch import AscendBackend
    backend = AscendBackend()
    model.forward = torch.compile(model.forward, backend=backend)    # the default arguments
    backend.reports          # one report per graph (per shape of a dynamic graph) compiled

Dynamo calls the backend with each FX graph it captures (torch-level ops; parameters are
inputs: Dynamo inlines nn.Modules) and its example inputs. What the backend does with a graph:

- **autograd**: grad mode on and an input that requires grad (training, or inference without
  `torch.no_grad()` over parameters that require grad): the graph runs as PyTorch -- through
  inductor on the CPU, whose AOTAutograd gives the backward -- so gradients are eager's
  [TORCH-002]. The mla programs are inference programs.
- **a cache grown by torch.cat** (transformers' DynamicCache): a new shape at every step, which
  no fixed-size fused op reads; refused once, with a warning [TORCH-003], and the graph runs as
  PyTorch (through inductor when Dynamo made its sizes symbolic; eagerly when every step is a
  new static graph, dynamic=False, so that no step pays a compilation).
- **no attention and no cache write** (an MLP, a CNN, ...): nothing the fused ops take; the
  graph runs as PyTorch, through inductor on the CPU: exactly `torch.compile(backend="inductor")`.
- otherwise the graph is **specialized**: at compile time when its shapes are static, else at
  its first call with each new set of sizes (Dynamo's symbolic sizes become the call's
  concrete ones; the programs are cached per sizes). A specialization:
  1. capture: `torch.export.export(graph, inputs, strict=False).run_decompositions({})`:
     functionalized ATen (an in-place `index_copy_` into a cache is a functional op plus an
     input mutation), nothing decomposed; eager attention rewritten to SDPA
     (frontend/canonicalize.py).
  2. support: a trial import of every node (frontend/aten.py's converters); a node whose
     converter is missing or refuses its form is unsupported, with the converter's message.
  3. partition: torch.fx's CapabilityBasedPartitioner groups the supported nodes into regions;
     a region with an attention or a cache write is compiled into an mla program with the
     default pipeline (inputs that are nn.Parameters become weights named by their module
     path) and kept when a fused Ascend op came out of it. Everything else -- unsupported ops,
     regions without a fused op, a region whose compilation fails -- runs as PyTorch, each
     run of it compiled by inductor on the CPU (kept eager for the NPU target).
  4. run: the partitioned graph, then the input mutations (copies into the caches, unless a
     program already wrote the cache in place).

Parameters are live: a program reads its weights' current values. Its folded and packed forms
of them (transposes, NZ, float32 copies) are made at compile time, so each call compares each
weight with the tensor it was built from (identity, `_version`, data pointer: what
`optimizer.step()`, `load_state_dict` and `p.data = ...` change) and rebuilds the program when
one changed (`backend.rebuilds` counts them). `AscendBackend(freeze=True)` skips the check: the
program keeps the values it was compiled with.

A graph with attention whose attention runs unfused says so once through `warnings`
(FusionWarning) and the `ascend_mla` logger (TORCH_LOGS="+ascend_mla"), naming the rule.
A region whose attention reads a mask takes the kv lengths from it at each call, checked to be
the causal mask of those lengths (frontend/importer.py `mask_lengths`); a call whose mask is not
(left padding) runs the region's PyTorch graph instead, and `backend.fallbacks` counts it.
"""
from __future__ import annotations

import logging
import operator
import re
import time
import warnings

import torch

from ..compiler import CompileError, Report
from ..compiler import compile as compile_ir
from .canonicalize import eager_attention_to_sdpa
from .importer import COMPLEX, Importer, UnsupportedOperatorError, mask_lengths, source_line, target_name

LOG = logging.getLogger(__name__)

ASSERTIONS = (torch.ops.aten._assert_tensor_metadata.default, torch.ops.aten._assert_scalar.default)
MIN_OPS = 4           # a region with fewer converted ops is not worth a program call
MAX_SHAPES = 8        # sizes of one dynamic graph specialized before it runs generically
FUSED_ATTENTION = "mla.fused_infer_attention_score"
AUTOGRAD_RULE = "TORCH-002"      # gradients needed: PyTorch (AOTAutograd) runs the graph
GROWING_RULE = "TORCH-003"       # a cache grown by torch.cat: a new shape every step
SHAPES_RULE = "TORCH-004"        # more sizes than MAX_SHAPES: a graph that would compile per call
UNFUSED_RULE = "TORCH-005"       # an attention left unfused for a reason no other rule names

# what the fused ops are made of, at the ATen level (after canonicalization)
ATTENTION_OPS = {torch.ops.aten.scaled_dot_product_attention.default,
                 torch.ops.ascend_mla.paged_attention.default, torch.ops.ascend_mla.attention.default}
CACHE_WRITES = {torch.ops.aten.index_copy.default, torch.ops.aten.index_put.default}
# and at Dynamo's torch level (a cheap screen before any capture)
_SCREEN = re.compile(r"scaled_dot_product_attention|softmax|index_copy|index_put|ascend_mla|paged_attention")


class FusionWarning(UserWarning):
    """A graph with attention runs it unfused; the message names the rule."""


class GraphReport(Report):
    """Program.report() of the graph's programs merged, plus "graph" (its name, with the sizes of
    a specialization of a dynamic graph), "partitions" ([{"name", "kind": "mla" | "inductor" |
    "pytorch", "ops", "reason"}]: what runs where and, for a PyTorch partition, the first op
    that kept it out and why) and "compile_seconds"."""

    def __str__(self):
        lines = [f"graph {self['graph']}: {len(self['partitions'])} partitions "
                 f"({sum(p['kind'] == 'mla' for p in self['partitions'])} mla), "
                 f"compiled in {self['compile_seconds']:.1f} s"]
        for p in self["partitions"]:
            lines.append(f"  {p['name']} [{p['kind']}, {p['ops']} ops]" + (f": {p['reason']}" if p["reason"] else ""))
        return "\n".join(lines + [Report.__str__(self)])


def readable_name(node) -> str:
    """A placeholder's module path from Dynamo's source: L['self']._modules['model']._modules['layers']
    ._modules['0']._parameters['weight'] -> model.layers.0.weight; L['kwargs']['cache'].layers[0].keys
    -> cache.layers.0.keys."""
    arg = node.meta.get("grapharg")
    source = getattr(arg, "source", None)
    if source is None:
        return node.name
    text = source.name if isinstance(getattr(source, "name", None), str) else source.name()
    parts = re.findall(r"\['([^']+)'\]|\[(\d+)\]|\.([A-Za-z_][A-Za-z0-9_]*)", text)
    names = [a or b or c for a, b, c in parts]
    skip = {"self", "kwargs", "args", "_modules", "_parameters", "_buffers"}
    return ".".join(n for n in names if n not in skip) or node.name


# --- the torch-level screens --------------------------------------------------------------------------

def _op_name(node) -> str:
    if node.op == "call_method":
        return node.target
    if node.op == "call_function":
        return target_name(node.target) if not isinstance(node.target, str) else node.target
    return ""


def _candidates(gm) -> bool:
    """Whether the graph has an op the fused ops are made of (attention, a cache write)."""
    return any(_SCREEN.search(_op_name(n)) for n in gm.graph.nodes)


def _growing_caches(gm) -> list:
    """The torch.cat nodes that grow a cache: a graph input concatenated with new values and
    returned (stored back: transformers' DynamicCache `self.keys = torch.cat([self.keys, k])`)."""
    output = next(n for n in gm.graph.nodes if n.op == "output")
    returned = set()
    torch.fx.node.map_arg(output.args, returned.add)
    found = []
    for node in gm.graph.nodes:
        if node.op == "call_function" and node.target is torch.cat and node in returned:
            parts = node.args[0] if node.args else node.kwargs.get("tensors", ())
            if any(isinstance(p, torch.fx.Node) and p.op == "placeholder" for p in parts):
                found.append(node)
    return found


def _symbolic_positions(gm):
    """Positions of the inputs that carry Dynamo's symbolic sizes: SymInt inputs the graph reads
    and tensors with a symbolic size (their sizes at a call are what a specialization is for).
    A SymInt nothing reads -- the storage offset of an input view, `tokens[:, i:i + 1]`, that
    Dynamo's guards made symbolic -- does not make another specialization."""
    ints, tensors = [], []
    for i, node in enumerate(n for n in gm.graph.nodes if n.op == "placeholder"):
        val = node.meta.get("example_value")
        if isinstance(val, torch.SymInt):
            if node.users:
                ints.append(i)
        elif isinstance(val, torch.Tensor) and any(not isinstance(d, int) for d in val.shape):
            tensors.append(i)
    return ints, tensors


def _scalar_inputs(gm) -> list:
    """Positions of the Python numbers Dynamo passes as 0-d tensors and reads with `.item()`
    (with dynamic=True it does not specialize floats: an RmsNorm's eps, the attention's scale,
    the RoPE's attention_scaling). A specialization takes their values at the call as constants
    (and is keyed by them): a symbolic eps or scale is no fused op's attribute."""
    found = []
    for i, node in enumerate(n for n in gm.graph.nodes if n.op == "placeholder"):
        arg = node.meta.get("grapharg")
        if getattr(arg, "pass_arg_as_tensor", False) and not getattr(arg, "is_tensor", True) and node.users \
                and all(u.op == "call_method" and u.target == "item" for u in node.users):
            found.append(i)
    return found


def _with_values(gm, args, scalars):
    """A copy of `gm` whose `.item()` of each input in `scalars` is that input's value in `args`."""
    graph = torch.fx.Graph()
    graph.output(graph.graph_copy(gm.graph, {}))
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    for i in scalars:
        for item in list(placeholders[i].users):
            value = args[i].item()
            for user in list(item.users):
                user.args = torch.fx.node.map_arg(user.args, lambda n, item=item, value=value: value if n is item else n)
                user.kwargs = torch.fx.node.map_arg(user.kwargs, lambda n, item=item, value=value: value if n is item else n)
            graph.erase_node(item)
    return torch.fx.GraphModule(gm, graph)


def _hint(x):
    """A SymInt's value at this compilation (Dynamo's hint), anything else as it is."""
    if isinstance(x, torch.SymInt):
        from torch.fx.experimental.symbolic_shapes import guarding_hint_or_throw
        return guarding_hint_or_throw(x)
    return x


def _needs_autograd(example_inputs) -> bool:
    return torch.is_grad_enabled() and any(isinstance(x, torch.Tensor) and x.requires_grad for x in example_inputs)


# --- support ----------------------------------------------------------------------------------------

class TrialImporter(Importer):
    """Converts every node it can; the value of a node it cannot is a fresh argument, so that
    the nodes after it are tried too. `reasons`: node -> why it is not supported."""

    def __init__(self, weights: set):
        super().__init__(context=_trial_context())
        self.weight_nodes = weights
        self.reasons: dict = {}

    def value(self, arg):
        if isinstance(arg, torch.fx.Node) and arg not in self.values:
            raise UnsupportedOperatorError(f"its operand {arg.name} has no value")
        if isinstance(arg, torch.fx.Node) and arg in self.reasons and self.values[arg] is None:
            self.values[arg] = self.g.arg(arg.name, self.info(arg))          # computed by PyTorch
        return super().value(arg)

    def walk(self, graph):
        for node in graph.nodes:
            if node.op == "placeholder":
                self.node = node
                if not isinstance(node.meta.get("val"), torch.Tensor):
                    self.values[node] = None                # a number export specialized
                    continue
                try:
                    t = self.info(node)
                except UnsupportedOperatorError as error:
                    self.values[node], self.reasons[node] = None, str(error)
                    continue
                self.values[node] = self.g.weight(node.name, t) if node in self.weight_nodes else \
                    self.g.arg(node.name, t)
            elif node.op == "call_function":
                try:
                    self.values[node] = self.convert(node)
                except Exception as error:          # noqa: BLE001 -- any failure: PyTorch runs the node
                    self.values[node] = None
                    self.reasons[node] = _reason(node, error)
        return self.reasons


_TRIAL = None


def _trial_context():
    """The MLIR context trial imports build in: one for all (what they write is thrown away;
    a new context would cost its dialects' loading at every graph)."""
    global _TRIAL
    if _TRIAL is None:
        from ..dialect.dialect import make_context
        _TRIAL = make_context()
    return _TRIAL


def _reason(node, error) -> str:
    text = str(error)
    if not isinstance(error, UnsupportedOperatorError):
        text = f"{target_name(node.target)}: {type(error).__name__}: {text}"
    return text.splitlines()[0] if text else target_name(node.target)


# --- one region as an mla program ---------------------------------------------------------------------

class Region:
    """A region of the graph imported into the mla dialect: its IR text, which of its inputs
    are weights (bound at compile time) and what each function argument is."""

    def __init__(self, sub: torch.fx.GraphModule, weight_names: set, names: dict):
        cx = Importer()
        placeholders = [n for n in sub.graph.nodes if n.op == "placeholder"]
        self.weights = []            # (input position, global name)
        self.inputs = []             # per function argument: ("input", i) or ("mask_lengths", (i, B))
        self.complex_inputs = set()
        for i, node in enumerate(placeholders):
            cx.node = node
            t = cx.info(node)
            if cx.is_complex(node):
                self.complex_inputs.add(i)
            if node.name in weight_names:
                outer = names.get(node.name, node.name)
                self.weights.append((i, outer))
                cx.values[node] = cx.g.weight(outer, t)
            else:
                cx.values[node] = cx.g.arg(node.name, t)
                self.inputs.append(("input", i))
        for node in sub.graph.nodes:
            if node.op == "call_function":
                cx.values[node] = cx.convert(node)
        cx.g.location = None
        output = next(n for n in sub.graph.nodes if n.op == "output")
        results = output.args[0]
        self.single = not isinstance(results, (list, tuple))
        results = [results] if self.single else list(results)
        self.complex_outputs = {i for i, r in enumerate(results) if cx.is_complex(r)}
        cx.g.ret(*(cx.value(r) for r in results))
        cx.g.drop_unused()
        index = {n.name: i for i, n in enumerate(placeholders)}
        self.inputs += [(kind, (index[of[0]], of[1])) for _, kind, of in cx.derived]
        self.text = cx.g.text()
        self.source = next((source_line(n)[0] for n in sub.graph.nodes
                            if n.op == "call_function" and source_line(n)), "<graph>")

    def compile(self, args, backend):
        """The program over the weights' values in `args` (the region's inputs)."""
        bound = {}
        for i, name in self.weights:
            tensor = args[i].detach()
            bound[name] = (torch.view_as_real(tensor) if tensor.dtype in COMPLEX else tensor).contiguous()
        return compile_ir(self.text, weights=bound, pipeline=backend.pipeline, target=backend.target,
                          source_name=self.source)


def _identity(tensor) -> tuple:
    return tensor, tensor._version, tensor.data_ptr()


class RegionProgram(torch.nn.Module):
    """A region of the graph compiled to an mla Program, called as the region's submodule is
    (same inputs, same outputs). Its weights are checked at each call against the tensors the
    program was built from (unless frozen); `fallback` is the region's PyTorch graph, run for a
    call the program cannot take (a mask that is not causal over lengths)."""

    def __init__(self, region: Region, program, args, fallback: torch.fx.GraphModule, backend):
        super().__init__()
        self.region = region
        self.program = program
        self.fallback = fallback
        self._backend = backend
        self._built_from = [(i, *_identity(args[i])) for i, _ in region.weights]

    def _current(self, args) -> bool:
        return all(args[i] is t and t._version == v and t.data_ptr() == p for i, t, v, p in self._built_from)

    def forward(self, *args):
        if not self._backend.freeze and not self._current(args):
            start = time.perf_counter()
            self.program = self.region.compile(args, self._backend)
            self._built_from = [(i, *_identity(args[i])) for i, _ in self.region.weights]
            self._backend.rebuilds += 1
            LOG.info("a weight of %s changed: program rebuilt in %.1f s", self.region.source,
                     time.perf_counter() - start)
        given = []
        for kind, what in self.region.inputs:
            if kind == "input":
                x = args[what]
                given.append(torch.view_as_real(x) if what in self.region.complex_inputs else x)
                continue
            index, batch = what
            lengths = mask_lengths(args[index], batch)
            if lengths is None:
                self._backend.fallbacks += 1
                return self.fallback(*args)
            given.append(lengths)
        results = [torch.view_as_complex(r) if i in self.region.complex_outputs else r
                   for i, r in enumerate(self.program(*given))]
        return results[0] if self.region.single else tuple(results)


# --- the backend --------------------------------------------------------------------------------------

class AscendBackend:
    """A torch.compile backend: `torch.compile(fn, backend=AscendBackend())` (or
    backend="ascend_mla"). `reports`: one GraphReport per graph compiled (per sizes of a
    dynamic graph); `programs`: the compiled region programs; `fallbacks`: calls that ran a
    region's PyTorch graph because its attention mask was not causal over per-batch lengths;
    `rebuilds`: programs rebuilt because a weight changed.

    `freeze=True`: programs keep the weights they were compiled with (no check per call; a
    changed parameter is not seen). `inductor`: run the PyTorch partitions through inductor
    (default: when the programs run on the CPU backend; False keeps them eager)."""

    def __init__(self, *, pipeline: str = "default", target: str = "auto", freeze: bool = False,
                 inductor: bool | None = None):
        self.pipeline = pipeline
        self.target = target
        self.freeze = freeze
        self._inductor = inductor
        self.reports: list = []
        self.programs: list = []
        self.fallbacks = 0
        self.rebuilds = 0
        self._graphs = 0
        self._warned: set = set()

    @property
    def inductor(self) -> bool:
        if self._inductor is None:
            from ..runtime.backend import backend_instance
            self._inductor = backend_instance(None if self.target == "auto" else self.target).name == "cpu"
        return self._inductor

    def __call__(self, gm: torch.fx.GraphModule, example_inputs):
        graph = DynamoGraph(self, gm, list(example_inputs), f"graph_{self._graphs}")
        self._graphs += 1
        return graph.entry()

    def warn_unfused(self, key, message: str):
        """Once per attention site and rule, through warnings and the ascend_mla logger."""
        if key in self._warned:
            return
        self._warned.add(key)
        LOG.warning(message)
        warnings.warn(message, FusionWarning, stacklevel=2)


class DynamoGraph:
    """One graph Dynamo handed over: which way it runs (see the module docstring)."""

    def __init__(self, backend: AscendBackend, gm, example_inputs, name: str):
        self.backend, self.gm, self.example_inputs, self.name = backend, gm, example_inputs, name
        self._generic = None
        self._shapes: dict = {}

    def report(self, label="") -> GraphReport:
        report = GraphReport(graph=self.name + label, partitions=[], fused=[], refused=[], rewritten=[],
                             compile_seconds=0.0)
        self.backend.reports.append(report)
        return report

    def whole(self, report, reason: str):
        """The whole graph as one PyTorch partition (inductor's on the CPU)."""
        report["partitions"] = [{"name": self.name, "kind": "inductor" if self.backend.inductor else "pytorch",
                                 "ops": _ops(self.gm.graph), "reason": reason}]

    def generic(self):
        """The graph as PyTorch, compiled once (symbolic sizes stay symbolic)."""
        if self._generic is None:
            self._generic = _pytorch(self.gm, self.example_inputs, self.backend)
        return self._generic

    def entry(self):
        gm, backend = self.gm, self.backend
        ints, tensors = _symbolic_positions(gm)
        scalars = _scalar_inputs(gm)
        if (ints or tensors or scalars) and not _needs_autograd(self.example_inputs) and not _growing_caches(gm) \
                and _candidates(gm):
            return self.per_shape(ints, tensors, scalars)
        start = time.perf_counter()
        report = self.report()
        attention = _site(gm)
        if _needs_autograd(self.example_inputs):
            reason = (f"autograd: grad mode is on and an input requires grad; the mla programs are inference "
                      f"programs, so PyTorch runs the graph (AOTAutograd gives the backward) [{AUTOGRAD_RULE}]")
            self.whole(report, reason)
            if attention:
                backend.warn_unfused((attention, AUTOGRAD_RULE), f"ascend_mla: the attention at {attention} runs "
                                     f"unfused: {reason}; use torch.no_grad() for inference")
            compiled = self.generic()
        elif _growing_caches(gm):
            where = _where_text(_growing_caches(gm)[0])
            reason = (f"a cache grown by torch.cat at {where} (a DynamicCache): a new shape at every step, which "
                      f"no fixed-size fused op reads; use a StaticCache (cache_implementation=\"static\") [{GROWING_RULE}]")
            self.whole(report, reason)
            backend.warn_unfused((where, GROWING_RULE), f"ascend_mla: the attention runs unfused: {reason}")
            if ints or tensors:
                compiled = self.generic()
            else:              # every step is a new static graph: no compilation per step
                report["partitions"][0]["kind"] = "pytorch"
                compiled = gm.forward
        elif not _candidates(gm):
            self.whole(report, "no attention or cache write: nothing the fused ops take")
            compiled = self.generic()
        else:                  # static (a SymInt nothing reads passed as its value)
            backend.reports.remove(report)
            return self.specialize([_hint(x) for x in self.example_inputs], "")
        report["compile_seconds"] = time.perf_counter() - start
        return compiled

    def per_shape(self, ints, tensors, scalars=()):
        """A callable that specializes the graph for the sizes (and Python numbers, `scalars`)
        of each call (cached)."""
        def run(*args):
            key = tuple(args[i] for i in ints) + tuple(tuple(args[i].shape) for i in tensors) + \
                tuple(args[i].item() for i in scalars)
            compiled = self._shapes.get(key)
            if compiled is None:
                if self._generic is not None:
                    compiled = self._generic
                elif len(self._shapes) >= MAX_SHAPES:
                    report = self.report()
                    reason = (f"more than {MAX_SHAPES} sizes: this dynamic graph runs as PyTorch for all further "
                              f"sizes rather than compile per call [{SHAPES_RULE}]")
                    self.whole(report, reason)
                    site = _site(self.gm)
                    if site:
                        self.backend.warn_unfused((site, SHAPES_RULE), f"ascend_mla: the attention at {site} runs "
                                                  f"unfused: {reason}")
                    compiled = self.generic()
                else:
                    sizes = ", ".join(f"{_placeholder_name(self.gm, i)}={args[i]}" for i in ints)
                    compiled = self.specialize(list(args), f" [{sizes}]" if sizes else f" [{key}]", scalars)
                self._shapes[key] = compiled
            return compiled(*args)
        return run

    def specialize(self, args, label, scalars=()):
        start = time.perf_counter()
        report = self.report(label)
        try:
            gm = _with_values(self.gm, args, scalars) if scalars else self.gm
            compiled = Specialized(self.backend, gm, args, report).compiled
        except Exception as error:      # noqa: BLE001 -- the graph still runs, as PyTorch
            LOG.debug("%s not captured", self.name, exc_info=True)
            self.whole(report, f"not captured ({type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''})")
            compiled = None
        if compiled is None:            # nothing fused: the whole graph as PyTorch, compiled once
            if report["partitions"] and len(report["partitions"]) > 1:
                reasons = sorted((p["reason"] for p in report["partitions"] if p["reason"]),
                                 key=lambda why: not re.match(r"fused_\d+: ", why))      # a region's first
                self.whole(report, reasons[0] if reasons else "")
            compiled = self.generic()
        report["compile_seconds"] = time.perf_counter() - start
        return compiled


class Specialized:
    """One graph at static sizes: captured, partitioned, its regions compiled (module docstring,
    steps 1-4). `compiled` is the callable, or None when no region fused (the caller runs the
    graph as PyTorch)."""

    def __init__(self, backend, gm, args, report):
        self.backend, self.report = backend, report
        self.regions = {}           # node name -> why its region runs as PyTorch
        dynamo_nodes = [n for n in gm.graph.nodes if n.op == "placeholder"]
        exported = torch.export.export(gm, tuple(args), strict=False).run_decompositions({})
        graph_module, signature = exported.graph_module, exported.graph_signature
        placeholders = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
        by_name = {n.name: n for n in placeholders}
        user = [by_name[s.arg.name] for s in signature.input_specs if s.kind.name == "USER_INPUT"]
        if len(user) != len(args):
            raise CompileError("the exported graph's inputs are not the graph's inputs")
        names = {p.name: readable_name(d) for p, d in zip(user, dynamo_nodes)}
        weights = {p.name for p, x in zip(user, args) if isinstance(x, torch.nn.Parameter)}
        constants = {}
        for spec in signature.input_specs:          # tensors export lifted (constants the code made)
            if spec.kind.name in ("CONSTANT_TENSOR", "BUFFER", "PARAMETER"):
                constants[spec.arg.name] = exported.constants.get(spec.target, exported.state_dict.get(spec.target))
                names[spec.arg.name] = spec.target
        weights |= set(constants)
        lifted = [by_name[s.arg.name] for s in signature.input_specs if s.kind.name != "USER_INPUT"]
        mutations = [(i, signature.user_inputs.index(s.target)) for i, s in enumerate(signature.output_specs)
                     if s.kind.name == "USER_INPUT_MUTATION"]
        users = [i for i, s in enumerate(signature.output_specs) if s.kind.name == "USER_OUTPUT"]
        if len(mutations) + len(users) != len(signature.output_specs):
            raise CompileError("outputs other than user outputs and input mutations (a lifted buffer the graph writes)")
        order = [n.name for n in placeholders]
        if lifted and order != [n.name for n in lifted] + [n.name for n in user]:
            raise CompileError("the exported graph's lifted inputs do not come first")

        # export's metadata assertions check types PyTorch already knows: dropped, so that the
        # values they read do not have to leave a program for them
        for node in list(graph_module.graph.nodes):
            if node.op == "call_function" and node.target in ASSERTIONS:
                graph_module.graph.erase_node(node)
        eager_attention_to_sdpa(graph_module.graph)
        graph_module.recompile()
        weight_nodes = {p for p in placeholders if p.name in weights}
        reasons = {node.name: why for node, why in TrialImporter(weight_nodes).walk(graph_module.graph).items()}
        reasons.update(_weight_values_for_pytorch(graph_module.graph, weight_nodes, reasons))
        for name, why in reasons.items():
            LOG.debug("%s: %s stays PyTorch: %s", report["graph"], name, why)
        attention = [n for n in graph_module.graph.nodes if n.op == "call_function" and n.target in ATTENTION_OPS]

        inputs = [constants[n.name] for n in lifted]
        self.example = inputs + list(args)
        partitioned = self._partition(graph_module, reasons, weights, names)
        fused = [f["op"] for f in report["fused"]]
        if attention and FUSED_ATTENTION not in fused:
            self._warn_unfused(attention[0], reasons)
        if not any(p["kind"] == "mla" for p in report["partitions"]):
            self.compiled = None
            return
        if backend.inductor:
            partitioned = self._inductor(partitioned)

        def run(*call_args):
            outputs = partitioned(*inputs, *call_args)
            for position, index in mutations:
                if outputs[position] is not call_args[index]:        # not written in place
                    call_args[index].copy_(outputs[position].reshape(call_args[index].shape))
            return tuple(outputs[i] for i in users)
        self.compiled = run

    def _warn_unfused(self, attention, reasons):
        where = _where_text(attention)
        refused = [r for r in self.report["refused"] if r.get("reason")]
        if attention.name in self.regions:
            why = self.regions[attention.name]
        elif attention.name in reasons:
            why = reasons[attention.name]
        elif refused:
            why = "; ".join(f"{r['pattern']}: {r['reason']}" for r in refused[:2])
        else:
            part = next((p for p in self.report["partitions"] if p["kind"] != "mla" and p["reason"]), None)
            why = (part["reason"] if part else "no fused attention came out of its region") + f" [{UNFUSED_RULE}]"
        self.backend.warn_unfused((where, why), f"ascend_mla: {self.report['graph']}: the attention at {where} "
                                                f"runs unfused: {why}")

    def _partition(self, graph_module, reasons, weights, names):
        from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
        from torch.fx.passes.operator_support import OperatorSupportBase
        report = self.report

        class Supported(OperatorSupportBase):
            def is_node_supported(self, submodules, node):
                return node.op == "call_function" and node.name not in reasons

        partitioner = CapabilityBasedPartitioner(graph_module, Supported(), allows_single_node_partition=True)
        partitions = partitioner.propose_partitions()
        kept, why_not = [], {}
        for p in partitions:
            ops = sum(n.target is not operator.getitem for n in p.nodes)
            anchored = any(n.target in ATTENTION_OPS or n.target in CACHE_WRITES for n in p.nodes)
            if ops >= MIN_OPS and anchored:
                kept.append(p)
            else:
                for n in p.nodes:
                    why_not[n.name] = (f"{n.name}: in a region of fewer than {MIN_OPS} converted ops (a program call "
                                       "costs more than it saves)") if ops < MIN_OPS else \
                        f"{n.name}: in a region without attention or cache write (no fused op to make)"
        fused = partitioner.fuse_partitions(kept)
        for child_name, child in list(fused.named_children()):
            if not child_name.startswith("fused_"):
                continue
            ops = _ops(child.graph)
            call = next(n for n in fused.graph.nodes if n.op == "call_module" and n.target == child_name)
            args = [self._value(a) for a in call.args]
            try:
                region = Region(child, {n for n in weights}, _names_in(child, names))
                program = region.compile(args, self.backend)
            except Exception as error:      # noqa: BLE001 -- the region runs as PyTorch
                LOG.debug("%s: compilation failed", child_name, exc_info=True)
                _inline(fused, call, child)
                text = str(error).splitlines()[0] if str(error) else type(error).__name__
                self.regions.update({n.name: f"{child_name}: compilation failed: {text}" for n in child.graph.nodes})
                continue
            record = program.report()
            for key in ("refused", "rewritten"):
                report[key] += record.get(key, [])
            if not record["fused"]:
                _inline(fused, call, child)
                refused = "; ".join(f"{r['pattern']}: {r['reason']}" for r in record["refused"][:2])
                self.regions.update({n.name: f"{child_name}: no fused op came out of the region"
                                     + (f" ({refused})" if refused else "") for n in child.graph.nodes})
                continue
            report["fused"] += record["fused"]
            setattr(fused, child_name, RegionProgram(region, program, args, child, self.backend))
            self.backend.programs.append(program)
            report["partitions"].append({"name": child_name, "kind": "mla", "ops": ops, "reason": ""})
        fused.graph.lint()
        fused.recompile()
        # The PyTorch partitions: the runs of ops between two programs, each named by its first
        # op and the first op that kept it out.
        kind = "inductor" if self.backend.inductor else "pytorch"
        run = None
        for node in fused.graph.nodes:
            if node.op in ("call_module", "output"):
                run = None
            elif node.op == "call_function" and node.target is not operator.getitem:
                if run is None:
                    run = {"name": f"pytorch from {node.name}", "kind": kind, "ops": 0, "reason": ""}
                    report["partitions"].append(run)
                run["ops"] += 1
                # the most telling reason of the run: a region that did not fuse, an op that
                # does not convert, then a region too small or without a fused op to make
                for rank, why in enumerate((self.regions.get(node.name), reasons.get(node.name),
                                            why_not.get(node.name))):
                    if why and rank < run.get("rank", 3):
                        run["reason"], run["rank"] = why, rank
        for run in report["partitions"]:
            run.pop("rank", None)
        return fused

    def _value(self, node):
        """An example of a node's value: the call's own tensor for an input, else one of its
        shape (what compiling a region needs: the weights' values and the shapes)."""
        if node.op == "placeholder":
            index = [n for n in node.graph.nodes if n.op == "placeholder"].index(node)
            return self.example[index]
        return node.meta.get("val")

    def _inductor(self, fused):
        """Each run of PyTorch ops between the programs compiled by inductor."""
        from torch._inductor.compile_fx import compile_fx
        from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
        from torch.fx.passes.operator_support import OperatorSupportBase

        class Torch(OperatorSupportBase):
            def is_node_supported(self, submodules, node):
                return node.op == "call_function" and not (
                    node.target is operator.getitem and node.args[0].op == "call_module")

        for name, child in list(fused.named_children()):       # the programs keep their own names
            fused.add_submodule("mla_" + name, child)
            delattr(fused, name)
        for node in fused.graph.nodes:
            if node.op == "call_module":
                node.target = "mla_" + node.target
        fused.recompile()
        partitioner = CapabilityBasedPartitioner(fused, Torch(), allows_single_node_partition=True)
        out = partitioner.fuse_partitions(partitioner.propose_partitions())
        for name, child in list(out.named_children()):
            if not name.startswith("fused_"):
                continue
            example = [_example(n.meta.get("val")) for n in child.graph.nodes if n.op == "placeholder"]
            setattr(out, name, Compiled(compile_fx(child, example), child))
        out.recompile()
        return out


class Compiled(torch.nn.Module):
    """A PyTorch partition compiled by inductor, called as its submodule is."""

    def __init__(self, fn, graph_module):
        super().__init__()
        self.fn = fn
        output = next(n for n in graph_module.graph.nodes if n.op == "output")
        self.single = not isinstance(output.args[0], (list, tuple))

    def forward(self, *args):
        result = self.fn(*args)
        return result[0] if self.single and isinstance(result, (list, tuple)) else \
            (tuple(result) if isinstance(result, list) else result)


def _example(val):
    """A tensor like `val` (a FakeTensor of the export) that inductor can compile against."""
    if isinstance(val, torch.Tensor):
        return torch.empty_strided(tuple(val.shape), tuple(val.stride()), dtype=val.dtype)
    return val


def _pytorch(gm, example_inputs, backend):
    """The graph as PyTorch: inductor's compilation on the CPU, else Dynamo's graph as is."""
    if not backend.inductor:
        return gm.forward
    from torch._inductor.compile_fx import compile_fx
    return compile_fx(gm, example_inputs)


def _inline(parent: torch.fx.GraphModule, call: torch.fx.Node, child: torch.fx.GraphModule):
    """Put a region's ops back into the graph in place of its call."""
    graph = parent.graph
    placeholders = [n for n in child.graph.nodes if n.op == "placeholder"]
    with graph.inserting_before(call):
        out = graph.graph_copy(child.graph, dict(zip(placeholders, call.args)))
    if isinstance(out, (list, tuple)):
        for user in list(call.users):
            user.replace_all_uses_with(out[user.args[1]])
            graph.erase_node(user)
    else:
        call.replace_all_uses_with(out)
    graph.erase_node(call)
    delattr(parent, call.target)


def _site(gm) -> str:
    """Where the graph's first attention is (file:line), or ""."""
    for node in gm.graph.nodes:
        if _SCREEN.search(_op_name(node)) and not re.search("index_copy|index_put", _op_name(node)):
            return _where_text(node)
    return ""


def _where_text(node) -> str:
    src = source_line(node)
    return f"{src[0]}:{src[1]}" if src else node.name


def _placeholder_name(gm, index) -> str:
    return [n for n in gm.graph.nodes if n.op == "placeholder"][index].name


def _weight_values_for_pytorch(graph, weight_nodes, reasons) -> dict:
    """The ops computed from weights alone (a transposed or reshaped weight) whose value a
    PyTorch op reads: left to PyTorch (node name -> why), so that no region returns a weight
    derived tensor. In PyTorch such a view costs nothing; as a region's output it was a new
    tensor on every call (o_proj's (N, He, D) weight view: a 14 MB copy per decode step). A
    region keeps the weight ops only its own ops read (folded once at compile time)."""
    from_weights = {}
    for node in graph.nodes:
        if node.op == "placeholder":
            from_weights[node] = node in weight_nodes
        elif node.op == "call_function":
            inputs = node.all_input_nodes      # an op with none (arange) reads no weight
            from_weights[node] = bool(inputs) and all(from_weights.get(i, False) for i in inputs)
    claimed = {n for n in graph.nodes if n.op == "call_function" and n.name not in reasons}
    left = {}
    changed = True
    while changed:                     # leaving one out may leave out the weight ops before it
        changed = False
        for node in list(claimed):
            if from_weights[node] and any(u not in claimed for u in node.users):
                claimed.discard(node)
                left[node.name] = f"{node.name}: computed from weights alone for a PyTorch op (a view there)"
                changed = True
    return left


def _ops(graph) -> int:
    return sum(n.op == "call_function" and n.target is not operator.getitem for n in graph.nodes)


def _names_in(sub, names) -> dict:
    """Placeholder names of a region -> readable names (a region's placeholders keep the names
    of the graph's nodes they stand for)."""
    return {n.name: names.get(n.name, n.name) for n in sub.graph.nodes if n.op == "placeholder"}
