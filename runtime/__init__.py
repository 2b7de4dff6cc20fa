"""ascend_mla.runtime"""
