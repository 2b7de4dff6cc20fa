"""Bad input never escapes as anything but a VerificationError, and never touches a cache.

Each case starts from a valid call and breaks one thing at random (a dimension, an element
type, an absent operand, an attribute value of the wrong kind or range). The call must either
run (the broken thing was still legal) or raise ascend_mla.VerificationError; any other
exception is a verifier gap (the kernel got input it cannot handle) or an unguarded check.
"""
import os
import warnings

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla import VerificationError

# 25 broken calls per op by default; ASCEND_MLA_FUZZ_SEEDS=400 for a longer search.
SEEDS = int(os.environ.get("ASCEND_MLA_FUZZ_SEEDS", 25))
BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [BF16, np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.int8),
          np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.bool_)]
ODD_VALUES = [-1, 0, 1, 3, 17, 2**31, 1.5, -0.0, "PA_NZ", "BSND", "bogus", True, None, [1], [0, 5], []]


def prolog_case(rng):
    t, n, blocks, bs = 2, 8, 2, 16
    def r(shape, scale=0.05):
        return (rng.standard_normal(shape) * scale).astype(BF16)
    return dict(
        token_x=r((t, 7168), 1.0), weight_dq=ascend_mla.format_cast(r((7168, 1536)), 29),
        weight_uq_qr=ascend_mla.format_cast(r((1536, n * 192)), 29), weight_uk=r((n, 128, 512)),
        weight_dkv_kr=ascend_mla.format_cast(r((7168, 576)), 29),
        rmsnorm_gamma_cq=r((1536,), 1.0), rmsnorm_gamma_ckv=r((512,), 1.0),
        rope_sin=r((t, 64), 1.0), rope_cos=r((t, 64), 1.0),
        cache_index=np.array([3, 17], np.int64),
        kv_cache=np.zeros((blocks, bs, 1, 512), BF16), kr_cache=np.zeros((blocks, bs, 1, 64), BF16))


def fia_case(rng):
    kv = (rng.standard_normal((4, 16, 1, 512)) * 0.5).astype(BF16)
    kr = (rng.standard_normal((4, 16, 1, 64)) * 0.5).astype(BF16)
    return dict(query=(rng.standard_normal((2, 1, 8, 512)) * 0.1).astype(BF16), key=kv, value=kv,
                query_rope=(rng.standard_normal((2, 1, 8, 64)) * 0.1).astype(BF16), key_rope=kr,
                block_table=np.array([[2, 0], [1, 3]], np.int32), actual_seq_lengths_kv=[20, 9],
                num_heads=8, num_key_value_heads=1, block_size=16, scale_value=0.07,
                input_layout="BSND")


def nsa_case(rng):
    return dict(query=rng.standard_normal((2, 8, 32)).astype(BF16),
                key=rng.standard_normal((8, 16, 2 * 32)).astype(BF16),
                value=rng.standard_normal((8, 16, 2 * 16)).astype(BF16),
                scale_value=0.125, head_num=8, key_value_head_num=2, select_block_size=32,
                select_block_count=4, page_block_size=16, compress_block_size=32,
                compress_stride=16, block_table=np.array([[5, 2, 7, 0], [1, 6, 3, 4]], np.int32),
                actual_cmp_seq_kvlen=[40, 50])


OPS = {
    "npu_mla_prolog_v2": (prolog_case, ("kv_cache", "kr_cache")),
    "npu_fused_infer_attention_score": (fia_case, ()),
    "npu_nsa_compress_attention_infer": (nsa_case, ()),
}


def break_one_thing(case, rng):
    name = list(case)[rng.integers(len(case))]
    value = case[name]
    if isinstance(value, (np.ndarray, ascend_mla.NZTensor)) and not isinstance(value, ascend_mla.NZTensor):
        how = rng.integers(4)
        if how == 0 and value.ndim:                       # one dimension changes
            shape = list(value.shape)
            axis = rng.integers(len(shape))
            shape[axis] = int(rng.choice([0, 1, max(shape[axis] - 1, 0), shape[axis] + 1, 2 * shape[axis]]))
            case[name] = np.zeros(shape, value.dtype)
        elif how == 1:                                    # a dimension more or less
            shape = value.shape[1:] if value.ndim and rng.integers(2) else (1, *value.shape)
            case[name] = np.zeros(shape, value.dtype)
        elif how == 2:                                    # another element type
            case[name] = value.astype(DTYPES[rng.integers(len(DTYPES))])
        else:
            case[name] = None
    elif isinstance(value, ascend_mla.NZTensor):          # an NZ weight given as ND, or dropped
        case[name] = value.to_nd() if rng.integers(2) else None
    else:
        case[name] = ODD_VALUES[rng.integers(len(ODD_VALUES))]
    return name


@pytest.mark.parametrize("op_name", OPS)
@pytest.mark.parametrize("seed", range(SEEDS))
def test_broken_calls_raise_verification_errors_only(op_name, seed):
    make, caches = OPS[op_name]
    rng = np.random.default_rng(seed)
    case = make(np.random.default_rng(1000 + seed))
    broken = break_one_thing(case, rng)
    before = {c: case[c].copy() for c in caches if isinstance(case.get(c), np.ndarray)}
    op = getattr(ascend_mla.ops, op_name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ascend_mla.VerificationWarning)
        try:
            op(**case)
        except VerificationError:
            for c, old in before.items():
                assert case[c].tobytes() == old.tobytes(), f"{c} changed by a rejected call (broke {broken})"
        except Exception as e:  # noqa: BLE001 - the point of the test
            pytest.fail(f"breaking {broken!r} gave {type(e).__name__}: {e}")
