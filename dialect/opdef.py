"""One declarative Python definition per op, and everything derived from it.

    RmsNorm = OpDef("mla.rms_norm",
        operands=[operand("x"), operand("gamma")],
        attributes=[f64("epsilon", default=1e-5)],
        results=["y"],
        rules=rms_norm_rules, symbols={...}, infer_results=...)

From that one object come: the IRDL text (`Dialect.irdl()`), the generic builder
(`RmsNorm.build(...)`, operandSegmentSizes handled), named accessors (`RmsNorm.wrap(op).gamma`),
the snapshot the rules read (`OpSnapshot`), and the eager call's signature
(ascend_mla/eager.py). Nothing else lists an op's operands.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np
from mlir import ir

from .rules import ARGUMENT, DATAFLOW, DynamicDim, Finding, Rule, RuleSet, Symbols, UnknownResult, Verdict, run_rules
from .traits import CONSTANT_LIKE, PURE, RESHAPE, Trait, closure
from .types import TensorInfo, TypeDescriptionError, describe_type

SINGLE, OPTIONAL, VARIADIC = "single", "optional", "variadic"


@dataclass(frozen=True)
class Operand:
    name: str
    kind: str = SINGLE


def operand(name: str) -> Operand:
    return Operand(name, SINGLE)


def optional(name: str) -> Operand:
    return Operand(name, OPTIONAL)


def variadic(name: str) -> Operand:
    return Operand(name, VARIADIC)


# --- argument kinds -------------------------------------------------------------------------
# What a call can get wrong before any op rule may read its arguments: IR rules these out by
# construction (IRDL fixes the operands, an attribute has a kind), an eager call does not. One
# rule per parameter family, the same for every op; an op whose seed numbers such a check for
# one of its parameters (NSA-016: "the host arrays are INT64") declares it as a rule of kind
# "argument", which runs first, so the seed's ID is the one reported.

def _kind_rule(rule_id: str, family: str) -> Rule:
    return Rule(rule_id, family, check=None, kind=ARGUMENT)


KIND_RULES = {
    "required": _kind_rule("ARG-001", "a required operand or host parameter is given (not None)"),
    "tensor": _kind_rule("ARG-002", "a tensor operand is a NumPy array, an NZTensor or a CPU "
                                    "torch.Tensor, of a supported element type"),
    "i64": _kind_rule("ARG-003", "an integer host parameter is an int in the i64 range"),
    "f64": _kind_rule("ARG-004", "a float host parameter is a real number (int or float)"),
    "i1": _kind_rule("ARG-005", "a boolean host parameter is a bool"),
    "str": _kind_rule("ARG-006", "a string host parameter is a str (in IR: a UTF-8 string)"),
    "i64_array": _kind_rule("ARG-007", "an integer-list host parameter is a flat list, tuple or "
                                       "1-D array of ints in the i64 range"),
}


class KindError(TypeError, ValueError):
    """An argument of the wrong kind: `rule` is the KIND_RULES entry it breaks, `param` the
    argument when the raiser knows it. (A ValueError too, as describe_value's errors were.)"""

    def __init__(self, family: str, message: str, param: Optional[str] = None):
        super().__init__(message)
        self.rule = KIND_RULES[family]
        self.param = param

    def finding(self, param: Optional[str] = None) -> Finding:
        return Finding(self.rule, param or self.param or "?", str(self))

    def text(self) -> str:
        """`<param>: <reason> [<rule>]`, for a message without an op."""
        return f"{self.param}: {self} [{self.rule.id}]"


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


I64_RANGE = (-2**63, 2**63)


# --- attributes --------------------------------------------------------------------------

_NO_DEFAULT = object()


@dataclass(frozen=True)
class Attribute:
    """A host parameter. kind: f64 | i64 | i1 | str | i64_array. `default=None` on an
    i64_array means "absent" (an optional host list); required attributes have no default.

    `operand` names a tensor form of an i64_array: an optional operand (appended after the
    declared ones) that carries the same list as a 1-D integer tensor whose values are known
    only at run time (per-step sequence lengths of a compiled decode step). Rules read the
    attribute either way: in IR it is then a RuntimeList (reading it holds the rule until the
    values are known, like a dynamic dimension), at run time the tensor's values."""
    name: str
    kind: str
    default: Any = _NO_DEFAULT
    operand: Optional[str] = None

    @property
    def required(self) -> bool:
        return self.default is _NO_DEFAULT

    # IRDL base constraints: structural only (the attribute kind).
    _IRDL_BASE = {"f64": "#builtin.float", "i64": "#builtin.integer", "i1": "#builtin.integer",
                  "str": "#builtin.string", "i64_array": "#builtin.dense_array"}

    def irdl_base(self) -> str:
        return self._IRDL_BASE[self.kind]

    def to_mlir(self, value) -> ir.Attribute:
        if self.kind == "f64":
            return ir.FloatAttr.get(ir.F64Type.get(), float(value))
        if self.kind == "i64":
            return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))
        if self.kind == "i1":
            return ir.BoolAttr.get(bool(value))
        if self.kind == "str":
            return ir.StringAttr.get(str(value))
        if self.kind == "i64_array":
            return ir.DenseI64ArrayAttr.get([int(v) for v in value])
        raise AssertionError(self.kind)

    def from_mlir(self, attr: ir.Attribute):
        """The Python value of an attribute; KindError naming the expected kind otherwise."""
        # The bindings return attributes already downcast to their concrete class.
        if self.kind == "f64" and isinstance(attr, ir.FloatAttr) and isinstance(attr.type, ir.F64Type):
            return attr.value           # (an f16 attribute would hold the value rounded to f16)
        if self.kind == "i64" and isinstance(attr, ir.IntegerAttr):
            return attr.value
        if self.kind == "i1" and isinstance(attr, ir.BoolAttr):
            return attr.value
        if self.kind == "str" and isinstance(attr, ir.StringAttr):
            try:            # `.value` cannot convert bytes that are not UTF-8
                return bytes(attr.value_bytes).decode("utf-8")
            except UnicodeDecodeError:
                raise KindError("str", f"expected a UTF-8 string, got {attr}") from None
        if self.kind == "i64_array" and isinstance(attr, ir.DenseI64ArrayAttr):
            return list(attr)
        raise KindError(self.kind, f"expected {self.describe_kind()}, got {attr}")

    def from_python(self, value):
        """A Python host value as this attribute's value: numbers of the right kind, a list for
        an i64_array (from a list, tuple, NumPy array or tensor; its elements are checked by
        `check_elements`, after the op's own argument rules). KindError otherwise."""
        if self.kind == "i64_array":
            if hasattr(value, "tolist") and getattr(value, "ndim", 1) == 1:
                value = value.tolist()
            if isinstance(value, (list, tuple)):
                return list(value)
        elif self.kind == "f64":
            if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_)):
                try:
                    return float(value)
                except OverflowError:
                    raise KindError("f64", f"expected a float, got {value} (beyond the f64 range)") from None
        elif self.kind == "i64":
            if _is_int(value):
                if not I64_RANGE[0] <= value < I64_RANGE[1]:
                    raise KindError("i64", f"expected a 64-bit integer, got {value} (out of range)")
                return int(value)
        elif self.kind == "i1":
            if isinstance(value, (bool, np.bool_)):
                return bool(value)
        elif self.kind == "str":
            if isinstance(value, str):
                try:
                    value.encode("utf-8")
                except UnicodeEncodeError:
                    raise KindError("str", f"expected a string of Unicode characters, got {value!r}") from None
                return value
        raise KindError(self.kind, f"expected {self.describe_python_kind()}, got {_short_repr(value)}")

    def check_elements(self, value: list):
        """KindError unless every element of an i64_array value is a 64-bit integer."""
        for index, v in enumerate(value):
            if not _is_int(v):
                raise KindError("i64_array", f"expected a list of integers, got {_short_repr(v)} at index {index}")
            if not I64_RANGE[0] <= v < I64_RANGE[1]:
                raise KindError("i64_array", f"expected a list of 64-bit integers, got {v} at index {index}")

    def describe_python_kind(self) -> str:
        return {"f64": "a float", "i64": "an integer", "i1": "a bool", "str": "a string",
                "i64_array": "a list of integers"}[self.kind]

    def describe_kind(self) -> str:
        return {"f64": "an f64 float attribute", "i64": "an i64 integer attribute",
                "i1": "a boolean (i1) attribute", "str": "a string attribute",
                "i64_array": "an array<i64: ...> attribute"}[self.kind]


