"""One case of each surface fuzzer (test_fuzz_surfaces.py), as a function of JSON-able
arguments returning None or the failure: run in the test's process (CI budgets) or in a child
interpreter (fuzzing.Worker, the large budgets).

The oracle of the Python API (docs/errors.md): a call returns, or raises one of the errors the
API documents, with a message; never another exception from inside. A rejected call leaves the
caller's arrays bit-identical.
"""
from __future__ import annotations

import os
import random
import threading
import traceback

import numpy as np

import ascend_mla
from ascend_mla import BackendUnavailable, VerificationError
from ascend_mla.runtime.checks import InputError
from ascend_mla.runtime.executor import ExecutionError

# What the API may raise on bad input. VerificationError covers CompileError (and the frontend's
# UnsupportedOperatorError); NotImplementedError says what this compiler does not do yet.
DOCUMENTED = (VerificationError, ExecutionError, InputError, BackendUnavailable, NotImplementedError)
MAX_ELEMENTS = 1 << 20


def _verdict(error: BaseException) -> str | None:
    if isinstance(error, DOCUMENTED) and str(error).strip():
        return None
    return "".join(traceback.format_exception(type(error), error, error.__traceback__))[-4000:]


def _inputs(program, rng):
    from ascend_mla.tools.mla_run import UsageError, argument_infos, nz_input, random_value
    try:
        infos = argument_infos(program, None)
        if any(None in i.shape for i in infos) or sum(i.numel for i in infos) > MAX_ELEMENTS:
            return None
        values = [random_value(i, rng) for i in infos]
        return [nz_input(v, i) if i.is_nz else v for v, i in zip(values, infos)]
    except UsageError:          # arguments mla-run cannot make (not tensors, a rank-1 NZ...): compile only
        return None


def _odd(value, rng):
    """Another form of one input: its type, shape, layout or values changed, or not an array."""
    how = rng.integers(8)
    a = np.asarray(value.to_nd() if hasattr(value, "to_nd") else value)
    if how == 0:
        return None
    if how == 1:
        return a.astype(rng.choice([np.float64, np.int64, np.int8, np.bool_, np.float16]))
    if how == 2:
        return np.zeros((1, *a.shape), a.dtype)
    if how == 3 and a.ndim:
        return np.asfortranarray(np.swapaxes(a, 0, -1))
    if how == 4:
        with np.errstate(all="ignore"):
            return np.full(a.shape, rng.choice([np.nan, np.inf, -1, 2 ** 31 - 1])).astype(a.dtype)
    if how == 5:
        return a.tolist()
    if how == 6:
        b = a.copy()
        b.setflags(write=False)
        return b
    return a[..., :0] if a.ndim else a.reshape(1)


def compile_case(text: str, seed: int) -> str | None:
    """compile() on IR text, then, when it compiles with small static inputs, the program on
    seeded random inputs and on one odd input (the in-place ones unchanged when it is refused)."""
    rng = np.random.default_rng(seed)
    try:
        program = ascend_mla.compile(text.encode("utf-8", "surrogateescape"), target="cpu")
        inputs = _inputs(program, rng)
    except BaseException as e:  # noqa: BLE001 - the verdict decides
        return _verdict(e)
    if inputs is None:
        return None
    try:
        program(*inputs)
    except BaseException as e:  # noqa: BLE001
        problem = _verdict(e)
        if problem:
            return problem
    if not inputs:
        return None
    i = int(rng.integers(len(inputs)))
    inputs[i] = _odd(inputs[i], rng)
    before = [np.array(v, copy=True) if isinstance(v, np.ndarray) else None for v in inputs]
    try:
        program(*inputs)
    except TypeError as e:     # a list or None where an array goes: Python's or ours, with a message
        return None if str(e) else _verdict(e)
    except BaseException as e:  # noqa: BLE001
        problem = _verdict(e)
        if problem:
            return problem
        for b, v in zip(before, inputs):
            if b is not None and b.tobytes() != np.asarray(v).tobytes():
                return f"a rejected call changed an input ({e})"
    return None


def build_case(arguments: dict) -> str | None:
    """deepseek.build on odd arguments, and its first step's inputs: a model, or ValueError
    naming an argument (or a config key)."""
    from ascend_mla.models import deepseek
    name = arguments.pop("name", "deepseek-v3")
    known = {"name", "tp", "layers", "batch", "seq", "quant", "cache_mode", "block_size", "seed",
             "max_positions", "weights", "config", "rope", "step"}
    try:
        model = deepseek.build(name, **arguments)
        model.inputs(0)
    except ValueError as e:
        head = str(e).split(":")[0]
        if head.split("[")[0] in known:
            return None
        return _verdict(e)
    except BaseException as e:  # noqa: BLE001
        return _verdict(e)
    return None


# --- the NPU loader, with broken CANN installs --------------------------------------------------

