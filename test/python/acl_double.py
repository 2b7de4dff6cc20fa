"""Builds the ACL/aclnn recording TEST DOUBLE (test/native/acl_recording_double.c) with the
system C compiler, against the real CANN acl/acl.h from the torch-npu wheel and the aclnn
prototypes of dialect/aclnn_functions.py, and reads what it recorded.

The wheel is fetched with pip (`pip download --no-deps torch-npu==2.14.0`) once into
test/native/build/; `headers()` returns None (and why) when it cannot be obtained."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from ascend_mla.dialect import aclnn as A
from ascend_mla.dialect.aclnn import ACLNN
from ascend_mla.dialect.dialect import load_functions
from ascend_mla.lowering.collective import hccl_header
from ascend_mla.runtime.npu_api import write_headers

NATIVE = Path(__file__).resolve().parents[1] / "native"
BUILD = NATIVE / "build"
TORCH_NPU = "torch-npu==2.14.0"


# CANN's HCCL header as the wheel ships it (what lowering/collective.py's declarations are checked against)
REAL_HCCL = "third_party/hccl/inc/hccl/hccl.h"


def headers():
    """(include dir holding acl/acl.h and REAL_HCCL, None) or (None, the reason it cannot be had)."""
    include = BUILD / "torch_npu_include"
    if (include / "acl" / "acl.h").is_file() and (include / REAL_HCCL).is_file():
        return include, None
    wheels = BUILD / "wheel"
    wheels.mkdir(parents=True, exist_ok=True)
    if not list(wheels.glob("torch_npu-*.whl")):
        # one short try: without network the NPU-backend tests skip, saying why
        done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--retries", "1",
                               "--timeout", "20", TORCH_NPU, "-d", str(wheels)], capture_output=True, text=True)
        if done.returncode != 0:
            return None, f"pip download {TORCH_NPU} failed: {done.stderr.strip()[-300:]}"
    wheel = next(wheels.glob("torch_npu-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if name.startswith(("torch_npu/include/acl/", "torch_npu/include/third_party/hccl/")) \
                    and not name.endswith("/"):
                target = include / name[len("torch_npu/include/"):]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(z.read(name))
    return include, None


def _log_statement(p) -> str:
    if p.kind in A.DEVICE_TENSORS:
        return f"double_log_tensor(f, {p.c_name});"
    if p.kind in A.LIST_KINDS:
        return f"double_log_tensor_list(f, {p.c_name});"
    if p.kind == A.INT_ARRAY:
        return f"double_log_int_array(f, {p.c_name});"
    if p.kind == A.SCALAR:
        return f"double_log_scalar(f, {p.c_name});"
    if p.kind == A.F64:
        return f'fprintf(f, "%.17g", {p.c_name});'
    if p.kind in (A.I64, A.I32, A.I8, A.DTYPE):
        return f'fprintf(f, "%lld", (long long){p.c_name});'
    if p.kind == A.BOOL:
        return f'fputs({p.c_name} ? "true" : "false", f);'
    return f'if ({p.c_name}) fprintf(f, "\\"%s\\"", {p.c_name}); else fputs("null", f);'


def generated_ops() -> str:
    """The double's aclnn operator functions, one pair per Function of the import table."""
    load_functions()
    out = ['#include "acl_recording_double.h"']
    for fn in ACLNN.functions.values():
        out.append(f'#include "{fn.header}"')
    for fn in ACLNN.functions.values():
        params = ", ".join(f"{p.c_type}{'' if p.c_type.endswith('*') else ' '}{p.c_name}" for p in fn.params)
        logs = '\n    fputs(", ", f);\n    '.join(_log_statement(p) for p in fn.params)
        first_input = next((p.c_name for p in fn.params if p.kind == A.TENSOR), "NULL")
        outputs = "\n    ".join(f"if ({p.c_name}) e->outputs[e->output_count++] = {p.c_name};"
                                for p in fn.params if p.kind in (A.OUT, A.OPT_OUT))
        out.append(f"""
aclnnStatus {fn.phase_one}({params}, uint64_t *workspaceSize, aclOpExecutor **executor) {{
    FILE *f = double_log();
    int status = double_fail("{fn.phase_one}");
    aclOpExecutor *e;
    fputs("{{\\"fn\\": \\"{fn.phase_one}\\", \\"args\\": [", f);
    {logs}
    fputs("]}}\\n", f);
    if (status) return status;
    e = double_new_executor("{fn.name}");
    e->input = {first_input};
    {outputs}
    *workspaceSize = 4096;
    *executor = e;
    return 0;
}}

aclnnStatus {fn.name}(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream) {{
    int status = double_fail("{fn.name}");
    fprintf(double_log(), "{{\\"fn\\": \\"{fn.name}\\", \\"executor\\": %d, \\"workspace_size\\": %llu, "
            "\\"workspace\\": %s}}\\n", executor->id, (unsigned long long)workspaceSize, workspace ? "true" : "false");
    if (status) return status;
    double_launch(executor);
    return 0;
}}""")
    return "\n".join(out) + "\n"