class _Unreadable:
    """An attribute the Python bindings cannot hand over (`array<ui64: ...>`, `array<si8: ...>`,
    `array<bf16: ...>`: nanobind's "Can't cast unknown element type"); its text, for the
    verifier's kind error."""

    def __init__(self, text: str):
        self.text = text

    def __str__(self):
        return self.text


def _attribute(op: ir.Operation, name: str):
    """op.attributes[name], or an _Unreadable with its text when the bindings cannot cast it."""
    try:
        return op.attributes[name]
    except TypeError:
        for i in range(len(op.attributes)):
            text = str(op.attributes[i])                 # NamedAttribute(name=value)
            head = f"NamedAttribute({name}="
            if text.startswith(head):
                return _Unreadable(text[len(head):-1])
        return _Unreadable("an attribute the bindings cannot read")


def _short_repr(value, limit: int = 80) -> str:
    """The value for a one-line message: an array by its type, shape and element type."""
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return f"{type(value).__name__} of shape {tuple(value.shape)} and element type {value.dtype}"
    text = " ".join(repr(value).split())
    return text if len(text) <= limit else text[:limit] + "..."


def f64(name, default=_NO_DEFAULT):
    return Attribute(name, "f64", default)


def i64(name, default=_NO_DEFAULT):
    return Attribute(name, "i64", default)


