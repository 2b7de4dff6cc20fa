"""The MLA chain as IR: mla.prolog_v2 writing PA_BSND caches, or PA_NZ caches read through
mla.nz_cache_view, gives the same attention bit for bit (only the storage order differs)."""
from pathlib import Path

import ml_dtypes
import numpy as np

import ascend_mla
from ascend_mla.runtime.formats import nd_to_nz

BF16 = np.dtype(ml_dtypes.bfloat16)
CHAIN = (Path(__file__).parents[1] / "lit" / "dialect" / "mla-chain.mlir").read_text()
B, N, BLOCKS, BS = 2, 8, 4, 16
BLOCK_TABLE = np.array([[2, 0], [1, 3]], np.int32)   # as in the IR: kv lengths 20 and 9


def nz_blocks(cache):
    """The PA_NZ storage of a PA_BSND cache: each (BlockSize, H) block in fractal order."""
    blocks, bs, _, h = cache.shape
    return np.stack([nd_to_nz(cache[i, :, 0]).reshape(bs, 1, h) for i in range(blocks)])


def test_pa_nz_through_nz_cache_view_equals_pa_bsnd():
    pa_bsnd, pa_nz = (ascend_mla.compile(chunk) for chunk in CHAIN.split("// -----"))
    rng = np.random.default_rng(5)
    r = lambda shape, s=0.05: (rng.standard_normal(shape) * s).astype(BF16)   # noqa: E731
    nz = lambda w: ascend_mla.format_cast(w, ascend_mla.FRACTAL_NZ)             # noqa: E731
    weights = [nz(r((7168, 1536))), nz(r((1536, N * 192))), r((N, 128, 512)), nz(r((7168, 576))),
               r((1536,), 1.0), r((512,), 1.0)]
    # Earlier tokens already in the caches; the new ones go to positions 19 and 8.
    kv, kr = r((BLOCKS, BS, 1, 512), 1.0), r((BLOCKS, BS, 1, 64), 1.0)
    slots = np.array([[0 * BS + 3], [1 * BS + 8]], np.int64)
    step = [r((B, 1, 7168), 1.0), *weights, r((B, 1, 64), 1.0), r((B, 1, 64), 1.0), slots]

    out_rows, kv_rows, kr_rows = pa_bsnd(*step, kv.copy(), kr.copy(), BLOCK_TABLE)
    out_nz, kv_nz, kr_nz = pa_nz(*step, nz_blocks(kv), nz_blocks(kr), BLOCK_TABLE)

    assert np.array_equal(out_nz.view(np.uint16), out_rows.view(np.uint16))
    # and the caches hold the same rows, in their own orders
    assert np.array_equal(kv_nz.view(np.uint16), nz_blocks(kv_rows).view(np.uint16))
    assert np.array_equal(kr_nz.view(np.uint16), nz_blocks(kr_rows).view(np.uint16))
    # the new tokens were written (the comparison is not between two untouched caches)
    assert not np.array_equal(kv_rows.view(np.uint16), kv.view(np.uint16))
