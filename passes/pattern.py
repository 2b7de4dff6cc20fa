"""DAG patterns: a subgraph declared once, matched anywhere (any value names, any op order),
replaced by one op.

A pattern is written like the model code it recognises:

    p = Pattern("mla prolog, bf16", root="kv_store")
    x = p.input("token_x")
    kv = p.op("mla.matmul", x=x, w=p.weight("weight_dkv_kr"))
    c_kv = p.op("mla.rms_norm", x=p.op("tensor.extract_slice", kv, name="c_kv"), gamma=...)
    p.op("mla.scatter_cache", cache=p.input("kv_cache"), slot_mapping=p.input("cache_index"),
         update=p.view(c_kv), name="kv_store")

Operands of mla ops are given by their declared names, those of upstream ops by position.
`p.input(name)` matches any value, `p.weight(name)` a value computed from constants only;
an input used twice must be the same value in IR (that is how the query and key paths of the
prolog are tied to one token_x). `p.view(v)` accepts v through any chain of
reshapes (ops with the RESHAPE trait, dialect/traits.py: tensor.expand_shape/collapse_shape). `p.optional(name)` is an optional
mla operand that may be absent. `where=` adds a predicate on the matched op (a slice's offsets,
a rope's mode).

Matching (`match(pattern, anchor)`) starts at the root op and extends one op at a time along
the pattern's edges: to the producer of a matched op's operand (one candidate), or to a user of
a matched value (each user is tried: backtracking). A value computed inside a match may be used
outside only if the pattern names it as an output (`p.output`); `Match.escapes` lists the ops
that break this, and a pass refuses such a match rather than leave a half-fused graph. When no
match exists, `Progress` tells how far the best attempt got, so a pass can say which piece was
missing.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from mlir import ir

from ..dialect.dialect import MLA, is_constant_like, is_pure, is_reshape, load_op_definitions, opdef_of

ABSENT = object()            # the binding of an optional operand that is not there


@dataclass(eq=False)
class PValue:
    kind: str                          # "input" | "weight" | "result"
    name: Optional[str] = None
    producer: Optional["POp"] = None
    index: int = 0
    optional: bool = False

    def __repr__(self):
        return self.name or f"{self.producer.name}#{self.index}"


@dataclass(eq=False)
class Use:
    key: object                        # declared operand name (mla ops) or position
    value: PValue
    through_views: bool


@dataclass(eq=False)
class POp:
    op_name: str
    uses: list
    name: str
    where: Optional[Callable] = None
    role: str = ""
    rule: str = ""
    results: list = field(default_factory=list)

    def __getitem__(self, result):
        """A result by index, or by declared name for an mla op."""
        if isinstance(result, str):
            opdef = opdef_of_name(self.op_name)
            result = opdef.result_names.index(result)
        return self.results[result]


class _View:
    def __init__(self, value):
        self.value = value


class Pattern:
    def __init__(self, name: str, *, root: str):
        self.name = name
        self.root_name = root
        self.ops: list[POp] = []
        self.inputs: dict[str, PValue] = {}
        self.outputs: dict[str, PValue] = {}
        self._order = None

    # --- declaring ---------------------------------------------------------------------------
    def input(self, name: str) -> PValue:
        return self._named(name, "input")

    def weight(self, name: str) -> PValue:
        return self._named(name, "weight")

    def optional(self, name: str) -> PValue:
        value = self._named(name, "input")
        value.optional = True
        return value

    def _named(self, name, kind):
        if name not in self.inputs:
            self.inputs[name] = PValue(kind, name)
        value = self.inputs[name]
        if value.kind != kind:
            raise ValueError(f"{self.name}: {name} declared as {value.kind} and {kind}")
        return value

    @staticmethod
    def view(value) -> _View:
        return _View(value)

    def op(self, op_name: str, *positional, name: str = "", where=None, role: str = "", rule: str = "",
           **named) -> POp:
        uses = []
        for key, v in list(enumerate(positional)) + list(named.items()):
            through = isinstance(v, _View)
            v = v.value if through else v
            if isinstance(v, POp):
                v = v.results[0]
            uses.append(Use(key, v, through))
        pop = POp(op_name, uses, name or f"{op_name}#{len(self.ops)}", where, role, rule)
        opdef = declared(op_name)
        count = 1 if opdef is None else len(opdef.result_names)
        pop.results = [PValue("result", producer=pop, index=i) for i in range(count)]
        self.ops.append(pop)
        return pop

    def output(self, name: str, value):
        """A value of the subgraph that the rewrite replaces (may be used outside)."""
        self.outputs[name] = value.results[0] if isinstance(value, POp) else value

    def by_name(self, name) -> POp:
        return next(o for o in self.ops if o.name == name)

    # --- the order in which a match visits the ops -----------------------------------------
    @property
    def order(self) -> list:
        """[(pop, step)]: step is ("root",), ("producer", consumer pop, use) or
        ("user", value, use): each op is reached from one already visited."""
        if self._order is None:
            root = self.by_name(self.root_name)
            order, seen = [(root, ("root",))], {root}
            while len(order) < len(self.ops):
                order.append(self._next_step(seen))
                seen.add(order[-1][0])
            self._order = order
        return self._order

    def _next_step(self, seen):
        # The producer of a visited op's operand first (one candidate), then a user of a value
        # a visited op consumes or produces (several candidates).
        for pop in self.ops:
            if pop in seen:
                continue
            for consumer in seen:
                for use in consumer.uses:
                    if use.value.producer is pop:
                        return pop, ("producer", consumer, use)
        for pop in self.ops:
            if pop in seen:
                continue
            for use in pop.uses:
                v = use.value
                if v.producer in seen or v.kind != "result" and any(
                        u.value is v for c in seen for u in c.uses):
                    return pop, ("user", v, use)
        raise ValueError(f"pattern {self.name}: its ops are not connected")


def opdef_of_name(op_name):
    load_op_definitions()
    return MLA.ops[op_name]


def declared(op_name):
    """The OpDef of an mla op; None for an upstream op (operands by position, one result)."""
    load_op_definitions()
    return MLA.ops.get(op_name)


# --- IR helpers ------------------------------------------------------------------------------

def defining_op(value):
    """The Operation that computes `value` (None for a block argument). Operation, not OpView:
    a typed OpView's `.name` may be something else (func.func's is its symbol)."""
    return value.owner.operation if isinstance(value, ir.OpResult) else None


def origin(value):
    """The value before any chain of reshapes."""
    op = defining_op(value)
    while op is not None and is_reshape(op):
        value = op.operands[0]
        op = defining_op(value)
    return value


def view_chain(value) -> list:
    """value, then each value it is a reshape of."""
    chain = [value]
    op = defining_op(value)
    while op is not None and is_reshape(op):
        chain.append(op.operands[0])
        op = defining_op(chain[-1])
    return chain


def view_descendants(value) -> list:
    """value, then every reshape of it (through chains of reshapes)."""
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        out.append(v)
        stack.extend(use.owner.results[0] for use in v.uses if is_reshape(use.owner))
    return out


def is_constant(value, memo: dict | None = None) -> bool:
    """Computed from constants (weights) only, by PURE ops (dialect/traits.py). `memo` (value ->
    bool) keeps a walk over shared subgraphs linear."""
    memo = {} if memo is None else memo
    if value in memo:
        return memo[value]
    op = defining_op(value)
    if op is None:
        result = False
    elif is_constant_like(op):
        result = True
    else:
        result = is_pure(op) and bool(op.operands) and all(is_constant(v, memo) for v in op.operands)
    memo[value] = result
    return result


def last_axis_slice(op):
    """(start, size) when `op` is a tensor.extract_slice of its source's last axis only (other
    axes whole, unit strides, rank kept, static); None otherwise."""
    if op is None or op.name != "tensor.extract_slice" or len(op.operands) != 1:
        return None
    from ..dialect.types import describe_type
    shape = describe_type(op.operands[0].type).shape
    offsets, sizes, strides = (list(op.attributes[a]) for a in ("static_offsets", "static_sizes", "static_strides"))
    if len(sizes) != len(shape) or describe_type(op.results[0].type).rank != len(shape) \
            or any(s != 1 for s in strides) or any(o != 0 for o in offsets[:-1]) \
            or list(sizes[:-1]) != list(shape[:-1]):
        return None
    return offsets[-1], sizes[-1]


def operand_at(op, key):
    """The operand of `op` at `key` (a declared name of an mla op, or a position); None for an
    absent optional operand or an out-of-range position."""
    if isinstance(key, int):
        return op.operands[key] if key < len(op.operands) else None
    opdef = opdef_of(op)
    index = [o.name for o in opdef.operands].index(key)
    group = opdef.operand_groups(op)[index]
    return group[0] if group else None


# --- matching --------------------------------------------------------------------------------

@dataclass
class Progress:
    """How far the best failed attempt got: the ops matched and the op that had no candidate."""
    matched: int = -1
    missing: Optional[POp] = None
    anchor: object = None


class Match:
    def __init__(self, pattern, ops, values, direct, views):
        self.pattern = pattern
        self.ops = ops                 # POp -> ir op
        self.values = values           # PValue -> ir.Value (an input: before reshapes) or ABSENT
        self._direct = direct          # input PValue -> the value as one op uses it unreshaped
        outputs = {self.values[pv] for pv in pattern.outputs.values()}
        # The reshapes between matched ops, but not those of an output: a reshape of an output
        # stays (a rewrite gives it the new value) and may have users outside.
        self.views = [v for v in views if not any(x in outputs for x in view_chain(v.operands[0]))]
        # Values computed inside and used outside without being outputs: replacing the match
        # would leave their ops half-fused, so a pass refuses such a match.
        inside = self.operations
        self.escapes = [r for op in inside for r in op.results
                        if r not in outputs and any(u.owner.operation not in inside for u in r.uses)]

    @property
    def operations(self) -> set:
        """Every op the match replaces: the matched ops and the reshapes between them."""
        return {op.operation for op in self.ops.values()} | {v.operation for v in self.views}

    def value(self, name):
        """The IR value bound to input/weight `name` (None when an optional one is absent)."""
        pv = self.pattern.inputs[name]
        v = self._direct.get(pv, self.values.get(pv))
        return None if v is ABSENT else v

    def op(self, name):
        return self.ops[self.pattern.by_name(name)]

    @property
    def pattern_ops(self) -> set:
        """The names of the pattern's ops."""
        return {pop.name for pop in self.pattern.ops}

    def output(self, name):
        return self.values[self.pattern.outputs[name]]


