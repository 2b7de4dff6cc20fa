"""The data (runtime) rules of the primitive ops: checked when a compiled program is called,
before any op writes, so a rejected call leaves the caller's caches bit-identical. The static
rules are tested by test/lit/dialect/<op>-invalid.mlir."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla import VerificationError

BF16 = ml_dtypes.bfloat16


def compile_(text):
    return ascend_mla.compile(text, pipeline="builtin.module(verify)")


# Two caches written, then attention over the first: the layer's shape in miniature.
LAYER = """
func.func @layer(%query: tensor<2x1x4x64xbf16>, %kv_rows: tensor<2x1x1x64xbf16>,
                 %kr_rows: tensor<2x1x1x16xbf16>, %kv_slots: tensor<2x1xi64>,
                 %kr_slots: tensor<2x1xi64>, %kv: tensor<4x16x1x64xbf16>,
                 %kr: tensor<4x16x1x16xbf16>, %block_table: tensor<2x2xi32>,
                 %seq_lengths: tensor<2xi32>)
    -> (tensor<2x1x4x64xbf16>, tensor<4x16x1x64xbf16>, tensor<4x16x1x16xbf16>) {
  %kv1 = "mla.scatter_cache"(%kv, %kv_slots, %kv_rows)
      : (tensor<4x16x1x64xbf16>, tensor<2x1xi64>, tensor<2x1x1x64xbf16>) -> tensor<4x16x1x64xbf16>
  %kr1 = "mla.scatter_cache"(%kr, %kr_slots, %kr_rows)
      : (tensor<4x16x1x16xbf16>, tensor<2x1xi64>, tensor<2x1x1x16xbf16>) -> tensor<4x16x1x16xbf16>
  %out = "mla.paged_attention"(%query, %kv1, %kv1, %block_table, %seq_lengths)
      {operandSegmentSizes = array<i32: 1, 1, 1, 1, 1, 0, 0, 0, 0>}
      : (tensor<2x1x4x64xbf16>, tensor<4x16x1x64xbf16>, tensor<4x16x1x64xbf16>, tensor<2x2xi32>,
         tensor<2xi32>) -> tensor<2x1x4x64xbf16>
  return %out, %kv1, %kr1 : tensor<2x1x4x64xbf16>, tensor<4x16x1x64xbf16>, tensor<4x16x1x16xbf16>
}
"""


def layer_inputs(**changes):
    rng = np.random.default_rng(0)
    inputs = dict(query=rng.standard_normal((2, 1, 4, 64)).astype(BF16),
                  kv_rows=rng.standard_normal((2, 1, 1, 64)).astype(BF16),
                  kr_rows=rng.standard_normal((2, 1, 1, 16)).astype(BF16),
                  kv_slots=np.array([[20], [35]], np.int64), kr_slots=np.array([[20], [35]], np.int64),
                  kv=rng.standard_normal((4, 16, 1, 64)).astype(BF16),
                  kr=rng.standard_normal((4, 16, 1, 16)).astype(BF16),
                  block_table=np.array([[0, 1], [2, -1]], np.int32),       # row 1 uses one block
                  seq_lengths=np.array([21, 4], np.int32))
    inputs.update(changes)
    return inputs


def rejected(program, inputs, message):
    """The call raises VerificationError matching `message` and writes no cache."""
    before = {k: v.copy() for k, v in inputs.items()}
    with pytest.raises(VerificationError, match=message):
        program(*inputs.values())
    for name in ("kv", "kr"):
        np.testing.assert_array_equal(inputs[name].view(np.int16), before[name].view(np.int16))


@pytest.fixture(scope="module")
def layer():
    return compile_(LAYER)


def test_the_valid_layer_writes_its_slots(layer):
    inputs = layer_inputs()
    before = inputs["kv"].copy()
    out, kv, kr = layer(*inputs.values())
    assert kv is inputs["kv"] and kr is inputs["kr"]                  # in place
    np.testing.assert_array_equal(kv[1, 4].view(np.int16), inputs["kv_rows"][0, 0].view(np.int16))
    np.testing.assert_array_equal(kv[2, 3].view(np.int16), inputs["kv_rows"][1, 0].view(np.int16))
    changed = np.argwhere((kv.view(np.int16) != before.view(np.int16)).any(axis=(2, 3)))
    assert changed.tolist() == [[1, 4], [2, 3]]


def test_sc_010_a_slot_beyond_the_cache(layer):
    """The second scatter's slot is out of range: the first scatter must not have run."""
    rejected(layer, layer_inputs(kr_slots=np.array([[20], [64]], np.int64)),
             r"'mla.scatter_cache' op slot_mapping: value 64 is outside \[0, BlockNum\*BlockSize\) = "
             r"\[0, 64\) \(negative values skip a row\) \[SC-010\]")


def test_negative_slots_skip_their_row(layer):
    inputs = layer_inputs(kr_slots=np.array([[-1], [35]], np.int64))
    before = inputs["kr"].copy()
    layer(*inputs.values())
    assert (inputs["kr"][1, 4].view(np.int16) == before[1, 4].view(np.int16)).all()


