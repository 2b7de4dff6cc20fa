"""The matrix products every kernel shares: bf16/f16/f32 x weight with float32 accumulation,
int8 x int8 with exact int32 accumulation, and the per-head product of MLA's absorbed form.

Weights are constants in practice (a compiled program's globals, an eager call's NZ weights),
so their float32 (or torch) forms are converted once: an NZTensor keeps them in its
`kernel_cache`, a read-only ND array in a cache keyed by its identity while it lives. A
writeable array is converted on every call (it may change between calls).

Matmul backends (the hot bf16 products; env ASCEND_MLA_MATMUL=numpy|torch|jit|auto, read per
call). Each keeps the rounding contract's points (bf16 operands, float32 accumulation, one
rounding to bf16: docs/numerics.md); they differ in the order inside the float32 sum, which the
contract leaves open, and only jit and numpy are deterministic for any thread count:
  jit    (auto's choice) MLIR-compiled bf16 products (jit.py): the weights read as bf16 in
         16-column panels (an NZ weight as it is), one fixed summation order, threads over the
         output columns: the same bits for any thread count, on any CPU.
  numpy  float32 BLAS on float32 copies of the weights: bf16 values are exact in float32, the
         accumulation is float32 and the caller rounds once to bf16 (auto's choice where MLIR's
         ExecutionEngine cannot run).
  torch  torch bf16 matmul (oneDNN), a constant weight packed once into oneDNN's blocked layout:
         a comparison for the benchmarks, not the default: oneDNN splits K among threads at
         decode shapes, so its bits change with the thread count (and with the CPU's ISA).
"""
from __future__ import annotations

import functools
import warnings
import weakref

import numpy as np

from ...passes.weights import is_frozen
from ..formats import NZTensor
from .common import bfloat16, f32, matmul_choice, native_bf16_cpu, torch_module


def converted(weight, key: str, build, build_nz=None):
    """build(the weight as an ND array), cached for a constant weight (see the module doc);
    an NZ weight goes to build_nz(weight) when given (a form made straight from the fractals)."""
    if isinstance(weight, NZTensor):
        cache = weight.kernel_cache
        if key not in cache:
            cache[key] = build(weight.to_nd()) if build_nz is None else build_nz(weight)
        return cache[key]
    return _cached_constant(np.asarray(weight), key, build)


def weight_f32(weight) -> np.ndarray:
    """The logical weight as float32 (exact for bf16, f16 and int8)."""
    return converted(weight, "gemm/f32", lambda a: a.astype(np.float32))


# float32 sums of int8 x int8 products are exact while every partial sum stays below 2**24 in
# magnitude; a K-chunk of 1024 rows bounds it by 1024 * 128 * 128 = 2**24 whatever order BLAS
# adds in. The chunk sums are then added in float64 (exact: |acc| < 2**31).
_INT8_K_CHUNK = 1024


def int8_matmul(a, weight) -> np.ndarray:
    """int8 a (T, K) @ int8 weight (K, N) with exact int32 accumulation, as float32.

    Exact whichever way it is summed, so any library gives the same bits: torch's int8 GEMM
    (`torch._int_mm`, int32 sums: exact while K * 128 * 128 < 2**31) when torch runs the
    products, else float32 BLAS in K-chunks that keep every partial sum exact (below)."""
    w = _torch_int8_weight(weight) if a.dtype == np.int8 else None
    if w is not None:
        torch = torch_module()
        return torch._int_mm(_torch_readonly(torch, np.ascontiguousarray(a)), w).numpy().astype(np.float32)
    return int8_matmul_blas(a, weight_f32(weight))


def int8_matmul_blas(a, w_f32) -> np.ndarray:
    """int8_matmul in float32 BLAS, w_f32 the weight's float32 copy: K-chunks whose partial sums
    stay exact (_INT8_K_CHUNK), added in float64."""
    a = f32(a)                                  # exact: int8 values
    acc = np.zeros((a.shape[0], w_f32.shape[1]), np.float64)
    for k in range(0, w_f32.shape[0], _INT8_K_CHUNK):
        acc += a[:, k:k + _INT8_K_CHUNK] @ w_f32[k:k + _INT8_K_CHUNK]
    return acc.astype(np.float32)


_INT32_EXACT_K = 2**31 // (128 * 128)


def _torch_int8_weight(weight):
    """The int8 weight as the torch tensor torch._int_mm takes, or None where int8_matmul sums
    in float32 BLAS instead."""
    if weight.shape[0] >= _INT32_EXACT_K or matmul_choice() == "numpy" or not _torch_int_mm():
        return None
    torch = torch_module()
    return converted(weight, "gemm/torch_int8", lambda nd: _torch_readonly(torch, np.ascontiguousarray(nd, np.int8)))


