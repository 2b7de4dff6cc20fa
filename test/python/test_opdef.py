"""The op-declaration machinery: IRDL, builders, segment sizes, accessors, verification."""
import pytest
from mlir import ir
from mlir.dialects import func

from ascend_mla.dialect import (
    Dialect,
    OpDef,
    RuleSet,
    TensorInfo,
    f64,
    i1,
    i64,
    i64_array,
    make_context,
    operand,
    optional,
    string,
    tensor_type,
    variadic,
    verify_ops,
)
from ascend_mla.dialect.diagnostics import DiagnosticCollector
from ascend_mla.dialect.dialect import register_dialect

# A test dialect exercising every declaration feature the real ops use.
rules = RuleSet()


@rules.rule("T-001", "a")
def a_rank(op, s):
    if op.a.rank != 2:
        return f"expected rank 2, got {op.a.rank}"


@rules.rule("T-002", "mode")
def mode_known(op, s):
    if op.mode not in ("X", "Y"):
        return f"expected \"X\" or \"Y\", got \"{op.mode}\""


@rules.rule("T-003", "b", profiles="STRICT")
def b_required_when_strict(op, s):
    if op.b is None:
        return "is required in the STRICT profile"


@rules.rule("T-004", "rest", severity="warning")
def many_rest(op, s):
    if len(op.rest) > 2:
        return f"{len(op.rest)} tensors is a lot"


@rules.rule("T-006", "flag", severity="remark")
def flag_set(op, s):
    if op.flag:
        return "flag is set: the slow path runs"


@rules.rule("T-005", "out")
def out_shape(op, s):
    if op.out.shape != (s.M, s.K):
        return f"expected ({s.M}, {s.K}), got {op.out.shape}"


TEST = Dialect("mlatest")
Thing = TEST.add(OpDef(
    "mlatest.thing",
    operands=[operand("a"), optional("b"), variadic("rest"), optional("c")],
    attributes=[f64("eps", default=1e-5), i64("count", default=3), i1("flag", default=False),
                string("mode", default="X"), i64_array("lengths"), i64("needed")],
    results=["out", "aux"],
    rules=rules,
    symbols={"M": lambda op, s: op.a.shape[0], "K": lambda op, s: op.a.shape[1]},
    profiles=("LOOSE", "STRICT"),
))
register_dialect(TEST)


@pytest.fixture
def ctx():
    context = make_context()
    TEST.load(context)
    TEST.load(context)  # loading twice is harmless
    with context, ir.Location.unknown(), DiagnosticCollector(context) as diags:
        context.diags = diags
        yield context


def build_thing(n_rest=2, with_b=True, with_c=False, attrs=None, out_shape=(4, 8)):
    t = tensor_type((4, 8), "bf16")
    arg_types = [t] * (1 + with_b + n_rest + with_c)
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp("f", (arg_types, []))
        block = fn.add_entry_block()
    args = list(block.arguments)
    operands = {"a": args.pop(0)}
    if with_b:
        operands["b"] = args.pop(0)
    operands["rest"] = [args.pop(0) for _ in range(n_rest)]
    if with_c:
        operands["c"] = args.pop(0)
    with ir.InsertionPoint(block):
        op = Thing.build(operands, {"needed": 7, **(attrs or {})},
                         [tensor_type(out_shape, "f32"), tensor_type((1,), "f32")])
        func.ReturnOp([])
    return module, op


def test_irdl_declares_every_operand_with_its_variadicity():
    text = TEST.irdl()
    assert "irdl.operation @thing" in text
    assert "irdl.operands(a: %1, b: optional %2, rest: variadic %3, c: optional %4)" in text
    # Only the attribute without a default is mandatory in IRDL.
    assert 'irdl.attributes {"needed" = %5}' in text
    assert "irdl.results(out: %6, aux: %7)" in text


def test_builder_sets_segment_sizes_and_omits_defaults(ctx):
    module, op = build_thing(n_rest=3, with_b=False, with_c=True, attrs={"eps": 1e-5, "count": 4})
    assert list(op.attributes["operandSegmentSizes"]) == [1, 0, 3, 1]
    assert "eps" not in op.attributes          # equal to its default
    assert op.attributes["count"].value == 4
    assert module.operation.verify()
    # The printed IR parses back to the same op.
    again = ir.Module.parse(str(module))
    assert str(again) == str(module)