def test_pa_013_a_length_beyond_the_blocks(layer):
    rejected(layer, layer_inputs(seq_lengths=np.array([33, 4], np.int32)),
             r"'mla.paged_attention' op seq_lengths: value 33 of batch 0 is outside \[S, max blocks "
             r"\* BlockSize\] = \[1, 32\] \(the query's tokens are the last S keys\) \[PA-013\]")


def test_pa_013_a_length_shorter_than_the_query(layer):
    rejected(layer, layer_inputs(seq_lengths=np.array([21, 0], np.int32)),
             r"seq_lengths: value 0 of batch 1 is outside \[S, max blocks \* BlockSize\] = \[1, 32\].*\[PA-013\]")


def test_pa_014_a_used_block_outside_the_cache(layer):
    """Row 1 (length 20) now uses its second column, which holds -1: rejected. The unused -1 of
    the valid layer above passes."""
    rejected(layer, layer_inputs(seq_lengths=np.array([21, 20], np.int32)),
             r"'mla.paged_attention' op block_table: row 1 uses block -1 outside \[0, 4\) \[PA-014\]")
    rejected(layer, layer_inputs(block_table=np.array([[0, 4], [2, -1]], np.int32)),
             r"block_table: row 0 uses block 4 outside \[0, 4\) \[PA-014\]")


GATHER = """
func.func @rows(%table: tensor<8x4xbf16>, %indices: tensor<3xi32>) -> tensor<3x4xbf16> {
  %0 = "mla.gather"(%table, %indices) : (tensor<8x4xbf16>, tensor<3xi32>) -> tensor<3x4xbf16>
  return %0 : tensor<3x4xbf16>
}
"""


@pytest.mark.parametrize("bad", [8, -1])
def test_gth_005_an_index_outside_the_table(bad):
    program = compile_(GATHER)
    table = np.arange(32, dtype=np.float32).reshape(8, 4).astype(BF16)
    with pytest.raises(VerificationError, match=rf"'mla.gather' op indices: value {bad} is outside "
                                                rf"\[0, 8\) \(the rows of table\) \[GTH-005\]"):
        program(table, np.array([0, bad, 7], np.int32))


# The slots are computed (gathered from a table), so they are known only when the scatter runs:
# the rule is checked right before it, still before it writes.
COMPUTED_SLOTS = """
func.func @f(%slot_table: tensor<4x1xi64>, %which: tensor<2xi32>, %rows: tensor<2x1x1x16xbf16>,
             %cache: tensor<2x16x1x16xbf16>) -> tensor<2x16x1x16xbf16> {
  %slots = "mla.gather"(%slot_table, %which) : (tensor<4x1xi64>, tensor<2xi32>) -> tensor<2x1xi64>
  %0 = "mla.scatter_cache"(%cache, %slots, %rows)
      : (tensor<2x16x1x16xbf16>, tensor<2x1xi64>, tensor<2x1x1x16xbf16>) -> tensor<2x16x1x16xbf16>
  return %0 : tensor<2x16x1x16xbf16>
}
"""


def test_sc_010_on_computed_slots():
    program = compile_(COMPUTED_SLOTS)
    cache = np.zeros((2, 16, 1, 16), BF16)
    rows = np.ones((2, 1, 1, 16), BF16)
    slot_table = np.array([[3], [31], [32], [-1]], np.int64)
    program(slot_table, np.array([0, 3], np.int32), rows, cache)          # slots 3 and -1
    assert cache[0, 3].astype(np.float32).all() and np.count_nonzero(cache.astype(np.float32)) == 16
    cache[:] = 0
    with pytest.raises(VerificationError, match=r"slot_mapping: value 32 is outside .*\[SC-010\]"):
        program(slot_table, np.array([1, 2], np.int32), rows, cache)      # slots 31 and 32
    assert not cache.astype(np.float32).any()


DYNAMIC_ROPE = """
func.func @f(%x: tensor<?x64xbf16>, %cos: tensor<3x64xbf16>, %sin: tensor<3x64xbf16>) -> tensor<?x64xbf16> {
  %0 = "mla.rope"(%x, %cos, %sin) : (tensor<?x64xbf16>, tensor<3x64xbf16>, tensor<3x64xbf16>) -> tensor<?x64xbf16>
  return %0 : tensor<?x64xbf16>
}
"""


def test_static_rules_on_dynamic_dims_run_with_the_actual_shapes():
    """A dynamic x verifies (the tables may broadcast to it); a call with 2 rows does not."""
    program = compile_(DYNAMIC_ROPE)
    tables = np.ones((3, 64), BF16), np.zeros((3, 64), BF16)
    (y,) = program(np.ones((3, 64), BF16), *tables)
    assert y.shape == (3, 64)
    with pytest.raises(VerificationError, match=r"'mla.rope' op cos: expected a shape that broadcasts "
                                                r"to x \(2, 64\).*\[ROPE-004\]"):
        program(np.ones((2, 64), BF16), *tables)