@functools.lru_cache(maxsize=None)
def _torch_int_mm() -> bool:
    """Does this torch have its int8 x int8 -> int32 GEMM on the CPU?"""
    torch = torch_module()
    if torch is None:
        return False
    try:
        got = torch._int_mm(torch.ones((2, 3), dtype=torch.int8), torch.ones((3, 5), dtype=torch.int8))
    except (AttributeError, RuntimeError):
        return False
    return bool((got == 3).all())


def float_matmul(a, weight, *, rounds_to_bf16: bool) -> np.ndarray:
    """a (T, K) (values exact in float32) @ weight (K, N): float32 accumulation. With
    `rounds_to_bf16` the caller rounds the result to bf16 (so the torch backend, which rounds
    once to bf16 itself, may serve); the numpy backend returns it unrounded."""
    if rounds_to_bf16:
        return bf16_matmul(a, weight).astype(np.float32)
    return f32(a) @ weight_f32(weight)


def bf16_matmul(a, weight) -> np.ndarray:
    """a (T, K) holding bf16 values (bfloat16, or float32 that bf16 holds exactly) @ weight
    (K, N): float32 accumulation, rounded once to bf16; a bfloat16 array.

    jit and torch return the rounded bf16 product itself, which is handed back as it is (not
    converted to float32 in fresh memory and rounded again)."""
    engine = bf16_engine()
    if engine == "jit" and np.dtype(weight.dtype) == bfloat16:
        from . import jit
        return jit.product(np.asarray(a)[None], _jit_panels(weight), weight.shape[1])[0]
    if engine == "torch":
        torch = torch_module()
        x = torch_bf16_input(torch, a)
        packed, w = _torch_linear_weight(torch, weight, rows=len(a))
        if packed:
            return numpy_bf16(torch.ops.mkldnn._linear_pointwise(x, w, None, "none", [], ""))
        return numpy_bf16(torch.nn.functional.linear(x, w))
    return (f32(a) @ weight_f32(weight)).astype(bfloat16)


def _torch_linear_weight(torch, weight, rows):
    """(packed, the weight as torch multiplies it): oneDNN's packed form of a constant weight,
    else the (N, K) bf16 tensor F.linear takes."""
    if rows and 0 not in weight.shape and is_constant(weight) and _packs_linear_weights():   # oneDNN packs no empty one
        pack = functools.partial(_packed_linear_weight, torch)
        return True, converted(weight, "gemm/torch_bf16_packed", pack, pack)
    nk = functools.partial(_nk_weight, torch)
    return False, converted(weight, "gemm/torch_bf16_nk", nk, nk)


def bf16_product(types, x="x", y="y") -> bool:
    """From an op's TensorInfos: is the product's result bf16 from bf16 operands (rounded once,
    so torch's bf16 GEMM may serve; float_matmul's `rounds_to_bf16`)?"""
    return types[x].dtype == "bf16" and types[y].dtype == "bf16"


def prepare(weight, product: str, *, rounds_to_bf16: bool = True) -> None:
    """Convert a constant weight now into the form its product reads, so that the first call
    does not pay it (compile() does this for every bound weight: kernels/__init__.py
    prepare_weights). `product`: "matmul" (x @ weight: bf16_matmul, float_matmul,
    int8_matmul) or "heads" (head_matmul, head_matmul_bf16); `rounds_to_bf16` as the op's
    product is called. The conversions are the products' own, by the same functions."""
    if not is_constant(weight):
        return                                  # converted on each call anyway
    if np.dtype(weight.dtype) == np.int8 and _torch_int8_weight(weight) is not None:
        return                                  # (made by _torch_int8_weight)
    engine = bf16_engine()
    if np.dtype(weight.dtype) == bfloat16 and rounds_to_bf16 and engine == "jit":
        _jit_panels(weight) if product == "matmul" else _jit_head_panels(weight)
    elif np.dtype(weight.dtype) == bfloat16 and rounds_to_bf16 and engine == "torch":
        torch = torch_module()
        if product == "matmul":
            _torch_linear_weight(torch, weight, rows=1)
        else:
            _torch_head_weight(torch, weight)
    else:
        weight_f32(weight)


# A constant weight is reordered once into the blocked layout oneDNN's bf16 GEMM reads, instead
# of being repacked on every call (what F.linear does with a plain weight): the same oneDNN
# kernel and summation order, so the same bits (the torch choice only: a comparison for the
# benchmarks), and decode products that read the weight once. Only where F.linear's bf16 product is
# itself oneDNN's: a CPU with native bf16.

