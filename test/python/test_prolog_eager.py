"""The eager npu_mla_prolog (profile V1E) and npu_mla_prolog_v2 (profile PT) of ascend_mla.ops.

What is checked here: the API (names, defaults, result order, torch in -> torch out, caches
updated in place and returned), that a call computes exactly what the kernel computes when called
directly, and the rules IR cannot reach: the eager profiles (torch_npu's narrower ranges, None
arguments, Python values of the host parameters), the runtime rules on cache_index and
dequant_scale_x, and that every rejected call leaves the caches bit-identical. The numerics of
the kernel itself are test_prolog_numerics.py's subject; the static rules in IR are
test/lit/dialect/prolog*-invalid.mlir.

The op fixes He = 7168, Hcq = 1536, Hckv = 512, D = 128, Dr = 64; the tests keep the token count,
N = 8 (torch_npu's smallest) and the caches small.
"""
from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla import VerificationError, VerificationWarning, format_cast, ops
from ascend_mla.dialect.prolog import Prolog, PrologV2
from ascend_mla.dialect.types import TensorInfo
from ascend_mla.eager import call, tensor_info
from ascend_mla.runtime.kernels import get_kernel

BF16 = np.dtype(ml_dtypes.bfloat16)
HE, HCQ, HCKV, DR, N = 7168, 1536, 512, 64, 8
V1_SCENARIOS = ["NQ", "PQ-KVNQ", "PQ-KVQ"]
V2_SCENARIOS = V1_SCENARIOS + ["FQ-KVNQ", "FQ-KVQ"]
REQUIRED = ["token_x", "weight_dq", "weight_uq_qr", "weight_uk", "weight_dkv_kr",
            "rmsnorm_gamma_cq", "rmsnorm_gamma_ckv", "rope_sin", "rope_cos", "cache_index",
            "kv_cache", "kr_cache"]
DEFAULTS = dict(dequant_scale_x=None, dequant_scale_w_dq=None, dequant_scale_w_uq_qr=None,
                dequant_scale_w_dkv_kr=None, quant_scale_ckv=None, quant_scale_ckr=None,
                smooth_scales_cq=None, rmsnorm_epsilon_cq=1e-05, rmsnorm_epsilon_ckv=1e-05,
                cache_mode="PA_BSND")
API = {"v1": ops.npu_mla_prolog, "v2": ops.npu_mla_prolog_v2}


# --- inputs --------------------------------------------------------------------------------

def _rng(seed=0):
    return np.random.default_rng(seed)


def _bf16(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape, dtype=np.float32) * scale).astype(BF16)


def _int8(rng, *shape):
    return rng.integers(-127, 128, shape, dtype=np.int8)


@pytest.fixture(scope="module")
def weights():
    """One bf16 and one int8 weight set (NZ weights packed once: their kernel caches persist)."""
    rng = _rng(1)
    bf16 = dict(weight_dq=_bf16(rng, HE, HCQ, scale=0.02), weight_uq_qr=_bf16(rng, HCQ, 192 * N, scale=0.03),
                weight_dkv_kr=_bf16(rng, HE, HCKV + DR, scale=0.02))
    int8 = dict(weight_dq=_int8(rng, HE, HCQ), weight_uq_qr=_int8(rng, HCQ, 192 * N),
                weight_dkv_kr=_int8(rng, HE, HCKV + DR))
    packed = {dtype: {k: format_cast(v, ascend_mla.FRACTAL_NZ) for k, v in ws.items()}
              for dtype, ws in (("bf16", bf16), ("i8", int8))}
    packed["weight_uk"] = _bf16(rng, N, 128, HCKV, scale=0.05)
    return packed


