"""GraphWriter: writes a primitive-level mla function as IR text (what model builders emit).

    g = GraphWriter()
    x = g.arg("hidden_states", TensorInfo((2, 1, 7168), "bf16"))
    w = g.weight("model.layers.0.self_attn.q_a_proj.weight", TensorInfo((1536, 7168), "bf16"))
    y = g.op(Matmul, x=x, w=g.op(Transpose, x=w, permutation=[1, 0]))
    g.ret(y)
    text = g.text()

Result types come from each op's own result inference (OpDef.infer_results); `result=` overrides
the element type where the IR chooses it (a float32 RmsNorm, a bf16 quant_matmul). Weights are
extern `ml_program` globals, loaded once per function. mla ops are printed in MLIR's generic
form, upstream ops in their own syntax. The text is parsed and verified by whoever compiles it.
"""
from __future__ import annotations

import math
import re
import struct
from dataclasses import dataclass

from ..dialect.opdef import OPTIONAL, SINGLE, OpDef
from ..dialect.types import FRACTAL_NZ, TensorInfo, reshape_groups


def type_text(t: TensorInfo) -> str:
    dims = "".join(f"{'?' if d is None else d}x" for d in t.shape)
    encoding = ', #mla.format<"FRACTAL_NZ">' if t.format == FRACTAL_NZ else ""
    return f"tensor<{dims}{t.dtype}{encoding}>"


def float_text(v: float) -> str:
    """MLIR's text of a float: decimal, or the bits in hex for an infinity or a NaN (f64)."""
    if not math.isfinite(v):
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", float(v)))[0]
    text = repr(float(v))
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + (f"e{exponent}" if exponent else "")


def attribute_text(kind: str, value) -> str:
    if kind == "f64":
        return f"{float_text(value)} : f64"
    if kind == "i64":
        return f"{int(value)} : i64"
    if kind == "i1":
        return "true" if value else "false"
    if kind == "str":
        return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
    if kind == "i64_array":
        return "array<i64" + ("" if not value else ": " + ", ".join(str(int(v)) for v in value)) + ">"
    raise ValueError(kind)


@dataclass(frozen=True)
class Value:
    name: str
    type: TensorInfo

    @property
    def shape(self):
        return self.type.shape

    @property
    def dtype(self):
        return self.type.dtype