@functools.lru_cache(maxsize=None)
def _packs_linear_weights() -> bool:
    torch = torch_module()
    try:
        return native_bf16_cpu() and torch.backends.mkldnn.is_available() and \
            callable(torch.ops.mkldnn._reorder_linear_weight)
    except (AttributeError, RuntimeError):
        return False


def _nk_weight(torch, weight):
    """A (K, N) bf16 weight (ND array or NZTensor) as the contiguous (N, K) torch tensor F.linear
    takes. From NZ, one transposing copy of the fractals (N/16, K/16, 16, 16) in torch (on all
    threads), instead of NZ -> ND -> transposed ND in NumPy: the same values."""
    if isinstance(weight, NZTensor) and weight.ndim == 2 and weight.shape[0] % 16 == 0 \
            and weight.shape[1] % weight.data.shape[-1] == 0:
        k, n = weight.shape
        fractals = torch_bf16(torch, weight.data)               # [n // C0, k // 16, k % 16, n % C0]
        return fractals.permute(0, 3, 1, 2).reshape(n, k).contiguous()
    nd = weight.to_nd() if isinstance(weight, NZTensor) else weight
    return torch_bf16(torch, np.ascontiguousarray(nd.T))


def _packed_linear_weight(torch, weight):
    """The (K, N) weight as oneDNN's packed (N, K) linear weight, good for any row count."""
    return torch.ops.mkldnn._reorder_linear_weight(_nk_weight(torch, weight))


def is_constant(weight) -> bool:
    """Is the weight converted once (NZ, or read-only) rather than on every call?"""
    return isinstance(weight, NZTensor) or is_frozen(np.asarray(weight))


def head_matmul(x, weight, *, rounds_to_bf16: bool) -> np.ndarray:
    """out[t, h] = x[t, h] @ weight[h]: (T, H, K) x (H, K, N) -> (T, H, N), float32 accumulation
    (unrounded for numpy, rounded once to bf16 for torch; see float_matmul)."""
    if rounds_to_bf16 and _torch_heads(weight):
        return head_matmul_bf16(x, weight).astype(np.float32)
    heads = np.ascontiguousarray(np.swapaxes(x, 0, 1))                 # (H, T, K)
    return np.swapaxes(np.matmul(f32(heads), weight_f32(weight)), 0, 1)


def head_matmul_bf16(x, weight) -> np.ndarray:
    """head_matmul rounded once to bf16: a contiguous bfloat16 (T, H, N) array; x holds bf16
    values."""
    if bf16_engine() == "jit" and np.asarray(weight).dtype == bfloat16:
        from . import jit
        # x read through its (H, T, K) view, the product written through the (H, T, N) view of
        # the (T, H, N) result: no transposing copies
        out = np.empty((x.shape[0], x.shape[1], weight.shape[-1]), bfloat16)
        jit.product(np.swapaxes(x, 0, 1), _jit_head_panels(weight), weight.shape[-1],
                    out=np.swapaxes(out, 0, 1))
        return out
    if not _torch_heads(weight):
        heads = np.ascontiguousarray(np.swapaxes(x, 0, 1))
        out = np.matmul(f32(heads), weight_f32(weight)).astype(bfloat16)
        return np.ascontiguousarray(np.swapaxes(out, 0, 1))
    torch = torch_module()
    # Operands and result as they lie: x read through its (H, T, K) view, the weight strided or
    # not, the product written through the (H, T, N) view of a (T, H, N) array. torch copies
    # only what its GEMM needs; the bits are those of contiguous operands (checked
    # for T = 1..300 when the contract was written), and the two transposing NumPy copies this replaces cost more than the
    # product at decode.
    # A constant weight is made contiguous once (W_uv, a transposed slice of kv_b_proj whose
    # head stride torch cannot take, was copied by torch on every call): the same bits, as torch
    # multiplies the contiguous copy it would make.
    heads = torch_bf16(torch, x, strided=True) if x.dtype == bfloat16 else torch_bf16_input(torch, x)
    w = _torch_head_weight(torch, weight)
    out = torch.empty((x.shape[0], x.shape[1], weight.shape[-1]), dtype=torch.bfloat16)
    torch.matmul(heads.transpose(0, 1), w, out=out.transpose(0, 1))
    return numpy_bf16(out)


def _torch_head_weight(torch, weight):
    if is_constant(weight):
        return converted(weight, "gemm/torch_bf16_heads", lambda nd: torch_bf16(torch, np.ascontiguousarray(nd)))
    return torch_bf16(torch, weight, strided=True)


def _torch_heads(weight) -> bool:
    return bf16_engine() in ("torch", "jit") and np.asarray(weight).dtype == bfloat16