def test_accessors_name_operands_attributes_and_results(ctx):
    _, op = build_thing(n_rest=2, with_b=True)
    thing = Thing.wrap(op)
    assert thing.a == op.operands[0]
    assert thing.b == op.operands[1]
    assert list(thing.rest) == list(op.operands[2:4])
    assert thing.c is None
    assert thing.eps == 1e-5 and thing.count == 3 and thing.flag is False and thing.mode == "X"
    assert thing.lengths is None and thing.needed == 7
    assert thing.out == op.results[0] and thing.aux == op.results[1]
    with pytest.raises(TypeError, match="expected a mlatest.thing op"):
        Thing.wrap(ir.Operation.create("func.return"))


def test_snapshot_reads_types_and_given_attributes(ctx):
    _, op = build_thing(n_rest=1, attrs={"lengths": [1, 2], "mode": "Y"})
    snap = Thing.snapshot(op)
    assert snap.a == TensorInfo((4, 8), "bf16")
    assert snap.rest == [TensorInfo((4, 8), "bf16")]
    assert snap.c is None and not snap.present("c") and snap.present("b")
    assert snap.lengths == [1, 2] and snap.present("lengths") and not snap.present("count")
    assert snap.out.shape == (4, 8) and snap.out.dtype == "f32"


def test_verification_reports_the_first_failed_rule_with_parameter_and_id(ctx):
    module, _ = build_thing(attrs={"mode": "Z"}, out_shape=(4, 9))
    assert not verify_ops(module.operation)
    errors = [d for d in ctx.diags.diagnostics if d.severity == "error"]
    # T-002 fails first; T-005 (also violated) is not reported: one error per op.
    assert [d.message for d in errors] == [
        "'mlatest.thing' op mode: expected \"X\" or \"Y\", got \"Z\" [T-002]"]


def test_profiles_select_rules(ctx):
    _, op = build_thing(with_b=False)
    assert Thing.verify(op).ok                      # default profile: LOOSE
    verdict = Thing.verify(op, profile="STRICT")
    assert [f.rule.id for f in verdict.errors] == ["T-003"]


def test_warnings_do_not_fail_verification(ctx):
    module, _ = build_thing(n_rest=3)
    assert verify_ops(module.operation)
    assert [d.severity for d in ctx.diags.diagnostics] == ["warning"]
    assert "rest: 3 tensors is a lot [T-004]" in ctx.diags.diagnostics[0].message


def test_remarks_are_reported_with_their_severity(ctx):
    module, _ = build_thing(attrs={"flag": True})
    assert verify_ops(module.operation)
    assert [(d.severity, d.message) for d in ctx.diags.diagnostics] == [
        ("remark", "'mlatest.thing' op flag: flag is set: the slow path runs [T-006]")]


def test_unknown_severity_is_refused():
    with pytest.raises(ValueError, match="severity must be error, warning or remark"):
        RuleSet().rule("T-X", "a", severity="info")(lambda op, s: None)


def test_wrong_attribute_kind_is_a_diagnostic_naming_the_attribute(ctx):
    module, op = build_thing()
    op.attributes["count"] = ir.StringAttr.get("three")
    assert not verify_ops(module.operation)
    assert ctx.diags.diagnostics[-1].message == (
        "'mlatest.thing' op count: expected an i64 integer attribute, got \"three\" [ARG-003]")


def test_a_foreign_tensor_encoding_is_rejected(ctx):
    module = ir.Module.parse("""
    func.func @f(%a: tensor<4x8xbf16, "weird">) {
      "mlatest.thing"(%a) {needed = 1 : i64, operandSegmentSizes = array<i32: 1, 0, 0, 0>}
          : (tensor<4x8xbf16, "weird">) -> (tensor<4x8xf32>, tensor<1xf32>)
      return
    }""")
    assert not verify_ops(module.operation)
    assert "op a: unsupported tensor encoding" in ctx.diags.diagnostics[-1].message


def test_names_must_be_unique():
    with pytest.raises(ValueError, match="names used twice"):
        OpDef("mlatest.bad", operands=[operand("x")], attributes=[f64("x", default=1.0)], results=["y"])


def test_the_mla_dialect_is_loaded_once_per_context():
    context = make_context()
    assert context.is_registered_operation("mla.rms_norm")
    from ascend_mla.dialect import load_dialects
    load_dialects(context)  # no error, no second registration
    assert context.is_registered_operation("mla.rms_norm")
