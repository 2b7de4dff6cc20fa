"""Hypothesis fuzzer for the eager API (ascend_mla.ops.*): valid calls with one to three
arguments replaced by something else (None, a Python value of another kind, an array of another
element type, shape, layout or device, an NZ tensor where ND is expected and back...).

The oracle (docs/errors.md): the call returns, or raises VerificationError whose message is
`'mla.<op>' op <parameter>: <reason> [<RULE-ID>]` for a parameter of the call; after a rejected
call every array the op updates in place is bit-identical to before. A TypeError of the Python
call itself (a parameter given twice, through its alias: `scale` and `scale_value`) is Python's
own answer, as for any function.
"""
import inspect
import re
import warnings
from collections import Counter

import ml_dtypes
import numpy as np
import pytest
from fuzzing import SEED, TIME_LIMIT, budgets, time_limit
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from valid_calls import CALLS

import ascend_mla
from ascend_mla import VerificationError
from ascend_mla.dialect.dialect import MLA
from ascend_mla.runtime.interop import numpy_to_torch

try:
    import torch
except ImportError:      # the torch replacements are then left out
    torch = None

DTYPES = [ml_dtypes.bfloat16, np.float16, np.float32, np.float64, np.int8, np.uint8, np.int16,
          np.int32, np.int64, np.uint64, np.bool_, np.complex64, ml_dtypes.int4,
          ml_dtypes.float8_e4m3fn, np.uint16, object]
TORCH_VIEWABLE = {np.dtype(d) for d in (ml_dtypes.bfloat16, np.float16, np.float32, np.float64, np.int8,
                                         np.uint8, np.int16, np.int32, np.int64, np.bool_)}
# `op <parameter>: <reason> [<ID>]`; the v2 front end adds the mapped name: `op a (b): ...`
MESSAGE = re.compile(r"^'mla\.\w+' op ([\w\[\]]+)(?: \(\w+\))?: .+ \[[A-Z][A-Z0-9]*(-[A-Z]+)?-[A-Z0-9]+\]$")
CALL_ERROR = re.compile(r"got both \w+ and its alias|unexpected keyword|multiple values")
_BASES = {}      # op -> a valid call (built once: the prolog's weights take a while)


def parameters_of(op, op_name) -> set:
    """The names a message about `op_name` may lead with: the call's keywords, and the op's
    operands, attributes and results (a result type rule names the result)."""
    opdef = MLA.ops[op_name]
    return (set(inspect.signature(getattr(ascend_mla.ops, op)).parameters) | set(opdef.operand_by_name)
            | set(opdef.attribute_by_name) | set(opdef.result_names))


def base_call(op):
    if op not in _BASES:
        _BASES[op] = CALLS[op][0](np.random.default_rng(1000 + SEED))
    return _BASES[op]


def python_values():
    return st.one_of(
        st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=True),
        st.text(max_size=6), st.binary(max_size=4), st.just("\udcff"),
        st.lists(st.integers(-2**64, 2**64), max_size=4), st.lists(st.floats(), max_size=3),
        st.just([[1, 2]]), st.just({}), st.just(object()), st.just([None]),
        st.sampled_from(["BSH", "BSND", "BNSD", "TND", "PA_NZ", "PA_BSND", "BNSD_BSND"]),
        st.sampled_from([0, 1, -1, 2, 3, 4, 16, 64, 128, 2**31, 2**63 - 1, -2**63]))


@st.composite
def array_variants(draw, value):
    """Another form of an array argument."""
    if isinstance(value, ascend_mla.NZTensor):
        return draw(st.sampled_from([value.to_nd(), ascend_mla.format_cast(value.to_nd()[:-1], 29),
                                     value.data]))
    a = np.asarray(value)
    how = draw(st.sampled_from(["dtype", "shape", "rank", "view", "values", "readonly", "nz",
                                "scalar", "torch"]))
    if how == "dtype":
        return np.zeros(a.shape, draw(st.sampled_from(DTYPES)))
    if how == "shape" and a.ndim:
        shape = list(a.shape)
        axis = draw(st.integers(0, a.ndim - 1))
        shape[axis] = draw(st.sampled_from([0, 1, shape[axis] - 1, shape[axis] + 1, 2 * shape[axis]]))
        return np.zeros([max(d, 0) for d in shape], a.dtype)
    if how == "rank":
        return np.zeros(a.shape[1:] if a.ndim and draw(st.booleans()) else (1, *a.shape), a.dtype)
    if how == "view" and a.ndim:
        return draw(st.sampled_from([a[::-1], a[..., ::2], np.swapaxes(a, 0, -1), a[:0]]))
    if how == "values":
        fill = draw(st.sampled_from([np.nan, np.inf, -1, 2**31 - 1, -2**31, 0]))
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.full(a.shape, fill).astype(a.dtype)
    if how == "readonly":
        b = a.copy()
        b.setflags(write=False)
        return b
    if how == "nz" and a.ndim >= 2:
        return ascend_mla.format_cast(a, 29)
    if how == "scalar":
        return a.reshape(-1)[0] if a.size else np.float32(0)
    if how == "torch" and torch is not None and a.dtype in TORCH_VIEWABLE:
        t = numpy_to_torch(a)
        form = draw(st.sampled_from(["plain", "meta", "complex", "f8", "strided", "grad"]))
        if form == "meta":
            return torch.empty(a.shape, device="meta")
        if form == "complex":
            return torch.zeros(a.shape, dtype=torch.complex64)
        if form == "f8":
            return torch.zeros(a.shape).to(torch.float8_e4m3fn)
        if form == "strided" and a.ndim:
            return t.transpose(0, -1)
        if form == "grad":
            return torch.zeros(a.shape, requires_grad=True)
        return t
    return a