def _jit_panels(weight):
    """A bf16 (K, N) weight as jit.product streams it: (1, N/16, K', 16) panels. An NZ weight's
    own memory is that form (its fractals are 16 columns wide and K' = K padded to 16 rows)."""
    from . import jit
    if isinstance(weight, NZTensor) and weight.ndim == 2 and weight.data.shape[-1] == 16:
        data = weight.data                           # (N/16, K'/16, 16, 16)
        return data.view(np.int16).reshape(1, data.shape[0], data.shape[1] * 16, 16)
    return converted(weight, "gemm/jit_panels", lambda nd: jit.panels(nd[None]))


def _jit_head_panels(weight):
    """A bf16 (H, K, N) per-head weight as (H, N/16, K, 16) panels, made once for a constant."""
    from . import jit
    return converted(weight, "gemm/jit_head_panels", lambda nd: jit.panels(nd))


def bf16_engine() -> str:
    """Which library runs the bf16 products: "jit", "torch" or "numpy" (the module doc)."""
    choice = matmul_choice()
    if choice == "torch" and torch_module() is None:
        raise RuntimeError("ASCEND_MLA_MATMUL=torch but torch cannot be imported")
    if choice in ("auto", "jit"):
        from . import jit
        if jit.available():
            return "jit"
        if choice == "jit":
            raise RuntimeError("ASCEND_MLA_MATMUL=jit but MLIR's ExecutionEngine cannot run here")
        return "numpy"
    return choice


def use_torch() -> bool:
    """Does torch run the bf16 products (ASCEND_MLA_MATMUL=torch)?"""
    return bf16_engine() == "torch"


def torch_glue() -> bool:
    """May the kernels' elementwise stages run in torch (on every core)? When torch imports,
    unless ASCEND_MLA_MATMUL=numpy: they are the same IEEE float32 operations as NumPy's."""
    return matmul_choice() != "numpy" and torch_module() is not None


def _torch_readonly(torch, array):
    """torch.from_numpy of an array that may be read-only (a constant: torch only reads it,
    and would warn on every call)."""
    if array.flags.writeable:
        return torch.from_numpy(array)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return torch.from_numpy(array)


def torch_bf16(torch, array, strided=False):
    """A torch bf16 tensor sharing the bits of a bfloat16 NumPy array: contiguous (a copy when
    the array is not), or with the array's strides when `strided` and torch can take them."""
    if strided and all(st >= 0 and st % 2 == 0 for st in array.strides):
        bits = array.view(np.int16)
    else:
        bits = np.ascontiguousarray(array).view(np.int16)
    return _torch_readonly(torch, bits).view(torch.bfloat16)


def torch_bf16_input(torch, a):
    """A contiguous torch bf16 tensor of a's values (bf16 values, as bfloat16 or float32):
    shares a bfloat16 array's memory, converts a float32 one (exactly)."""
    if a.dtype == bfloat16:
        return torch_bf16(torch, a)
    return torch.from_numpy(np.ascontiguousarray(a, dtype=np.float32)).to(torch.bfloat16)


def numpy_bf16(tensor) -> np.ndarray:
    """The bfloat16 NumPy array sharing a torch bf16 tensor's memory."""
    return tensor.view(torch_module().int16).numpy().view(bfloat16)


# --- constant conversions, keyed by id(array) while the array lives ---------------------------

_CONSTANTS: dict = {}


def _cached_constant(array: np.ndarray, key: str, build):
    """build(array), cached while `array`'s memory lives if it cannot change: read-only, and so
    is every array it views. A view (a transposed weight) is cached by its memory and layout,
    so a new view of the same constant each call still hits. A writeable array is converted on
    every call."""
    if not is_frozen(array):
        return build(array)
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    # `build` must not keep a reference to `array`, or the entry would keep it alive.
    entry_key = (id(root), array.__array_interface__["data"][0], array.shape, array.strides,
                 array.dtype.str, key)
    entry = _CONSTANTS.get(entry_key)
    if entry is None or entry[0]() is not root:
        value = build(array)
        if _aliases(value, root):
            # a view of the constant's own memory (a torch tensor over a contiguous weight):
            # cheap to make again, and kept here it would keep `root` alive for ever
            return value
        ref = weakref.ref(root, lambda _, k=entry_key, table=_CONSTANTS: table.pop(k, None))   # the table bound now: at exit the module global is None
        entry = _CONSTANTS[entry_key] = (ref, value)
    return entry[1]


def _aliases(value, root: np.ndarray) -> bool:
    """Does `value` (a NumPy array or a torch tensor) start inside root's memory?"""
    try:
        start = value.__array_interface__["data"][0] if isinstance(value, np.ndarray) else value.data_ptr()
    except (AttributeError, RuntimeError):      # an opaque (oneDNN-packed) tensor: its own memory
        return False
    low = root.__array_interface__["data"][0]
    return low <= start < low + max(root.nbytes, 1)
