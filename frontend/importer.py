"""The import step of the PyTorch frontend (frontend/torch.py): a functionalized FX graph (an
ExportedProgram, or the graphs torch.compile hands frontend/dynamo.py) walked node by node into
primitive-level mla IR, each node through its converter (frontend/aten.py), with the module's
source line as each op's location."""
from __future__ import annotations

import operator
import os
import re
from dataclasses import dataclass, field

import torch

from ..compiler import CompileError
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
    """A module imported into the mla dialect: its IR (`graph`, a GraphWriter: compile() takes
    it as it is), weights, and how to call it."""
    graph: GraphWriter
    weights: dict
    inputs: list                 # the function's arguments: ("user", index) or ("buffer", name)
    outputs: list                # its results: ("user", index), ("mutation", input or buffer spec)
    source_name: str = "<module>"
    ops: int = 0                 # ATen nodes converted
    spec: object = field(default=None, repr=False)      # the export's call spec (pytree in/out)
    user_inputs: list = field(default_factory=list)      # the flattened user inputs' names

    @property
    def text(self) -> str:
        """The IR as text (to read)."""
        return self.graph.text()


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

    def __init__(self, exported=None, context=None):
        self.ep = exported
        self.g = GraphWriter("forward", context)          # a new MLIR context by default
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
            f"{target_name(self.node.target)} is not supported: {what}, at {_where(self.node)}")

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
                f"{target_name(node.target)} has no conversion to the mla dialect, at {_where(node)} "
                f"(the converters: frontend/aten.py)")
        src = source_line(node)
        self.g.location = (src[0], src[1], 0) if src else None
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
        return Imported(self.g, weights, inputs, outputs, _source_name(self.ep), count)


def _input_names(sig):
    return [s.arg.name if s.kind.name == "USER_INPUT" else s.target for s in sig.input_specs]


def target_name(target) -> str:
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
    """The kv lengths (B,) int32 of an SDPA mask (B or 1, 1, S, L) when it is the causal mask of
    those lengths -- row s of batch b sees exactly keys [0, length[b] - S + s] -- which is what
    mla.paged_attention computes; else None (left padding, a sliding window, a mask that hides a
    cached key). A boolean mask attends where True; an additive float mask (eager attention's)
    where 0, and must hide the rest with at most half its type's lowest value (transformers
    writes finfo.min, -inf is fine): exp of such a score is 0 in float32, as the fused
    attention's skipped key. Cheap next to the attention: B * S * L comparisons."""
    if mask.dim() != 4:
        return None
    if mask.dtype != torch.bool:
        if not mask.is_floating_point():
            return None
        attend = mask == 0
        if not bool((attend | (mask <= torch.finfo(mask.dtype).min / 2)).all()):
            return None
        mask = attend
    s_len, length = mask.shape[2], mask.shape[3]
    lengths = mask[:, 0, -1, :].sum(dim=-1)                                   # keys of the last row
    expected = torch.arange(length, device=mask.device)[None, None, :] < \
        (lengths[:, None, None] - s_len + 1 + torch.arange(s_len, device=mask.device)[None, :, None])
    if not torch.equal(expected, mask[:, 0]) or bool((lengths < s_len).any()):
        return None
    if batch is not None and lengths.shape[0] != batch:
        lengths = lengths.expand(batch)
    return lengths.to(torch.int32).contiguous()


