"""The worked examples of the four lessons, replayed against the reference.

Each test names the lesson and the slide or section its numbers come from. The lessons use
different tie-break conventions, and some say one thing in prose while their own code does
another; where that happens the test follows the code, a comment quotes the prose, and the
test also checks which tie-break rules do and do not reproduce the lesson's table, so that
choosing a rule in an exercise really does change the outcome.
"""

from __future__ import annotations

import pytest

from reference import TIE_BREAKS, Encoder, encode, train_bpe
from reference.plain import count_pairs, train_steps

EOW = "</w>"


def merges_with_counts(corpus, num_merges, tie_break):
    """(pair, count) for every merge, checked against the public ``train_bpe``."""
    steps = list(train_steps(corpus, num_merges, tie_break=tie_break))
    pairs = [step.pair for step in steps]
    assert train_bpe(corpus, num_merges, tie_break=tie_break) == pairs
    return [(step.pair, step.count) for step in steps]


def replay(word, merges):
    """The token sequence after each merge applied while encoding ``word``, as tuples."""
    return [step.tokens for step in Encoder(merges).steps(word)]


def rules_reproducing(expected, outcome):
    """The tie-break rules under which ``outcome(rule)`` equals ``expected``."""
    return {rule for rule in TIE_BREAKS if outcome(rule) == expected}


# ---------------------------------------------------------------------------------------------
# 001, the solved problem "Byte-Pair Encoding: Train Merges and Encode" — section "tests.py ·
# 8 passing". Its rule, stated in "01 Problem" and coded as min(pairs, key=(-count, pair)):
# ties go to the lexicographically smallest pair.

SOLVED_CORPUS = ["low " * 5 + "lower " * 2 + "newest " * 6 + "widest " * 3]


def test_solved_problem_eight_asserts():
    merges = train_bpe(SOLVED_CORPUS, 5, tie_break="lexicographic")
    assert merges[:4] == [("e", "s"), ("es", "t"), ("est", EOW), ("l", "o")]
    assert merges[4] == ("lo", "w")
    assert encode("lowest", merges) == ["low", "est</w>"]
    assert encode("low", merges) == ["low", EOW]
    assert encode("zz", merges) == ["z", "z", EOW]
    assert "".join(encode("newest", merges)).replace(EOW, "") == "newest"
    assert train_bpe(["a"], 10, tie_break="lexicographic") == [("a", EOW)]
    assert train_bpe([""], 3, tie_break="lexicographic") == []


def test_solved_problem_default_rule_is_its_rule():
    assert train_bpe(SOLVED_CORPUS, 5) == train_bpe(SOLVED_CORPUS, 5, tie_break="lexicographic")


def test_solved_problem_merges_under_each_rule():
    # Its first five merges happen to come out the same under every rule except
    # reverse-lexicographic, which starts from the end of the words: (t, </w>) first.
    expected = [("e", "s"), ("es", "t"), ("est", EOW), ("l", "o"), ("lo", "w")]
    reproducing = rules_reproducing(expected, lambda rule: train_bpe(SOLVED_CORPUS, 5, tie_break=rule))
    assert reproducing == {"lexicographic", "concatenated", "first-seen"}
    assert train_bpe(SOLVED_CORPUS, 1, tie_break="reverse-lexicographic") == [("t", EOW)]


# ---------------------------------------------------------------------------------------------
# 000, the lesson deck "Lesson 97: Subword Tokenization". Its code (slides 42 and 47) picks
# max(pairs, key=pairs.get) over an insertion-ordered dict: the first-seen rule. Its prose
# (slide 36, "Why C tempts people") says only that "ties would be broken by index"; the tables
# below show that only first-seen reproduces its training trace.

DECK_CORPUS = {"low": 5, "lower": 2, "newest": 6, "widest": 3}

# Slide 13, "Apply merge 1": step, pair merged, pair freq, new symbol.
DECK_SIX_STEPS = [
    (("e", "s"), 9, "es"),
    (("es", "t"), 9, "est"),
    (("est", EOW), 9, "est</w>"),
    (("l", "o"), 7, "lo"),
    (("lo", "w"), 7, "low"),
    (("n", "e"), 6, "ne"),
]


