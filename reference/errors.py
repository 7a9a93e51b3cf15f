"""The one exception type the reference raises for bad input, so callers can catch it alone."""


class BPEInputError(ValueError):
    """An argument to the reference BPE is malformed; the message says what was expected."""
