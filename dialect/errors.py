"""The exceptions every layer raises (re-exported by the public API, `ascend_mla.errors`)."""


class VerificationError(ValueError):
    """A call or an op violates a documented constraint.

    The message is the verifier's diagnostic: `'mla.<op>' op <parameter>: <rule> [<rule id>]`.
    Nothing has been executed or written when it is raised.
    """

    def __init__(self, message: str, findings=()):
        super().__init__(message)
        self.findings = list(findings)


class VerificationWarning(UserWarning):
    """An advisory rule found something worth knowing (the call still runs)."""


class BackendUnavailable(RuntimeError):
    """The requested backend cannot run here (for "npu": the CANN runtime libraries or a
    device are missing); the message says what is missing."""


class ExecutionError(RuntimeError):
    """A lowered function cannot run: a bad input, or IR the executor does not know."""