def test_deck_initial_segmentation_and_first_counts():
    # Slide 13, "Initialize" and "Compute pair frequencies": (e, s) = 6 + 3 = 9, (l, o) = 5 + 2 = 7.
    steps = list(train_steps(DECK_CORPUS, 1, tie_break="first-seen"))
    assert steps[0].pair_counts[("e", "s")] == 9
    assert steps[0].pair_counts[("l", "o")] == 7
    assert max(steps[0].pair_counts.values()) == 9


def test_deck_six_step_table():
    # Slide 13's table, also printed by slide 42's "Run 6 merge steps".
    steps = list(train_steps(DECK_CORPUS, 6, tie_break="first-seen"))
    assert [(s.pair, s.count, s.token) for s in steps] == DECK_SIX_STEPS
    assert train_bpe(DECK_CORPUS, 6, tie_break="first-seen") == [p for p, _, _ in DECK_SIX_STEPS]


def test_deck_six_step_table_needs_first_seen():
    # Step 6 is a three-way tie at 6 between (n, e), (e, w) and (w, est</w>) (all from
    # "newest"). The lexicographic and concatenated rules take (e, w); reverse-lexicographic
    # departs at step 1. Only the deck's own max-over-dict code yields (n, e).
    expected = [(pair, count) for pair, count, _ in DECK_SIX_STEPS]
    reproducing = rules_reproducing(expected, lambda rule: merges_with_counts(DECK_CORPUS, 6, rule))
    assert reproducing == {"first-seen"}
    step_six = list(train_steps(DECK_CORPUS, 6, tie_break="lexicographic"))[5]
    assert step_six.count == 6
    assert set(step_six.tied) == {("n", "e"), ("e", "w"), ("w", "est</w>")}
    assert step_six.pair == ("e", "w")


# Slide 13, "Apply all learned merges to tokenize unseen word 'lowest'": after each rule.
DECK_LOWEST_REPLAY = [
    ("l", "o", "w", "es", "t", EOW),
    ("l", "o", "w", "est", EOW),
    ("l", "o", "w", "est</w>"),
    ("lo", "w", "est</w>"),
    ("low", "est</w>"),
]


def test_deck_lowest_replay_table():
    merges = train_bpe(DECK_CORPUS, 6, tie_break="first-seen")
    steps = list(Encoder(merges).steps("lowest"))
    assert [s.tokens for s in steps] == DECK_LOWEST_REPLAY
    # Rules 1-5 fire in learning order; rule 6, (n, e), has nothing to act on.
    assert [s.rank for s in steps] == [0, 1, 2, 3, 4]
    assert encode("lowest", merges) == list(DECK_LOWEST_REPLAY[-1])


def test_deck_lowest_replay_under_each_rule():
    # The first five merges agree under three rules, so the replay does too; under
    # reverse-lexicographic 'lowest' still ends as [low, est</w>] but by another path.
    reproducing = rules_reproducing(
        DECK_LOWEST_REPLAY, lambda rule: replay("lowest", train_bpe(DECK_CORPUS, 6, tie_break=rule))
    )
    assert reproducing == {"lexicographic", "concatenated", "first-seen"}
    other = replay("lowest", train_bpe(DECK_CORPUS, 6, tie_break="reverse-lexicographic"))
    assert other[-1] == DECK_LOWEST_REPLAY[-1]


# Slide 47, "Full solution" with merges = train_bpe(corpus, 10), and its tokens table.
DECK_TOKENS = {
    "lowest": ["low", "est</w>"],
    "newest": ["newest</w>"],
    "widest": ["wi", "d", "est</w>"],
    "lower": ["low", "e", "r", EOW],
}


def tokens_table(rule):
    merges = train_bpe(DECK_CORPUS, 10, tie_break=rule)
    return {word: encode(word, merges) for word in DECK_TOKENS}


def test_deck_tokens_table():
    assert tokens_table("first-seen") == DECK_TOKENS
    assert [len(tokens) for tokens in DECK_TOKENS.values()] == [2, 1, 3, 4]  # "Token count"


