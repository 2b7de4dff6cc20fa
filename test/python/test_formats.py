"""format_cast / get_format: FRACTAL_NZ packing checked element by element against the
documented mapping ND (h, w) -> NZ [w // C0, h // 16, h % 16, w % C0] (numerics.md)."""
import itertools

import ml_dtypes
import numpy as np
import pytest

import ascend_mla
from ascend_mla import FRACTAL_NZ, ND, format_cast, get_format
from ascend_mla.runtime.formats import nd_to_nz, nz_to_nd

BF16 = np.dtype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("dtype,c0", [(BF16, 16), (np.float16, 16), (np.int8, 32), (np.float32, 8)])
@pytest.mark.parametrize("shape", [(16, 32), (20, 45), (3, 17, 40)])
def test_every_element_lands_where_the_mapping_says(dtype, c0, shape):
    rng = np.random.default_rng(0)
    nd = rng.integers(-100, 100, shape).astype(dtype)
    nz = format_cast(nd, FRACTAL_NZ)
    *batch, h, w = shape
    assert nz.shape == shape and nz.dtype == np.dtype(dtype)
    assert nz.data.shape == (*batch, -(-w // c0), -(-h // 16), 16, c0)
    for b in itertools.product(*map(range, batch)):
        for i, j in itertools.product(range(h), range(w)):
            assert nz.data[b + (j // c0, i // 16, i % 16, j % c0)] == nd[b + (i, j)]
    # The padding is zeros: the data holds exactly the matrix's values plus zeros.
    assert np.count_nonzero(nz.data) == np.count_nonzero(nd)


def test_round_trip_is_exact_and_formats_are_reported():
    nd = np.random.default_rng(1).standard_normal((7168, 576)).astype(BF16)
    nz = format_cast(nd, 29)
    assert get_format(nz) == FRACTAL_NZ == 29 and get_format(nd) == ND == 2
    back = format_cast(nz, 2)
    assert back.dtype == BF16 and np.array_equal(back.view(np.uint16), nd.view(np.uint16))
    assert format_cast(nz, FRACTAL_NZ) is nz and format_cast(nd, ND) is nd


def test_torch_tensors_can_be_cast():
    torch = pytest.importorskip("torch", reason="torch interop is only offered when torch is installed")
    t = torch.randn(32, 48).bfloat16()
    nz = format_cast(t, FRACTAL_NZ)
    assert nz.shape == (32, 48)
    assert np.array_equal(format_cast(nz, ND).astype(np.float32), t.float().numpy())


def test_bad_requests_are_clear_errors():
    with pytest.raises(ValueError, match="rank >= 2"):
        format_cast(np.ones(8, BF16), FRACTAL_NZ)
    with pytest.raises(ValueError, match="unsupported format 3"):
        format_cast(np.ones((2, 2)), 3)
    with pytest.raises(ValueError, match="does not match logical shape"):
        ascend_mla.NZTensor(np.zeros((2, 1, 16, 16), BF16), (16, 48))


def test_nz_cache_view_shares_the_prolog_cache_memory():
    cache = np.zeros((3, 16, 1, 64), BF16)
    view = ascend_mla.nz_cache_view(cache)
    assert view.shape == (3, 16, 64) and get_format(view) == FRACTAL_NZ
    # slot 5 of block 2, element h = 20: offset per numerics.md point 5
    cache.reshape(-1)[2 * 16 * 64 + (20 // 16) * 16 * 16 + 5 * 16 + 20 % 16] = 7
    assert view.to_nd()[2, 5, 20] == 7
    with pytest.raises(ValueError, match="BlockSize must be a multiple of 16"):
        ascend_mla.nz_cache_view(np.zeros((3, 8, 1, 64), BF16))


def test_nz_data_never_aliases_the_matrix_it_was_packed_from():
    """A matrix one fractal wide (W == C0) is packed without padding and its transpose is already
    contiguous: the NZ data must still be a copy, or writing one would change the other."""
    for shape, dtype in (((32, 16), BF16), ((2, 32, 16), BF16), ((16, 32), np.int8), ((48, 80), BF16)):
        a = np.arange(np.prod(shape)).reshape(shape).astype(dtype)
        nz = nd_to_nz(a)
        assert not np.shares_memory(nz, a), shape
        np.testing.assert_array_equal(nz_to_nd(nz, shape).view(np.uint8), a.view(np.uint8))
