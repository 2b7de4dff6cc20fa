"""`torch.compile(backend="ascend_mla")`: the mla compiler as a TorchDynamo backend (docs/api.md 10).

    from ascend_mla.frontend.torch import AscendBackend
    backend = AscendBackend()
    model.forward = torch.compile(model.forward, backend=backend)
    backend.reports          # one report per graph Dynamo handed over

Dynamo calls the backend with each FX graph it captures (torch-level ops; parameters are
inputs: Dynamo inlines nn.Modules) and its example inputs. For each graph:

1. capture: `torch.export.export(graph, inputs, strict=False).run_decompositions({})`, the
   capture compile_module uses: functionalized ATen (an in-place `index_copy_` into a cache is a
   functional op plus an input mutation), nothing decomposed (linear, SDPA stay whole).
2. support: a trial import of every node (frontend/aten.py's converters); a node whose converter
   is missing or refuses its form is unsupported, with the converter's message as the reason.
3. partition: torch.fx's CapabilityBasedPartitioner groups the supported nodes into regions
   (no cycles through unsupported nodes); each region with enough work (MIN_OPS) becomes an
   mla program: imported (inputs that are nn.Parameters become weights, named by their module
   path), compiled with the default pipeline, and called in place of the region. Everything
   else -- unsupported ops, small regions, a region whose compilation fails -- runs as PyTorch.
4. run: the partitioned graph, then the input mutations (copies into the caches, unless a
   program already wrote the cache in place).

Recompilation is Dynamo's: it calls the backend again when a guard fails (a new shape), so a
decode loop with a static cache compiles one graph for the prefill and one for the decode steps.
A region whose attention reads a boolean mask takes the kv lengths from it at each call, checked
to be the causal mask of those lengths (frontend/importer.py `mask_lengths`); a call whose mask is
not (left padding) runs the region's PyTorch graph instead, and `backend.fallbacks` counts it.
"""
from __future__ import annotations

import operator
import re
import time

import torch

from ..compiler import CompileError, Report
from ..compiler import compile as compile_ir
from .importer import COMPLEX, Importer, UnsupportedOperatorError, mask_lengths, source_line, target_name

ASSERTIONS = (torch.ops.aten._assert_tensor_metadata.default, torch.ops.aten._assert_scalar.default)
MIN_OPS = 4           # a region with fewer converted ops is not worth a program call


class GraphReport(Report):
    """Program.report() of the graph's programs merged, plus "graph" (its name), "partitions"
    ([{"name", "kind": "mla" | "pytorch", "ops", "reason"}]: what runs where and, for a
    PyTorch partition, the first op that kept it out and why) and "compile_seconds"."""

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

class RegionProgram(torch.nn.Module):
    """A region of the graph compiled to an mla Program, called as the region's submodule is
    (same inputs, same outputs). `fallback` is the region's PyTorch graph, run for a call the
    program cannot take (a mask that is not causal over lengths)."""

    def __init__(self, program, inputs: list, fallback: torch.fx.GraphModule, backend):
        super().__init__()
        self.program = program
        self.fallback = fallback
        self._inputs = inputs           # per function argument: ("input", i) or ("mask_lengths", (i, B))
        self._backend = backend

    def forward(self, *args):
        given = []
        for kind, what in self._inputs:
            if kind == "input":
                given.append(args[what])
                continue
            index, batch = what
            lengths = mask_lengths(args[index], batch)
            if lengths is None:
                self._backend.fallbacks += 1
                return self.fallback(*args)
            given.append(lengths)
        results = self.program(*given)
        return tuple(results) if len(results) != 1 else results[0]