def test_deck_tokens_table_under_each_rule():
    # 'widest' tells the rules apart: lexicographic and concatenated merge (e, w) at step 6
    # instead of (n, e), which changes the later merges and gives [w, i, dest</w>].
    assert rules_reproducing(DECK_TOKENS, tokens_table) == {"first-seen", "reverse-lexicographic"}
    assert tokens_table("lexicographic")["widest"] == ["w", "i", "dest</w>"]


def test_deck_one_pass_per_rule_tokenize_matches_rank_encode():
    # Slide 47's tokenize() makes one find-and-replace pass per merge rule, in order.
    merges = train_bpe(DECK_CORPUS, 10, tie_break="first-seen")
    for word in DECK_TOKENS:
        tokens = list(word) + [EOW]
        for a, b in merges:
            tokens = one_pass(tokens, a, b)
        assert tokens == encode(word, merges)


def one_pass(tokens, a, b):
    out, i = [], 0
    while i < len(tokens):
        if i < len(tokens) - 1 and tokens[i] == a and tokens[i + 1] == b:
            out.append(a + b)
            i += 2
        else:
            out.append(tokens[i])
            i += 1
    return out


def longest_match(word, vocabulary):
    """Slide 16's trap: scan left to right, always taking the longest vocabulary entry."""
    text, out, i = word + EOW, [], 0
    while i < len(text):
        j = max(j for j in range(i + 1, len(text) + 1) if text[i:j] in vocabulary)
        out.append(text[i:j])
        i = j
    return out


def test_deck_longest_match_trap():
    # Slides 15-16: longest match on 'lowest' "seems correct here — but only by accident".
    # With the 10 merges of slide 47, 'nest' shows the divergence: longest match grabs ne,
    # but rule 1 (e, s) fires before rule 6 (n, e) could, so BPE gives n est</w>.
    merges = train_bpe(DECK_CORPUS, 10, tie_break="first-seen")
    vocab = {char for word in DECK_CORPUS for char in word} | {EOW} | {a + b for a, b in merges}
    assert longest_match("lowest", vocab) == encode("lowest", merges) == ["low", "est</w>"]
    assert encode("nest", merges) == ["n", "est</w>"]
    assert longest_match("nest", vocab) == ["ne", "s", "t", EOW]


CHECK_ONE = {"ab": 10, "abc": 5, "bc": 8}


@pytest.mark.parametrize("rule", TIE_BREAKS)
def test_deck_check_one_first_merge(rule):
    # Slide 36, "Check 1": (a, b) = 15, (b, </w>) = 10, (b, c) = 13, (c, </w>) = 13 -> (a, b).
    step = next(train_steps(CHECK_ONE, 1, tie_break=rule))
    assert step.pair_counts == {("a", "b"): 15, ("b", EOW): 10, ("b", "c"): 13, ("c", EOW): 13}
    assert (step.pair, step.count, step.tied) == (("a", "b"), 15, [("a", "b")])
    assert train_bpe(CHECK_ONE, 1, tie_break=rule) == [("a", "b")]


@pytest.mark.parametrize("rule", TIE_BREAKS)
def test_deck_check_one_second_merge_is_not_b_c(rule):
    # Slide 36, "Why B tempts people", says (b, c) "would be selected on the second merge".
    # It would not: merging (a, b) turns 'abc' into ab c, so (b, c) keeps only the 8 from
    # 'bc' and (c, </w>) wins alone at 13, under every rule.
    second = list(train_steps(CHECK_ONE, 2, tie_break=rule))[1]
    assert second.pair_counts[("b", "c")] == 8
    assert (second.pair, second.count) == (("c", EOW), 13)


# ---------------------------------------------------------------------------------------------
# 003, the explainer episode "Byte-Pair Encoding Explained (Ep.01.00)", section 3.1. Its code
# takes max(pairs, key=pairs.get) over a defaultdict filled by a scan: the first-seen rule.

EPISODE_CORPUS = {"low": 5, "lower": 2, "lowest": 4, "newer": 6, "wider": 3, "new": 2}

EPISODE_MERGES = [
    (("w", "e"), 12),
    (("l", "o"), 11),
    (("r", EOW), 11),
    (("we", "r</w>"), 8),
    (("n", "e"), 8),
    (("w", EOW), 7),
    (("ne", "wer</w>"), 6),
    (("lo", "w</w>"), 5),
    (("lo", "we"), 4),
    (("lowe", "s"), 4),
]

