"""An eager encode_iterable beside a module-level ``range`` that allows one round only.

Code run with this module's globals (a driver appended to the file, say) that repeats a
stream with ``range`` sees one line where the grader meant tens of thousands, and so sees the
first id come before the last line is read. Its test appends it to a correct byte-level
solution (``encode`` is that solution's); alone it loads and defines no graded function.
"""


def range(*bounds):  # noqa: A001 - the point: it shadows the builtin
    return [0]


def encode_iterable(lines, vocab, merges, special_tokens):
    text = "".join(lines)
    yield from encode(text, vocab, merges, special_tokens)  # noqa: F821 - the solution's