def small_arrays():
    """An array of its own: random element type, rank 0 to 4, small dimensions."""
    return st.builds(lambda shape, dtype: np.zeros(shape, dtype),
                     st.lists(st.sampled_from([0, 1, 2, 3, 16, 64]), max_size=4),
                     st.sampled_from(DTYPES[:11]))


def replacements(draw, value):
    """Mostly something close to the old value (same kind, other value or form), sometimes
    anything."""
    if draw(st.integers(0, 5)) == 0:
        return draw(st.one_of(python_values(), small_arrays()))
    if isinstance(value, (np.ndarray, ascend_mla.NZTensor)):
        return draw(array_variants(value))
    if isinstance(value, list) and value and isinstance(value[0], np.ndarray):
        return [draw(array_variants(v)) for v in value]
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return draw(st.one_of(st.integers(-3, 300), st.sampled_from([2**31, 2**31 - 1, -2**31, 2**63 - 1])))
    if isinstance(value, float):
        return draw(st.floats(allow_nan=True, allow_infinity=True))
    if isinstance(value, str):
        return draw(st.sampled_from(["BSH", "BSND", "BNSD", "BNSD_BSND", "TND", "PA_NZ", "PA_BSND", "bsnd", ""]))
    if isinstance(value, list):
        return draw(st.lists(st.integers(-2, 5000), min_size=max(len(value) - 1, 0), max_size=len(value) + 1))
    return draw(st.one_of(python_values(), small_arrays()))      # an absent optional operand


@st.composite
def broken_calls(draw):
    op = draw(st.sampled_from(sorted(CALLS)))
    call = dict(base_call(op))
    for name in call:
        if isinstance(call[name], np.ndarray):
            call[name] = call[name].copy()      # the in-place caches: fresh for every call
    parameters = sorted(inspect.signature(getattr(ascend_mla.ops, op)).parameters)
    changed = []
    for _ in range(draw(st.integers(1, 3))):
        # mostly an argument the valid call gives, sometimes one it leaves at its default
        name = draw(st.sampled_from(sorted(call) if draw(st.integers(0, 3)) else parameters))
        call[name] = replacements(draw, call.get(name))
        changed.append(name)
    return op, call, changed


def check_one(op, call, changed, outcomes):
    in_place = {name: call[name].copy() for name in CALLS[op][1]
                if isinstance(call.get(name), np.ndarray)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            getattr(ascend_mla.ops, op)(**call)
        except TypeError as e:
            if type(e) is not TypeError or not CALL_ERROR.search(str(e)):
                raise
            outcomes["signature"] += 1
            return
        except VerificationError as e:
            message = str(e).split("\n")[0]
            m = MESSAGE.match(message)
            assert m, f"{op}, changed {changed}: the message has no parameter or rule ID: {message!r}"
            param = m.group(1).split("[")[0]
            op_name = message.split("'")[1]
            assert param in parameters_of(op, op_name), f"{op}: the message names no parameter: {message!r}"
            for name, before in in_place.items():
                assert call[name].tobytes() == before.tobytes(), \
                    f"{op}: {name} changed by a rejected call (changed {changed}): {message}"
            outcomes["rejected"] += 1
            return
    outcomes["ran"] += 1


def run_fuzzer(cases):
    outcomes = Counter()

    @settings(max_examples=cases, derandomize=SEED == 0, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(broken_calls())
    def fuzz(case):
        with time_limit(TIME_LIMIT):
            check_one(*case, outcomes)

    (seed(SEED)(fuzz) if SEED else fuzz)()
    return outcomes


@pytest.mark.parametrize("cases", budgets(ci=40, large=2000))
def test_broken_eager_calls_are_rejected_cleanly(cases):
    outcomes = run_fuzzer(cases)
    print(f"eager fuzz: {sum(outcomes.values())} calls, {outcomes['rejected']} rejected, {outcomes['ran']} ran")
    assert outcomes["rejected"] > 0