EPISODE_ENCODINGS = {
    "lowering": ["lowe", "r", "i", "n", "g", EOW],
    "newest": ["ne", "we", "s", "t", EOW],
    "wow": ["w", "o", "w</w>"],
}


def test_episode_ten_merges_with_frequencies():
    assert merges_with_counts(EPISODE_CORPUS, 10, "first-seen") == EPISODE_MERGES


def test_episode_first_merge_count():
    # The text says (w, e) wins because "wer" and "we" recur across "lower", "lowest",
    # "newer", "wider" — but 'wider' has no (w, e): the 12 is lower 2 + lowest 4 + newer 6.
    step = next(train_steps(EPISODE_CORPUS, 1, tie_break="first-seen"))
    assert step.pair_counts[("w", "e")] == 2 + 4 + 6
    assert ("w", "e") not in count_pairs({tuple("wider") + (EOW,): 3})


def test_episode_trace_needs_first_seen():
    # Merges 4 and 5 tie at 8: (we, r</w>) is met first (in 'lower'), (n, e) later (in
    # 'newer'). Lexicographic and concatenated put (n, e) first; reverse-lexicographic puts
    # (r, </w>) before (l, o) at the 11-11 tie of merges 2 and 3.
    reproducing = rules_reproducing(
        EPISODE_MERGES, lambda rule: merges_with_counts(EPISODE_CORPUS, 10, rule)
    )
    assert reproducing == {"first-seen"}
    lexicographic = merges_with_counts(EPISODE_CORPUS, 10, "lexicographic")
    assert lexicographic[3:5] == [(("n", "e"), 8), (("we", "r</w>"), 8)]


def test_episode_three_encodings():
    merges = [pair for pair, _ in EPISODE_MERGES]
    assert {word: encode(word, merges) for word in EPISODE_ENCODINGS} == EPISODE_ENCODINGS


def test_episode_encodings_match_its_one_pass_per_rule_encode():
    # The episode's encode() makes one pass per merge rule in order; the reference encodes by
    # rank. On these merges both give the same tokens.
    merges = [pair for pair, _ in EPISODE_MERGES]
    for word, expected in EPISODE_ENCODINGS.items():
        tokens = list(word) + [EOW]
        for a, b in merges:
            tokens = one_pass(tokens, a, b)
        assert tokens == expected


def test_episode_encodings_under_each_rule():
    # The order of merges 4/5 does not matter for these three words, so three rules agree;
    # reverse-lexicographic learns (we, s) instead of (lo, we) and encodes differently.
    def encodings(rule):
        merges = train_bpe(EPISODE_CORPUS, 10, tie_break=rule)
        return {word: encode(word, merges) for word in EPISODE_ENCODINGS}

    assert rules_reproducing(EPISODE_ENCODINGS, encodings) == {
        "lexicographic",
        "concatenated",
        "first-seen",
    }


# ---------------------------------------------------------------------------------------------
# 004, the hand exercises "Exercises — Byte-Pair Encoding (BPE)". Their rule: "break the tie
# alphabetically on the pair's written form", comparing "concatenated strings": concatenated.

CAT_CAP = ["cat cat cat cat cap cap cap cap"]


def test_hand_cat_cap_first_merge_uncontested():
    # "Count all pairs": (c,a) = 4+4 = 8, the other four pairs 4 each.
    step = next(train_steps(CAT_CAP, 1, tie_break="concatenated"))
    assert step.pair_counts == {("c", "a"): 8, ("a", "t"): 4, ("t", EOW): 4, ("a", "p"): 4, ("p", EOW): 4}
    assert (step.pair, step.tied) == (("c", "a"), [("c", "a")])


def test_hand_cat_cap_four_way_tie_goes_to_cap():
    # "Everything ties at 4 ... cap before cat before p</w> before t</w>. So merge (ca,p)".
    second = list(train_steps(CAT_CAP, 2, tie_break="concatenated"))[1]
    assert second.count == 4
    assert second.tied == [("ca", "p"), ("ca", "t"), ("p", EOW), ("t", EOW)]
    assert second.pair == ("ca", "p")
    assert train_bpe(CAT_CAP, 2, tie_break="concatenated") == [("c", "a"), ("ca", "p")]


