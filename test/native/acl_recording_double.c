/* A TEST DOUBLE of the CANN runtime (libascendcl.so, libnnopbase.so, libopapi.so): it exports
 * the ACL runtime and aclnn functions with their real prototypes (compiled against the real
 * acl/acl.h from the torch-npu wheel and the aclnn prototypes written from the seeds), records
 * every call as one JSON line in $ACL_DOUBLE_LOG, and keeps programs running: device memory is
 * host memory, copies are memcpy, and a launch copies its first input tensor's bytes into each
 * output. It computes nothing. $ACL_DOUBLE_FAIL=<function>:<status> makes that function fail.
 * The aclnn operator functions are generated from dialect/aclnn_functions.py (acl_double_ops.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "acl_recording_double.h"

#define MAX_BUFFERS 4096

static int next_id = 1;
static struct { char *base; size_t size; int id; } buffers[MAX_BUFFERS];
static int buffer_count = 0;

FILE *double_log(void) {
    /* $ACL_DOUBLE_LOG is read on every call: a process may record into several logs in turn */
    static FILE *file = NULL;
    static char opened[4096] = "";
    const char *path = getenv("ACL_DOUBLE_LOG");
    if (!file || (path && strcmp(path, opened) != 0) || (!path && opened[0])) {
        if (file && file != stderr) fclose(file);
        file = path ? fopen(path, "a") : stderr;
        if (!file) file = stderr;
        snprintf(opened, sizeof(opened), "%s", path ? path : "");
        setvbuf(file, NULL, _IOLBF, 0);
    }
    return file;
}

int double_fail(const char *function) {
    const char *spec = getenv("ACL_DOUBLE_FAIL");
    size_t n = strlen(function);
    if (spec && strncmp(spec, function, n) == 0 && spec[n] == ':') return atoi(spec + n + 1);
    return 0;
}

static void buffer_of(const void *address, int *id, long long *offset) {
    *id = 0; *offset = (long long)(size_t)address;
    for (int i = 0; i < buffer_count; i++) {
        if (buffers[i].base && (const char *)address >= buffers[i].base &&
            (const char *)address < buffers[i].base + (buffers[i].size ? buffers[i].size : 1)) {
            *id = buffers[i].id; *offset = (const char *)address - buffers[i].base; return;
        }
    }
}

static void log_dims(FILE *f, const int64_t *dims, uint64_t n) {
    fputc('[', f);
    for (uint64_t i = 0; i < n; i++) fprintf(f, "%s%lld", i ? ", " : "", (long long)dims[i]);
    fputc(']', f);
}

/* --- the ACL runtime (acl/acl.h) ---------------------------------------------------------- */
aclError aclInit(const char *configPath) {
    fprintf(double_log(), "{\"fn\": \"aclInit\"}\n");
    return double_fail("aclInit");
}
aclError aclFinalize() { fprintf(double_log(), "{\"fn\": \"aclFinalize\"}\n"); return 0; }
aclError aclrtSetDevice(int32_t deviceId) {
    fprintf(double_log(), "{\"fn\": \"aclrtSetDevice\", \"device\": %d}\n", deviceId);
    return double_fail("aclrtSetDevice");
}
aclError aclrtResetDevice(int32_t deviceId) {
    fprintf(double_log(), "{\"fn\": \"aclrtResetDevice\", \"device\": %d}\n", deviceId);
    return 0;
}
aclError aclrtCreateStream(aclrtStream *stream) {
    *stream = (aclrtStream)0x5eed;
    fprintf(double_log(), "{\"fn\": \"aclrtCreateStream\"}\n");
    return 0;
}
aclError aclrtDestroyStream(aclrtStream stream) {
    fprintf(double_log(), "{\"fn\": \"aclrtDestroyStream\"}\n");
    return 0;
}
aclError aclrtSynchronizeStream(aclrtStream stream) {
    fprintf(double_log(), "{\"fn\": \"aclrtSynchronizeStream\", \"stream_ok\": %s}\n",
            stream == (aclrtStream)0x5eed ? "true" : "false");
    return 0;
}
aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    if (buffer_count == MAX_BUFFERS) return ACL_ERROR_BAD_ALLOC;
    *devPtr = calloc(size ? size : 1, 1);
    buffers[buffer_count].base = *devPtr;
    buffers[buffer_count].size = size;
    buffers[buffer_count].id = next_id++;
    fprintf(double_log(), "{\"fn\": \"aclrtMalloc\", \"size\": %zu, \"buffer\": %d}\n", size,
            buffers[buffer_count].id);
    buffer_count++;
    return 0;
}
aclError aclrtFree(void *devPtr) {
    for (int i = 0; i < buffer_count; i++) {
        if (buffers[i].base == devPtr) {
            fprintf(double_log(), "{\"fn\": \"aclrtFree\", \"buffer\": %d}\n", buffers[i].id);
            free(devPtr);
            buffers[i].base = NULL;
            return 0;
        }
    }
    fprintf(double_log(), "{\"fn\": \"aclrtFree\", \"buffer\": null}\n");
    return ACL_ERROR_INVALID_PARAM;
}
aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
    int id; long long offset;
    buffer_of(kind == ACL_MEMCPY_HOST_TO_DEVICE ? dst : src, &id, &offset);
    fprintf(double_log(), "{\"fn\": \"aclrtMemcpy\", \"kind\": %d, \"count\": %zu, \"buffer\": %d, "
            "\"offset\": %lld}\n", (int)kind, count, id, offset);
    if (count > destMax) return ACL_ERROR_INVALID_PARAM;
    memcpy(dst, src, count);
    return 0;
}
const char *aclGetRecentErrMsg() { return "recorded by the ACL test double"; }