def make_args(weights, scenario="NQ", tokens=(2, 3), blocks=(4, 16), seed=0):
    """Every argument of the call by its API name (defaults included), caches filled at random so
    that an untouched row is recognisable."""
    rng = _rng(seed)
    full, uq8, kv8 = scenario.startswith("FQ"), scenario != "NQ", scenario.endswith("-KVQ")
    kr8 = scenario == "PQ-KVQ"
    t_eff = int(np.prod(tokens))
    capacity = blocks[0] * blocks[1]
    args = dict(DEFAULTS)
    args.update(
        token_x=_int8(rng, *tokens, HE) if full else _bf16(rng, *tokens, HE),
        weight_dq=weights["i8" if full else "bf16"]["weight_dq"],
        weight_uq_qr=weights["i8" if uq8 else "bf16"]["weight_uq_qr"],
        weight_uk=weights["weight_uk"],
        weight_dkv_kr=weights["i8" if full else "bf16"]["weight_dkv_kr"],
        rmsnorm_gamma_cq=_bf16(rng, HCQ), rmsnorm_gamma_ckv=_bf16(rng, HCKV),
        rope_sin=_bf16(rng, *tokens, DR), rope_cos=_bf16(rng, *tokens, DR),
        # distinct slots, one token skipped (negative) when there are several
        cache_index=np.where(np.arange(t_eff) == 1, -1,
                             rng.permutation(max(capacity, t_eff))[:t_eff]).reshape(tokens).astype(np.int64),
        kv_cache=_int8(rng, *blocks, 1, HCKV) if kv8 else _bf16(rng, *blocks, 1, HCKV),
        kr_cache=_int8(rng, *blocks, 1, DR) if kr8 else _bf16(rng, *blocks, 1, DR))
    if full:
        args.update(dequant_scale_x=rng.uniform(1e-3, 2e-3, (t_eff, 1)).astype(np.float32),
                    dequant_scale_w_dq=rng.uniform(1e-3, 2e-3, (1, HCQ)).astype(np.float32),
                    dequant_scale_w_dkv_kr=rng.uniform(1e-3, 2e-3, (1, HCKV + DR)).astype(np.float32))
    if uq8:
        args.update(dequant_scale_w_uq_qr=rng.uniform(1e-3, 2e-3, (1, 192 * N)).astype(np.float32),
                    smooth_scales_cq=rng.uniform(0.5, 1.5, (1, HCQ)).astype(np.float32))
    if kv8:
        args["quant_scale_ckv"] = rng.uniform(20, 40, (1, HCKV)).astype(np.float32)
    if kr8:
        args["quant_scale_ckr"] = rng.uniform(20, 40, (1, DR)).astype(np.float32)
    return args


def run(api, args):
    positional = [args[n] for n in REQUIRED]
    keywords = {k: v for k, v in args.items() if k not in REQUIRED}
    return API[api](*positional, **keywords)


