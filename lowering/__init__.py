"""ascend_mla.lowering"""