def build(acl_include: Path) -> Path:
    """Compile the double; returns a fake CANN root whose lib64/ holds it under the three
    library names the NPU backend loads."""
    out = BUILD / "double"
    include = out / "include"
    if out.exists():
        shutil.rmtree(out)
    write_headers(include)
    (include / "hccl").mkdir()
    (include / "hccl" / "hccl.h").write_text(hccl_header())
    (out / "acl_double_ops.c").write_text(generated_ops())
    lib = out / "lib64" / "libascendcl.so"
    lib.parent.mkdir(parents=True)
    subprocess.run(["gcc", "-std=c11", "-shared", "-fPIC", "-O1", "-Wall", "-Werror",
                    "-Wno-unused-parameter", "-I", str(include), "-I", str(acl_include),
                    "-I", str(NATIVE), str(NATIVE / "acl_recording_double.c"),
                    str(NATIVE / "hccl_recording_double.c"),
                    str(out / "acl_double_ops.c"), "-o", str(lib)], check=True)
    for alias in ("libopapi.so", "libnnopbase.so", "libhccl.so"):
        os.symlink(lib.name, lib.parent / alias)
    return out


def read_log(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def program_calls(calls: list[dict]) -> list[dict]:
    """The calls of one program run: after the stream exists (init is the backend's, once),
    up to the last device-to-host copy (the results; what follows is cleanup), with buffer and
    object ids renumbered by first use so that two processes' logs compare equal."""
    start = max(i for i, c in enumerate(calls) if c["fn"] == "aclrtCreateStream") + 1
    end = max(i for i, c in enumerate(calls) if c["fn"] == "aclrtMemcpy" and c["kind"] == 2) + 1
    names: dict = {}

    def rename(kind, value):
        table = names.setdefault(kind, {})
        return table.setdefault(value, len(table))

    def walk(x, key=None):
        if isinstance(x, dict):
            return {k: walk(v, k) for k, v in x.items()}
        if isinstance(x, list):
            return [walk(v) for v in x]
        if key == "buffer" and isinstance(x, int):
            return rename("buffer", x)
        if key in ("id", "executor") and isinstance(x, int):
            return rename("object", x)
        return x

    return [walk(c) for c in calls[start:end]]


def compile_cpp(source: Path, include: Path, double_root: Path, out: Path, syntax_only=False):
    """g++ -std=c++17 against the real acl/acl.h and the aclnn prototypes; linked with the
    double unless `syntax_only`. Returns the CompletedProcess."""
    command = ["g++", "-std=c++17", "-Wall", "-Werror", "-Wno-unused-variable", "-I",
               str(double_root / "include"), "-I", str(include), str(source)]
    if syntax_only:
        command.insert(1, "-fsyntax-only")
    else:
        lib = double_root / "lib64"
        command += ["-L", str(lib), "-lascendcl", f"-Wl,-rpath,{lib}", "-o", str(out)]
    return subprocess.run(command, capture_output=True, text=True)


def emit_cpp(ir_text: str, workdir: Path, name: str) -> str:
    """The C++ host program `mla-translate --emit-cpp` writes for IR text (asserting it succeeds)."""
    source = workdir / f"{name}.mlir"
    source.write_text(ir_text)
    done = subprocess.run([str(Path(sys.executable).parent / "mla-translate"), "--emit-cpp", str(source)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def check_cpp_syntax(code: str, workdir: Path, name: str):
    """g++ -fsyntax-only of generated C++ against CANN's real headers and the aclnn prototypes;
    the test skips, saying why, when the torch-npu wheel carrying the headers cannot be had."""
    import pytest
    include, why = headers()
    if include is None:
        pytest.skip(f"the CANN headers cannot be obtained here: {why}")
    cpp = workdir / f"{name}.cpp"
    cpp.write_text(code)
    built = compile_cpp(cpp, include, build(include), None, syntax_only=True)
    assert built.returncode == 0, built.stderr[-3000:]