def i1(name, default=_NO_DEFAULT):
    return Attribute(name, "i1", default)


def string(name, default=_NO_DEFAULT):
    return Attribute(name, "str", default)


def i64_array(name, default=None, *, operand=None):
    return Attribute(name, "i64_array", default, operand)


class RuntimeList:
    """The value of an i64_array given as a tensor operand, before run time: any read of it
    raises DynamicDim, so a rule that needs the values holds until they are known."""

    def _unknown(self, *args):
        raise DynamicDim()

    __len__ = __iter__ = __getitem__ = __bool__ = __eq__ = _unknown
    __hash__ = None

    def __repr__(self):
        return "<known at run time>"


# --- the snapshot rules read ---------------------------------------------------------------

class OpSnapshot:
    """An op as plain Python: `snap.weight_uk` is a TensorInfo (None if absent; a list for a
    variadic operand), `snap.cache_mode` the attribute's value (default applied), results by
    name. `snap.present("x")` tells whether an optional operand or attribute was given."""

    def __init__(self, opdef: "OpDef", operands: dict, attributes: dict, results: Optional[dict],
                 given_attributes: frozenset):
        self.opdef = opdef
        self.name = opdef.name
        self._operands = operands
        self._attributes = attributes
        self._results = results
        self._given = given_attributes

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name in self._operands:
            return self._operands[name]
        if name in self._attributes:
            return self._attributes[name]
        if name in self.opdef.result_names:
            if self._results is None:
                raise UnknownResult(name)
            return self._results[name]
        raise AttributeError(f"{self.name} has no operand, attribute or result {name!r}")

    def present(self, name: str) -> bool:
        if name in self._operands:
            value = self._operands[name]
            return bool(value) if isinstance(value, list) else value is not None
        return name in self._given

    @property
    def operands(self) -> dict:
        return dict(self._operands)

    @property
    def attributes(self) -> dict:
        return dict(self._attributes)

    def with_values(self, values: Mapping[str, Any]) -> "OpSnapshot":
        """A copy whose operands carry tensor data (for runtime rules)."""
        operands = {}
        for name, info in self._operands.items():
            value = values.get(name)
            if isinstance(info, list):
                operands[name] = [i.with_value(v) for i, v in zip(info, value or [None] * len(info))]
            elif info is not None and value is not None:
                operands[name] = info.with_value(value)
            else:
                operands[name] = info
        attributes = dict(self._attributes)
        for operand, attribute in self.opdef.host_operands.items():
            if values.get(operand) is not None:
                try:
                    attributes[attribute] = [int(v) for v in np.asarray(values[operand]).reshape(-1)]
                except DynamicDim:      # not computed yet (an interpreter's early check)
                    pass
        return OpSnapshot(self.opdef, operands, attributes, self._results, self._given)