def loader_case(directory: str, content_kind: str, seed: int, env: dict) -> str | None:
    """CANN libraries of one kind of brokenness under `directory` and the environment `env`:
    set_backend("npu") raises BackendUnavailable (a one-line reason), "auto" runs on the CPU."""
    from ascend_mla.runtime import backend, npu
    rng = random.Random(seed)
    lib = os.path.join(directory, "lib64")
    os.makedirs(lib, exist_ok=True)
    for name in npu.LIBRARIES:
        path = os.path.join(lib, name)
        if os.path.lexists(path):
            if os.path.isdir(path) and not os.path.islink(path):
                os.rmdir(path)
            else:
                os.remove(path)
        if content_kind == "directory":
            os.mkdir(path)
        elif content_kind == "dangling link":
            os.symlink(os.path.join(directory, "nowhere"), path)
        elif content_kind == "link loop":
            os.symlink(path, path)
        else:
            with open(path, "wb") as f:
                f.write(_library_bytes(content_kind, rng))
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    npu.reset()
    try:
        try:
            backend.set_backend("npu")
            return "set_backend('npu') succeeded on a broken install"
        except BackendUnavailable as e:
            if not str(e).startswith("backend 'npu': ") or "\n" in str(e) or len(str(e)) > 800:
                return f"an unclear reason: {str(e)[:1000]!r}"
        except BaseException as e:  # noqa: BLE001
            return _verdict(e) or f"{type(e).__name__} instead of BackendUnavailable: {e}"
        backend.set_backend("auto")
        x = np.ones((2, 8), np.float32)
        out = ascend_mla.ops.rms_norm(x, np.ones(8, np.float32), epsilon=1e-6)
        if ascend_mla.get_backend() != "cpu" or not np.allclose(out, 1, rtol=1e-5):
            return "auto did not run on the CPU"
    except BaseException as e:  # noqa: BLE001
        return "".join(traceback.format_exception(type(e), e, e.__traceback__))[-4000:]
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        npu.reset()
        backend.set_backend("auto")
    return None


def _library_bytes(kind: str, rng) -> bytes:
    if kind == "empty":
        return b""
    if kind == "text":
        return b"INPUT(-lc)\n" if rng.random() < 0.5 else b"#!/bin/sh\nexit 0\n"
    if kind == "random":
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 4096)))
    if kind == "elf header":
        return b"\x7fELF" + bytes([rng.choice([1, 2]), 1, 1]) + bytes(rng.randrange(256) for _ in range(57))
    # "truncated": the start of a real shared library (this machine's libm)
    import ctypes.util
    real = ctypes.util.find_library("m")
    for root in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib"):
        path = os.path.join(root, real or "libm.so.6")
        if os.path.isfile(path):
            data = open(path, "rb").read()
            return data[:rng.randrange(1, len(data))]
    return b"\x7fELF"


LIBRARY_KINDS = ["empty", "text", "random", "elf header", "truncated", "directory", "dangling link", "link loop"]


# --- mla-translate on lowered IR -------------------------------------------------------------------

def lowered_corpus(chunks: list[str]) -> list[str]:
    """The lowered IR of the lit programs that compile."""
    out = []
    for chunk in chunks:
        try:
            out.append(ascend_mla.compile(chunk, target="cpu").lowered_ir)
        except Exception:  # noqa: BLE001 - not a program (the lit tests of errors)
            continue
    return out


# --- threads --------------------------------------------------------------------------------------

def threads_case(text: str, seed: int) -> str | None:
    """A program called from 3 threads at once gives each thread the results of the same calls
    made one after another."""
    rng = np.random.default_rng(seed)
    try:
        program = ascend_mla.compile(text, target="cpu")
        sets = [_inputs(program, rng) for _ in range(3)]
    except Exception:  # noqa: BLE001 - compile_case judges the compile
        return None
    if sets[0] is None:
        return None
    copies = [[np.array(v.to_nd() if hasattr(v, "to_nd") else v, copy=True) for v in s] for s in sets]

    def run(inputs):
        try:
            return [np.array(o.to_nd() if hasattr(o, "to_nd") else o, copy=True) for o in program(*inputs)]
        except Exception as e:  # noqa: BLE001
            return f"{type(e).__name__}: {e}"
    expected = [run(s) for s in sets]
    # the same inputs again (in-place caches restored), now from 3 threads
    sets = [_restore(s, c) for s, c in zip(sets, copies)]
    got = [None] * 3
    start = threading.Barrier(3)

    def work(t):
        start.wait()
        got[t] = run(sets[t])
    workers = [threading.Thread(target=work, args=(t,)) for t in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for t in range(3):
        if isinstance(expected[t], str) or isinstance(got[t], str):
            if expected[t] != got[t]:
                return f"thread {t}: sequential {expected[t]!r:.300}, threaded {got[t]!r:.300}"
        elif any(a.tobytes() != b.tobytes() for a, b in zip(expected[t], got[t])):
            return f"thread {t}: results differ from the sequential ones"
    return None


def _restore(inputs, copies):
    out = []
    for v, c in zip(inputs, copies):
        if isinstance(v, np.ndarray):
            v[...] = c
            out.append(v)
        else:
            out.append(v)
    return out
