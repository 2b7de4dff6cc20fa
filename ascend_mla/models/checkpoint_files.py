"""The files of a checkpoint directory, read as untrusted input (docs/guide.md, "What is checked").

Every file the loader opens goes through `CheckpointDir.open`: its name (config.json, a shard
the index names) must be relative, without `..`, and resolve to a regular file inside the
directory (or, for a Hugging Face cache snapshot `.../snapshots/<rev>/`, inside the same
repository's `blobs/`, where the hub's links point). The file is stat'ed before it is opened
(a FIFO or a device is never opened: a FIFO would block, a device could have side effects),
opened with O_NONBLOCK, and fstat'ed again: the object opened must be the regular file that was
checked. A safetensors file's header is then checked before any tensor is read:

    the 8-byte length            at most 100 MB (the format's cap) and inside the file
    the header                   a JSON object of UTF-8, no duplicate names, no NaN
    each tensor                  {"dtype", "shape", "data_offsets"}; a safetensors dtype; a shape
                                 of non-negative integers; offsets two non-negative integers
    the offsets, in order        contiguous from 0, each end - start = shape x dtype size,
                                 the last end at the end of the file (the format's layout: no
                                 gap, no overlap, nothing after)

and the `safetensors` library's own reader (safe_open, on the same open file) must accept it
too: the project's checks name the file and the tensor, the library's are the format's
reference (test_untrusted_checkpoints.py checks that both refuse the same broken files).
Tensors are then views of a read-only memory map of the checked file.
"""
from __future__ import annotations

import json
import mmap
import os
import stat
from dataclasses import dataclass

MAX_HEADER_BYTES = 100_000_000      # the safetensors format's cap on the JSON header
MAX_JSON_BYTES = 64 << 20           # config.json, generation_config.json, the shard index

# bits per element of every safetensors dtype (the format's list)
DTYPE_BITS = {"BOOL": 8, "U8": 8, "I8": 8, "F8_E5M2": 8, "F8_E4M3": 8, "F8_E8M0": 8, "F8_E4M3FNUZ": 8,
              "F8_E5M2FNUZ": 8, "I16": 16, "U16": 16, "F16": 16, "BF16": 16, "I32": 32, "U32": 32, "F32": 32,
              "F64": 64, "I64": 64, "U64": 64, "C64": 64, "F4": 4, "F6_E2M3": 6, "F6_E3M2": 6}


def _error(message: str, rule: str):
    from ..compiler import CompileError
    return CompileError(f"{message} [{rule}]")


@dataclass(frozen=True)
class Entry:
    """One tensor of a checked safetensors file: where its bytes are (absolute offsets)."""
    file: str          # the path as the user sees it (for messages)
    real: str          # the resolved regular file
    size: int          # the file's size when checked
    name: str
    dtype: str
    shape: tuple
    start: int
    end: int


class CheckpointDir:
    """A checkpoint directory whose files are opened only as regular files inside it."""

    def __init__(self, path):
        self.path = os.fspath(path)
        self.real = os.path.realpath(self.path)
        self.allowed = [self.real]
        parent = os.path.dirname(self.real)
        if os.path.basename(parent) == "snapshots":          # the hub cache: snapshots/<rev>/x -> ../../blobs/
            self.allowed.append(os.path.join(os.path.dirname(parent), "blobs"))

    def label(self, name: str) -> str:
        return os.path.join(self.path, name)

    def resolve(self, name, what: str | None = None) -> str:
        """The real path of `name` (relative to the directory), refused unless it is a plain
        relative name whose target lies inside the directory (or the hub's blobs). `what`: who
        names it, for the message (an index: "<index>: shard")."""
        said = f"{what} " if what else ""
        if not isinstance(name, str) or not name or "\0" in name:
            raise _error(f"{said}{name!r} is not a file name", "CKPT-PATH")
        parts = name.replace("\\", "/").split("/")
        if os.path.isabs(name) or name.startswith(("/", "\\")) or ".." in parts:
            raise _error(f"{said}{name!r} points outside the checkpoint directory {self.path} (an absolute path "
                         f"or '..')", "CKPT-PATH")
        real = os.path.realpath(os.path.join(self.real, name))
        if not any(real == a or real.startswith(a + os.sep) for a in self.allowed):
            raise _error(f"{said}{self.label(name)} is a link to {real}, outside the checkpoint directory",
                         "CKPT-PATH")
        return real

    def open(self, name, what: str | None = None, required: bool = True) -> int | None:
        """A read-only file descriptor of `name`, a regular file inside the directory; None
        when it does not exist and is not `required`."""
        return open_regular(self.resolve(name, what), self.label(name), required)

    def read_json(self, name, required: bool = True):
        """The parsed JSON of `name` (at most MAX_JSON_BYTES), or None when absent and not required."""
        data = self.read_bytes(name, required)
        return None if data is None else parse_json(data, self.label(name), "CKPT-CONFIG")

    def read_bytes(self, name, required: bool = True, rule: str = "CKPT-CONFIG") -> bytes | None:
        """The bytes of `name` (a JSON file of the checkpoint: at most MAX_JSON_BYTES), or None."""
        fd = self.open(name, None, required)
        if fd is None:
            return None
        try:
            size = os.fstat(fd).st_size
            if size > MAX_JSON_BYTES:
                raise _error(f"{self.label(name)}: {size} bytes; a JSON file of a checkpoint is at most "
                             f"{MAX_JSON_BYTES >> 20} MiB", rule)
            return _pread_all(fd, size, 0)
        finally:
            os.close(fd)