class StructuralError(Exception):
    """An op whose operands/attributes cannot even be described (wrong attribute kind...)."""

    def __init__(self, param: str, message: str, rule: Optional[Rule] = None):
        super().__init__(message)
        self.param = param
        self.message = message
        self.rule = rule


# --- the op definition ---------------------------------------------------------------------

class OpDef:
    def __init__(self, name: str, *, operands: Sequence[Operand], attributes: Sequence[Attribute] = (),
                 results: Sequence[str], rules: RuleSet | None = None,
                 symbols: Mapping[str, Callable] | None = None,
                 infer_results: Callable | None = None,
                 profiles: Sequence[str] = (), inplace: Mapping[str, str] | None = None,
                 traits: Sequence[Trait] | None = None, summary: str = ""):
        self.name = name
        self.dialect_name, self.op_name = name.split(".", 1)
        self.attributes = tuple(attributes)
        # Tensor forms of host lists (Attribute.operand): operand name -> attribute name.
        self.host_operands = {a.operand: a.name for a in self.attributes if a.operand}
        self.operands = tuple(operands) + tuple(Operand(o, OPTIONAL) for o in self.host_operands)
        # What the kernel takes: the declared operands (a host operand reaches it as its list).
        self.kernel_operands = tuple(o for o in self.operands if o.name not in self.host_operands)
        self.result_names = tuple(results)
        self.rules = rules if rules is not None else RuleSet()
        self.symbols = dict(symbols or {})
        self.infer_results = infer_results
        # Profiles select rule variants (e.g. "V2" for the aclnn op, "PT" for the torch_npu
        # call); the first one is what IR is verified against.
        self.profiles = tuple(profiles)
        self.default_profile = self.profiles[0] if self.profiles else None
        # result name -> operand name, for in-out buffers (paged caches): value semantics in
        # IR, the caller's own buffer at run time.
        self.inplace = dict(inplace or {})
        self.summary = summary
        # dialect/traits.py: PURE, CONSTANT_LIKE, RESHAPE (with what they imply). None: not
        # declared (the registries test fails on it; the op is then treated as having effects).
        self.traits_declared = traits is not None
        self.traits = closure(traits or ())
        self._check_traits()
        for operand in self.inplace.values():
            _add_inplace_rule(self.rules, operand)
        names = [o.name for o in self.operands] + [a.name for a in self.attributes] + list(self.result_names)
        duplicated = {n for n in names if names.count(n) > 1}
        if duplicated:
            raise ValueError(f"{name}: names used twice: {sorted(duplicated)}")
        self.attribute_by_name = {a.name: a for a in self.attributes}
        self.operand_by_name = {o.name: o for o in self.operands}
        self._wrapper = _make_wrapper_class(self)

    def __repr__(self):
        return f"OpDef({self.name})"

    def _check_traits(self):
        """A trait that contradicts the declaration is a mistake made here, not at a pass."""
        if PURE in self.traits and self.inplace:
            raise ValueError(f"{self.name}: PURE, but writes {sorted(self.inplace)} in place")
        if CONSTANT_LIKE in self.traits and self.operands:
            raise ValueError(f"{self.name}: CONSTANT_LIKE, but has operands")
        if RESHAPE in self.traits and (len(self.operands) != 1 or len(self.result_names) != 1):
            raise ValueError(f"{self.name}: RESHAPE takes one operand to one result")

    def has(self, trait: Trait) -> bool:
        return trait in self.traits

    @property
    def has_segments(self) -> bool:
        return any(o.kind != SINGLE for o in self.operands)

    # IRDL ------------------------------------------------------------------------------------
    def irdl(self, indent: str = "  ") -> str:
        lines = [f"irdl.operation @{self.op_name} {{"]
        counter = 0

        def constraint(base: str) -> str:
            # One constraint value per slot: IRDL treats a shared value as "same type".
            nonlocal counter
            counter += 1
            lines.append(f'  %{counter} = irdl.base "{base}"')
            return f"%{counter}"

        slots = []
        for o in self.operands:
            c = constraint("!builtin.tensor")
            prefix = {SINGLE: "", OPTIONAL: "optional ", VARIADIC: "variadic "}[o.kind]
            slots.append(f"{o.name}: {prefix}{c}")
        lines.append(f"  irdl.operands({', '.join(slots)})")
        # IRDL attributes are mandatory, so only attributes without a default are listed; the
        # kinds of the defaulted ones are checked by the Python verifier.
        required = [a for a in self.attributes if a.required]
        if required:
            entries = ", ".join(f'"{a.name}" = {constraint(a.irdl_base())}' for a in required)
            lines.append(f"  irdl.attributes {{{entries}}}")
        results = [f"{r}: {constraint('!builtin.tensor')}" for r in self.result_names]
        lines.append(f"  irdl.results({', '.join(results)})")
        lines.append("}")
        return "\n".join(indent + line for line in lines)

    # Snapshots -------------------------------------------------------------------------------
    def snapshot(self, op: ir.Operation) -> OpSnapshot:
        """Describe an MLIR op for the rules. Raises StructuralError naming the parameter."""
        op = op.operation
        self._check_segment_sizes(op)
        groups = self.operand_groups(op)
        operands = {}
        for spec, values in zip(self.operands, groups):
            infos = [_describe(spec.name, v.type) for v in values]
            operands[spec.name] = infos if spec.kind == VARIADIC else (infos[0] if infos else None)
        attributes, given = self._attribute_values(
            {name: _attribute(op, name) for name in self.attribute_by_name if name in op.attributes})
        for operand, attribute in self.host_operands.items():
            tensor = operands[operand]
            if tensor is None:
                continue
            if attribute in given:
                raise StructuralError(operand, f"{attribute} is given twice: as an attribute and "
                                               f"as the tensor operand {operand}")
            if tensor.rank != 1 or tensor.dtype not in ("i32", "i64"):
                raise StructuralError(operand, f"expected a 1-D i32 or i64 tensor (the values of "
                                               f"{attribute}), got {tensor}")
            attributes[attribute] = RuntimeList()
            given = given | {attribute}
        results = {name: _describe(name, r.type) for name, r in zip(self.result_names, op.results)}
        return OpSnapshot(self, operands, attributes, results, given)

    def snapshot_from_parts(self, operands: Mapping[str, Any], attributes: Mapping[str, Any],
                            results: Optional[Mapping[str, TensorInfo]] = None) -> OpSnapshot:
        """A snapshot from TensorInfos and Python attribute values (eager calls, builders)."""
        ops = {}
        for spec in self.operands:
            value = operands.get(spec.name)
            if spec.kind == VARIADIC:
                value = list(value) if value is not None else []
            ops[spec.name] = value
        given = frozenset(k for k, v in attributes.items() if v is not None)
        values = {}
        for a in self.attributes:
            values[a.name] = attributes[a.name] if attributes.get(a.name) is not None else (
                None if a.required else a.default)
        for operand, attribute in self.host_operands.items():
            if ops.get(operand) is not None and attributes.get(attribute) is None:
                values[attribute] = RuntimeList()
                given = given | {attribute}
        return OpSnapshot(self, ops, values, dict(results) if results is not None else None, given)

    def _attribute_values(self, mlir_attrs: Mapping[str, ir.Attribute]):
        values, given = {}, set()
        for a in self.attributes:
            if a.name in mlir_attrs:
                try:
                    values[a.name] = a.from_mlir(mlir_attrs[a.name])
                except KindError as e:
                    raise StructuralError(a.name, str(e), e.rule) from None
                given.add(a.name)
            else:
                values[a.name] = None if a.required else a.default
        return values, frozenset(given)

    def _check_segment_sizes(self, op: ir.Operation):
        """IRDL checks operandSegmentSizes only when an op has two or more optional/variadic
        operands; with one it infers the groups and ignores the attribute. operand_groups reads
        the attribute whenever it is there, so a given one must describe the operands."""
        if "operandSegmentSizes" not in op.attributes:
            return
        attr = op.attributes["operandSegmentSizes"]
        sizes = list(attr) if isinstance(attr, ir.DenseI32ArrayAttr) else None
        bad = (sizes is None or len(sizes) != len(self.operands) or sum(sizes) != len(op.operands)
               or any(n != 1 if o.kind == SINGLE else (n < 0 or o.kind == OPTIONAL and n > 1)
                      for o, n in zip(self.operands, sizes)))
        if bad:
            raise StructuralError("operandSegmentSizes", (
                f"expected array<i32> with one size per declared operand ({len(self.operands)}: "
                f"1 for a required one, 0 or 1 for an optional one) adding up to the "
                f"{len(op.operands)} operands, got {attr}"))

    def operand_groups(self, op: ir.Operation) -> list[list[ir.Value]]:
        """Operands grouped per declared operand, using operandSegmentSizes when present."""
        op = op.operation
        values = list(op.operands)
        if "operandSegmentSizes" in op.attributes:
            sizes = list(op.attributes["operandSegmentSizes"])
        else:
            fixed = sum(1 for o in self.operands if o.kind == SINGLE)
            sizes = [1 if o.kind == SINGLE else len(values) - fixed for o in self.operands]
        groups, start = [], 0
        for size in sizes:
            groups.append(values[start:start + size])
            start += size
        return groups

    # Verification ----------------------------------------------------------------------------
    def check(self, snapshot: OpSnapshot, *, profile: Optional[str] = None,
              phase: str = "static", rules: Optional[Sequence[Rule]] = None,
              deferred: Optional[list] = None) -> Verdict:
        """Run the rules of `phase` ("static", "runtime" or "all") on a snapshot; `rules`: only
        these of the op's rules (in the op's order); `deferred`: where the rules that read
        something not known yet are listed (rules.run_rules)."""
        symbols = Symbols(self.symbols, snapshot)
        return run_rules(self.rules if rules is None else rules, snapshot, symbols,
                         profile=profile or self.default_profile, phase=phase, deferred=deferred)

    def check_arguments(self, snapshot: OpSnapshot, *, profile: Optional[str] = None) -> Verdict:
        """The rules only a call can break, before any other rule reads the arguments: the op's
        own rules of kind "argument" (their seed IDs), then every required operand and host
        parameter given (ARG-001) and the elements of host integer lists (ARG-007)."""
        verdict = run_rules(self.rules, snapshot, Symbols(self.symbols, snapshot),
                            profile=profile or self.default_profile, phase=ARGUMENT)
        if not verdict.ok:
            return verdict
        missing = KindError("required", "is required, got None")
        for spec in self.operands:
            if spec.kind == SINGLE and getattr(snapshot, spec.name) is None:
                return Verdict(errors=[missing.finding(spec.name)], warnings=verdict.warnings)
        for a in self.attributes:
            value = getattr(snapshot, a.name)
            try:
                if value is None and a.required:
                    raise missing
                if value is not None and a.kind == "i64_array":
                    a.check_elements(value)
            except KindError as e:
                return Verdict(errors=[e.finding(a.name)], warnings=verdict.warnings)
        return verdict

    def result_infos(self, snapshot: OpSnapshot) -> dict:
        """Result types inferred from operands and attributes (for builders and eager calls)."""
        if self.infer_results is None:
            raise TypeError(f"{self.name} cannot infer its result types")
        return self.infer_results(snapshot, Symbols(self.symbols, snapshot))

    def verify(self, op: ir.Operation, *, profile: Optional[str] = None) -> Verdict:
        """The static rules, then (if they hold) the dataflow rules, on an op in IR. A profile
        the op does not have means its default one (a module's mla.profile names one for all ops)."""
        if profile not in self.profiles:
            profile = None
        try:
            snapshot = self.snapshot(op)
        except StructuralError as e:
            return Verdict(errors=[Finding(e.rule, e.param, e.message)])
        verdict = self.check(snapshot, profile=profile)
        if verdict.ok:
            flow = run_rules(self.rules, self.wrap(op), Symbols(self.symbols, snapshot),
                             profile=profile or self.default_profile, phase="dataflow")
            verdict.errors += flow.errors
            verdict.warnings += flow.warnings
        return verdict

    # Building --------------------------------------------------------------------------------
    def build(self, operands: Mapping[str, Any], attributes: Mapping[str, Any] | None = None,
              result_types: Sequence[ir.Type] | None = None, *, loc=None, ip=None) -> ir.Operation:
        """Create the op. `operands` maps names to Values (None/absent for an optional one, a
        list for a variadic one); attributes equal to their default are omitted."""
        attributes = dict(attributes or {})
        unknown = set(operands) - set(self.operand_by_name) | set(attributes) - set(self.attribute_by_name)
        if unknown:
            raise TypeError(f"{self.name}: unknown operands/attributes {sorted(unknown)}")
        flat, sizes = [], []
        for spec in self.operands:
            value = operands.get(spec.name)
            if spec.kind == SINGLE:
                if value is None:
                    raise TypeError(f"{self.name}: operand {spec.name} is required")
                group = [value]
            elif spec.kind == OPTIONAL:
                group = [] if value is None else [value]
            else:
                group = list(value or [])
            flat.extend(group)
            sizes.append(len(group))
        attrs = {}
        for a in self.attributes:
            value = attributes.get(a.name)
            if value is None:
                continue
            if not a.required and a.default is not None and _same(value, a.default):
                continue
            attrs[a.name] = a.to_mlir(value)
        if self.has_segments:
            attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get(sizes)
        if result_types is None:
            raise TypeError(f"{self.name}: result types are required")
        return ir.Operation.create(self.name, results=list(result_types), operands=flat,
                                   attributes=attrs, loc=loc, ip=ip)

    def wrap(self, op) -> "OpAdaptor":
        """Named accessors on an MLIR op: `.weight_dq` (Value or None), `.cache_mode`..."""
        return self._wrapper(self, op)