class GraphWriter:
    def __init__(self, function: str = "forward"):
        self.function = function
        self.args: list[tuple[Value, str, str]] = []
        self.globals: dict[str, TensorInfo] = {}
        self.loads: dict[str, Value] = {}
        self.lines: list[str] = []
        self.results: list[Value] = []
        self._names: set = set()
        # The source location of the ops written next (`loc(...)` text), e.g. the line of the
        # PyTorch module an imported op comes from; None: the IR text's own positions.
        self.location: str | None = None

    def _emit(self, line: str):
        self.lines.append(line if self.location is None else f"{line} {self.location}")

    def _fresh(self, hint: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", hint) or "v"
        if base[0].isdigit():
            base = "v" + base
        name, n = base, 1
        while name in self._names:
            name, n = f"{base}_{n}", n + 1
        self._names.add(name)
        return "%" + name

    # --- values --------------------------------------------------------------------------
    def arg(self, name: str, t: TensorInfo, attributes: str = "") -> Value:
        """A function argument named `name` (mla.name); `attributes`: more of its attribute
        dictionary as text (`mla.buffer`: the state of the module the program came from)."""
        v = Value(self._fresh(name), t)
        self.args.append((v, name, attributes))
        return v

    def weight(self, name: str, t: TensorInfo) -> Value:
        if name in self.globals and self.globals[name] != t:
            raise ValueError(f"weight {name} declared as {self.globals[name]} and {t}")
        self.globals[name] = t
        if name not in self.loads:
            v = Value(self._fresh(name.split(".", 2)[-1] if name.startswith("model.") else name), t)
            self._emit(f'{v.name} = ml_program.global_load_const @"{name}" : {type_text(t)}')
            self.loads[name] = v
        return self.loads[name]

    def constant(self, value: float, t: TensorInfo, hint="cst") -> Value:
        """arith.constant dense<value> (a splat)."""
        v = Value(self._fresh(hint), t)
        if t.dtype.startswith(("i", "ui")):            # integer elements are written as integers
            if value != int(value):
                raise ValueError(f"a constant {value} of integer type {t.dtype}")
            text = str(int(value)) if t.dtype != "i1" else ("true" if value else "false")
        else:
            text = float_text(value)
        self._emit(f"{v.name} = arith.constant dense<{text}> : {type_text(t)}")
        return v

    def integers(self, values, t: TensorInfo, hint="cst") -> Value:
        """arith.constant of an integer array (nested lists of t's shape), e.g. a block table."""
        v = Value(self._fresh(hint), t)
        self._emit(f"{v.name} = arith.constant dense<{values}> : {type_text(t)}")
        return v

    # --- ops -----------------------------------------------------------------------------
    def op(self, opdef: OpDef, *, name: str = "", result: dict | None = None, **given):
        """An mla op; operands and attributes by their declared names. Returns its result (a
        tuple of them for an op with several)."""
        operands = {o.name: given.pop(o.name, None) for o in opdef.operands}
        attributes = {k: v for k, v in given.items()}
        unknown = set(attributes) - set(opdef.attribute_by_name)
        if unknown:
            raise TypeError(f"{opdef.name}: unknown operands/attributes {sorted(unknown)}")
        infos = {k: ([x.type for x in v] if isinstance(v, list) else v.type)
                 for k, v in operands.items() if v is not None}
        snapshot = opdef.snapshot_from_parts(infos, attributes)
        types = opdef.result_infos(snapshot) if opdef.infer_results else {}
        types.update(result or {})
        results = [Value(self._fresh(f"{name or opdef.op_name}" + (f"_{r}" if len(opdef.result_names) > 1 else "")),
                         types[r]) for r in opdef.result_names]
        flat, sizes = [], []
        for o in opdef.operands:
            v = operands[o.name]
            group = [] if v is None else (v if isinstance(v, list) else [v])
            if o.kind == SINGLE and len(group) != 1:
                raise TypeError(f"{opdef.name}: operand {o.name} is required")
            flat += group
            sizes.append(len(group))
        attrs = [f"{k} = {attribute_text(opdef.attribute_by_name[k].kind, v)}"
                 for k, v in attributes.items() if v is not None]
        if any(o.kind != SINGLE for o in opdef.operands):
            attrs.append("operandSegmentSizes = array<i32: " + ", ".join(map(str, sizes)) + ">")
        attr_text = " {" + ", ".join(attrs) + "}" if attrs else ""
        lhs = ", ".join(r.name for r in results)
        self._emit(
            f'{lhs} = "{opdef.name}"({", ".join(v.name for v in flat)}){attr_text} : '
            f'({", ".join(type_text(v.type) for v in flat)}) -> '
            f'({", ".join(type_text(r.type) for r in results)})')
        return results[0] if len(results) == 1 else tuple(results)

    def extract_slice(self, v: Value, offsets, sizes, name="slice", strides=None) -> Value:
        r = Value(self._fresh(name), TensorInfo(tuple(sizes), v.dtype))
        strides = strides or [1] * len(sizes)
        self._emit(f"{r.name} = tensor.extract_slice {v.name}[{', '.join(map(str, offsets))}] "
                   f"[{', '.join(map(str, sizes))}] [{', '.join(map(str, strides))}] : "
                   f"{type_text(v.type)} to {type_text(r.type)}")
        return r

    def concat(self, values, axis: int, name="concat") -> Value:
        """tensor.concat of `values` along `axis`."""
        shape = list(values[0].shape)
        shape[axis] = sum(v.shape[axis] for v in values)
        r = Value(self._fresh(name), TensorInfo(tuple(shape), values[0].dtype))
        self._emit(f"{r.name} = tensor.concat dim({axis}) {', '.join(v.name for v in values)} : "
                   f"({', '.join(type_text(v.type) for v in values)}) -> {type_text(r.type)}")
        return r

    def reshape(self, v: Value, shape, name="view") -> Value:
        """tensor.expand_shape or tensor.collapse_shape, whichever the shapes allow (one axis
        split into several, or several merged, per group)."""
        shape = tuple(shape)
        if shape == v.shape:
            return v
        r = Value(self._fresh(name), TensorInfo(shape, v.dtype))
        groups = reshape_groups(v.shape, shape)
        if not shape or not v.shape:      # to or from a scalar: one element, no groups
            groups = []
        elif groups is None or len(shape) == len(v.shape):
            # Neither one split nor one merge per group: through the flat vector (still a view).
            size = 1
            for d in v.shape:
                size *= d
            flat = self.reshape(v, (size,), name + "_flat") if len(v.shape) != 1 else v
            return self.reshape(flat, shape, name) if shape != (size,) else flat
        if len(shape) > len(v.shape):
            self._emit(f"{r.name} = tensor.expand_shape {v.name} {_reassoc(groups)} output_shape "
                       f"[{', '.join(map(str, shape))}] : {type_text(v.type)} into {type_text(r.type)}")
        else:
            self._emit(f"{r.name} = tensor.collapse_shape {v.name} {_reassoc(groups)} : "
                       f"{type_text(v.type)} into {type_text(r.type)}")
        return r

    def cast(self, v: Value, dtype: str, name="cast") -> Value:
        r = Value(self._fresh(name), TensorInfo(v.shape, dtype))
        widths = {"f64": 64, "f32": 32, "f16": 16, "bf16": 16}
        if widths[dtype] == widths[v.dtype]:
            raise ValueError(f"no float cast between {v.dtype} and {dtype} of the same width")
        op = "arith.truncf" if widths[dtype] < widths[v.dtype] else "arith.extf"
        self._emit(f"{r.name} = {op} {v.name} : {type_text(v.type)} to {type_text(r.type)}")
        return r

    def elementwise(self, op_name: str, values, t: TensorInfo, name="v") -> Value:
        """An upstream elementwise op on tensors (math.absf, arith.maximumf, arith.fptosi...):
        operands and result of one type are written `op %a, %b : T`, a cast `op %a : T to U`."""
        r = Value(self._fresh(name), t)
        operands = ", ".join(v.name for v in values)
        if all(v.type == t for v in values):
            self._emit(f"{r.name} = {op_name} {operands} : {type_text(t)}")
        else:
            self._emit(f"{r.name} = {op_name} {operands} : {type_text(values[0].type)} to {type_text(t)}")
        return r

    def ret(self, *values: Value):
        self.results = list(values)

    def drop_unused(self, keep=("mla.scatter_cache",)):
        """Remove the ops whose results nothing uses (an importer may write a view it then
        looks through); ops named in `keep` (in-place writes) stay."""
        uses = {}
        defined = []
        for line in self.lines:
            lhs, _, rhs = line.partition(" = ")
            names = _VALUE.findall(lhs)
            defined.append(names)
            for name in _VALUE.findall(rhs):
                uses[name] = uses.get(name, 0) + 1
        for v in self.results:
            uses[v.name] = uses.get(v.name, 0) + 1
        alive = [True] * len(self.lines)
        for i in reversed(range(len(self.lines))):
            if any(uses.get(n, 0) for n in defined[i]) or any(k in self.lines[i] for k in keep):
                continue
            alive[i] = False
            for name in _VALUE.findall(self.lines[i].partition(" = ")[2]):
                uses[name] -= 1
        self.lines = [line for line, keep_line in zip(self.lines, alive) if keep_line]
        self.loads = {k: v for k, v in self.loads.items() if uses.get(v.name, 0)}

    # --- text ----------------------------------------------------------------------------
    def text(self) -> str:
        out = [f'ml_program.global private @"{n}"(#ml_program.extern : {type_text(t)}) : {type_text(t)}'
               for n, t in self.globals.items()]
        args = ",\n    ".join(f'{v.name}: {type_text(v.type)} {{mla.name = "{name}"{", " + more if more else ""}}}'
                               for v, name, more in self.args)
        results = ", ".join(type_text(v.type) for v in self.results)
        out.append(f"func.func @{self.function}(\n    {args})\n    -> ({results}) {{")
        out += ["  " + line for line in self.lines]
        out.append(f"  return {', '.join(v.name for v in self.results)} : {results}")
        out.append("}")
        return "\n".join(out) + "\n"


_VALUE = re.compile(r"%[A-Za-z0-9_.$-]+")


def _reassoc(groups) -> str:
    return "[" + ", ".join("[" + ", ".join(map(str, g)) + "]" for g in groups) + "]"
