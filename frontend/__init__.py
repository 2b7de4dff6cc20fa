"""ascend_mla.frontend: model importers (the PyTorch one: ascend_mla.frontend.torch)."""
