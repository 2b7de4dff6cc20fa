"""compile() converts each bound weight into the form its CPU kernel reads (oneDNN-packed bf16,
int8 as torch._int_mm reads it, contiguous per-head weights: runtime/kernels gemm.prepare), so a
compiled program's first call converts nothing: it used to take 0.3-0.8 s of a 2-layer decode
step. And compile() makes no form the kernels would not make themselves: the forms are the same
as those a program compiled without the preparation makes on its first call."""
from __future__ import annotations

import numpy as np
import pytest

import ascend_mla
from ascend_mla import compiler
from ascend_mla.models import deepseek
from ascend_mla.runtime.formats import NZTensor
from ascend_mla.runtime.kernels import gemm

UNFUSED = "builtin.module(verify,fold-constants,cleanup)"     # the primitives, weights folded


def forms(program, known=frozenset()):
    """The converted forms of a program's weights: (weight, key) of each NZ weight's, and the
    (shape, strides, dtype, key) of gemm's constant-cache entries not in `known`."""
    nz = sorted((name, key) for name, v in program.weights.items() if isinstance(v, NZTensor)
                for key in v.kernel_cache)
    nd = sorted(k[2:] for k in gemm._CONSTANTS if k not in known)
    return nz, nd


def run_once(program, model):
    return program(**model.inputs(0, model.new_caches()))


@pytest.mark.parametrize("quant, pipeline", [("bf16", "default"), ("bf16", UNFUSED), ("w8a8", "default")])
def test_the_first_call_converts_no_weight(quant, pipeline, monkeypatch):
    model = deepseek.build("deepseek-v3", tp=32, layers=1, batch=2, quant=quant, block_size=16,
                           max_positions=32)
    known = frozenset(gemm._CONSTANTS)
    prepared = ascend_mla.compile(model, pipeline=pipeline, target="cpu")
    at_compile = forms(prepared, known)
    assert at_compile != ([], []), "compile() prepared no weight"
    run_once(prepared, model)
    assert forms(prepared, known) == at_compile, "the first call converted a weight"

    # the forms a program makes by itself on its first call, without the preparation
    monkeypatch.setattr(compiler, "prepare_weights", lambda fn, constants: 0)
    known = frozenset(gemm._CONSTANTS)
    lazy = ascend_mla.compile(model, pipeline=pipeline, target="cpu")
    assert forms(lazy, known) == ([], [])
    outputs = run_once(lazy, model)
    assert forms(lazy, known) == at_compile
    # and the preparation changes no output bit
    for got, expected in zip(run_once(prepared, model), outputs):
        np.testing.assert_array_equal(np.asarray(got).view(np.uint8), np.asarray(expected).view(np.uint8))


def test_a_program_for_the_npu_prepares_nothing_for_the_cpu(monkeypatch):
    """The preparation is the CPU kernels': a program that runs elsewhere does not pay it."""
    from ascend_mla.runtime import backend
    calls = []
    monkeypatch.setattr(compiler, "prepare_weights", lambda fn, constants: calls.append(fn))
    monkeypatch.setattr(compiler, "backend_instance", lambda name: type("Npu", (), {"name": "npu"})())
    model = deepseek.build("deepseek-v3", tp=32, layers=1, batch=1, block_size=16, max_positions=16)
    ascend_mla.compile(model, target="auto")
    assert calls == []
    monkeypatch.setattr(compiler, "backend_instance", backend.backend_instance)
    ascend_mla.compile(model, target="cpu")
    assert len(calls) == 1


@pytest.mark.parametrize("shape", [(0, 8), (8, 0), (0, 0)])
def test_an_empty_constant_weight_is_prepared_and_multiplied(shape, monkeypatch):
    """oneDNN packs no empty weight (it failed with 'could not create a primitive descriptor',
    at the first call before and in compile() once compile() prepared it): an empty one goes
    to the plain product, which gives the zeros of the empty sum."""
    import ml_dtypes

    from ascend_mla.runtime.kernels import get_kernel
    bf16 = np.dtype(ml_dtypes.bfloat16)
    w = np.zeros(shape, bf16)
    w.flags.writeable = False
    for library in ("torch", "numpy"):
        monkeypatch.setenv("ASCEND_MLA_MATMUL", library)
        gemm.prepare(w, "matmul")
        (y,) = get_kernel("mla.matmul")(x=np.ones((3, shape[0]), bf16), w=w)
        assert y.shape == (3, shape[1]) and not np.asarray(y, np.float32).any()


def test_a_form_that_views_the_constant_is_not_kept():
    """The kernels' forms of an ND constant live as long as the constant: a form that is a view
    of the constant's own memory (torch._int_mm's int8 weight over a contiguous array, as each
    expert of a w8a8 MoE is) is not kept, since the cache would then keep the constant alive for
    ever: every compile of a w8a8 model added its experts to the process's memory for good."""
    import gc
    import weakref
    w = np.arange(64 * 32).reshape(64, 32).astype(np.int8)
    w.flags.writeable = False
    alive = weakref.ref(w)
    known = frozenset(gemm._CONSTANTS)
    expected = gemm.int8_matmul_blas(np.ones((3, 64), np.int8), w.astype(np.float32))
    np.testing.assert_array_equal(gemm.int8_matmul(np.ones((3, 64), np.int8), w), expected)
    del w
    gc.collect()
    assert alive() is None and not set(gemm._CONSTANTS) - known


def test_a_deleted_program_leaves_no_converted_weight_behind():
    """The same for a whole program: its weights' forms go with it."""
    import gc
    model = deepseek.build("deepseek-v3", tp=32, layers=1, batch=1, quant="w8a8", block_size=16,
                           max_positions=16)
    known = frozenset(gemm._CONSTANTS)
    program = ascend_mla.compile(model, pipeline=UNFUSED, target="cpu")
    run_once(program, model)
    assert set(gemm._CONSTANTS) - known, "the program kept no converted form"
    del program
    gc.collect()
    assert not set(gemm._CONSTANTS) - known
