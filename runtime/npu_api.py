"""The C API the NPU backend and the emitted C++ call: enums, status codes, prototypes.

RUNTIME_API is declared by the CANN `acl/acl.h` (the tests check every prototype here against the
real header with static_asserts). META_API is CANN's `aclnn/acl_meta.h`, which the torch-npu
wheel does not ship: written from the public prototypes (torch_npu's op_api_common_base.h
typedefs of the same functions; the tests check those too). The aclnn operator prototypes come
from dialect/aclnn_functions.py (`Function.prototypes()`).
"""
from __future__ import annotations

import ctypes

from ..dialect import aclnn as A
from ..dialect.aclnn import DTYPE_ENUM, DTYPE_NAMES, FORMAT_ENUM, FORMAT_NAMES  # noqa: F401 (the ACL enums)

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2

# aclnnStatus codes (the seeds' return-value tables: 161001, 161002, 361001, 561002; the others
# from CANN's public aclnn return-code list).
ACLNN_STATUS = {
    0: "ACLNN_SUCCESS",
    161001: "ACLNN_ERR_PARAM_NULLPTR",
    161002: "ACLNN_ERR_PARAM_INVALID",
    361001: "ACLNN_ERR_RUNTIME_ERROR",
    561000: "ACLNN_ERR_INNER",
    561001: "ACLNN_ERR_INNER_INFERSHAPE_ERROR",
    561002: "ACLNN_ERR_INNER_TILING_ERROR",
    561003: "ACLNN_ERR_INNER_FIND_KERNEL_ERROR",
    561101: "ACLNN_ERR_INNER_CREATE_EXECUTOR",
    561102: "ACLNN_ERR_INNER_NOT_TRANS_EXECUTOR",
    561103: "ACLNN_ERR_INNER_NULLPTR",
}
# aclError codes of acl/acl_base_rt.h that the runtime calls here can return.
ACL_ERRORS = {
    100000: "ACL_ERROR_INVALID_PARAM", 100001: "ACL_ERROR_UNINITIALIZE",
    100002: "ACL_ERROR_REPEAT_INITIALIZE", 100037: "ACL_ERROR_REPEAT_FINALIZE",
    200000: "ACL_ERROR_BAD_ALLOC", 200001: "ACL_ERROR_API_NOT_SUPPORT",
    200002: "ACL_ERROR_INVALID_DEVICE", 200003: "ACL_ERROR_MEMORY_ADDRESS_UNALIGNED",
    500000: "ACL_ERROR_INTERNAL_ERROR", 500002: "ACL_ERROR_GE_FAILURE",
    500003: "ACL_ERROR_RT_FAILURE", 500004: "ACL_ERROR_DRV_FAILURE",
}


def status_name(code: int) -> str:
    return ACLNN_STATUS.get(code) or ACL_ERRORS.get(code) or "unknown status"


# name -> (return type, [(C type, parameter name)])
RUNTIME_API = {
    "aclInit": ("aclError", [("const char *", "configPath")]),
    "aclFinalize": ("aclError", []),
    "aclrtSetDevice": ("aclError", [("int32_t", "deviceId")]),
    "aclrtResetDevice": ("aclError", [("int32_t", "deviceId")]),
    "aclrtCreateStream": ("aclError", [("aclrtStream *", "stream")]),
    "aclrtDestroyStream": ("aclError", [("aclrtStream", "stream")]),
    "aclrtSynchronizeStream": ("aclError", [("aclrtStream", "stream")]),
    "aclrtMalloc": ("aclError", [("void **", "devPtr"), ("size_t", "size"),
                                 ("aclrtMemMallocPolicy", "policy")]),
    "aclrtFree": ("aclError", [("void *", "devPtr")]),
    "aclrtMemcpy": ("aclError", [("void *", "dst"), ("size_t", "destMax"), ("const void *", "src"),
                                 ("size_t", "count"), ("aclrtMemcpyKind", "kind")]),
    "aclGetRecentErrMsg": ("const char *", []),
}
META_API = {
    "aclCreateTensor": ("aclTensor *", [
        ("const int64_t *", "viewDims"), ("uint64_t", "viewDimsNum"), ("aclDataType", "dataType"),
        ("const int64_t *", "stride"), ("int64_t", "offset"), ("aclFormat", "format"),
        ("const int64_t *", "storageDims"), ("uint64_t", "storageDimsNum"), ("void *", "tensorData")]),
    "aclCreateIntArray": ("aclIntArray *", [("const int64_t *", "value"), ("uint64_t", "size")]),
    "aclCreateTensorList": ("aclTensorList *", [("const aclTensor *const *", "value"), ("uint64_t", "size")]),
    "aclCreateScalar": ("aclScalar *", [("void *", "value"), ("aclDataType", "dataType")]),
    "aclDestroyTensor": ("aclnnStatus", [("const aclTensor *", "tensor")]),
    "aclDestroyIntArray": ("aclnnStatus", [("const aclIntArray *", "array")]),
    "aclDestroyTensorList": ("aclnnStatus", [("const aclTensorList *", "array")]),
    "aclDestroyScalar": ("aclnnStatus", [("const aclScalar *", "scalar")]),
    "aclSetAclOpExecutorRepeatable": ("aclnnStatus", [("aclOpExecutor *", "executor")]),
    "aclDestroyAclOpExecutor": ("aclnnStatus", [("aclOpExecutor *", "executor")]),
}

