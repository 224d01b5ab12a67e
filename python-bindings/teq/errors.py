"""Errors of the teq package."""


class CompilerError(RuntimeError):
    """A compiler call failed; the message is the compiler's diagnostics,
    located where the IR is at fault (``file:line:col: error: ...``)."""