def match(pattern: Pattern, anchor, progress: Optional[Progress] = None) -> Optional[Match]:
    """The match of `pattern` whose root is `anchor`, or None."""
    progress = progress if progress is not None else Progress()
    root = pattern.order[0][0]
    if anchor.name != root.op_name:
        return None
    state = _State(anchor.block)
    if not state.bind(root, anchor):
        progress.matched, progress.missing, progress.anchor = 0, root, anchor
        return None
    if not _extend(pattern, state, 1, progress, anchor):
        return None
    return Match(pattern, dict(state.ops), dict(state.values), dict(state.direct), list(state.views.values()))


class _State:
    def __init__(self, block):
        self.block = block       # a match stays in its root's block (it is rewritten there)
        self.ops, self.values, self.direct, self.used = {}, {}, {}, set()
        self.views = {}          # reshape ops between matched ops: part of the match

    def snapshot(self):
        return dict(self.ops), dict(self.values), dict(self.direct), set(self.used), dict(self.views)

    def restore(self, saved):
        self.ops, self.values, self.direct, self.used, self.views = saved

    def take_views(self, value, bound):
        """The reshapes from `bound` up to `value` (a consumer's operand) belong to the match."""
        for v in view_chain(value):
            if v == bound:
                return
            self.views[v.owner.operation] = v.owner

    def bind(self, pop: POp, op) -> bool:
        op = op.operation
        if op in self.used or op.name != pop.op_name or op.block != self.block:
            return False
        if pop.where is not None and not pop.where(op):
            return False
        if not _unnamed_operands_absent(pop, op):
            return False
        for use in pop.uses:
            value = operand_at(op, use.key)
            if value is None:
                if not use.value.optional:
                    return False
                if self.values.setdefault(use.value, ABSENT) is not ABSENT:
                    return False
                continue
            if not self._bind_value(use, value):
                return False
        if len(pop.results) != len(op.results):
            return False
        for pv, r in zip(pop.results, op.results):
            if pv in self.values and self.values[pv] != r:
                return False
            self.values[pv] = r
        # Uses of these results by ops matched earlier (whose check waited for this binding).
        for consumer, matched in self.ops.items():
            for use in consumer.uses:
                if use.value in pop.results:
                    value = operand_at(matched, use.key)
                    bound = self.values[use.value]
                    if value != bound and not (use.through_views and bound in view_chain(value)):
                        return False
                    self.take_views(value, bound)
        self.ops[pop] = op
        self.used.add(op.operation)
        return True

    def _bind_value(self, use: Use, value) -> bool:
        pv = use.value
        if pv.kind == "result":
            if pv not in self.values:         # its producer is matched later, from this use
                return True
            bound = self.values[pv]
            if bound == value or use.through_views and bound in view_chain(value):
                self.take_views(value, bound)
                return True
            return False
        key = origin(value) if use.through_views else value
        if pv in self.values:
            bound = self.values[pv]
            if bound is ABSENT or origin(bound) != origin(value):
                return False
        elif pv.kind == "weight" and not is_constant(value):
            return False
        else:
            self.values[pv] = key
        if not use.through_views:
            self.direct.setdefault(pv, value)
        return True


