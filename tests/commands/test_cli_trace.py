"""``grade trace``: the step-by-step training and encoding text, and its errors.

The expected merges always come from the reference itself; the tests check that the trace
shows them, with the counts, ties and reasons the hand exercises write out.
"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from grader.commands.cli import main
from reference.trace import (
    explain_choice,
    format_corpus,
    parse_word_counts,
    ranked_pairs,
    render_encoding,
    render_training,
    stop_reason,
)
from reference import TIE_BREAKS, BPEInputError, encode, train_bpe
from reference.plain import Step
from reference.tie_breaks import order_tied

CAT_CAP = "cat cat cat cat cap cap cap cap"
DECK_COUNTS = ["low=5", "lower=2", "newest=6", "widest=3"]
DECK_CORPUS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}


def run(*args: str):
    return CliRunner().invoke(main, ["trace", *args])


def ok(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result.output


def merge_sections(output: str) -> list[str]:
    """The text of each "Merge k of n" section, in order."""
    return re.findall(r"^Merge \d+ of \d+\n.*?(?=\n\n|\Z)", output, flags=re.M | re.S)


def merge_list_lines(merges) -> list[str]:
    return [f"  {number}. {a} {b} -> {a + b}" for number, (a, b) in enumerate(merges, 1)]


def assert_merge_list(output: str, merges) -> None:
    tail = output.split("Merge list (", 1)[1].splitlines()
    assert tail[0] == f"{len(merges)} rule{'' if len(merges) == 1 else 's'}):"
    assert tail[1 : 1 + len(merges)] == merge_list_lines(merges)


# --- the two examples of the issue -----------------------------------------------------------


def test_cat_cap_concatenated_trace():
    output = ok(CAT_CAP, "--merges", "4", "--tie-break", "concatenated")
    merges = train_bpe([CAT_CAP], 4, tie_break="concatenated")
    sections = merge_sections(output)
    assert len(sections) == 4
    first, second = sections[0], sections[1]
    # The corpus as the hand exercises write it, then the counts and the uncontested winner.
    assert "    4x  c a t </w>\n    4x  c a p </w>" in first
    assert re.search(r"\(c, a\)\s+8\n", first)
    assert "(c, a) has the highest count, 8; no tie to break." in first
    assert "new token: ca " in first
    # The four-way tie, the rule that broke it, and why.
    assert "    4x  ca t </w>\n    4x  ca p </w>" in second
    assert "tie at 4 between 4 pairs: (ca, p), (ca, t), (p, </w>), (t, </w>)" in second
    assert "concatenated picks (ca, p): the pair whose joined string a+b is alphabetically smallest" in second
    assert "cap < cat < p</w> < t</w>" in second
    assert "new token: cap " in second
    assert_merge_list(output, merges)
    assert "Final corpus after 4 merges:" in output


def test_word_counts_first_seen_trace():
    output = ok("--word-counts", *DECK_COUNTS, "--merges", "6", "--tie-break", "first-seen")
    merges = train_bpe(DECK_CORPUS, 6, tie_break="first-seen")
    sections = merge_sections(output)
    assert len(sections) == 6
    assert "    5x  l o w </w>\n    2x  l o w e r </w>\n    6x  n e w e s t </w>\n    3x  w i d e s t </w>" in sections[0]
    assert "tie at 9 between 3 pairs: (e, s), (s, t), (t, </w>)" in sections[0]
    assert "first-seen picks (e, s)" in sections[0]
    sixth = sections[5]
    assert "tie at 6 between 3 pairs: (n, e), (e, w), (w, est</w>)" in sixth
    assert "first-seen picks (n, e)" in sixth
    assert "scan order (n, e), then (e, w), then (w, est</w>); (n, e) is first met in 'n e w est</w>'" in sixth
    assert_merge_list(output, merges)


def test_the_rule_changes_the_trace():
    # Same corpus under lexicographic: the sixth tie goes to (e, w), as the reference says.
    output = ok("--word-counts", *DECK_COUNTS, "--merges", "6", "--tie-break", "lexicographic")
    merges = train_bpe(DECK_CORPUS, 6, tie_break="lexicographic")
    assert merges[5] == ("e", "w")
    assert "lexicographic picks (e, w)" in merge_sections(output)[5]
    assert "(e, w) < (n, e) < (w, est</w>)" in output
    assert_merge_list(output, merges)


@pytest.mark.parametrize("rule", TIE_BREAKS)
def test_every_rule_traces_the_reference_merges(rule):
    output = ok("--word-counts", *DECK_COUNTS, "--merges", "10", "--tie-break", rule)
    assert_merge_list(output, train_bpe(DECK_CORPUS, 10, tie_break=rule))
    assert f"Ties broken by {rule}:" in output


# --- corpus sources and options --------------------------------------------------------------


def test_texts_from_a_file_trace_like_the_same_texts_as_arguments(tmp_path):
    texts = ["low low lower", "newest widest", "  newest  "]
    path = tmp_path / "corpus.txt"
    path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    from_file = ok("--file", str(path), "--merges", "5")
    assert from_file == ok(*texts, "--merges", "5")
    assert_merge_list(from_file, train_bpe(texts, 5))


def test_word_counts_from_a_file(tmp_path):
    path = tmp_path / "counts.txt"
    path.write_text("low=5 lower=2\nnewest=6\n\twidest=3\n", encoding="utf-8")
    output = ok("--file", str(path), "--word-counts", "--merges", "6", "--tie-break", "first-seen")
    assert output == ok("--word-counts", *DECK_COUNTS, "--merges", "6", "--tie-break", "first-seen")


def test_defaults_are_lexicographic_and_the_standard_marker():
    output = ok(CAT_CAP, "--merges", "3")
    assert "Ties broken by lexicographic:" in output
    assert "end-of-word marker </w>" in output
    assert_merge_list(output, train_bpe([CAT_CAP], 3))


def test_custom_end_of_word_marker():
    output = ok(CAT_CAP, "--merges", "3", "--end-of-word", "_", "--encode", "cats")
    assert "4x  c a t _" in output and "</w>" not in output
    merges = train_bpe([CAT_CAP], 3, end_of_word="_")
    assert_merge_list(output, merges)
    assert f"tokens: [{', '.join(encode('cats', merges, end_of_word='_'))}]" in output


def test_encode_shows_every_step_for_each_word_in_order():
    output = ok(CAT_CAP, "--merges", "4", "--tie-break", "concatenated", "--encode", "caps", "--encode", "dog")
    caps, dog = output.split("Encoding 'caps'")[1].split("Encoding 'dog'")
    assert re.search(r"start:\s+c a p s </w>\n", caps)
    assert re.search(r"rule 1 \(c, a\):\s+ca p s </w>\n", caps)
    assert re.search(r"rule 2 \(ca, p\):\s+cap s </w>\n", caps)
    assert "no rule matches (cap, s), (s, </w>): stop." in caps
    assert "tokens: [cap, s, </w>]" in caps
    assert not re.search(r"rule \d", dog)  # no merge applies to d o g
    assert "no rule matches (d, o), (o, g), (g, </w>): stop." in dog
    assert "tokens: [d, o, g, </w>]" in dog


def test_encode_steps_follow_rank_not_position():
    # 'lowest' with the deck's merges: rules 1, 2, 3 act on the end before 4, 5 on the start.
    output = ok("--word-counts", *DECK_COUNTS, "--merges", "6", "--tie-break", "first-seen", "--encode", "lowest")
    encoding = output.split("Encoding 'lowest'")[1]
    labels = re.findall(r"rule (\d+) \(", encoding)
    assert labels == ["1", "2", "3", "4", "5"]
    assert "tokens: [low, est</w>]" in encoding


def test_show_pairs_caps_the_listing():
    first = merge_sections(ok(CAT_CAP, "--merges", "1", "--show-pairs", "2"))[0]
    assert "... and 3 more pairs" in first
    assert len(re.findall(r"^    \(.*\)\s+\d+$", first, flags=re.M)) == 2
    everything = merge_sections(ok(CAT_CAP, "--merges", "1", "--show-pairs", "0"))[0]
    assert "more pairs" not in everything
    assert len(re.findall(r"^    \(.*\)\s+\d+$", everything, flags=re.M)) == 5


def test_show_words_caps_the_corpus_listing():
    first = merge_sections(ok("--word-counts", *DECK_COUNTS, "--merges", "1", "--show-words", "1"))[0]
    assert "5x  l o w </w>" in first and "lower" not in first
    assert "... and 3 more words" in first


def test_training_that_runs_out_of_pairs_says_why():
    output = ok("ab ab abc", "--merges", "10")
    assert "Stopped after 4 of 10 merges: no pairs left (every word is a single symbol)." in output
    assert len(merge_sections(output)) == 4
    assert_merge_list(output, train_bpe(["ab ab abc"], 10))


def test_a_corpus_without_words_stops_at_once():
    output = ok("   ", "--merges", "3")
    assert "Stopped after 0 of 3 merges: the corpus has no words" in output
    assert "Merge list (0 rules):\n  (none)" in output


def test_zero_merges_is_not_an_early_stop():
    output = ok(CAT_CAP, "--merges", "0")
    assert "Stopped" not in output and merge_sections(output) == []
    assert "Final corpus after 0 merges:\n  4x  c a t </w>" in output


def test_non_ascii_words_are_traced_per_code_point():
    output = ok("東京 東京 cafe\u0301", "--merges", "1", "--encode", "e\u0301")
    assert "2x  東 京 </w>" in output
    assert "1x  c a f e \u0301 </w>" in output


# --- errors ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--word-counts", "low", "lower=2", "--merges", "2"], "bad word count 'low': expected WORD=COUNT"),
        (["--word-counts", "low=0", "--merges", "2"], "count must be a positive integer"),
        (["--word-counts", "low=-3", "--merges", "2"], "count must be a positive integer"),
        (["--word-counts", "low=2.5", "--merges", "2"], "count must be a positive integer"),
        (["--word-counts", "low=many", "--merges", "2"], "bad word count 'low=many'"),
        (["--word-counts", "=4", "--merges", "2"], "the word before '=' is empty"),
        (["--word-counts", "low=5", "low=3", "--merges", "2"], "word 'low' is given twice"),
        (["abc", "--merges", "2", "--tie-break", "alphabetical"], "'alphabetical' is not one of"),
        (["--merges", "2"], "no corpus given"),
        (["--word-counts", "--merges", "2"], "no corpus given"),
        (["abc"], "Missing option '--merges'"),
        (["abc", "--merges", "-1"], "--merges"),
        (["abc", "--merges", "two"], "--merges"),
        (["abc", "--merges", "1", "--show-pairs", "-2"], "--show-pairs"),
    ],
)
def test_bad_input_is_a_usage_error_with_a_clear_message(args, expected):
    result = run(*args)
    assert result.exit_code == 2
    assert expected in result.output
    assert isinstance(result.exception, SystemExit)  # a usage error, not a crash
    assert "Traceback" not in result.output


def test_unknown_tie_rule_lists_the_valid_ones():
    output = run("abc", "--merges", "2", "--tie-break", "alphabetical").output
    for rule in TIE_BREAKS:
        assert rule in output


def test_both_corpus_forms_given(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("low lower\n", encoding="utf-8")
    result = run("newest", "--file", str(path), "--merges", "2")
    assert result.exit_code == 2
    assert "either as arguments or with --file, not both" in result.output


def test_missing_and_binary_files(tmp_path):
    missing = run("--file", str(tmp_path / "nope.txt"), "--merges", "2")
    assert missing.exit_code == 2 and "does not exist" in missing.output
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\xff\xfe\x00\x81 low")
    result = run("--file", str(binary), "--merges", "2")
    assert result.exit_code == 2 and "is not UTF-8 text" in result.output


# --- the library functions -------------------------------------------------------------------


def test_parse_word_counts_keeps_order_and_allows_equals_in_words():
    assert parse_word_counts(["b=2", "a=1", "x=y=3"]) == {"b": 2, "a": 1, "x=y": 3}
    assert list(parse_word_counts(["b=2", "a=1"])) == ["b", "a"]
    with pytest.raises(ValueError, match="cannot contain whitespace"):
        parse_word_counts(["lo w=2"])


def test_format_corpus_aligns_counts():
    lines = format_corpus({("a", "</w>"): 5, ("b", "c", "</w>"): 12})
    assert lines == [" 5x  a </w>", "12x  b c </w>"]
    assert format_corpus({}) == ["(no words)"]


@pytest.mark.parametrize("rule", TIE_BREAKS)
def test_ranked_pairs_put_the_rules_winner_first(rule):
    counts = {("b", "a"): 2, ("a", "c"): 3, ("a", "b"): 3, ("c", "a"): 3}
    ranked = ranked_pairs(counts, rule)
    assert [count for _, count in ranked] == [3, 3, 3, 2]
    # Among the three 3s: smallest tuple (a, b); smallest join "ab"; first inserted (a, c);
    # largest tuple (c, a).
    winner = {
        "lexicographic": ("a", "b"),
        "concatenated": ("a", "b"),
        "first-seen": ("a", "c"),
        "reverse-lexicographic": ("c", "a"),
    }[rule]
    assert ranked[0] == (winner, 3)
    assert ranked[-1] == (("b", "a"), 2)


def test_render_training_returns_the_merges_it_shows():
    text, merges = render_training([CAT_CAP], 4, tie_break="concatenated")
    assert merges == train_bpe([CAT_CAP], 4, tie_break="concatenated")
    assert all(line in text for line in merge_list_lines(merges))


@pytest.mark.parametrize(
    "corpus, num_merges, options, message",
    [
        (["ab"], 2, {"tie_break": "alphabetical"}, "is not one of lexicographic"),
        (["ab"], -1, {}, "num_merges must be a non-negative int"),
        ("ab", 2, {}, "wrap it in a list"),
        (["ab"], 2, {"end_of_word": None}, "end_of_word must be a str"),
    ],
)
def test_render_training_refuses_bad_arguments_with_the_reference_error(corpus, num_merges, options, message):
    with pytest.raises(BPEInputError, match=message):
        render_training(corpus, num_merges, **options)


def test_render_encoding_without_merges_and_of_an_empty_word():
    assert "tokens: [a, b, </w>]" in render_encoding("ab", [])
    assert "a single token is left: stop." in render_encoding("", [])


def test_concatenated_explains_equal_joins_by_their_fallback():
    # (a, bc) and (ab, c) both join to 'abc'; the rule falls back to the smaller tuple.
    counts = {("ab", "c"): 2, ("a", "bc"): 2, ("c", "</w>"): 1}
    words = {("ab", "c", "</w>"): 1, ("x", "a", "bc"): 1}
    tied = order_tied([("ab", "c"), ("a", "bc")], "concatenated")
    step = Step(1, counts, 2, tied, tied[0], words)
    lines = explain_choice(step, words, "concatenated")
    assert lines[0] == "tie at 2 between 2 pairs: (a, bc), (ab, c)"
    assert lines[1].startswith("concatenated picks (a, bc):")
    assert "abc = abc (equal joins: the smaller pair (a, b) first)" in lines[2]


def test_stop_reason():
    assert stop_reason({("a", "</w>"): 1}, 3, 3) is None
    assert "no pairs left" in stop_reason({("ab</w>",): 1}, 2, 3)
    assert "no words" in stop_reason({}, 0, 3)
