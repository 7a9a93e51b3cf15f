"""The lesson deck's vocabulary-size table (slide 24, refilled on slide 25), against the reference.

The deck (shared/seeds/000_…, "24. Vocab size: the sequence-length / parameter-count
tradeoff") gives, at d = 768, five rows of vocabulary type, average tokens for a 10k-word
document, and embedding parameters. What follows from the numbers the slide states is
checked with ``reference.vocab_tradeoff``; the reference is not bent to the slide:

- every "Embed params" cell is ``size * d_model`` with the table counted once (tied), and
  reproduces;
- the word-level token cell (10 000 for a 10k-word document) reproduces: with every word a
  token of its own, a document has as many tokens as words;
- the other four token cells (42 000, 18 000, 12 000, 10 500) are measurements on a real
  corpus the deck does not give, so they do not follow from stated numbers; what can be
  checked is that they fall as the vocabulary grows, as the reference's averages must, and
  that the deck's other slides quote them consistently;
- no cell of the table is a slip. The one loose sentence is "this table appears twice (input
  embedding + output projection are often tied)": the column counts the tied table once,
  and counting it twice is the catalogued mistake ``tradeoff-params-doubled``.
"""

from __future__ import annotations

import pytest

from grader.families.bpe.tradeoff_mistakes import MISTAKES
from reference.vocab_tradeoff import base_vocabulary_size, vocab_tradeoff

D_MODEL = 768
# slide 24 (and slide 25's refill): vocab type, size, avg tokens for a 10k-word doc, params
SLIDE_24 = [
    ("char (~100)", 100, 42_000, 76_800),
    ("BPE 1k", 1_000, 18_000, 768_000),
    ("BPE 32k", 32_000, 12_000, 24_576_000),
    ("BPE 100k", 100_000, 10_500, 76_800_000),
    ("word (300k+)", 300_000, 10_000, 230_400_000),
]
WORDS = ["low", "lower", "newest", "widest"]
TEN_THOUSAND_WORDS = " ".join(WORDS[index % len(WORDS)] for index in range(10_000))


@pytest.mark.parametrize("label, size, tokens, params", SLIDE_24, ids=[row[0] for row in SLIDE_24])
def test_every_embedding_cell_reproduces(label, size, tokens, params):
    (row,) = vocab_tradeoff(["low lower"], [size], D_MODEL)
    assert row["params"] == params == size * D_MODEL


def test_the_column_counts_the_tied_table_once_not_twice():
    doubled = next(m for m in MISTAKES if m.id == "tradeoff-params-doubled")
    sizes = [size for _, size, _, _ in SLIDE_24]
    deck = [params for _, _, _, params in SLIDE_24]
    assert [row["params"] for row in vocab_tradeoff(["a b"], sizes, D_MODEL)] == deck
    assert [row["params"] for row in doubled.run(["a b"], sizes, D_MODEL)] != deck


def test_the_word_level_token_cell_reproduces():
    """A vocabulary holding every word of the document makes each word one token: a 10k-word
    document is 10 000 tokens, the slide's word row."""
    whole_words = base_vocabulary_size([TEN_THOUSAND_WORDS]) + 100
    (row,) = vocab_tradeoff([TEN_THOUSAND_WORDS], [whole_words], D_MODEL, tie_break="first-seen")
    assert row["avg_tokens"] == 10_000 == SLIDE_24[-1][2]


def test_the_measured_token_cells_do_not_follow_from_stated_numbers():
    """Character level is each word's letters plus its marker, so 42 000 tokens for 10 000
    words needs 3.2 letters a word, a length the slide never states; our 10k-word document
    of the deck's words (5 letters on average) gives 60 000. The BPE rows depend on the
    corpus the same way."""
    (char_level,) = vocab_tradeoff([TEN_THOUSAND_WORDS], [0], D_MODEL)
    letters = sum(len(word) for word in WORDS) / len(WORDS)
    assert char_level["avg_tokens"] == 10_000 * (letters + 1) == 60_000 != SLIDE_24[0][2]
    assert SLIDE_24[0][2] / 10_000 - 1 == pytest.approx(3.2)


def test_the_token_column_falls_as_the_vocabulary_grows_as_the_reference_does():
    tokens = [tokens for _, _, tokens, _ in SLIDE_24]
    assert tokens == sorted(tokens, reverse=True)
    base = base_vocabulary_size([TEN_THOUSAND_WORDS])
    rows = vocab_tradeoff([TEN_THOUSAND_WORDS], list(range(base - 1, base + 25)), D_MODEL,
                          tie_break="first-seen")
    averages = [row["avg_tokens"] for row in rows]
    assert averages == sorted(averages, reverse=True) and averages[0] > averages[-1]


def test_the_decks_other_slides_quote_the_table_consistently():
    tokens = {label: count for label, _, count, _ in SLIDE_24}
    params = {label: count for label, _, _, count in SLIDE_24}
    word, bpe, char = tokens["word (300k+)"], tokens["BPE 32k"], tokens["char (~100)"]
    # slide 7: relative attention cost, the square of the length ratio
    assert (bpe / word) ** 2 == pytest.approx(1.44)
    assert round((char / word) ** 2, 1) == 17.6
    # check 3's "Why": 300k/32k ~ 9.4x, 320x fewer parameters for 3.5x longer sequences,
    # character level 4.2x longer than word level, 76.8M above 24.6M, word level 3x BPE 100k
    assert round(300_000 / 32_000, 1) == 9.4
    assert params["BPE 32k"] / params["char (~100)"] == 320 and char / bpe == 3.5
    assert char / word == 4.2
    assert round(params["BPE 100k"] / 1e6, 1) == 76.8 > round(params["BPE 32k"] / 1e6, 1) == 24.6
    assert params["word (300k+)"] == 3 * params["BPE 100k"]
    # slide 24's sweet spot: GPT-2 50k, BERT 30k, LLaMA 32k keep the table at 20-40M (d = 768)
    assert all(20e6 <= size * D_MODEL <= 40e6 for size in (50_000, 30_000, 32_000))