def _unnamed_operands_absent(pop: POp, op) -> bool:
    """An mla op's operands the pattern does not name must be absent: a pattern that leaves out
    an optional operand (a quant scale...) does not describe an op that has it."""
    opdef = opdef_of(op)
    if opdef is None:
        return True
    named = {u.key for u in pop.uses}
    return all(not values for spec, values in zip(opdef.operands, opdef.operand_groups(op))
               if spec.name not in named)


def _candidates(state: _State, step, pop: POp):
    kind = step[0]
    if kind == "producer":
        _, consumer, use = step
        value = operand_at(state.ops[consumer], use.key)
        if value is None:
            return []
        chain = view_chain(value) if use.through_views else [value]
        return [defining_op(v) for v in chain
                if defining_op(v) is not None and defining_op(v).name == pop.op_name]
    _, pv, use = step
    bound = state.values.get(pv)
    if bound is None or bound is ABSENT:
        return []
    sources = view_descendants(bound) if use.through_views else [bound]
    seen, out = set(), []
    for v in sources:
        for u in v.uses:
            if u.owner.name == pop.op_name and u.owner.operation not in seen:
                seen.add(u.owner.operation)
                out.append(u.owner)
    return out


def _extend(pattern, state, index, progress, anchor) -> bool:
    if index == len(pattern.order):
        return True
    pop, step = pattern.order[index]
    for candidate in _candidates(state, step, pop):
        saved = state.snapshot()
        if state.bind(pop, candidate) and _extend(pattern, state, index + 1, progress, anchor):
            return True
        state.restore(saved)
    if index > progress.matched:
        progress.matched, progress.missing, progress.anchor = index, pop, anchor
    return False


class Anchors:
    """The ops a pass tries its patterns at, collected once in walk order.

    A rewrite erases ops, and a Python handle of an erased op must not be touched again: the
    pass reports what it erased (`erased`), and iteration skips those ops by identity (the
    address of the op, taken before it was erased)."""

    def __init__(self, root, names):
        self._ops = []      # (identity, op): an erased op's handle no longer knows its identity
        root.walk(lambda op: (self._ops.append((hash(op.operation), op.operation))
                              if op.operation.name in names else None,
                              ir.WalkResult.ADVANCE)[1])
        self._gone = set()

    def erased(self, ops):
        self._gone.update(hash(op) for op in ops)

    def __iter__(self):
        for identity, op in self._ops:
            if identity not in self._gone:
                yield op