def compile_region(sub: torch.fx.GraphModule, weights: dict, names: dict, backend):
    """Import one region (a submodule of the partitioned graph) and compile it."""
    cx = Importer()
    placeholders = [n for n in sub.graph.nodes if n.op == "placeholder"]
    inputs, bound = [], {}
    for i, node in enumerate(placeholders):
        cx.node = node
        t = cx.info(node)
        outer = names.get(node.name, node.name)
        if node.name in weights:
            tensor = weights[node.name].detach()
            if tensor.dtype in COMPLEX:
                tensor = torch.view_as_real(tensor)
            bound[outer] = tensor.contiguous()
            cx.values[node] = cx.g.weight(outer, t)
        else:
            cx.values[node] = cx.g.arg(node.name, t)
            inputs.append(("input", i))
    for node in sub.graph.nodes:
        if node.op == "call_function":
            cx.values[node] = cx.convert(node)
    cx.g.location = None
    output = next(n for n in sub.graph.nodes if n.op == "output")
    results = output.args[0]
    single = not isinstance(results, (list, tuple))
    values = [cx.value(results)] if single else [cx.value(r) for r in results]
    cx.g.ret(*values)
    cx.g.drop_unused()
    index = {n.name: i for i, n in enumerate(placeholders)}
    inputs += [(kind, (index[of[0]], of[1])) for _, kind, of in cx.derived]
    source = next((source_line(n)[0] for n in sub.graph.nodes if n.op == "call_function" and source_line(n)),
                  "<graph>")
    program = compile_ir(cx.g, weights=bound, pipeline=backend.pipeline, target=backend.target,
                         source_name=source)
    return program, inputs


# --- the backend --------------------------------------------------------------------------------------