INPLACE_RULE = "INP-001"


def _add_inplace_rule(rules: RuleSet, operand: str):
    """INP-001: an operand updated in place (a paged cache) has no other use after the op. At
    run time the op writes the caller's buffer, so a later reader of the old value would see the
    new one: value semantics in IR hold only if every other reader comes first."""
    if any(r.id == INPLACE_RULE and r.param == operand for r in rules):
        return                                  # a rule set shared by two ops (prolog, prolog_v2)

    def check(op, s):
        value = getattr(op, operand)
        me = op.operation
        for use in value.uses:
            other = use.owner.operation
            if other == me:
                continue
            if other.block != me.block or not other.is_before_in_block(me):
                return (f"is updated in place by this op, but '{other.name}' also uses it after "
                        f"(at {_where(other.location)}): that use would see the update; use the "
                        f"op's result, or read the old value before it")
    check.__name__ = f"{operand}_updated_in_place"
    rules.rule(INPLACE_RULE, operand, kind=DATAFLOW)(check)


def _where(loc) -> str:
    from .diagnostics import file_position, location_name
    line, col = file_position(loc)
    return f"line {line}, column {col}" if line is not None else (location_name(loc) or str(loc))


def _same(a, b) -> bool:
    return list(a) == list(b) if isinstance(b, (list, tuple)) else a == b