/* --- aclnn/acl_meta.h -------------------------------------------------------------------- */
aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData) {
    aclTensor *t = calloc(1, sizeof(aclTensor));
    t->id = next_id++;
    t->rank = viewDimsNum; t->storage_rank = storageDimsNum;
    memcpy(t->view, viewDims, viewDimsNum * sizeof(int64_t));
    if (stride) memcpy(t->strides, stride, viewDimsNum * sizeof(int64_t));
    memcpy(t->storage, storageDims, storageDimsNum * sizeof(int64_t));
    t->offset = offset; t->dtype = dataType; t->format = format; t->data = tensorData;
    FILE *f = double_log();
    fprintf(f, "{\"fn\": \"aclCreateTensor\", \"tensor\": ");
    double_log_tensor(f, t);
    fprintf(f, "}\n");
    return t;
}
void double_log_tensor(FILE *f, const aclTensor *t) {
    int id; long long at;
    if (!t) { fputs("null", f); return; }
    buffer_of(t->data, &id, &at);
    fprintf(f, "{\"id\": %d, \"view\": ", t->id);
    log_dims(f, t->view, t->rank);
    fputs(", \"strides\": ", f);
    log_dims(f, t->strides, t->rank);
    fprintf(f, ", \"offset\": %lld, \"dtype\": %d, \"format\": %d, \"storage\": ",
            (long long)t->offset, (int)t->dtype, (int)t->format);
    log_dims(f, t->storage, t->storage_rank);
    fprintf(f, ", \"buffer\": %d, \"buffer_offset\": %lld}", id, at);
}
aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
    aclIntArray *a = calloc(1, sizeof(aclIntArray));
    a->id = next_id++; a->size = size;
    memcpy(a->values, value, size * sizeof(int64_t));
    fprintf(double_log(), "{\"fn\": \"aclCreateIntArray\", \"id\": %d, \"values\": ", a->id);
    log_dims(double_log(), value, size);
    fprintf(double_log(), "}\n");
    return a;
}
void double_log_int_array(FILE *f, const aclIntArray *a) {
    if (!a) { fputs("null", f); return; }
    fputs("{\"int_array\": ", f);
    log_dims(f, a->values, a->size);
    fputc('}', f);
}
aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size) {
    aclTensorList *l = calloc(1, sizeof(aclTensorList));
    l->id = next_id++; l->size = size;
    for (uint64_t i = 0; i < size; i++) l->tensors[i] = value[i];
    fprintf(double_log(), "{\"fn\": \"aclCreateTensorList\", \"id\": %d, \"size\": %llu}\n", l->id,
            (unsigned long long)size);
    return l;
}
void double_log_tensor_list(FILE *f, const aclTensorList *l) {
    if (!l) { fputs("null", f); return; }
    fputs("{\"tensor_list\": [", f);
    for (uint64_t i = 0; i < l->size; i++) { if (i) fputs(", ", f); double_log_tensor(f, l->tensors[i]); }
    fputs("]}", f);
}
aclScalar *aclCreateScalar(void *value, aclDataType dataType) {
    aclScalar *s = calloc(1, sizeof(aclScalar));
    s->id = next_id++; s->dtype = dataType;
    memcpy(s->bytes, value, aclDataTypeSize(dataType));
    fprintf(double_log(), "{\"fn\": \"aclCreateScalar\", \"scalar\": ");
    double_log_scalar(double_log(), s);
    fprintf(double_log(), "}\n");
    return s;
}
void double_log_scalar(FILE *f, const aclScalar *s) {
    if (!s) { fputs("null", f); return; }
    fprintf(f, "{\"dtype\": %d, \"value\": ", (int)s->dtype);
    switch (s->dtype) {
    case ACL_FLOAT: { float v; memcpy(&v, s->bytes, 4); fprintf(f, "%.9g", v); break; }
    case ACL_DOUBLE: { double v; memcpy(&v, s->bytes, 8); fprintf(f, "%.17g", v); break; }
    case ACL_INT64: { long long v; memcpy(&v, s->bytes, 8); fprintf(f, "%lld", v); break; }
    case ACL_INT32: { int v; memcpy(&v, s->bytes, 4); fprintf(f, "%d", v); break; }
    default: fputs("null", f);
    }
    fputc('}', f);
}
aclnnStatus aclDestroyScalar(const aclScalar *scalar) {
    fprintf(double_log(), "{\"fn\": \"aclDestroyScalar\", \"id\": %d}\n", scalar ? scalar->id : 0);
    free((void *)scalar);
    return 0;
}
aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
    fprintf(double_log(), "{\"fn\": \"aclDestroyTensor\", \"id\": %d}\n", tensor ? tensor->id : 0);
    free((void *)tensor);
    return 0;
}
aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
    fprintf(double_log(), "{\"fn\": \"aclDestroyIntArray\", \"id\": %d}\n", array ? array->id : 0);
    free((void *)array);
    return 0;
}
aclnnStatus aclDestroyTensorList(const aclTensorList *array) {
    fprintf(double_log(), "{\"fn\": \"aclDestroyTensorList\", \"id\": %d}\n", array ? array->id : 0);
    if (array) for (uint64_t i = 0; i < array->size; i++) free((void *)array->tensors[i]);
    free((void *)array);
    return 0;
}
aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
    fprintf(double_log(), "{\"fn\": \"aclSetAclOpExecutorRepeatable\", \"id\": %d}\n", executor->id);
    return 0;
}
aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
    fprintf(double_log(), "{\"fn\": \"aclDestroyAclOpExecutor\", \"id\": %d}\n", executor->id);
    free(executor);
    return 0;
}

/* --- shared by the generated aclnn operator functions ----------------------------------- */
aclOpExecutor *double_new_executor(const char *function) {
    aclOpExecutor *e = calloc(1, sizeof(aclOpExecutor));
    e->id = next_id++;
    strncpy(e->function, function, sizeof(e->function) - 1);
    return e;
}
size_t aclDataTypeSize(aclDataType dataType) {
    switch (dataType) {
    case ACL_BF16: case ACL_FLOAT16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_INT64: case ACL_UINT64: case ACL_DOUBLE: return 8;
    default: return 1;
    }
}
static size_t tensor_bytes(const aclTensor *t) {
    size_t n = aclDataTypeSize(t->dtype);
    for (uint64_t i = 0; i < t->storage_rank; i++) n *= (size_t)t->storage[i];
    return n;
}
void double_launch(aclOpExecutor *e) {
    /* keep a program running: each output gets the first input's bytes (or zeros) */
    for (int i = 0; i < e->output_count; i++) {
        const aclTensor *out = e->outputs[i];
        size_t n = tensor_bytes(out), m = e->input ? tensor_bytes(e->input) : 0;
        memset(out->data, 0, n);
        if (m) memcpy(out->data, e->input->data, m < n ? m : n);
    }
}