def open_regular(real: str, label: str, required: bool = True) -> int | None:
    """Open `real` read-only if it is a regular file: stat first (a FIFO is never opened),
    O_NONBLOCK, then fstat: the file opened must be the one checked."""
    try:
        before = os.stat(real)
    except FileNotFoundError:
        if not required:
            return None
        raise _error(f"{label}: no such file", "CKPT-FILES") from None
    except OSError as e:
        raise _error(f"{label}: cannot be read: {e.strerror}", "CKPT-PATH") from None
    if not stat.S_ISREG(before.st_mode):
        raise _error(f"{label}: not a regular file ({_kind(before.st_mode)}): refused", "CKPT-PATH")
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise _error(f"{label}: cannot be opened: {e.strerror}", "CKPT-PATH") from None
    after = os.fstat(fd)
    if not stat.S_ISREG(after.st_mode) or (after.st_dev, after.st_ino) != (before.st_dev, before.st_ino):
        os.close(fd)
        raise _error(f"{label}: changed while it was opened: refused", "CKPT-PATH")
    return fd


def _kind(mode: int) -> str:
    for test, word in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return word
    return "not a file"


def _pread_all(fd: int, count: int, offset: int) -> bytes:
    chunks, done = [], 0
    while done < count:
        chunk = os.pread(fd, min(count - done, 1 << 26), offset + done)
        if not chunk:
            break
        chunks.append(chunk)
        done += len(chunk)
    return b"".join(chunks)


def _strict_object(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"the name {k!r} appears twice")
        out[k] = v
    return out


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def parse_json(data: bytes, label: str, rule: str, *, strict: bool = False):
    """JSON text of untrusted origin: a CompileError naming the file for anything but a value
    (bad UTF-8, bad syntax, nesting past the parser's recursion limit); `strict`: duplicate
    names and NaN/Infinity refused too."""
    try:
        text = data.decode("utf-8")
        if strict:
            return json.loads(text, object_pairs_hook=_strict_object, parse_constant=_no_constant)
        return json.loads(text)
    except UnicodeDecodeError as e:
        raise _error(f"{label}: not UTF-8 text (byte {e.start})", rule) from None
    except RecursionError:
        raise _error(f"{label}: JSON nested too deeply to read", rule) from None
    except ValueError as e:
        raise _error(f"{label}: not valid JSON: {e}", rule) from None


