"""ascend_mla.lowering: mla ops -> the aclnn kernel-call dialect (lower-to-aclnn), and the
kernel-call level -> C++ host code (emit_cpp)."""
