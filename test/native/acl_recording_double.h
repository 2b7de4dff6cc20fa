/* The TEST DOUBLE's own types (see acl_recording_double.c). */
#ifndef ACL_RECORDING_DOUBLE_H_
#define ACL_RECORDING_DOUBLE_H_
#include <stdio.h>
#include "aclnn/acl_meta.h"
struct aclTensor { int id; uint64_t rank, storage_rank; int64_t view[16], strides[16], storage[16];
                   int64_t offset; aclDataType dtype; aclFormat format; void *data; };
struct aclIntArray { int id; uint64_t size; int64_t values[4096]; };
struct aclTensorList { int id; uint64_t size; const aclTensor *tensors[1024]; };
struct aclScalar { int id; aclDataType dtype; unsigned char bytes[16]; };
struct aclOpExecutor { int id; char function[128]; const aclTensor *input;
                       const aclTensor *outputs[8]; int output_count; };
FILE *double_log(void);
int double_fail(const char *function);
void double_log_tensor(FILE *f, const aclTensor *t);
void double_log_int_array(FILE *f, const aclIntArray *a);
void double_log_tensor_list(FILE *f, const aclTensorList *l);
void double_log_scalar(FILE *f, const aclScalar *s);
aclOpExecutor *double_new_executor(const char *function);
void double_launch(aclOpExecutor *e);
void double_buffer_of(const void *address, int *id, long long *offset);
#endif
