"""GraphWriter: builds a primitive-level mla function op by op, as model code computes it (what
the model builders and the PyTorch importer write with).

    g = GraphWriter()
    x = g.arg("hidden_states", TensorInfo((2, 1, 7168), "bf16"))
    w = g.weight("model.layers.0.self_attn.q_a_proj.weight", TensorInfo((1536, 7168), "bf16"))
    y = g.op(Matmul, x=x, w=g.op(Transpose, x=w, permutation=[1, 0]))
    g.ret(y)
    program = ascend_mla.compile(g)            # compiled in the writer's context, no text

The ops are created in an MLIR context as they are written (dialect/builder.py, over each
OpDef's `build`): result types come from each op's own result inference
(OpDef.infer_results); `result=` overrides the element type where the IR chooses it (a float32
RmsNorm, a bf16 quant_matmul). Weights are extern `ml_program` globals, loaded once per
function. `g.location` is the location of the ops written next: a name (a model's module path,
"model.layers.0.self_attn"), a (file, line, column) (the PyTorch line an imported op comes from)
or None. `g.module` is the module; `g.text()` prints it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from mlir import ir

from ..dialect.builder import FunctionBuilder, clone_module
from ..dialect.opdef import OpDef
from ..dialect.types import TensorInfo


@dataclass(frozen=True, eq=False)
class Value:
    """A value written so far: `name` (unique in the writer; what the importer keys its
    bookkeeping by), its type, and the IR value."""
    name: str
    type: TensorInfo
    ir: ir.Value = field(repr=False)

    @property
    def shape(self):
        return self.type.shape

    @property
    def dtype(self):
        return self.type.dtype


class GraphWriter:
    def __init__(self, function: str = "forward", context: Optional[ir.Context] = None,
                 module: Optional[ir.Module] = None):
        """`context`: the MLIR context to build in (a new one by default); `module`: a module to
        add the function to (its weights' globals shared), instead of a new one."""
        self.function = function
        self._f = FunctionBuilder(function, context, module)
        self.args: list[tuple[Value, str, dict]] = []   # (value, its mla.name, its other attributes)
        self.results: list[Value] = []
        self._names: set = set()
        self._location = None
        self._loads: dict = {}              # weight name -> its Value

    # --- the module ------------------------------------------------------------------------
    @property
    def context(self) -> ir.Context:
        return self._f.context

    @property
    def module(self) -> ir.Module:
        return self._f.module

    def build(self, context: Optional[ir.Context] = None) -> ir.Module:
        """A copy of the written module, for ascend_mla.compile (a source builds into a context:
        a writer's IR is in its own, `self.context`), which transforms it: the writer's module
        stays as written, to compile again."""
        if context is not None and context is not self.context:
            raise ValueError("a GraphWriter builds in its own context (GraphWriter(context=...) chooses it)")
        if not self._f.returned:
            raise ValueError(f"@{self.function}: no ret() yet (the function's results are not known)")
        return clone_module(self.module)

    def text(self) -> str:
        """The module as text (to read or save; compile the writer itself)."""
        return str(self.module)

    # --- where the next ops come from --------------------------------------------------------
    @property
    def location(self):
        return self._location

    @location.setter
    def location(self, where):
        """None, an ir.Location, a name (a NameLoc: the module path of model code), or (file,
        line, column) of a source file."""
        self._location = where
        with self.context:
            if where is None:
                loc = ir.Location.unknown()
            elif isinstance(where, ir.Location):
                loc = where
            elif isinstance(where, str):
                loc = ir.Location.name(where)
            else:
                file, line, col = where
                loc = ir.Location.file(str(file), int(line), int(col))
        self._f.loc = loc

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
    def arg(self, name: str, t: TensorInfo, attributes=()) -> Value:
        """A function argument named `name` (mla.name); `attributes`: more unit attributes of
        it, by name (`"mla.buffer"`: the state of the module the program came from), or a dict
        name -> ir.Attribute."""
        if isinstance(attributes, str):
            attributes = [a.strip() for a in attributes.split(",") if a.strip()]
        with self.context:
            attrs = dict(attributes) if isinstance(attributes, dict) else \
                {a: ir.UnitAttr.get() for a in attributes}
        v = self._f.arg(name, t, attrs)
        value = Value(self._fresh(name), t, v)
        self.args.append((value, name, attrs))
        return value

    def weight(self, name: str, t: TensorInfo) -> Value:
        if name not in self._loads or self._loads[name].type != t:
            v = self._f.weight(name, t)
            self._loads[name] = Value(self._fresh(name.split(".", 2)[-1] if name.startswith("model.") else name), t, v)
        return self._loads[name]

    def constant(self, value: float, t: TensorInfo, hint="cst") -> Value:
        """arith.constant dense<value> (a splat)."""
        return Value(self._fresh(hint), t, self._f.builder.splat(value, t))

    def integers(self, values, t: TensorInfo, hint="cst") -> Value:
        """arith.constant of an integer array (nested lists of t's shape), e.g. a block table."""
        return Value(self._fresh(hint), t, self._f.builder.dense(values, t))

    # --- ops -----------------------------------------------------------------------------
    def op(self, opdef: OpDef, *, name: str = "", result: dict | None = None, **given):
        """An mla op; operands and attributes by their declared names. Returns its result (a
        tuple of them for an op with several)."""
        operands = {o.name: given.pop(o.name, None) for o in opdef.operands}
        attributes = {k: v for k, v in given.items() if v is not None}
        unknown = set(attributes) - set(opdef.attribute_by_name)
        if unknown:
            raise TypeError(f"{opdef.name}: unknown operands/attributes {sorted(unknown)}")
        for spec in opdef.operands:
            v = operands[spec.name]
            if spec.kind == "single" and (v is None or isinstance(v, list)):
                raise TypeError(f"{opdef.name}: operand {spec.name} is required")
        infos = {k: ([x.type for x in v] if isinstance(v, list) else v.type)
                 for k, v in operands.items() if v is not None}
        types = opdef.result_infos(opdef.snapshot_from_parts(infos, attributes)) if opdef.infer_results else {}
        types.update(result or {})
        values = {k: ([x.ir for x in v] if isinstance(v, list) else v.ir) for k, v in operands.items() if v is not None}
        op = self._f.builder.op(opdef, values, attributes, [types[r] for r in opdef.result_names])
        several = len(opdef.result_names) > 1
        results = [Value(self._fresh(f"{name or opdef.op_name}" + (f"_{r}" if several else "")), types[r], v)
                   for r, v in zip(opdef.result_names, op.results)]
        return results[0] if len(results) == 1 else tuple(results)

    def extract_slice(self, v: Value, offsets, sizes, name="slice", strides=None) -> Value:
        return Value(self._fresh(name), TensorInfo(tuple(sizes), v.dtype),
                     self._f.builder.extract_slice(v.ir, offsets, sizes, strides))

    def concat(self, values, axis: int, name="concat") -> Value:
        """tensor.concat of `values` along `axis`."""
        shape = list(values[0].shape)
        shape[axis] = sum(v.shape[axis] for v in values)
        return Value(self._fresh(name), TensorInfo(tuple(shape), values[0].dtype),
                     self._f.builder.concat([v.ir for v in values], axis))

    def reshape(self, v: Value, shape, name="view") -> Value:
        """tensor.expand_shape or tensor.collapse_shape, whichever the shapes allow (through the
        flat vector when neither does: still a view)."""
        shape = tuple(shape)
        if shape == v.shape:
            return v
        return Value(self._fresh(name), TensorInfo(shape, v.dtype), self._f.builder.reshape(v.ir, shape))

    def cast(self, v: Value, dtype: str, name="cast") -> Value:
        """arith.truncf / arith.extf to `dtype`."""
        return Value(self._fresh(name), TensorInfo(v.shape, dtype), self._f.builder.cast(v.ir, dtype))

    def elementwise(self, op_name: str, values, t: TensorInfo, name="v") -> Value:
        """An upstream elementwise op on tensors (math.absf, arith.maximumf, arith.fptosi...)."""
        return Value(self._fresh(name), t, self._f.builder.elementwise(op_name, [v.ir for v in values], t))

    def ret(self, *values: Value):
        self.results = list(values)
        self._f.ret([v.ir for v in values])

    def drop_unused(self):
        """Erase the ops nothing uses (an importer may write a view it then looks through, a
        converter that failed half way its first ops): the cleanup's erasure (passes/cleanup.py,
        by the PURE trait: ops with effects stay)."""
        from ..dialect.dialect import symbol_text
        from ..passes.cleanup import erase_unused
        with self.context:
            erase_unused(self._f.block)
            loaded = {symbol_text(op.operation.attributes["global"]) for op in self._f.block.operations
                      if op.operation.name == "ml_program.global_load_const"}
        for name in [n for n in self._loads if n not in loaded]:       # (an erased op's handle is not touched)
            del self._loads[name]
            self._f.forget_load(name)