def read_header(fd: int, label: str, real: str) -> dict:
    """name -> Entry of every tensor of an open safetensors file, after the checks above
    (CompileError [CKPT-HEADER] naming the file and the tensor)."""
    size = os.fstat(fd).st_size

    def refuse(why):
        return _error(f"{label}: {why}", "CKPT-HEADER")
    if size < 8:
        raise refuse(f"{size} bytes: shorter than the 8-byte header length of a safetensors file")
    length = int.from_bytes(os.pread(fd, 8, 0), "little")
    if length > MAX_HEADER_BYTES:
        raise refuse(f"header length {length} is over the format's cap of {MAX_HEADER_BYTES} bytes")
    if 8 + length > size:
        raise refuse(f"header length {length} runs past the end of the file ({size} bytes)")
    header = parse_json(_pread_all(fd, length, 8), f"{label}: header", "CKPT-HEADER", strict=True)
    if not isinstance(header, dict):
        raise refuse("the header is not a JSON object")
    meta = header.pop("__metadata__", {})
    if not isinstance(meta, dict) or not all(isinstance(v, str) for v in meta.values()):
        raise refuse("__metadata__: expected an object of strings")
    base, entries = 8 + length, []
    for name, info in header.items():
        entries.append(_entry(name, info, label, real, size, base))
    expected = 0
    for e in sorted(entries, key=lambda e: (e.start, e.end)):
        if e.start - base != expected:
            what = "overlaps the tensor before it" if e.start - base < expected else "leaves a gap before it"
            raise refuse(f"tensor {e.name}: data_offsets [{e.start - base}, {e.end - base}] {what} (expected to "
                         f"start at {expected}: tensors are stored back to back)")
        expected = e.end - base
    if base + expected != size:
        where = "past the end of the file" if base + expected > size else f"{size - base - expected} bytes before its end"
        raise refuse(f"the tensors end at byte {base + expected}, {where} ({size} bytes): truncated or "
                     f"padded file")
    return {e.name: e for e in entries}


def _entry(name, info, label, real, size, base) -> Entry:
    def refuse(why):
        return _error(f"{label}: tensor {name}: {why}", "CKPT-HEADER")
    if not isinstance(info, dict) or not {"dtype", "shape", "data_offsets"} <= set(info):
        raise refuse("expected an object with dtype, shape and data_offsets")
    dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
    if dtype not in DTYPE_BITS:
        raise refuse(f"dtype {dtype!r} is not a safetensors dtype")
    if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
        raise refuse(f"shape {shape!r:.80}: expected a list of non-negative integers")
    if not isinstance(offsets, list) or len(offsets) != 2 or not all(type(o) is int and o >= 0 for o in offsets):
        raise refuse(f"data_offsets {offsets!r:.80}: expected two non-negative integers")
    start, end = offsets
    count = 1
    for d in shape:
        count *= d
    bits = count * DTYPE_BITS[dtype]
    if end < start or end - start != (bits + 7) // 8 or bits % 8:
        raise refuse(f"data_offsets [{start}, {end}] hold {end - start} bytes; shape {shape} of {dtype} "
                     f"is {bits / 8:g}")
    if base + end > size:
        raise refuse(f"data_offsets [{start}, {end}] run past the end of the file ({size - base} bytes of data)")
    return Entry(label, real, size, name, dtype, tuple(shape), base + start, base + end)


def library_check(fd: int, label: str):
    """The safetensors library's own reader must accept the open file too (on Linux through
    /proc/self/fd: the very file checked, never a path opened again)."""
    try:
        from safetensors import safe_open
    except ImportError:              # a dependency; without it the checks above stand alone
        return
    proc = f"/proc/self/fd/{fd}"
    if not os.path.exists(proc):
        return
    try:
        with safe_open(proc, framework="np"):
            pass
    except Exception as e:           # noqa: BLE001 - the library's SafetensorError
        raise _error(f"{label}: the safetensors library refuses it: {' '.join(str(e).split())}",
                     "CKPT-HEADER") from None


class Mapped:
    """Read-only memory maps of checked files, opened again (and checked again: a file that
    changed size since its header was read is refused) on first use."""

    def __init__(self):
        self.maps = {}

    def view(self, entry: Entry) -> memoryview:
        m = self.maps.get(entry.real)
        if m is None:
            fd = open_regular(entry.real, entry.file)
            try:
                size = os.fstat(fd).st_size
                if size != entry.size:
                    raise _error(f"{entry.file}: changed size since its header was read ({entry.size} -> {size} "
                                 f"bytes)", "CKPT-HEADER")
                m = self.maps[entry.real] = mmap.mmap(fd, 0, access=mmap.ACCESS_READ) if size else b""
            finally:
                os.close(fd)
        return memoryview(m)[entry.start:entry.end]
