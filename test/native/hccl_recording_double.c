/* The HCCL functions of the TEST DOUBLE (see acl_recording_double.c), built against the HCCL
 * declarations of lowering/collective.py (hccl/hccl.h). Every call is one JSON line in
 * $ACL_DOUBLE_LOG. The double is one process alone: a communicator of nRanks ranks whose
 * AllReduce copies sendBuf into recvBuf (the sum of one rank) and whose AllGather copies sendBuf
 * into the first part of recvBuf. It computes nothing else. */
#include <stdio.h>
#include <string.h>
#include "acl/acl.h"
#include "hccl/hccl.h"
#include "acl_recording_double.h"

#define ROOT_TEXT "ascend-mla recording double root info"
static int comms = 0;

static size_t hccl_size(HcclDataType t) {
    switch (t) {
    case HCCL_DATA_TYPE_INT8: return 1;
    case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_FP32: return 4;
    case HCCL_DATA_TYPE_INT64: return 8;
    default: return 0;
    }
}

static void log_buffer(FILE *f, const char *key, const void *address) {
    int id; long long offset;
    double_buffer_of(address, &id, &offset);
    fprintf(f, ", \"%s\": {\"buffer\": %d, \"buffer_offset\": %lld}", key, id, offset);
}

HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo) {
    memset(rootInfo, 0, sizeof(*rootInfo));
    strcpy(rootInfo->internal, ROOT_TEXT);
    fprintf(double_log(), "{\"fn\": \"HcclGetRootInfo\"}\n");
    return (HcclResult)double_fail("HcclGetRootInfo");
}

HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank, HcclComm *comm) {
    fprintf(double_log(), "{\"fn\": \"HcclCommInitRootInfo\", \"nRanks\": %u, \"rank\": %u, \"root_ok\": %s}\n",
            nRanks, rank, strcmp(rootInfo->internal, ROOT_TEXT) == 0 ? "true" : "false");
    *comm = (HcclComm)(size_t)(0xc0 + comms++);
    return (HcclResult)double_fail("HcclCommInitRootInfo");
}

HcclResult HcclCommDestroy(HcclComm comm) {
    fprintf(double_log(), "{\"fn\": \"HcclCommDestroy\"}\n");
    return HCCL_SUCCESS;
}

static HcclResult collective(const char *fn, void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                             int op, HcclComm comm, aclrtStream stream) {
    FILE *f = double_log();
    fprintf(f, "{\"fn\": \"%s\"", fn);
    log_buffer(f, "sendBuf", sendBuf);
    log_buffer(f, "recvBuf", recvBuf);
    fprintf(f, ", \"count\": %llu, \"dataType\": %d", (unsigned long long)count, (int)dataType);
    if (op >= 0) fprintf(f, ", \"op\": %d", op);
    fprintf(f, ", \"comm_ok\": %s, \"stream_ok\": %s}\n", (size_t)comm >= 0xc0 ? "true" : "false",
            stream == (aclrtStream)0x5eed ? "true" : "false");
    int status = double_fail(fn);
    if (status) return (HcclResult)status;
    if (hccl_size(dataType) == 0) return HCCL_E_PARA;
    memcpy(recvBuf, sendBuf, count * hccl_size(dataType));
    return HCCL_SUCCESS;
}

HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                         HcclComm comm, aclrtStream stream) {
    return collective("HcclAllReduce", sendBuf, recvBuf, count, dataType, (int)op, comm, stream);
}

HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType, HcclComm comm,
                         aclrtStream stream) {
    return collective("HcclAllGather", sendBuf, recvBuf, sendCount, dataType, -1, comm, stream);
}

/* the communicator's name (what the MoE-distribute calls take as groupEp) and this rank */
HcclResult HcclGetCommName(HcclComm comm, char *commName) {
    snprintf(commName, 128, "double_comm_%d", (int)((size_t)comm - 0xc0));
    fprintf(double_log(), "{\"fn\": \"HcclGetCommName\", \"comm_ok\": %s}\n", (size_t)comm >= 0xc0 ? "true" : "false");
    return (HcclResult)double_fail("HcclGetCommName");
}

HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank) {
    *rank = 0;
    fprintf(double_log(), "{\"fn\": \"HcclGetRankId\", \"comm_ok\": %s}\n", (size_t)comm >= 0xc0 ? "true" : "false");
    return (HcclResult)double_fail("HcclGetRankId");
}
