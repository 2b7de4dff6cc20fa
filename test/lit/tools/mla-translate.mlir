// mla-translate --emit-cpp: the C++ host program of a (lowered) function, through emitc and
// mlir-translate --mlir-to-cpp: the seeds' call-example sequence, every status checked.
// RUN: mla-translate --emit-cpp %s | FileCheck %s
// RUN: mla-opt %s --lower-to-aclnn | mla-translate --emit-cpp - -o %t.cpp
// RUN: FileCheck %s < %t.cpp
// A call the device function cannot make (the prolog's half-away query quant) is an error.
// RUN: not mla-translate --emit-cpp %S/../lowering/primitive.mlir --function dynamic_quant_half_away 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK:      #include "acl/acl.h"
// CHECK:      #include "aclnnop/aclnn_rms_norm.h"
// CHECK:      main(
// CHECK:      = aclInit(nullptr);
// CHECK-NEXT: ASCEND_MLA_CHECK({{.*}}, "aclInit");
// CHECK:      = aclrtSetDevice(0);
// CHECK:      = aclrtCreateStream(
// CHECK:      = ascend_mla_load({{.*}}, "x", {{.*}}, 114688);
// CHECK:      = aclrtMalloc({{.*}}, 114688, ACL_MEM_MALLOC_HUGE_FIRST);
// CHECK:      = aclrtMemcpy({{.*}}, 114688, {{.*}}, 114688, ACL_MEMCPY_HOST_TO_DEVICE);
// CHECK:      = aclCreateTensor({{.*}}, 2, ACL_BF16, {{.*}}, 0, ACL_FORMAT_ND, {{.*}}, 2, {{.*}});
// CHECK-NEXT: ASCEND_MLA_CHECK_PTR({{.*}}, "aclCreateTensor");
// CHECK:      = aclnnRmsNormGetWorkspaceSize({{.*}}, {{.*}}, 1e-06, {{.*}}, {{.*}}, {{.*}}, {{.*}});
// CHECK-NEXT: ASCEND_MLA_CHECK({{.*}}, "aclnnRmsNormGetWorkspaceSize");
// CHECK:      = aclSetAclOpExecutorRepeatable(
// CHECK:      = aclnnRmsNorm({{.*}});
// CHECK-NEXT: ASCEND_MLA_CHECK({{.*}}, "aclnnRmsNorm");
// CHECK:      = aclrtSynchronizeStream(
// CHECK:      = aclrtMemcpy({{.*}}, 114688, {{.*}}, 114688, ACL_MEMCPY_DEVICE_TO_HOST);
// CHECK:      = aclDestroyAclOpExecutor(
// CHECK:      = aclDestroyTensor(
// CHECK:      = aclrtFree(
// CHECK:      = aclFinalize();
// CHECK:      return 0;
// ERR: mla-translate: error: aclnnDynamicQuant with {'rounding': 'half_away'}: numerics the device function does not have
func.func @norm(%x: tensor<8x7168xbf16> {mla.name = "x"}, %gamma: tensor<7168xbf16>) -> tensor<8x7168xbf16> {
  %y = "mla.rms_norm"(%x, %gamma) {epsilon = 1.0e-06 : f64} : (tensor<8x7168xbf16>, tensor<7168xbf16>) -> tensor<8x7168xbf16>
  return %y : tensor<8x7168xbf16>
}