def test_hand_cat_cap_rule_two_under_each_rule():
    # Lexicographic agrees here ((ca, p) < (ca, t) as tuples); first-seen meets (ca, t) first
    # in 'cat'; reverse-lexicographic takes the largest, (t, </w>).
    def rule_two(rule):
        return train_bpe(CAT_CAP, 2, tie_break=rule)[1]

    assert rules_reproducing(("ca", "p"), rule_two) == {"concatenated", "lexicographic"}
    assert rule_two("first-seen") == ("ca", "t")
    assert rule_two("reverse-lexicographic") == ("t", EOW)


def test_hand_cat_cap_concatenated_differs_from_lexicographic_at_merge_three():
    # With four merges the two alphabetical readings part: 'cap</w>' < 'cat' as strings,
    # but ('ca', 't') < ('cap', '</w>') as tuples, since 'ca' is a prefix of 'cap'.
    assert train_bpe(CAT_CAP, 4, tie_break="concatenated")[2] == ("cap", EOW)
    assert train_bpe(CAT_CAP, 4, tie_break="lexicographic")[2] == ("ca", "t")


def test_hand_caps():
    # "Output tokens: [cap, s, </w>]", with rules 1 and 2 and with all four merges.
    two = train_bpe(CAT_CAP, 2, tie_break="concatenated")
    assert [s.tokens for s in Encoder(two).steps("caps")] == [("ca", "p", "s", EOW), ("cap", "s", EOW)]
    assert encode("caps", train_bpe(CAT_CAP, 4, tie_break="concatenated")) == ["cap", "s", EOW]


LOW_LOWER = {"low": 6, "lower": 3}


def test_hand_low_lower():
    # "(l,o)=6+3=9 ... (o,w)=6+3=9 (tie!) — break alphabetically: lo < ow", then (lo,w)=9.
    steps = list(train_steps(LOW_LOWER, 2, tie_break="concatenated"))
    assert steps[0].tied == [("l", "o"), ("o", "w")]
    assert [(s.pair, s.count) for s in steps] == [(("l", "o"), 9), (("lo", "w"), 9)]
    assert steps[1].tied == [("lo", "w")]
    assert steps[0].pair_counts[("w", EOW)] == 6
    assert train_bpe(LOW_LOWER, 2, tie_break="concatenated") == [("l", "o"), ("lo", "w")]


def test_hand_low_lower_under_each_rule():
    reproducing = rules_reproducing(
        [("l", "o"), ("lo", "w")], lambda rule: train_bpe(LOW_LOWER, 2, tie_break=rule)
    )
    assert reproducing == {"concatenated", "lexicographic", "first-seen"}


def test_hand_slow():
    # "Output: [s, low, </w>]".
    merges = train_bpe(LOW_LOWER, 2, tie_break="concatenated")
    assert replay("slow", merges) == [("s", "lo", "w", EOW), ("s", "low", EOW)]
    assert encode("slow", merges) == ["s", "low", EOW]


AB_ABC = {"ab": 3, "abc": 2}
AB_ABC_RULES = [("a", "b"), ("ab", EOW), ("ab", "c"), ("abc", EOW)]


def vocabulary(corpus, merges):
    """Base symbols (characters and the marker) plus one token per merge."""
    base = {char for word in corpus for char in word} | {EOW}
    return base | {a + b for a, b in merges}


def test_hand_ab_abc_vocabulary_of_eight():
    # "Merge rules in order: a b → ab, ab </w> → ab</w>, ab c → abc, abc </w> → abc</w>",
    # counts 5, 3, then the tie (ab,c) = (c,</w>) = 2 -> "abc < c</w>", then 2.
    steps = list(train_steps(AB_ABC, 4, tie_break="concatenated"))
    assert [(s.pair, s.count) for s in steps] == list(zip(AB_ABC_RULES, [5, 3, 2, 2]))
    assert steps[2].tied == [("ab", "c"), ("c", EOW)]
    merges = train_bpe(AB_ABC, 4, tie_break="concatenated")
    assert vocabulary(AB_ABC, merges) == {"a", "b", "c", EOW, "ab", "ab</w>", "abc", "abc</w>"}
    assert len(vocabulary(AB_ABC, merges)) == 8