class AscendBackend:
    """A torch.compile backend: `torch.compile(fn, backend=AscendBackend())` (or
    backend="ascend_mla"). `reports`: one GraphReport per graph compiled; `programs`: the
    compiled region programs; `fallbacks`: calls that ran a region's PyTorch graph because its
    attention mask was not causal over per-batch lengths."""

    def __init__(self, *, pipeline: str = "default", target: str = "auto"):
        self.pipeline = pipeline
        self.target = target
        self.reports: list = []
        self.programs: list = []
        self.fallbacks = 0

    def __call__(self, gm: torch.fx.GraphModule, example_inputs):
        start = time.perf_counter()
        name = f"graph_{len(self.reports)}"
        report = GraphReport(graph=name, partitions=[], fused=[], refused=[], rewritten=[], compile_seconds=0.0)
        self.reports.append(report)
        try:
            compiled = self._compile(gm, example_inputs, report)
        except Exception as error:      # noqa: BLE001 -- the graph still runs, as PyTorch
            report["partitions"] = [{"name": name, "kind": "pytorch", "ops": _ops(gm.graph),
                                     "reason": f"not captured ({type(error).__name__}: {str(error).splitlines()[0]})"}]
            compiled = gm.forward
        report["compile_seconds"] = time.perf_counter() - start
        return compiled

    def _compile(self, gm, example_inputs, report):
        if any(not isinstance(x, torch.Tensor) for x in example_inputs):
            raise CompileError("symbolic sizes among the inputs (dynamic shapes: the fused ops' rules are "
                               "checked on static shapes): compile with torch.compile(..., dynamic=False) [FUSE-004]")
        dynamo_nodes = [n for n in gm.graph.nodes if n.op == "placeholder"]
        exported = torch.export.export(gm, tuple(example_inputs), strict=False).run_decompositions({})
        graph_module, signature = exported.graph_module, exported.graph_signature
        placeholders = [n for n in graph_module.graph.nodes if n.op == "placeholder"]
        by_name = {n.name: n for n in placeholders}
        user = [by_name[s.arg.name] for s in signature.input_specs if s.kind.name == "USER_INPUT"]
        if len(user) != len(example_inputs):
            raise CompileError("the exported graph's inputs are not the graph's inputs")
        names = {p.name: readable_name(d) for p, d in zip(user, dynamo_nodes)}
        weights = {p.name: x for p, x in zip(user, example_inputs) if isinstance(x, torch.nn.Parameter)}
        for spec in signature.input_specs:          # tensors export lifted (constants the code made)
            if spec.kind.name in ("CONSTANT_TENSOR", "BUFFER", "PARAMETER"):
                tensor = exported.constants.get(spec.target, exported.state_dict.get(spec.target))
                weights[spec.arg.name] = tensor
                names[spec.arg.name] = spec.target
        lifted = [by_name[s.arg.name] for s in signature.input_specs if s.kind.name != "USER_INPUT"]
        mutations = [(i, signature.user_inputs.index(s.target)) for i, s in enumerate(signature.output_specs)
                     if s.kind.name == "USER_INPUT_MUTATION"]
        users = [i for i, s in enumerate(signature.output_specs) if s.kind.name == "USER_OUTPUT"]
        if len(mutations) + len(users) != len(signature.output_specs):
            raise CompileError("outputs other than user outputs and input mutations (a lifted buffer the graph writes)")

        # export's metadata assertions check types PyTorch already knows: dropped, so that the
        # values they read do not have to leave a program for them
        for node in list(graph_module.graph.nodes):
            if node.op == "call_function" and node.target in ASSERTIONS:
                graph_module.graph.erase_node(node)
        graph_module.recompile()
        weight_nodes = {p for p in placeholders if p.name in weights}
        reasons = {node.name: why for node, why in TrialImporter(weight_nodes).walk(graph_module.graph).items()}
        reasons.update(_weight_values_for_pytorch(graph_module.graph, weight_nodes, reasons))
        partitioned = self._partition(graph_module, reasons, weights, names, report)

        constants = [weights[n.name] for n in lifted]
        order = [n.name for n in placeholders]
        lifted_first = [n.name for n in lifted] + [n.name for n in user]
        if order != lifted_first and lifted:
            raise CompileError("the exported graph's lifted inputs do not come first")

        def run(*args):
            outputs = partitioned(*constants, *args)
            for position, index in mutations:
                if outputs[position] is not args[index]:        # not written in place
                    args[index].copy_(outputs[position].reshape(args[index].shape))
            return tuple(outputs[i] for i in users)
        return run

    def _partition(self, graph_module, reasons, weights, names, report):
        from torch.fx.passes.infra.partitioner import CapabilityBasedPartitioner
        from torch.fx.passes.operator_support import OperatorSupportBase

        class Supported(OperatorSupportBase):
            def is_node_supported(self, submodules, node):
                return node.op == "call_function" and node.name not in reasons

        partitioner = CapabilityBasedPartitioner(graph_module, Supported(), allows_single_node_partition=True)
        partitions = partitioner.propose_partitions()
        kept = []
        for p in partitions:
            ops = sum(n.target is not operator.getitem for n in p.nodes)
            if ops >= MIN_OPS:
                kept.append(p)
        small = {n.name for p in partitions if p not in kept for n in p.nodes}
        fused = partitioner.fuse_partitions(kept)
        # The PyTorch partitions: the runs of ops between two programs, each named by its first
        # op and the first op that kept it out (small regions: too little work for a program call).
        run = None
        for node in fused.graph.nodes:
            if node.op == "call_module" or node.op == "output":
                run = None
            elif node.op == "call_function" and node.target is not operator.getitem:
                if run is None:
                    run = {"name": f"pytorch from {node.name}", "kind": "pytorch", "ops": 0, "reason": ""}
                    report["partitions"].append(run)
                run["ops"] += 1
                if not run["reason"]:
                    run["reason"] = reasons.get(node.name) or (
                        f"{node.name}: in a region of fewer than {MIN_OPS} converted ops (a program call costs more "
                        "than it saves)" if node.name in small else "")
        for child_name, child in list(fused.named_children()):
            if not child_name.startswith("fused_"):
                continue
            ops = _ops(child.graph)
            try:
                program, inputs = compile_region(child, weights, _names_in(child, names), self)
            except Exception as error:      # noqa: BLE001 -- the region runs as PyTorch
                report["partitions"].append({"name": child_name, "kind": "pytorch", "ops": ops,
                                             "reason": f"compilation failed: {str(error).splitlines()[0]}"})
                continue
            setattr(fused, child_name, RegionProgram(program, inputs, child, self))
            self.programs.append(program)
            record = program.report()
            for key in ("fused", "refused", "rewritten"):
                report[key] += record.get(key, [])
            report["partitions"].append({"name": child_name, "kind": "mla", "ops": ops, "reason": ""})
        return fused


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
