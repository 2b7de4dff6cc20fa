"""Exceptions of the public API (defined in the dialect layer, which every stage imports)."""
from .dialect.errors import BackendUnavailable, ExecutionError, VerificationError, VerificationWarning

__all__ = ["BackendUnavailable", "ExecutionError", "VerificationError", "VerificationWarning"]