META_HEADER = """\
// aclnn/acl_meta.h for building against acl/acl.h without the CANN toolkit (tests, the
// recording test double): the aclnn base types and the functions the emitted code calls.
#ifndef ASCEND_MLA_ACL_META_H_
#define ASCEND_MLA_ACL_META_H_
#include <stdint.h>
#include <stdbool.h>
#include "acl/acl.h"
#ifdef __cplusplus
extern "C" {
#endif
typedef int32_t aclnnStatus;
typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclIntArray aclIntArray;
typedef struct aclTensorList aclTensorList;
typedef struct aclScalar aclScalar;
"""


def c_declaration(name: str, api: dict) -> str:
    ret, params = api[name]
    args = ", ".join(f"{t}{'' if t.endswith('*') else ' '}{n}" for t, n in params) or "void"
    return f"{ret} {name}({args});"


def meta_header() -> str:
    body = "\n".join(c_declaration(n, META_API) for n in META_API)
    return META_HEADER + body + "\n#ifdef __cplusplus\n}\n#endif\n#endif\n"


def aclnn_header(function) -> str:
    guard = function.header.replace("/", "_").replace(".", "_").upper()
    return (f"// {function.header}: {function.name} ({function.source})\n#ifndef {guard}\n#define {guard}\n"
            f'#include "aclnn/acl_meta.h"\n#ifdef __cplusplus\nextern "C" {{\n#endif\n'
            f"{function.prototypes()}#ifdef __cplusplus\n}}\n#endif\n#endif\n")


def write_headers(directory) -> list:
    """Write aclnn/acl_meta.h and every aclnnop/aclnn_<op>.h under `directory`."""
    from pathlib import Path

    from ..dialect.aclnn import ACLNN
    from ..dialect.dialect import load_functions
    load_functions()
    root = Path(directory)
    (root / "aclnn").mkdir(parents=True, exist_ok=True)
    (root / "aclnnop").mkdir(parents=True, exist_ok=True)
    written = [root / "aclnn" / "acl_meta.h"]
    written[0].write_text(meta_header())
    for fn in ACLNN.functions.values():
        path = root / fn.header
        path.write_text(aclnn_header(fn))
        written.append(path)
    return written


# --- ctypes ----------------------------------------------------------------------------------

_P = ctypes.c_void_p
_CTYPES = {
    "aclError": ctypes.c_int, "aclnnStatus": ctypes.c_int32, "int32_t": ctypes.c_int32,
    "size_t": ctypes.c_size_t, "uint64_t": ctypes.c_uint64, "int64_t": ctypes.c_int64,
    "const char *": ctypes.c_char_p, "aclrtStream": _P, "aclrtStream *": ctypes.POINTER(_P),
    "void **": ctypes.POINTER(_P), "void *": _P, "const void *": _P,
    "aclrtMemMallocPolicy": ctypes.c_int, "aclrtMemcpyKind": ctypes.c_int,
    "aclDataType": ctypes.c_int, "aclFormat": ctypes.c_int,
    "const int64_t *": ctypes.POINTER(ctypes.c_int64),
    "aclTensor *": _P, "const aclTensor *": _P, "aclIntArray *": _P, "const aclIntArray *": _P,
    "aclTensorList *": _P, "const aclTensorList *": _P, "const aclTensor *const *": ctypes.POINTER(_P),
    "aclScalar *": _P, "const aclScalar *": _P,
    "aclOpExecutor *": _P,
}
_KIND_CTYPES = {A.F64: ctypes.c_double, A.I64: ctypes.c_int64, A.I32: ctypes.c_int32,
                A.I8: ctypes.c_int8, A.BOOL: ctypes.c_bool, A.STRING: ctypes.c_char_p,
                A.DTYPE: ctypes.c_int}


def bind(lib_lookup, name: str, api: dict):
    """The ctypes function `name` with its prototype from `api`."""
    ret, params = api[name]
    fn = lib_lookup(name)
    fn.restype = _CTYPES[ret]
    fn.argtypes = [_CTYPES[t] for t, _ in params]
    return fn


def bind_aclnn(lib_lookup, function):
    """(phase one, launch) ctypes functions of an aclnn Function."""
    one = lib_lookup(function.phase_one)
    one.restype = ctypes.c_int32
    one.argtypes = [_KIND_CTYPES.get(p.kind, _P) for p in function.params] + [
        ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(_P)]
    two = lib_lookup(function.name)
    two.restype = ctypes.c_int32
    two.argtypes = [_P, ctypes.c_uint64, _P, _P]
    return one, two