def test_hand_ab_abc_stops_when_pairs_run_out():
    # After four merges every word is one symbol, so asking for more changes nothing.
    assert train_bpe(AB_ABC, 10, tie_break="concatenated") == AB_ABC_RULES


def test_hand_ab_abc_under_each_rule():
    reproducing = rules_reproducing(AB_ABC_RULES, lambda rule: train_bpe(AB_ABC, 4, tie_break=rule))
    assert reproducing == {"concatenated", "lexicographic", "first-seen"}


def test_hand_sliding_window_pairs():
    # "(n,e),(e,w),(w,es),(es,t),(t,</w>). Five pairs" on n e w es t </w>.
    pairs = count_pairs({("n", "e", "w", "es", "t", EOW): 1})
    assert list(pairs) == [("n", "e"), ("e", "w"), ("w", "es"), ("es", "t"), ("t", EOW)]


def test_hand_empty_string_and_single_letter():
    # "Empty string ... Output: [</w>]"; "a": [a, </w>], or [a</w>] once a rule a </w> exists.
    assert encode("", []) == [EOW]
    assert encode("a", []) == ["a", EOW]
    assert encode("a", [("a", EOW)]) == ["a</w>"]


HUGS_RULES = [("u", "g"), ("ug", EOW), ("b", "ug</w>"), ("p", "ug</w>")]


def test_hand_hugs_and_bugs_with_the_given_rules():
    # "Output: [h, ug, s, </w>]" and "[b, ug, s, </w>]": the s keeps ug away from </w>.
    assert encode("hugs", HUGS_RULES) == ["h", "ug", "s", EOW]
    assert encode("bugs", HUGS_RULES) == ["b", "ug", "s", EOW]
    assert replay("hugs", HUGS_RULES) == [("h", "ug", "s", EOW)]


# The hugs/bugs paragraph contradicts itself. It says every word ends in u g </w>, so
# (u, g) and (g, </w>) tie at "1+2+2=5"; that the tie-break is "alphabetical", under which
# "g < u, so g</w> would sound like it wins"; that comparing the joined strings "ug < g</w> is
# false" (so g</w> wins there too); and yet that "the parent chose (u,g) ... the parent's
# convention picks ug". Both alphabetical rules (lexicographic, concatenated) pick (g, </w>).
# The rule that picks ug is the lessons' own code, max over a dict in scan order: first-seen.
# With hug 1, bug 2, pug 2 in that order, first-seen trains exactly the four given rules.
HUGS_CORPUS = {"hug": 1, "bug": 2, "pug": 2}


def test_hand_hugs_corpus_trains_the_given_rules_under_first_seen():
    steps = list(train_steps(HUGS_CORPUS, 4, tie_break="first-seen"))
    assert [s.pair for s in steps] == HUGS_RULES
    assert steps[0].count == 1 + 2 + 2
    assert steps[0].pair_counts[("u", "g")] == steps[0].pair_counts[("g", EOW)] == 5
    assert steps[0].tied == [("u", "g"), ("g", EOW)]
    assert steps[2].tied == [("b", "ug</w>"), ("p", "ug</w>")]  # bug comes before pug
    merges = train_bpe(HUGS_CORPUS, 4, tie_break="first-seen")
    assert encode("hugs", merges) == ["h", "ug", "s", EOW]
    assert encode("bugs", merges) == ["b", "ug", "s", EOW]


def test_hand_hugs_alphabetical_rules_pick_g_end_of_word():
    for rule in ("lexicographic", "concatenated"):
        steps = list(train_steps(HUGS_CORPUS, 2, tie_break=rule))
        assert [(s.pair, s.count) for s in steps] == [(("g", EOW), 5), (("u", "g</w>"), 5)]
        # Without a (u, g) rule, 'hugs' keeps u and g apart.
        assert encode("hugs", train_bpe(HUGS_CORPUS, 4, tie_break=rule)) == ["h", "u", "g", "s", EOW]
    # Reverse-lexicographic picks ug too, but then (p, ug</w>) before (b, ug</w>).
    assert rules_reproducing(HUGS_RULES, lambda rule: train_bpe(HUGS_CORPUS, 4, tie_break=rule)) == {
        "first-seen"
    }
