"""One case of the checkpoint fuzzers (test_fuzz_checkpoints.py), as functions of JSON-able
arguments returning None or the failure (run in the test's process, or in a fuzzing.Worker).

checkpoint_case: a tiny checkpoint (tiny_checkpoints.py, two shards and an index) copied and
broken 1-3 ways (config.json keys, the index's names, safetensors headers and offsets, file
lengths, NaN/Inf data, files replaced by FIFOs, devices, links out of the directory), then
CausalLM.from_pretrained and one step. The oracle (docs/guide.md, "What is checked"): a model
whose logits are finite, or one CompileError/ValueError line naming what it refuses (a CKPT rule,
or the parameter); never another exception, a hang, NaN logits, or a file opened outside the
checkpoint directory.

generate_case: one compiled tiny model called with odd arguments (generate, __call__, the CLI):
a result, or a ValueError/CompileError naming the parameter; after a refusal the model still
gives the tokens it gave before.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import struct
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python"))

from tiny_checkpoints import TINY, write_tiny  # noqa: E402

import ascend_mla  # noqa: E402

INDEX = "model.safetensors.index.json"
_OPENED: list = []
_WATCHING: list = []


def _audit(event, args):
    if event == "open" and _WATCHING and isinstance(args[0], (str, bytes, os.PathLike)):
        _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)

ODD = [None, True, False, "2", 2.5, 2.0, 0, -1, 1, 3, 7, 64, 10 ** 9, 2 ** 63, 10 ** 400, [], [1], {}, "",
       float("inf"), float("nan")]
FOREIGN = ["../outside/model.safetensors", "/etc/passwd", "/dev/urandom", "", "sub/../../outside/model.safetensors",
           "link.safetensors", "fifo.safetensors", "missing.safetensors", 5, None, "config.json"]


# --- the mutations ---------------------------------------------------------------------------------

def _regular(path: str) -> str:
    """`path`, if an earlier mutation left it a regular file (opening the FIFO or the device it
    may have made instead would block or read forever: the mutation is skipped)."""
    if not os.path.isfile(path):
        raise OSError(f"{path} is no longer a regular file")
    return path


def _config(root, rng):
    path = _regular(os.path.join(root, "config.json"))
    with open(path) as f:
        c = json.load(f)
    how = rng.randrange(6)
    if how == 0:
        key = rng.choice(sorted(c))
        c[key] = rng.choice(ODD)
        what = f"config {key} = {c[key]!r:.40}"
    elif how == 1:
        key = rng.choice(sorted(c))
        del c[key]
        what = f"config without {key}"
    elif how == 2:
        key = rng.choice(["factor", "original_max_position_embeddings", "beta_fast", "mscale", "rope_type",
                          "rope_theta", "mscale_all_dim", "attention_factor", "truncate"])
        c["rope_parameters"] = dict(c["rope_parameters"], **{key: rng.choice(ODD + ["linear", "dynamic", -40])})
        what = f"config rope {key} = {c['rope_parameters'][key]!r:.40}"
    elif how == 3:
        key = rng.choice(["num_nextn_predict_layers", "quantization_config", "mlp_bias", "model_type",
                          "architectures", "scoring_func", "topk_method", "unknown_key", "rope_scaling",
                          "partial_rotary_factor", "attention_bias", "hidden_act"])
        c[key] = rng.choice(ODD + ["llama", ["LlamaForCausalLM"], "softmax", "greedy", "gelu",
                                   {"quant_method": "fp8"}, {"type": "yarn"}])
        what = f"config {key} = {c[key]!r:.40}"
    elif how == 4:
        text = json.dumps(c).encode()
        cut = rng.randrange(len(text))
        with open(path, "wb") as f:
            f.write(text[:cut] + rng.choice([b"", b"\xff", b"[" * 3000, b"NaN", b"}"]))
        return f"config.json cut at {cut}"
    else:
        c = rng.choice([[c], "text", 1, None])
        what = f"config.json is {json.dumps(c)[:30]}"
    with open(path, "w") as f:
        json.dump(c, f)
    return what


def _index(root, rng):
    path = _regular(os.path.join(root, INDEX))
    with open(path) as f:
        index = json.load(f)
    names = sorted(index["weight_map"])
    how = rng.randrange(5)
    if how == 0:
        name = rng.choice(names)
        index["weight_map"][name] = rng.choice(FOREIGN)
        what = f"index: {name} -> {index['weight_map'][name]!r}"
    elif how == 1:
        name = rng.choice(names)
        del index["weight_map"][name]
        what = f"index without {name}"
    elif how == 2:
        index["weight_map"]["model.layers.0.extra.weight"] = rng.choice(sorted(set(index["weight_map"].values())))
        what = "index lists a tensor no shard holds"
    elif how == 3:
        index = rng.choice([[], {"weight_map": []}, {"weight_map": {"a": 1}}, {}, "x"])
        what = f"index is {json.dumps(index)[:40]}"
    else:
        with open(path, "w") as f:
            f.write(json.dumps(index)[:rng.randrange(100)])
        return "index cut short"
    with open(path, "w") as f:
        json.dump(index, f)
    return what


def _shards(root):
    return sorted(f for f in os.listdir(root) if f.endswith(".safetensors") and os.path.isfile(os.path.join(root, f))
                  and not os.path.islink(os.path.join(root, f)))


def _header(root, rng):
    shard = rng.choice(_shards(root))
    path = os.path.join(root, shard)
    data = open(path, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    body = data[8 + n:]
    names = sorted(k for k in header if k != "__metadata__")
    name = rng.choice(names)
    how = rng.randrange(9)
    length = None
    if how == 0:
        a, b = header[name]["data_offsets"]
        header[name]["data_offsets"] = rng.choice([[a - 8, b], [a, b + 4], [0, b - a], [b, a], [a, 2 ** 64],
                                                   [-1, -1], [a, b, 0], [float(a), b]])
        what = f"{shard}: {name} offsets {header[name]['data_offsets']}"
    elif how == 1:
        shape = header[name]["shape"]
        header[name]["shape"] = rng.choice([shape[::-1], shape + [1], shape[:-1], [0] + shape, [-1] * len(shape),
                                            [2 ** 62, 2 ** 62], [str(d) for d in shape], []])
        what = f"{shard}: {name} shape {header[name]['shape']}"
    elif how == 2:
        header[name]["dtype"] = rng.choice(["F16", "BF16", "I64", "F8_E4M3", "F64", "BOOL", "BOGUS", 5, "F4"])
        what = f"{shard}: {name} dtype {header[name]['dtype']}"
    elif how == 3:
        length = rng.choice([0, 1, n - 1, n + 1, len(data), 2 ** 40, 2 ** 64 - 1, 100_000_001, 3 << 30])
        what = f"{shard}: header length {length}"
    elif how == 4:
        other = rng.choice(names)
        header[name]["data_offsets"], header[other]["data_offsets"] = \
            header[other]["data_offsets"], header[name]["data_offsets"]
        what = f"{shard}: offsets of {name} and {other} swapped"
    elif how == 5:
        header[rng.choice([name, "__metadata__", ""])] = rng.choice([{}, [], 1, {"x": 1}, None])
        what = f"{shard}: header entry replaced"
    elif how == 6:
        cut = rng.randrange(len(data))
        open(path, "wb").write(data[:cut])
        return f"{shard} cut at {cut} of {len(data)} bytes"
    elif how == 7:
        open(path, "ab").write(os.urandom(rng.choice([1, 8, 4096])))
        return f"{shard} with bytes appended"
    else:
        text = bytearray(json.dumps(header).encode())
        text[rng.randrange(len(text))] = rng.randrange(256)
        open(path, "wb").write(struct.pack("<Q", len(text)) + bytes(text) + body)
        return f"{shard}: a header byte changed"
    text = json.dumps(header).encode()
    open(path, "wb").write(struct.pack("<Q", len(text) if length is None else length % 2 ** 64) + text + body)
    return what


def _values(root, rng):
    """NaN, Inf or garbage written over the bytes of one float32 tensor."""
    shard = rng.choice(_shards(root))
    path = os.path.join(root, shard)
    data = bytearray(open(path, "rb").read())
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    name = rng.choice(sorted(k for k in header if k != "__metadata__" and header[k]["dtype"] == "F32"))
    a, b = header[name]["data_offsets"]
    if b == a:
        return f"{shard}: {name} is empty"
    at = 8 + n + a + 4 * rng.randrange((b - a) // 4)
    value = rng.choice([np.float32("nan"), np.float32("inf"), np.float32("-inf"), np.float32(3.4e38), None])
    data[at:at + 4] = os.urandom(4) if value is None else value.tobytes()
    open(path, "wb").write(data)
    return f"{shard}: {name} byte {at} = {value}"


def _file_kind(root, rng):
    target = rng.choice(_shards(root) + ["config.json", INDEX, "generation_config.json"])
    path = os.path.join(root, target)
    if os.path.lexists(path):
        os.unlink(path)
    how = rng.choice(["fifo", "outside", "passwd", "urandom", "zero", "dir", "dangling", "loop", "missing"])
    if how == "fifo":
        os.mkfifo(path)
    elif how == "outside":
        os.symlink(os.path.join(os.path.dirname(root), "outside", "model.safetensors"), path)
    elif how in ("passwd", "urandom", "zero"):
        os.symlink({"passwd": "/etc/passwd", "urandom": "/dev/urandom", "zero": "/dev/zero"}[how], path)
    elif how == "dir":
        os.mkdir(path)
    elif how == "dangling":
        os.symlink(os.path.join(root, "nowhere"), path)
    elif how == "loop":
        os.symlink(path, path)
    return f"{target} is {how}"


MUTATIONS = [_config, _config, _index, _header, _header, _header, _values, _file_kind]


def _make(base: str, dest: str, seed: int) -> str:
    """dest: a copy of base broken 1-3 ways; returns what was done."""
    rng = random.Random(seed)
    shutil.rmtree(os.path.dirname(dest), ignore_errors=True)
    os.makedirs(os.path.dirname(dest))
    shutil.copytree(base, dest)
    outside = os.path.join(os.path.dirname(dest), "outside")
    shutil.copytree(base, outside)
    shutil.copy(os.path.join(base, _shards(base)[0]), os.path.join(outside, "model.safetensors"))
    os.symlink(os.path.join(outside, "model.safetensors"), os.path.join(dest, "link.safetensors"))
    os.mkfifo(os.path.join(dest, "fifo.safetensors"))
    done = []
    for _ in range(rng.randint(1, 3)):
        try:
            done.append(rng.choice(MUTATIONS)(dest, rng))
        except (OSError, ValueError, KeyError, IndexError, TypeError, RecursionError) as e:   # no longer applies
            done.append(f"(skipped: {type(e).__name__})")
    return "; ".join(done)


def _documented(e: BaseException) -> bool:
    """One line, a CompileError/ValueError naming a CKPT rule or the parameter it refuses."""
    text = str(e)
    if not isinstance(e, ValueError) or "\n" in text.strip() or not text.strip():
        return False
    return "[CKPT-" in text or text.split(":")[0] in ("max_positions", "layers", "batch", "config",
                                                      "max_new_tokens", "input_ids", "tp")


def checkpoint_case(base: str, dest: str, seed: int):
    """None, or what went wrong (with the mutations that made it)."""
    from ascend_mla.models import deepseek
    what = _make(base, dest, seed)
    outside = os.path.realpath(os.path.join(os.path.dirname(dest), "outside"))
    _OPENED.clear()
    _WATCHING.append(1)
    try:
        lm = deepseek.CausalLM.from_pretrained(dest, target="cpu")
        logits = np.asarray(lm([[0, 5, 7, 9]]))
        problem = None if np.isfinite(logits).all() else "the model loaded and computed NaN/Inf logits"
    except BaseException as e:  # noqa: BLE001 - what it raised is the finding
        problem = None if _documented(e) else "".join(traceback.format_exception(type(e), e, e.__traceback__))[-3000:]
    finally:
        _WATCHING.clear()
    escaped = [p for p in _OPENED if os.path.realpath(p).startswith(outside + os.sep)
               or os.path.realpath(p) in ("/etc/passwd", "/dev/urandom", "/dev/zero")]
    if escaped:
        problem = f"opened outside the checkpoint: {escaped}" + (f"\n{problem}" if problem else "")
    return problem and f"{what}: {problem}"


# --- odd arguments of one compiled model ------------------------------------------------------------

_MODELS = {}
ODD_IDS = [[[0, 5, 7, 9]], [0, 5], [[0, 5], [1, 2]], [[]], [], [[-1, 3]], [[64, 3]], [[2 ** 40]], [[1.5, 2]],
           [[True, False]], [[[1]]], "1 2", None, np.zeros((1, 3), np.uint64), np.array([[3, 4]], np.int8),
           np.zeros((1, 300), np.int64), [[5] * 200], {"a": 1}]
ODD_NUMBERS = [0, 1, 2, -1, True, 2.0, "3", None, 10 ** 6, 2 ** 63, float("nan")]


def _model(base):
    from ascend_mla.models import deepseek
    if base not in _MODELS:
        _MODELS[base] = deepseek.CausalLM.from_pretrained(base, target="cpu")
    return _MODELS[base]


def generate_case(base: str, seed: int):
    rng = random.Random(seed)
    lm = _model(base)
    expected = lm.generate([[0, 5, 7, 9]], max_new_tokens=3, eos_token_id=None)
    kwargs = {}
    for key in rng.sample(["max_new_tokens", "attention_mask", "eos_token_id", "pad_token_id"], rng.randint(0, 2)):
        kwargs[key] = rng.choice(ODD_NUMBERS + ODD_IDS[:8]) if key != "attention_mask" else \
            rng.choice([[[1, 1, 1, 1]], [[0, 1, 1, 1]], [[1, 0, 1, 1]], [[2, 1, 1, 1]], [[1, 1]], [[0, 0, 0, 0]],
                        None, "x", [[True, True, True, True]]])
    ids = rng.choice(ODD_IDS)
    call = rng.choice(["generate", "call"])
    try:
        if call == "generate":
            out = lm.generate(ids, **kwargs)
        else:
            out = lm(ids, **({"attention_mask": kwargs["attention_mask"]} if "attention_mask" in kwargs else {}))
            out = np.asarray(out)
            if not np.isfinite(out).all():
                return f"{call}({ids!r:.80}, {kwargs!r:.120}): NaN/Inf logits"
    except BaseException as e:  # noqa: BLE001
        if not _documented(e) and not (isinstance(e, ValueError) and str(e).split(":")[0] in (
                "attention_mask", "eos_token_id", "pad_token_id", "max_new_tokens", "input_ids")):
            return f"{call}({ids!r:.80}, {kwargs!r:.120}):\n" + "".join(
                traceback.format_exception(type(e), e, e.__traceback__))[-3000:]
    again = lm.generate([[0, 5, 7, 9]], max_new_tokens=3, eos_token_id=None)
    if not np.array_equal(again, expected):
        return f"{call}({ids!r:.80}, {kwargs!r:.120}) changed the model: {again} after, {expected} before"
    return None


def cli_case(base: str, seed: int):
    """`ascend-mla generate` with odd arguments: exit 0, or 1/2 with one error line."""
    import contextlib
    import io

    from ascend_mla.tools import ascend_mla_cli
    rng = random.Random(seed)
    argv = ["generate", base]
    options = {"--prompt-ids": ["0,5,7", "", "-1", "99999999999999999999", "1,,2", "a", "64", "0," * 300, "1.5"],
               "--max-new-tokens": ["0", "1", "-1", "x", "300", "99999999999"], "--batch": ["0", "1", "2", "-3", "x"],
               "--quant": ["w8a8", "int4", ""], "--cache-mode": ["PA_NZ", "X"], "--target": ["cpu", "npu", "gpu"],
               "--tp": ["1", "2", "0"], "--prompt": ["hello", ""], "--ignore-eos": [None], "--allow-nonfinite": [None]}
    for key in rng.sample(sorted(options), rng.randint(1, 3)):
        value = rng.choice(options[key])
        argv += [key] if value is None else [key, value]
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = ascend_mla_cli.main(argv)
    except SystemExit as e:
        status = e.code
    except BaseException as e:  # noqa: BLE001
        return f"{argv}: raised\n" + "".join(traceback.format_exception(type(e), e, e.__traceback__))[-3000:]
    lines = [line for line in err.getvalue().splitlines() if line.strip()]
    if status == 0 or status in (1, 2) and len(lines) == 1 and lines[0].startswith("ascend-mla: error: "):
        return None
    return f"{argv}: exit {status}, stderr:\n{err.getvalue()[-2000:]}"


def base_checkpoint(root: str) -> str:
    """The fuzzers' starting checkpoint: TINY over two shards with an index."""
    path = os.path.join(root, "base")
    if not os.path.exists(os.path.join(path, INDEX)):
        write_tiny(path, shards=2)
    return path


__all__ = ["TINY", "checkpoint_case", "generate_case", "cli_case", "base_checkpoint", "ascend_mla"]
