"""The `aclnn` dialect: the kernel-call level, where the aclnn two-phase protocol is explicit.

Every C argument of a call is one SSA operand, in the documented order, so the IR reads like
the seeds' call examples:

    %null = "aclnn.null"() : () -> !aclnn.nullptr
    %eps = arith.constant 1.000000e-05 : f64
    %y = "aclnn.alloc"() : () -> tensor<4x8xbf16>
    %rstd = "aclnn.alloc"() : () -> tensor<4x1xf32>
    %size, %exec = "aclnn.rms_norm_get_workspace_size"(%x, %gamma, %eps, %y, %rstd)
        {callee = "aclnnRmsNormGetWorkspaceSize"} : (...) -> (i64, !aclnn.executor)
    %ws = "aclnn.workspace"(%size) : (i64) -> tensor<?xi8>
    "aclnn.launch"(%ws, %size, %exec, %stream) {callee = "aclnnRmsNorm"} : (...) -> ()

(IRDL op names are lowercase, so each phase-one op is the function's snake-case name; the
`callee` attribute carries the C name.)

Device buffers are tensors (the type gives aclCreateTensor's view shape, dtype and format;
`#mla.format<"FRACTAL_NZ">` means ACL format 29 with the NZ storage shape). Host parameters are
values of host types (f64, i64, i1, !aclnn.cstring, !aclnn.int_array): everything phase one reads
is an operand of the phase-one op, so an executor sees exactly which values fix an
aclOpExecutor. An absent optional argument is an explicit `!aclnn.nullptr` operand. An in-place
buffer (a paged cache, `kvCacheRef`) is the caller's tensor itself: after the lowering the mla
op's `kv_cache_out` result is replaced by that operand.

Each aclnn function is declared once (`Function`, in dialect/aclnn_functions.py); from that one
declaration come its two IRDL ops, the C prototype (headers for tests and the C++ emitter), the
ctypes call of the NPU backend and the CPU backend's dispatch to the op's CPU kernel.

IRDL cannot express "a tensor or nullptr" (no `irdl.any_of` in the loader), so such operands are
`irdl.any` in IRDL and checked here in Python (`verify_calls`), like the mla rules.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Protocol, Sequence

from mlir import ir
from mlir.dialects import irdl

from .diagnostics import symbol_text
from .registry import register_python_namespace

# --- the ACL enums a call describes its tensors with

# aclDataType / aclFormat (acl/acl_base_rt.h)
DTYPE_ENUM = {"f32": 0, "f16": 1, "i8": 2, "i32": 3, "ui8": 4, "i16": 6, "i64": 9, "ui64": 10,
              "f64": 11, "i1": 12, "bf16": 27, "i4": 29}
DTYPE_NAMES = {"f32": "ACL_FLOAT", "f16": "ACL_FLOAT16", "i8": "ACL_INT8", "i32": "ACL_INT32",
               "ui8": "ACL_UINT8", "i16": "ACL_INT16", "i64": "ACL_INT64", "ui64": "ACL_UINT64",
               "f64": "ACL_DOUBLE", "i1": "ACL_BOOL", "bf16": "ACL_BF16", "i4": "ACL_INT4"}
FORMAT_ENUM = {"ND": 2, "FRACTAL_NZ": 29}
FORMAT_NAMES = {"ND": "ACL_FORMAT_ND", "FRACTAL_NZ": "ACL_FORMAT_FRACTAL_NZ"}

# --- parameter kinds of an aclnn function ---------------------------------------------------

TENSOR = "tensor"            # const aclTensor *, device input
OPT_TENSOR = "opt_tensor"    # const aclTensor *, or nullptr
REF = "ref"                  # const aclTensor *, read and updated in place (kvCacheRef)
OUT = "out"                  # const aclTensor *, written by the launch
OPT_OUT = "opt_out"          # const aclTensor *, written by the launch, or nullptr
TENSOR_LIST = "tensor_list"  # const aclTensorList *
OPT_TENSOR_LIST = "opt_tensor_list"  # const aclTensorList *, or nullptr
OUT_TENSOR_LIST = "out_tensor_list"  # aclTensorList *, its tensors written by the launch
INT_ARRAY = "int_array"      # const aclIntArray * (host list), or nullptr
SCALAR = "scalar"            # const aclScalar * (a host number with its aclDataType)
F64 = "f64"                  # double
I64 = "i64"                  # int64_t
I32 = "i32"                  # int32_t
I8 = "i8"                    # int8_t
BOOL = "bool"                # bool
STRING = "string"            # char *
DTYPE = "dtype"              # aclDataType (an element type, as a host enum)

C_TYPES = {TENSOR: "const aclTensor *", OPT_TENSOR: "const aclTensor *", REF: "const aclTensor *",
           OUT: "const aclTensor *", OPT_OUT: "const aclTensor *",
           TENSOR_LIST: "const aclTensorList *", OPT_TENSOR_LIST: "const aclTensorList *",
           OUT_TENSOR_LIST: "aclTensorList *", INT_ARRAY: "const aclIntArray *",
           SCALAR: "const aclScalar *", F64: "double", I64: "int64_t", I32: "int32_t",
           I8: "int8_t", BOOL: "bool", STRING: "char *", DTYPE: "aclDataType"}
DEVICE_TENSORS = (TENSOR, OPT_TENSOR, REF, OUT, OPT_OUT)
WRITTEN = (REF, OUT, OPT_OUT)
NULLABLE = (OPT_TENSOR, OPT_OUT, INT_ARRAY, OPT_TENSOR_LIST)
LIST_KINDS = (TENSOR_LIST, OPT_TENSOR_LIST, OUT_TENSOR_LIST)   # an aclTensorList argument
HOST = (INT_ARRAY, SCALAR, F64, I64, I32, I8, BOOL, STRING, DTYPE)


@dataclass(frozen=True)
class Param:
    """One C argument: its documented name, kind, and the name of the mla operand, attribute or
    result it carries (None: always nullptr in this compiler, e.g. a reserved argument).
    `ctype` overrides the kind's C type where the documented prototype spells it otherwise
    (`aclTensor *out` without const, `const char *roundMode`)."""
    c_name: str
    kind: str
    binds: Optional[str] = None
    ctype: Optional[str] = None

    @property
    def c_type(self) -> str:
        return self.ctype or C_TYPES[self.kind]


def tensor(c, binds=None, ctype=None): return Param(c, TENSOR, binds, ctype)
def opt_tensor(c, binds=None, ctype=None): return Param(c, OPT_TENSOR, binds, ctype)
def ref(c, binds=None, ctype=None): return Param(c, REF, binds, ctype)
def out(c, binds=None, ctype=None): return Param(c, OUT, binds, ctype)
def opt_out(c, binds=None, ctype=None): return Param(c, OPT_OUT, binds, ctype)
def tensor_list(c, binds=None, ctype=None): return Param(c, TENSOR_LIST, binds, ctype)
def opt_tensor_list(c, binds=None, ctype=None): return Param(c, OPT_TENSOR_LIST, binds, ctype)
def out_tensor_list(c, binds=None, ctype=None): return Param(c, OUT_TENSOR_LIST, binds, ctype)
def int_array(c, binds=None, ctype=None): return Param(c, INT_ARRAY, binds, ctype)
def scalar(c, binds=None, ctype=None): return Param(c, SCALAR, binds, ctype)
def f64(c, binds=None, ctype=None): return Param(c, F64, binds, ctype)
def i64(c, binds=None, ctype=None): return Param(c, I64, binds, ctype)
def i32(c, binds=None, ctype=None): return Param(c, I32, binds, ctype)
def i8(c, binds=None, ctype=None): return Param(c, I8, binds, ctype)
def boolean(c, binds=None, ctype=None): return Param(c, BOOL, binds, ctype)
def string(c, binds=None, ctype=None): return Param(c, STRING, binds, ctype)
def dtype(c, binds=None, ctype=None): return Param(c, DTYPE, binds, ctype)


def snake_case(name: str) -> str:
    """aclnnMlaPrologV2WeightNz -> mla_prolog_v2_weight_nz (also the header's file name);
    kvCacheRef -> kv_cache_ref (IRDL names are lowercase)."""
    if name.startswith("aclnn"):
        name = name[len("aclnn"):]
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


# --- cost formulas ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Cost:
    """What a kernel call computes on the cube: FLOPs, on int8 inputs or not. (The bytes it
    moves are its tensors', each read or written whole unless the formula says otherwise.)"""
    flops: int = 0
    int8: bool = False


class CallArguments(Protocol):
    """What a cost formula (Function.cost) sees of one call: its arguments by C name. The
    roofline (ascend_mla/cost.py) implements it over the decoded program."""

    def info(self, name: str):
        """The TensorInfo of tensor argument `name` (None: nullptr)."""

    def tensors(self, name: str) -> list:
        """The tensors argument `name` stands for (one, a list's elements, none); each has `.info`."""

    def host(self, name: str) -> Any:
        """A host argument's value known before the run (None when it is not)."""

    def int_list(self, name: str) -> Optional[list]:
        """An aclIntArray's values: a constant list, or one read at run time from the inputs."""

    def kv_lengths(self, name: str, capacity: list) -> list:
        """The key/value lengths a paged attention reads: the run-time list `name` when the
        inputs give it, else `capacity` (the block table's); the roofline says which."""

    def touch(self, tensor, nbytes: int) -> None:
        """The call moves `nbytes` of `tensor` (an argument name, or one of `tensors()`), not all."""


def memory_only(call: CallArguments) -> Cost:
    """The default formula: the call's tensors moved whole, no cube FLOPs (vector and
    data-movement calls; the roofline does not model vector throughput)."""
    return Cost()


def tensor_bytes(info) -> int:
    """Bytes of a dense tensor of type `info` (int4 packed two per byte)."""
    from .types import numpy_dtype
    bits = 4 if info.dtype == "i4" else numpy_dtype(info.dtype).itemsize * 8
    return info.numel * bits // 8


@dataclass(eq=False)
class Function:
    """An aclnn operator API: `<name>GetWorkspaceSize(params..., uint64_t *workspaceSize,
    aclOpExecutor **executor)` and `<name>(void *workspace, uint64_t workspaceSize,
    aclOpExecutor *executor, aclrtStream stream)`.

    `kernel`: the OpDef of the mla op whose CPU kernel carries the call out on the CPU backend
    (arguments matched through `Param.binds`); without it the CPU backend runs the function's
    own CPU implementation (runtime/cpu_calls.py), for calls whose arguments are views of the
    mla op's operands rather than the operands themselves. Exactly one of the two is a
    Function's CPU path (test_registries checks it). `source` says where the prototype
    comes from (a seed, or a public CANN document: NON-SEED). `strided`: the documentation
    says the tensor arguments may be non-contiguous ("支持非连续的Tensor"); otherwise the
    lowering passes contiguous copies of strided views. `cost`: the call's cost formula for the
    roofline (ascend_mla/cost.py): cube FLOPs and the parts of tensors it touches
    (`memory_only` by default)."""
    name: str
    params: tuple
    kernel: Optional[object] = None      # an OpDef
    source: str = ""
    strided: bool = False
    cost: Callable[[CallArguments], Cost] = memory_only
    param_by_name: dict = field(init=False, repr=False)

    def __post_init__(self):
        self.params = tuple(self.params)
        self.param_by_name = {p.c_name: p for p in self.params}
        if len(self.param_by_name) != len(self.params):
            raise ValueError(f"{self.name}: a parameter name is used twice")

    @property
    def phase_one(self) -> str:
        return self.name + "GetWorkspaceSize"

    @property
    def op_name(self) -> str:
        """The phase-one op: `aclnn.<snake_case>_get_workspace_size`."""
        return f"aclnn.{snake_case(self.name)}_get_workspace_size"

    @property
    def header(self) -> str:
        return f"aclnnop/aclnn_{snake_case(self.name)}.h"

    def prototypes(self) -> str:
        """The two C declarations, as the CANN headers write them."""
        args = ",\n    ".join(f"{p.c_type}{'' if p.c_type.endswith('*') else ' '}{p.c_name}"
                              for p in self.params)
        return (f"aclnnStatus {self.phase_one}(\n    {args},\n    uint64_t *workspaceSize,\n"
                f"    aclOpExecutor **executor);\n"
                f"aclnnStatus {self.name}(void *workspace, uint64_t workspaceSize, "
                f"aclOpExecutor *executor, aclrtStream stream);\n")


# --- the dialect ----------------------------------------------------------------------------

_TYPES = ("executor", "stream", "nullptr", "cstring", "int_array", "tensor_list", "scalar", "data_type",
          "hccl_comm", "reduce_op")

# Generic ops: name -> (operands, attributes, results); each entry "name: constraint".
_GENERIC_OPS = {
    "current_stream": ([], [], ["stream: @stream"]),         # the stream calls are queued on
    "alloc": ([], [], ["buffer: tensor"]),                  # a device buffer (result, scratch)
    "view": (["base: tensor"], ["offset: integer_attr", "strides: dense_array"], ["view: tensor"]),
    "null": ([], [], ["null: @nullptr"]),                   # nullptr for an absent argument
    "string": ([], ["value: string"], ["string: @cstring"]),
    "create_int_array": ([], ["value: dense_array"], ["array: @int_array"]),
    "create_scalar": ([], ["value: typed_attr"], ["scalar: @scalar"]),      # aclCreateScalar
    "dtype": ([], ["type: type_attr"], ["dtype: @data_type"]),              # an aclDataType value
    "read_int_array": (["host: tensor"], [], ["array: @int_array"]),  # from a host i64 tensor
    "create_tensor_list": (["tensors: variadic tensor"], [], ["list: @tensor_list"]),
    # IRDL gives all values of a variadic operand one type: elements of other types are appended
    "tensor_list_append": (["list: @tensor_list", "tensor: tensor"], [], ["longer: @tensor_list"]),
    "workspace": (["size: integer"], [], ["workspace: tensor"]),
    "launch": (["workspace: tensor", "workspace_size: integer", "executor: @executor",
                "stream: @stream"], ["callee: string"], []),
    "synchronize": (["stream: @stream"], [], []),
    # HCCL (lowering/collective.py): the communicator of a group, a reduction, the two
    # collectives as one-phase calls on the stream, operands in the C prototype's order
    "hccl_communicator": ([], ["group: string", "world_size: integer_attr"], ["comm: @hccl_comm"]),
    "hccl_reduce_op": ([], ["op: string"], ["op: @reduce_op"]),
    "hccl_all_reduce": (["send_buf: tensor", "recv_buf: tensor", "count: integer", "data_type: @data_type",
                         "op: @reduce_op", "comm: @hccl_comm", "stream: @stream"], ["callee: string"], []),
    "hccl_all_gather": (["send_buf: tensor", "recv_buf: tensor", "send_count: integer",
                         "data_type: @data_type", "comm: @hccl_comm", "stream: @stream"], ["callee: string"], []),
    # what a call reads of a communicator at run time (the MoE-distribute calls' groupEp and
    # epRankId): its name (HcclGetCommName) and this process's rank in it (HcclGetRankId)
    "hccl_comm_name": (["comm: @hccl_comm"], [], ["name: @cstring"]),
    "hccl_comm_rank": (["comm: @hccl_comm"], [], ["rank: integer"]),
}
_IRDL_BASES = {"tensor": '"!builtin.tensor"', "integer": '"!builtin.integer"',
               "integer_attr": '"#builtin.integer"',
               "f64": '"!builtin.f64"', "string": '"#builtin.string"',
               "dense_array": '"#builtin.dense_array"', "typed_attr": None,
               "type_attr": '"#builtin.type"', "any": None}
_KIND_CONSTRAINT = {TENSOR: "tensor", REF: "tensor", OUT: "tensor", OPT_TENSOR: "any",
                    OPT_OUT: "any", INT_ARRAY: "any", TENSOR_LIST: "@tensor_list", OPT_TENSOR_LIST: "any",
                    OUT_TENSOR_LIST: "@tensor_list", F64: "f64",
                    I64: "integer", I32: "integer", I8: "integer", BOOL: "integer",
                    STRING: "@cstring", SCALAR: "@scalar", DTYPE: "@data_type"}


class AclnnDialect:
    """The op table of the kernel-call dialect: the generic ops and two ops per Function."""

    name = "aclnn"

    def __init__(self):
        self.functions: dict[str, Function] = {}      # by C name
        self.phase_one_ops: dict[str, Function] = {}  # by phase-one op name
        self._loaded_in: set = set()

    def add(self, function: Function) -> Function:
        if function.name in self.functions:
            raise ValueError(f"{function.name} is declared twice")
        self.functions[function.name] = function
        self.phase_one_ops[function.op_name] = function
        return function

    def irdl(self) -> str:
        """The dialect's IRDL text (made once per set of functions: every new context loads it)."""
        cached = getattr(self, "_irdl_text", None)
        if cached is not None and cached[0] == len(self.functions):
            return cached[1]
        self._irdl_text = (len(self.functions), self._make_irdl())
        return self._irdl_text[1]

    def _make_irdl(self) -> str:
        lines = [f"irdl.dialect @{self.name} {{"]
        lines += [f"  irdl.type @{t} {{}}" for t in _TYPES]
        for name, (operands, attributes, results) in _GENERIC_OPS.items():
            lines += _irdl_op(name, operands, attributes, results)
        for fn in self.functions.values():
            operands = [f"{snake_case(p.c_name)}: {_KIND_CONSTRAINT[p.kind]}" for p in fn.params]
            lines += _irdl_op(fn.op_name[len("aclnn."):], operands, ["callee: string"],
                              ["workspace_size: integer", "executor: @executor"])
        lines.append("}")
        return "\n".join(lines) + "\n"

    def load(self, context: ir.Context):
        """Load the dialect into `context`, once; its functions are declared first
        (dialect/dialect.py load_dialects does both)."""
        if not self.functions:
            raise RuntimeError("no aclnn function is declared yet: load with dialect.dialect.load_dialects")
        register_python_namespace("aclnn")
        if context.is_registered_operation("aclnn.alloc"):
            return
        with context, ir.Location.unknown():
            irdl.load_dialects(ir.Module.parse(self.irdl()))


def _irdl_op(name, operands, attributes, results) -> list[str]:
    body, counter = [], 0

    def slot(text):
        nonlocal counter
        label, constraint = (s.strip() for s in text.split(":"))
        prefix = ""
        if constraint.startswith("variadic "):
            prefix, constraint = "variadic ", constraint[len("variadic "):]
        counter += 1
        if constraint.startswith("@"):
            body.append(f"    %{counter} = irdl.base @aclnn::{constraint}")
        elif _IRDL_BASES[constraint] is None:
            body.append(f"    %{counter} = irdl.any")
        else:
            body.append(f"    %{counter} = irdl.base {_IRDL_BASES[constraint]}")
        return label, f"{prefix}%{counter}"

    ops = [slot(o) for o in operands]
    attrs = [slot(a) for a in attributes]
    res = [slot(r) for r in results]
    if ops:
        body.append("    irdl.operands(" + ", ".join(f"{n}: {c}" for n, c in ops) + ")")
    if attrs:
        body.append("    irdl.attributes {" + ", ".join(f'"{n}" = {c}' for n, c in attrs) + "}")
    if res:
        body.append("    irdl.results(" + ", ".join(f"{n}: {c}" for n, c in res) + ")")
    return [f"  irdl.operation @{name} {{", *body, "  }"]


ACLNN = AclnnDialect()


# --- types ----------------------------------------------------------------------------------

def host_type(kind: str) -> ir.Type:
    """The IR type of a host argument of `kind` (needs a context with aclnn loaded)."""
    return {F64: lambda: ir.F64Type.get(), I64: lambda: ir.IntegerType.get_signless(64),
            I32: lambda: ir.IntegerType.get_signless(32), I8: lambda: ir.IntegerType.get_signless(8),
            BOOL: lambda: ir.IntegerType.get_signless(1),
            STRING: lambda: ir.Type.parse("!aclnn.cstring"),
            INT_ARRAY: lambda: ir.Type.parse("!aclnn.int_array"),
            SCALAR: lambda: ir.Type.parse("!aclnn.scalar"),
            DTYPE: lambda: ir.Type.parse("!aclnn.data_type")}[kind]()


def type_kind(t: ir.Type) -> str:
    """'tensor', 'nullptr', 'f64', 'i64', 'i1', or the aclnn type's name."""
    if isinstance(t, ir.RankedTensorType):
        return "tensor"
    text = str(t)
    if text.startswith("!aclnn."):
        return text[len("!aclnn."):]
    return text


_ACCEPTS = {TENSOR: {"tensor"}, REF: {"tensor"}, OUT: {"tensor"},
            OPT_TENSOR: {"tensor", "nullptr"}, OPT_OUT: {"tensor", "nullptr"},
            INT_ARRAY: {"int_array", "nullptr"}, TENSOR_LIST: {"tensor_list"}, F64: {"f64"},
            OPT_TENSOR_LIST: {"tensor_list", "nullptr"}, OUT_TENSOR_LIST: {"tensor_list"},
            I64: {"i64"}, I32: {"i32"}, I8: {"i8"}, BOOL: {"i1"}, STRING: {"cstring"},
            SCALAR: {"scalar"}, DTYPE: {"data_type"}}


def check_call(function: Function, operand_types: Sequence[ir.Type]) -> Optional[str]:
    """Why a phase-one op's operands do not fit its prototype (None when they do)."""
    if len(operand_types) != len(function.params):
        return f"expected {len(function.params)} arguments, got {len(operand_types)}"
    for p, t in zip(function.params, operand_types):
        if type_kind(t) not in _ACCEPTS[p.kind]:
            wanted = " or ".join(sorted(_ACCEPTS[p.kind]))
            return f"{p.c_name}: expected {wanted} ({p.c_type.strip()}), got {t}"
    return None


def verify_calls(root) -> bool:
    """Check every phase-one op under `root` against its prototype, and that each launch
    takes the executor of a phase one of the function it names. Errors are diagnostics at the
    op's location; returns True when there is none."""
    ok = True

    def visit(op):
        nonlocal ok
        op = op.operation
        problem = None
        if op.name in ACLNN.phase_one_ops:
            fn = ACLNN.phase_one_ops[op.name]
            problem = check_call(fn, [v.type for v in op.operands])
            if problem is None and symbol_text(op.attributes["callee"]) != fn.phase_one:
                problem = f"callee: expected \"{fn.phase_one}\", got {op.attributes['callee']}"
        elif op.name == "aclnn.launch":
            callee = symbol_text(op.attributes["callee"])
            producer = op.operands[2].owner
            fn = ACLNN.phase_one_ops.get(getattr(producer, "name", ""))
            if fn is None or fn.name != callee:
                problem = (f"executor: expected the executor of {callee}GetWorkspaceSize, got "
                           f"{'one of ' + fn.phase_one if fn else 'another value'}")
        if problem:
            op.location.emit_error(f"'{op.name}' op {problem}")
            ok = False
        return ir.WalkResult.ADVANCE

    root.operation.walk(visit)
    return ok
