r"""The reference reproduces a published trainer's own fixture: subword-nmt's ``bpe.ref``.

subword-nmt's ``learn_bpe`` learned those 1,000 merges from ``corpus.en`` with the end-of-word
marker fused onto each word's last character (``e</w>``), ties going to the greatest pair
(``max(stats, key=lambda x: (stats[x], x))``) and a minimum pair frequency of 2. Words are
split on single spaces, as it splits them.

``corpus.en`` has no tabs. On text whose words contain tabs (``corpus6m.txt``), subword-nmt
departs from the definition: it rewrites a word by a regex over its space-joined symbols,
``(?<!\S)a b(?!\S)``, which takes a tab inside a symbol for a boundary, so merging
``('\t\t', '\t')`` turns the symbols ``\t\t \t\t`` into ``\t\t\t\t``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reference import fast, plain

FIXTURES = Path(__file__).parents[1] / "fixtures" / "subword-nmt"
CORPUS = FIXTURES / "corpus.en"
MERGES = FIXTURES / "bpe.ref"

SUBWORD_NMT_OPTIONS = {
    "tie_break": "reverse-lexicographic",
    "end_of_word": "</w>",
    "fuse_end_of_word": True,
    "min_count": 2,
}

# plain needs about a minute for all 1,000 merges; it is checked on a prefix.
PLAIN_MERGES = 100

def subword_nmt_vocabulary(path: Path) -> dict[str, int]:
    """Word counts in order of first appearance, split as ``learn_bpe.get_vocabulary`` does."""
    counts: dict[str, int] = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            for word in line.strip("\r\n ").split(" "):
                if word:
                    counts[word] = counts.get(word, 0) + 1
    return counts


def read_codes(path: Path) -> tuple[str, list[tuple[str, str]]]:
    """The header line and the merges ``a b`` of a subword-nmt codes file."""
    header, *lines = path.read_text(encoding="utf-8").splitlines()
    merges = []
    for number, line in enumerate(lines, start=2):
        parts = line.split(" ")
        assert len(parts) == 2, f"{path}:{number}: not a merge 'a b': {line!r}"
        merges.append((parts[0], parts[1]))
    return header, merges


@pytest.fixture(scope="module")
def vocabulary() -> dict[str, int]:
    return subword_nmt_vocabulary(CORPUS)


@pytest.fixture(scope="module")
def expected() -> list[tuple[str, str]]:
    header, merges = read_codes(MERGES)
    assert header == "#version: 0.2"
    return merges


def test_the_fixture_fuses_the_marker_onto_the_last_character(expected):
    assert len(expected) == 1000
    assert ("th", "e</w>") in expected
    assert all(part != "</w>" for pair in expected for part in pair)


def test_fast_reproduces_bpe_ref_merge_for_merge(vocabulary, expected):
    learned = fast.train_bpe(vocabulary, len(expected), **SUBWORD_NMT_OPTIONS)
    first_difference = next(
        (i for i, (ours, theirs) in enumerate(zip(learned, expected)) if ours != theirs), None
    )
    assert first_difference is None, (
        f"merge {first_difference + 1}: {learned[first_difference]} != {expected[first_difference]}"
    )
    assert learned == expected


def test_plain_reproduces_the_start_of_bpe_ref(vocabulary, expected):
    learned = plain.train_bpe(vocabulary, PLAIN_MERGES, **SUBWORD_NMT_OPTIONS)
    assert learned == expected[:PLAIN_MERGES]


def test_min_count_two_stops_training_where_pairs_become_rare(vocabulary, expected):
    # Asking for many more merges than the fixture holds: training runs until the best pair
    # is seen only once, and the first 1,000 merges are still subword-nmt's.
    learned = list(fast.iter_merges(vocabulary, 100_000, **SUBWORD_NMT_OPTIONS))
    assert [pair for pair, _count in learned[: len(expected)]] == expected
    assert all(count >= 2 for _pair, count in learned)
    without_minimum = dict(SUBWORD_NMT_OPTIONS, min_count=1)
    assert len(fast.train_bpe(vocabulary, len(learned) + 1, **without_minimum)) == len(learned) + 1