def same_bits(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def cache_copies(args):
    return {"kv_cache": args["kv_cache"].copy(), "kr_cache": args["kr_cache"].copy()}


def assert_caches_untouched(args, before):
    for name, saved in before.items():
        assert same_bits(args[name], saved), f"{name} was modified by a rejected call"


# --- the API -------------------------------------------------------------------------------

CASES = ([("v1", s) for s in V1_SCENARIOS] + [("v2", s) for s in V2_SCENARIOS])


@pytest.mark.parametrize("api, scenario", CASES)
@pytest.mark.parametrize("tokens, cache_mode", [((2, 3), "PA_BSND"), ((5,), "PA_NZ")])
def test_call_equals_the_kernel_called_directly(weights, api, scenario, tokens, cache_mode):
    args = make_args(weights, scenario, tokens)
    args["cache_mode"] = cache_mode
    direct = {**args, **cache_copies(args)}
    expected = get_kernel("mla.prolog" if api == "v1" else "mla.prolog_v2")(**direct)

    results = run(api, args)

    assert len(results) == len(expected) == (4 if api == "v1" else 5)        # MLA-020, MLA-021
    for got, want in zip(results, expected):
        assert same_bits(got, want)
    assert results[2] is args["kv_cache"] and results[3] is args["kr_cache"]   # in place


@pytest.mark.parametrize("scenario", V2_SCENARIOS)
def test_result_types_follow_the_scenario(weights, scenario):
    """MLA-021: (query, query_rope, kv_cache_out, kr_cache_out, dequant_scale_q_nope), the query
    int8 and the scale (T_eff, N, 1) only in FQ-KVQ, the scale (1,) otherwise."""
    args = make_args(weights, scenario, tokens=(2, 3))
    query, query_rope, kv, kr, scale = run("v2", args)
    assert (query.shape, query.dtype) == ((2, 3, N, HCKV), np.int8 if scenario == "FQ-KVQ" else BF16)
    assert (query_rope.shape, query_rope.dtype) == ((2, 3, N, DR), BF16)
    assert scale.dtype == np.float32
    assert scale.shape == ((6, N, 1) if scenario == "FQ-KVQ" else (1,))


def test_torch_in_torch_out_and_caches_in_place(weights):
    torch = pytest.importorskip("torch")
    args = make_args(weights, "PQ-KVQ", tokens=(4,))
    expected = run("v2", {**args, **cache_copies(args)})

    def to_torch(v):
        if isinstance(v, np.ndarray):
            if v.dtype == BF16:
                return torch.from_numpy(v.view(np.int16).copy()).view(torch.bfloat16)
            return torch.from_numpy(v.copy())
        return v
    targs = {k: to_torch(v) for k, v in args.items()}
    results = run("v2", targs)

    assert all(isinstance(r, torch.Tensor) for r in results)
    assert results[2] is targs["kv_cache"] and results[3] is targs["kr_cache"]
    for got, want in zip(results, expected):
        if got.dtype == torch.bfloat16:
            got = got.view(torch.int16).numpy().view(BF16)
        assert same_bits(got.numpy() if hasattr(got, "numpy") else got, want)


def test_pa_nz_caches_hold_the_pa_bsnd_rows_in_fractal_order(weights):
    """docs/api.md: a PA_NZ cache keeps its logical shape; each block's memory is [H/C0, BlockSize, C0]."""
    args = make_args(weights, "PQ-KVQ", tokens=(6,))          # int8 caches: C0 = 32
    nz_args = {**args, **cache_copies(args), "cache_mode": "PA_NZ"}
    bsnd = run("v2", args)
    nz = run("v2", nz_args)
    for got, want in zip(nz[:2], bsnd[:2]):
        assert same_bits(got, want)                           # the queries do not depend on it
    for name, h in (("kv_cache", HCKV), ("kr_cache", DR)):
        block_num, block_size = args[name].shape[:2]
        c0 = 32 // args[name].itemsize
        memory = nz_args[name].reshape(block_num, h // c0, block_size, c0)
        logical = memory.transpose(0, 2, 1, 3).reshape(block_num, block_size, 1, h)
        written = np.zeros(block_num * block_size, bool)
        written[args["cache_index"][args["cache_index"] >= 0]] = True
        rows = written.reshape(block_num, block_size)
        assert same_bits(logical[rows], args[name][rows])


def test_only_the_indexed_slots_are_written_and_negative_skips(weights):
    args = make_args(weights, "NQ", tokens=(2, 3))
    before = cache_copies(args)
    run("v1", args)
    slots = args["cache_index"].reshape(-1)
    assert slots[1] == -1                                    # make_args skips token 1
    written = np.zeros(args["kv_cache"].shape[0] * args["kv_cache"].shape[1], bool)
    written[slots[slots >= 0]] = True
    for name in ("kv_cache", "kr_cache"):
        rows_now = args[name].reshape(written.size, -1).view(np.int16)
        rows_before = before[name].reshape(written.size, -1).view(np.int16)
        assert (rows_now[~written] == rows_before[~written]).all()
        assert (rows_now[written] != rows_before[written]).any(axis=1).all()


def test_absent_cache_mode_is_pa_bsnd(weights):
    """MLA-032 (a documented choice): cache_mode None behaves as the default "PA_BSND"."""
    args = make_args(weights, "NQ", tokens=(3,))
    other = {**args, **cache_copies(args), "cache_mode": None}
    for got, want in zip(run("v2", other), run("v2", args)):
        assert same_bits(got, want)


def test_epsilon_may_be_any_number(weights):
    """A Python int or a NumPy float is a valid epsilon (no range: M18); MLA-194 (waived) warns
    about nothing."""
    args = make_args(weights, "NQ", tokens=(3,))
    args.update(rmsnorm_epsilon_cq=np.float32(1e-6), rmsnorm_epsilon_ckv=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", VerificationWarning)
        query = run("v1", args)[0]
    assert query.shape == (3, N, HCKV)


# --- empty tensors (V1 / V2 documents; torch_npu has none) ----------------------------------

@pytest.mark.parametrize("tokens", [(0,), (0, 2), (3, 0)])
def test_no_tokens_gives_empty_queries_and_untouched_caches(weights, tokens):
    """MLA-193 (waived: kernel behaviour): T_eff = 0 leaves the caches as they are."""
    args = make_args(weights, "NQ", tokens=tokens)
    before = cache_copies(args)
    query, query_rope, kv, kr = run("v1", args)
    assert query.shape == (*tokens, N, HCKV) and query_rope.shape == (*tokens, N, DR)
    assert_caches_untouched(args, before)


def test_no_tokens_in_full_quant_through_the_v2_document(weights):
    """The V2 document allows T = 0 in FQ-KVQ: dequant_scale_q_nope is then (0, N, 1)."""
    args = make_args(weights, "FQ-KVQ", tokens=(0,))
    before = cache_copies(args)
    results = call(PrologV2, *split(PrologV2, args), profile="V2")
    assert results[4].shape == (0, N, 1) and results[0].dtype == np.int8
    assert_caches_untouched(args, before)


def test_empty_cache_still_computes_the_queries(weights):
    """BlockNum = 0 (Skv = 0): any cache_index is accepted (nothing is written), queries as usual."""
    args = make_args(weights, "NQ", tokens=(4,))
    expected = run("v1", {**args, **cache_copies(args)})
    empty = {**args, "kv_cache": np.zeros((0, 16, 1, HCKV), BF16), "kr_cache": np.zeros((0, 16, 1, DR), BF16),
             "cache_index": np.array([5, 1000, -1, 0], np.int64)}
    results = run("v1", empty)
    assert same_bits(results[0], expected[0]) and same_bits(results[1], expected[1])
    assert results[2].shape == (0, 16, 1, HCKV)


def split(opdef, args):
    return ({o.name: args[o.name] for o in opdef.operands},
            {a.name: args[a.name] for a in opdef.attributes})


# --- rejected calls ------------------------------------------------------------------------
# Each case: (api, scenario, tokens, change, parameter, rule id). `change` edits the arguments.

def _none(name):
    return lambda a: a.update({name: None})


def _set(**values):
    return lambda a: a.update(values)


def _rank4_nz(name):
    # An NZTensor's .shape is logical: a 4-D one is a 4-D matrix stack, not a storage shape.
    storage = {"weight_dq": (96, 448, 16, 16), "weight_uq_qr": (12 * N, 96, 16, 16),
               "weight_dkv_kr": (36, 448, 16, 16)}[name]
    return lambda a: a.update({name: format_cast(np.zeros(storage, BF16), ascend_mla.FRACTAL_NZ)})


def _bf16_zeros(*shape):
    return np.zeros(shape, BF16)


def _strided_cache(name):
    """cache_mode PA_NZ with `name` replaced by a strided view holding the same values."""
    def change(a):
        wide = np.zeros(a[name].shape[:-1] + (2 * a[name].shape[-1],), a[name].dtype)
        view = wide[..., ::2]
        view[...] = a[name]
        a.update({name: view, "cache_mode": "PA_NZ"})
    return change


REJECTED = (
    [("v1", "NQ", (2, 3), _none(n), n, rule_id) for n, rule_id in zip(REQUIRED, (
        "MLA-001", "MLA-002", "MLA-003", "MLA-004", "MLA-005", "MLA-006", "MLA-007", "MLA-008",
        "MLA-009", "MLA-010", "MLA-011", "MLA-012"))]
    + [("v2", "NQ", (2, 3), _none(n), n, "MLA-016") for n in ("token_x", "weight_uk", "kr_cache")]
    + [
        ("v1", "NQ", (2, 3), _set(dequant_scale_x=np.ones((6, 1), np.float32)), "dequant_scale_x", "MLA-017"),
        ("v1", "NQ", (2, 3), _set(cache_mode="PA_ND"), "cache_mode", "MLA-030"),
        ("v2", "NQ", (2, 3), _rank4_nz("weight_dq"), "weight_dq", "MLA-051"),
        ("v1", "NQ", (2, 3), _rank4_nz("weight_uq_qr"), "weight_uq_qr", "MLA-052"),
        ("v2", "NQ", (2, 3), _rank4_nz("weight_dkv_kr"), "weight_dkv_kr", "MLA-053"),
        ("v2", "NQ", (2, 3), lambda a: a.update(weight_dq=a["weight_dq"].to_nd()), "weight_dq", "MLA-060"),
        ("v1", "NQ", (2, 3), lambda a: a.update(weight_uk=format_cast(a["weight_uk"], 29)), "weight_uk", "MLA-063"),
        ("v2", "NQ", (2, 3), _set(token_x=_bf16_zeros(2, 3, 7680)), "token_x", "MLA-091"),
        ("v2", "NQ", (2, 3), _set(weight_uk=_bf16_zeros(4, 128, HCKV)), "weight_uk", "MLA-094"),
        ("v1", "NQ", (2, 3), _set(weight_uk=_bf16_zeros(3, 128, HCKV)), "weight_uk", "MLA-093"),
        ("v2", "NQ", (0, 3), None, "token_x", "MLA-101"),
        ("v2", "NQ", (2, 0), None, "token_x", "MLA-103"),
        ("v2", "NQ", (0,), None, "token_x", "MLA-105"),
        ("v2", "NQ", (2, 3), _set(kv_cache=_bf16_zeros(0, 16, 1, HCKV), kr_cache=_bf16_zeros(0, 16, 1, DR)),
         "kv_cache", "MLA-107"),
        ("v2", "NQ", (2, 3), _set(cache_index=np.zeros((2, 0), np.int64)), "cache_index", "MLA-185"),
        ("v2", "FQ-KVNQ", (2, 3), _set(dequant_scale_x=np.zeros((0, 1), np.float32)), "dequant_scale_x", "MLA-185"),
        ("v1", "PQ-KVNQ", (2, 3), _set(token_x=np.zeros((2, 3, HE), np.int8)), "token_x", "MLA-150"),
        ("v2", "PQ-KVQ", (5,), _set(quant_scale_ckr=None), "quant_scale_ckr", "MLA-164"),
        ("v2", "FQ-KVQ", (5,), _set(quant_scale_ckr=np.ones((1, DR), np.float32)), "quant_scale_ckr", "MLA-172"),
        ("v2", "FQ-KVQ", (2, 3), _set(dequant_scale_x=np.ones((6,), np.float32)), "dequant_scale_x", "MLA-054"),
        ("v1", "NQ", (2, 3), _set(rope_sin=_bf16_zeros(2, 3, 32)), "rope_sin", "MLA-097"),
        # runtime: a PA_NZ cache must be contiguous, checked before either cache is written
        ("v1", "NQ", (2, 3), _strided_cache("kv_cache"), "kv_cache", "MLA-X01"),
        ("v2", "PQ-KVQ", (5,), _strided_cache("kr_cache"), "kr_cache", "MLA-X01"),
        # runtime: an index beyond BlockNum * BlockSize = 64
        ("v1", "NQ", (2, 3), lambda a: a["cache_index"].__setitem__((1, 2), 64), "cache_index", "MLA-190"),
        ("v2", "FQ-KVQ", (5,), lambda a: a["cache_index"].__setitem__(4, 10 ** 6), "cache_index", "MLA-190"),
    ])


@pytest.mark.parametrize("api, scenario, tokens, change, param, rule_id", REJECTED,
                         ids=[f"{c[0]}-{c[5]}-{c[4]}" for c in REJECTED])
def test_rejected_call_names_the_parameter_and_writes_nothing(weights, api, scenario, tokens, change,
                                                             param, rule_id):
    args = make_args(weights, scenario, tokens)
    if change:
        change(args)
    before = {k: v.copy() for k, v in args.items() if k in ("kv_cache", "kr_cache") and v is not None}

    with pytest.raises(VerificationError) as caught:
        run(api, args)

    message = str(caught.value)
    op = "mla.prolog" if api == "v1" else "mla.prolog_v2"
    assert message.startswith(f"'{op}' op {param}: ") and message.endswith(f"[{rule_id}]"), message
    assert_caches_untouched(args, before)


@pytest.mark.parametrize("api, change, message", [
    ("v1", _set(rmsnorm_epsilon_cq="1e-5"), "rmsnorm_epsilon_cq: expected a float, got '1e-5' [ARG-004]"),
    ("v2", _set(rmsnorm_epsilon_ckv=True), "rmsnorm_epsilon_ckv: expected a float, got True [ARG-004]"),
    ("v2", _set(cache_mode=3), "cache_mode: expected a string, got 3 [ARG-006]")])
def test_host_parameters_of_the_wrong_kind(weights, api, change, message):
    """MLA-031 (waived: structural): the epsilons are doubles, cache_mode a string; the eager
    layer rejects another kind before any rule reads the value."""
    args = make_args(weights, "NQ", tokens=(3,))
    change(args)
    before = cache_copies(args)
    with pytest.raises(VerificationError) as caught:
        run(api, args)
    assert str(caught.value).endswith(f"op {message}")
    assert_caches_untouched(args, before)


@pytest.mark.parametrize("api", ["v1", "v2"])
def test_rejected_torch_call_leaves_the_torch_caches_alone(weights, api):
    torch = pytest.importorskip("torch")
    args = make_args(weights, "NQ", tokens=(4,))
    args["cache_index"][0] = 64                                   # MLA-190 at call time
    kv = torch.from_numpy(args["kv_cache"].view(np.int16).copy()).view(torch.bfloat16)
    kr = torch.from_numpy(args["kr_cache"].view(np.int16).copy()).view(torch.bfloat16)
    saved = kv.clone(), kr.clone()
    with pytest.raises(VerificationError, match=r"cache_index: .*\[MLA-190\]"):
        run(api, {**args, "kv_cache": kv, "kr_cache": kr,
                  "cache_index": torch.from_numpy(args["cache_index"])})
    assert torch.equal(kv.view(torch.int16), saved[0].view(torch.int16))
    assert torch.equal(kr.view(torch.int16), saved[1].view(torch.int16))


def test_a_rejected_call_does_not_poison_the_next_one(weights):
    """The verified-signature cache remembers types, never data: the same types with a good
    cache_index run after a rejected one."""
    args = make_args(weights, "NQ", tokens=(4,))
    bad = {**args, "cache_index": np.array([0, 1, 2, 64], np.int64)}
    with pytest.raises(VerificationError, match=r"\[MLA-190\]"):
        run("v2", bad)
    assert run("v2", args)[0].shape == (4, N, HCKV)


# --- rules checked through the V2 document (the IR profile) at call time ---------------------

def test_dequant_scale_x_must_be_contiguous_in_v2_only(weights):
    """MLA-064: aclnnMlaPrologV2WeightNz does not take a strided dequant_scale_x; torch_npu's
    document says nothing, so npu_mla_prolog_v2 accepts it."""
    args = make_args(weights, "FQ-KVNQ", tokens=(4,))
    wide = np.repeat(args["dequant_scale_x"], 2, axis=1)
    args["dequant_scale_x"] = wide[:, :1]                          # (4, 1) with strides (8, 4)
    assert not args["dequant_scale_x"].flags.c_contiguous
    before = cache_copies(args)
    with pytest.raises(VerificationError, match=r"^'mla.prolog_v2' op dequant_scale_x: must be "
                                                r"contiguous.*\[MLA-064\]$"):
        call(PrologV2, *split(PrologV2, args), profile="V2")
    assert_caches_untouched(args, before)
    expected = run("v2", {**args, **cache_copies(args),
                          "dequant_scale_x": np.ascontiguousarray(args["dequant_scale_x"])})
    for got, want in zip(run("v2", args), expected):
        assert same_bits(got, want)


def test_the_v2_document_allows_what_torch_npu_does_not(weights):
    """B = 0 and N = 1 are V2-valid (MLA-100, MLA-093) but torch_npu-invalid (MLA-101, MLA-094)."""
    args = make_args(weights, "NQ", tokens=(0, 1))
    before = cache_copies(args)
    results = call(PrologV2, *split(PrologV2, args), profile="V2")
    assert results[0].shape == (0, 1, N, HCKV)
    assert_caches_untouched(args, before)
    with pytest.raises(VerificationError, match=r"token_x: expected B .*\[MLA-101\]"):
        run("v2", args)

    one_head = make_args(weights, "NQ", tokens=(2,))
    one_head.update(weight_uk=np.asarray(weights["weight_uk"][:1]),
                    weight_uq_qr=format_cast(np.zeros((HCQ, 192), BF16), ascend_mla.FRACTAL_NZ))
    assert call(PrologV2, *split(PrologV2, one_head), profile="V2")[0].shape == (2, 1, HCKV)
    with pytest.raises(VerificationError, match=r"weight_uk: expected N .*got 1 \[MLA-094\]"):
        run("v2", one_head)


# --- rules on inferred results and advisories (the rule set itself) --------------------------

def _snapshot(opdef, args, results=None):
    infos = {o.name: tensor_info(o.name, args[o.name]) for o in opdef.operands if args[o.name] is not None}
    attributes = {a.name: args[a.name] for a in opdef.attributes}
    return opdef.snapshot_from_parts(infos, attributes, results)


def test_torch_npu_placeholder_scale_shape(weights):
    """MLA-132: outside FQ-KVQ the returned dequant_scale_q_nope is (1,). An eager call infers
    it; the rule guards that inference and rejects any other type."""
    args = make_args(weights, "FQ-KVNQ", tokens=(2, 3))
    inferred = PrologV2.result_infos(_snapshot(PrologV2, args))
    assert PrologV2.check(_snapshot(PrologV2, args, inferred), profile="PT").ok
    wrong = dict(inferred, dequant_scale_q_nope=TensorInfo((6, N, 1), "f32"))
    verdict = PrologV2.check(_snapshot(PrologV2, args, wrong), profile="PT")
    assert [f.text("mla.prolog_v2") for f in verdict.errors] == [
        "'mla.prolog_v2' op dequant_scale_q_nope: expected rank 1 (1) in scenario FQ-KVNQ, got rank 3 [MLA-055]"]
    flat = dict(inferred, dequant_scale_q_nope=TensorInfo((6,), "f32"))
    verdict = PrologV2.check(_snapshot(PrologV2, args, flat), profile="PT")
    assert [f.text("mla.prolog_v2") for f in verdict.errors] == [
        "'mla.prolog_v2' op dequant_scale_q_nope: expected shape (1) outside FQ-KVQ (scenario "
        "FQ-KVNQ), got (6) [MLA-132]"]


@pytest.mark.parametrize("opdef, profile", [(Prolog, "V1E"), (PrologV2, "PT")])
def test_duplicate_slots_warn(weights, opdef, profile):
    """MLA-191: two tokens writing one slot is allowed, with a warning (the torch_npu example
    writes every token to slot 0)."""
    args = make_args(weights, "NQ", tokens=(2, 2))
    args["cache_index"] = np.array([[7, -1], [7, 7]], np.int64)
    verdict = opdef.check(_snapshot(opdef, args).with_values(args), profile=profile, phase="runtime")
    assert verdict.ok
    assert [f.text(opdef.name) for f in verdict.warnings] == [
        f"'{opdef.name}' op cache_index: slot 7 is written by 3 tokens: the cache keeps one of them "
        "(the last on the CPU, unspecified on the NPU) [MLA-191]"]
    distinct = dict(args, cache_index=np.array([[7, -1], [8, -1]], np.int64))
    assert not opdef.check(_snapshot(opdef, distinct).with_values(distinct), profile=profile,
                           phase="runtime").warnings


def test_duplicate_slots_warn_in_an_eager_call_that_still_runs(weights):
    args = make_args(weights, "NQ", tokens=(4,))
    args["cache_index"] = np.zeros(4, np.int64)             # the torch_npu example's indices
    with pytest.warns(VerificationWarning, match=r"cache_index: slot 0 is written by 4 tokens.*\[MLA-191\]"):
        query = run("v2", args)[0]
    assert query.shape == (4, N, HCKV)
