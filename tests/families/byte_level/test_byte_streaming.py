"""``encode_iterable``: the reference streams exactly ``encode`` of the joined lines, lazily,
and the milestone tells a streaming generator from a list, an eager one and wrong ids, among
them the ids of each line encoded on its own where a whitespace run crosses a line end."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.families.byte_level import streaming
from grader.families.byte_level.students import student_source
from grader.grading.engine import grade_submission
from grader.sandbox import Sandbox
from grader.spec import load_exercise
from grader.spec.stubs import render_stub
from reference.byte_level import (
    ByteLevelEncoder,
    encode_byte_bpe,
    encode_iterable_byte_bpe,
    train_byte_bpe,
)
from reference.errors import BPEInputError

EXERCISE = load_exercise("byte-bpe")
EOT = "<|endoftext|>"
DOUBLE = EOT + EOT
TEXT = f"the cat's hat\n  sat {EOT}on 12 mats!\n\n\tthe end{DOUBLE}again  "
VOCAB, MERGES = train_byte_bpe(TEXT * 3, 256 + 2 + 30, [EOT, DOUBLE])
PIECES = ["a", "b", " ", "  ", "\n", "\t", "'", "'s", "l", "ll", "1", "!", "é", "🙂", "\u00a0",
          EOT, "<|", "endof", "text|>", "the", " cat"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=24).map("".join), st.data())
def test_the_stream_is_encode_of_the_joined_lines_wherever_they_are_cut(text, data):
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=6)))
    lines = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
    for specials in ([], [EOT], [EOT, DOUBLE]):
        streamed = list(encode_iterable_byte_bpe(iter(lines), VOCAB, MERGES, specials))
        assert streamed == encode_byte_bpe(text, VOCAB, MERGES, specials)


def test_the_stream_yields_before_its_input_ends():
    endless = itertools.repeat("the cat sat\n")
    expected = encode_byte_bpe("the cat sat\n" * 3, VOCAB, MERGES, [EOT])
    stream = encode_iterable_byte_bpe(endless, VOCAB, MERGES, [EOT])
    assert list(itertools.islice(stream, len(expected))) == expected


def test_only_an_unfinished_tail_is_held_back():
    encoder = ByteLevelEncoder(VOCAB, MERGES, [EOT])
    ids, cut = encoder._settled("the cat sat\non the")
    assert 0 < cut < len("the cat sat\non the")
    assert ids == encode_byte_bpe("the cat sat\non the"[:cut], VOCAB, MERGES, [EOT])
    assert encoder._settled("the cat<|endof")[1] <= len("the cat")


def test_bad_arguments_raise_at_once_not_on_the_first_id():
    with pytest.raises(BPEInputError, match="iterable of str"):
        encode_iterable_byte_bpe("not lines", VOCAB, MERGES, [EOT])
    with pytest.raises(BPEInputError, match=r"lines\[1\] must be a str"):
        list(encode_iterable_byte_bpe(["a", 5], VOCAB, MERGES, [EOT]))


def streaming_only():
    milestone = EXERCISE.milestone("encode-iterable")
    return EXERCISE.model_copy(update={"milestones": [milestone]})


BODIES = {
    "list": '    return encode("".join(lines), vocab, merges, special_tokens)\n',
    "eager": ('    text = "".join(lines)\n'
              '    yield from encode(text, vocab, merges, special_tokens)\n'),
    "line by line": ('    for line in lines:\n'
                     '        yield from encode(line, vocab, merges, special_tokens)\n'),
    "no newlines": ('    for line in lines:\n'
                    '        yield from encode(line.rstrip("\\n"), vocab, merges, special_tokens)\n'),
}


def with_body(kind: str) -> str:
    source = student_source(EXERCISE)
    start = source.index("def encode_iterable(")
    end = source.index("\n\n\ndef ", start)
    header = source[start:source.index("\n", start) + 1]
    return source[:start] + header + BODIES[kind].rstrip("\n") + source[end:]


def grade(tmp_path, source):
    path = tmp_path / "student.py"
    path.write_text(source, encoding="utf-8")
    (milestone,) = grade_submission(path, streaming_only(), helper=False).milestones
    return milestone


def failing_messages(milestone) -> list[str]:
    return [check.message for check in milestone.checks if not check.passed]


def test_a_streaming_generator_passes_each_item_streamed_once(tmp_path, monkeypatch):
    streams = []
    call = Sandbox.call

    def counted(self, function, args=(), timeout=None, **options):
        if options.get("feed") is not None:
            streams.append(function)
        return call(self, function, args, timeout, **options)

    monkeypatch.setattr(Sandbox, "call", counted)
    milestone = grade(tmp_path, student_source(EXERCISE))
    assert milestone.passed, failing_messages(milestone)
    # the cases check notes each item's first call before judging: a stream is not made then
    assert streams == ["encode_iterable"] * len(milestone.checks) and len(streams) > 2


def test_a_list_gets_its_ids_right_but_is_not_lazy(tmp_path):
    milestone = grade(tmp_path, with_body("list"))
    messages = failing_messages(milestone)
    assert len(messages) == 1 and "read every one of them before yielding any id" in messages[0]
    assert 0 < milestone.score < milestone.max_score


def test_a_generator_that_reads_everything_first_is_not_lazy(tmp_path):
    messages = failing_messages(grade(tmp_path, with_body("eager")))
    assert len(messages) == 1
    assert "read every one of them before yielding any id" in messages[0]


def test_ids_that_differ_from_encode_of_the_joined_lines_fail(tmp_path):
    messages = failing_messages(grade(tmp_path, with_body("no newlines")))
    assert any("must yield exactly encode(''.join(lines))" in m for m in messages)


def test_the_stub_shows_the_stream_and_states_the_handout():
    stub = render_stub(EXERCISE)
    assert "def encode_iterable(\n    lines: Iterable[str]" in stub
    assert "CS336 spring 2025 (handout v1.0.4 and later)" in stub
    assert "encode_iterable(iter([" in stub


def test_the_across_lines_text_is_one_where_line_by_line_differs():
    for specials in ([], [EOT]):
        vocab, merges = streaming.across_lines_model(specials)
        assert any(b"\n" in a + b for a, b in merges)
        text = streaming.ACROSS_LINES
        each = [i for line in streaming.lines_of(text)
                for i in encode_byte_bpe(line, vocab, merges, specials)]
        assert each != encode_byte_bpe(text, vocab, merges, specials)


def test_encoding_line_by_line_is_caught_and_told_how_to_stream(tmp_path):
    milestone = grade(tmp_path, with_body("line by line"))
    messages = failing_messages(milestone)
    assert len(messages) == 1 and milestone.score < milestone.max_score
    assert "They are the ids of each line encoded on its own" in messages[0]
    assert "keep the whitespace at the end of what you have read" in messages[0]


def test_the_advice_for_a_lazy_stream_is_itself_correct():
    """The pattern the hint and the student-style programs use (encode up to the last run of
    whitespace, keep the rest) gives encode of the joined text wherever the text is cut."""
    names: dict = {}
    exec(compile(student_source(EXERCISE), "student.py", "exec"), names)
    assert "pending" in streaming.LAZY_HOW
    encode_iterable = names["encode_iterable"]

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.sampled_from(PIECES), max_size=24).map("".join), st.data())
    def check(text, data):
        cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=6)))
        lines = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
        for specials in ([], [EOT], [EOT, DOUBLE]):
            assert list(encode_iterable(iter(lines), VOCAB, MERGES, specials)) == \
                encode_byte_bpe(text, VOCAB, MERGES, specials)

    check()


HOSTILE = Path(__file__).resolve().parents[2] / "hostile"
FORGERIES = ("forge_stream_counter.py", "forge_stream_builtins.py", "forge_stream_answer.py")


def forged(name: str) -> str:
    """A correct solution whose encode_iterable is replaced by the hostile file's eager one."""
    return student_source(EXERCISE) + "\n\n" + (HOSTILE / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("name", FORGERIES)
def test_an_eager_answer_cannot_forge_its_laziness(tmp_path, name):
    milestone = grade(tmp_path, forged(name))
    lazy = [check for check in milestone.checks if "before reading every line" in check.title]
    assert len(lazy) == 1 and not lazy[0].passed, [(c.title, c.passed) for c in milestone.checks]
    assert "read every one of them before yielding any id" in lazy[0].message