def _describe(param: str, t: ir.Type) -> TensorInfo:
    try:
        return describe_type(t)
    except TypeDescriptionError as e:
        raise StructuralError(param, str(e), KIND_RULES["tensor"]) from None


class OpAdaptor:
    def __init__(self, opdef: OpDef, op):
        self.opdef = opdef
        self.operation = op.operation
        if self.operation.name != opdef.name:
            raise TypeError(f"expected a {opdef.name} op, got {self.operation.name}")

    def __repr__(self):
        return f"<{self.opdef.name} adaptor>"


def _make_wrapper_class(opdef: OpDef):
    """A class with one property per operand, attribute and result of the op."""
    props = {}
    for index, spec in enumerate(opdef.operands):
        def get(self, index=index, kind=spec.kind):
            group = self.opdef.operand_groups(self.operation)[index]
            if kind == VARIADIC:
                return group
            return group[0] if group else None
        props[spec.name] = property(get)
    for a in opdef.attributes:
        def get(self, a=a):
            attrs = self.operation.attributes
            if a.name in attrs:
                return a.from_mlir(attrs[a.name])
            return None if a.required else a.default
        props[a.name] = property(get)
    for index, r in enumerate(opdef.result_names):
        props[r] = property(lambda self, index=index: self.operation.results[index])
    class_name = "".join(p.capitalize() for p in opdef.op_name.split("_")) + "Adaptor"
    return type(class_name, (OpAdaptor,), props)
