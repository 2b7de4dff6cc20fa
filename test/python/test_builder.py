"""The in-context IR builder (dialect/builder.py) and the GraphWriter over it
(ascend_mla/models/graph.py): what they build verifies, compiles without text, and runs as the
ops compute; dead ops go by the cleanup's PURE-trait erasure, writes in place stay."""
from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

import ascend_mla
from ascend_mla.dialect.builder import FunctionBuilder, clone_module
from ascend_mla.dialect.dialect import verify_ops
from ascend_mla.dialect.primitive import Add, RmsNorm, ScatterCache
from ascend_mla.dialect.types import TensorInfo
from ascend_mla.models.graph import GraphWriter

F32 = "f32"


def test_the_builder_makes_verified_ir_of_every_upstream_op_it_offers():
    f = FunctionBuilder("f")
    x = f.arg("x", TensorInfo((2, 8), F32))
    gamma = f.weight("gamma", TensorInfo((8,), F32))
    b = f.builder
    y = b.op(RmsNorm, {"x": x, "gamma": gamma}, {"epsilon": 1e-6}).result      # result type inferred
    parts = [b.reshape(y, (16,)), b.reshape(y, (4, 4)), b.concat([b.last_axis_slice(y, 2, 4)] * 2, 1),
             b.cast(y, "bf16"), b.splat(0.5, TensorInfo((2,), F32)), b.dense([[1, 2]], TensorInfo((1, 2), "i32")),
             b.nz(b.cast(y, "bf16"))]
    module = f.ret([y, *parts])
    assert module.operation.verify() and verify_ops(module.operation)
    text = str(module)
    for name in ("tensor.collapse_shape", "tensor.expand_shape", "tensor.concat", "tensor.extract_slice",
                 "arith.truncf", "arith.constant", "mla.format_cast", "ml_program.global_load_const", 'mla.name = "x"'):
        assert name in text
    assert str(clone_module(module)) == text


def writer():
    g = GraphWriter("f")
    x = g.arg("x", TensorInfo((4, 8), F32))
    g.location = "model.block"
    y = g.op(RmsNorm, x=x, gamma=g.weight("gamma", TensorInfo((8,), F32)), epsilon=1e-6)
    g.reshape(y, (32,), "unused_view")                        # nothing reads it: dropped
    g.ret(g.op(Add, x=y, y=g.constant(1.0, TensorInfo((1,), F32))))
    return g, x


def test_a_writer_compiles_without_text_and_stays_as_written():
    g, _ = writer()
    g.drop_unused()
    written = g.text()
    assert "collapse_shape" not in written and "mla.rms_norm" in written
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    gamma = np.linspace(0.5, 1.5, 8, dtype=np.float32)
    expected = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * gamma + 1
    for _ in range(2):                                        # compiled twice from one writer
        program = ascend_mla.compile(g, weights={"gamma": gamma}, target="cpu")
        np.testing.assert_allclose(program(x)[0], expected, rtol=1e-5, atol=1e-5)
    assert g.text() == written
    assert program.stages["input"].count("mla.rms_norm") == 1


def test_drop_unused_keeps_a_write_in_place():
    g = GraphWriter("f")
    cache = g.arg("cache", TensorInfo((2, 4, 1, 8), "bf16"))
    slots = g.arg("slots", TensorInfo((2,), "i64"))
    update = g.arg("update", TensorInfo((2, 1, 8), "bf16"))
    g.op(ScatterCache, cache=cache, slot_mapping=slots, update=update)     # its result unused
    g.ret(update)
    g.drop_unused()
    assert "mla.scatter_cache" in g.text()


def test_built_ops_are_located_by_name_in_errors_and_reports():
    g, _ = writer()
    with g.context:
        assert "model.block" in str(next(op for op in g.module.body.operations[-1].regions[0].blocks[0].operations
                                         if op.operation.name == "mla.rms_norm").location)
    bad = GraphWriter("f")
    bad.location = ("model.py", 7, 3)
    x = bad.arg("x", TensorInfo((4, 8), F32))
    gamma = bad.arg("gamma", TensorInfo((4,), F32))          # not (8,): RMS- rule
    bad.ret(bad.op(RmsNorm, x=x, gamma=gamma, result={"y": TensorInfo((4, 8), F32)}))
    with pytest.raises(ascend_mla.VerificationError, match=r"model\.py:7:3: error: 'mla\.rms_norm' op gamma"):
        ascend_mla.compile(bad)
    g.location = "model.block"
    named = GraphWriter("f")
    named.location = "model.layers.3.self_attn"
    x = named.arg("x", TensorInfo((4, 8), F32))
    named.ret(named.op(RmsNorm, x=x, gamma=named.arg("gamma", TensorInfo((4,), F32)),
                       result={"y": TensorInfo((4, 8), F32)}))
    with pytest.raises(ascend_mla.VerificationError,
                       match=r"net:model\.layers\.3\.self_attn: error: 'mla\.rms_norm' op gamma"):
        ascend_mla.compile(named, source_name="net")


def test_a_writer_builds_only_in_its_own_context():
    g, _ = writer()
    with pytest.raises(ValueError, match="its own context"):
        g.build(ir.Context())
