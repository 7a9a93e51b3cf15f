"""An eager encode_iterable that hides its reads from whoever counts them.

It reads every line before yielding, then walks the frames that called it and sets every
one-item list holding an int (a read counter) back to 0. Its test appends it to a correct
byte-level solution (``encode`` is that solution's); alone it loads and defines no graded
function. Laziness must be counted where the submission cannot reach.
"""
import sys

SHORT = 10_000  # characters of the text encoded


def encode_iterable(lines, vocab, merges, special_tokens):
    text = "".join(lines)
    frame = sys._getframe(1)
    while frame is not None:
        for holder in list(frame.f_locals.values()):
            if type(holder) is list and len(holder) == 1 and type(holder[0]) is int:
                holder[0] = 0
        frame = frame.f_back
    return iter(encode(text[:SHORT], vocab, merges, special_tokens))  # noqa: F821 - the solution's
