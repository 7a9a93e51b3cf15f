"""The generated efficiency corpus: exact sizes, Zipf shape, plausible words, reproducibility."""

import hashlib
import json
import math
import random
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.families.bpe import zipf_corpus
from grader.families.bpe.zipf_corpus import CorpusSettingsError, ZipfSpec

SPEC = ZipfSpec(distinct_words=400, total_words=20_000, zipf_exponent=1.1, seed=97)


def test_word_counts_have_the_requested_sizes():
    counts = zipf_corpus.word_counts(SPEC)
    assert len(counts) == SPEC.distinct_words
    assert sum(counts.values()) == SPEC.total_words
    assert min(counts.values()) >= 1


def test_texts_hold_exactly_the_same_words():
    counts = zipf_corpus.word_counts(SPEC)
    seen: dict[str, int] = {}
    for line in zipf_corpus.texts(SPEC):
        assert len(line.split()) <= zipf_corpus.WORDS_PER_LINE
        for word in line.split():
            seen[word] = seen.get(word, 0) + 1
    assert seen == counts


def test_counts_follow_zipf_and_frequent_words_are_short():
    counts = list(zipf_corpus.word_counts(SPEC).values())
    assert counts == sorted(counts, reverse=True)
    # count(rank 1) / count(rank 10) is about 10 ** exponent
    assert counts[0] / counts[9] == pytest.approx(10 ** SPEC.zipf_exponent, rel=0.05)
    words = list(zipf_corpus.word_counts(SPEC))
    assert [len(w) for w in words] == sorted(len(w) for w in words)


def test_words_are_pronounceable_and_of_plausible_length():
    words = list(zipf_corpus.word_counts(SPEC))
    alphabet = set(zipf_corpus.ONSETS + zipf_corpus.VOWELS + zipf_corpus.CODAS)
    assert all(set(word) <= alphabet for word in words)
    lengths = [len(word) for word in words]
    assert min(lengths) >= 2 and max(lengths) <= 9
    assert 4 <= sum(lengths) / len(lengths) <= 7


@given(
    distinct=st.integers(min_value=1, max_value=60),
    extra=st.integers(min_value=0, max_value=500),
    exponent=st.floats(min_value=0.3, max_value=2.5),
)
def test_zipf_counts_are_exact_and_never_zero(distinct, extra, exponent):
    counts = zipf_corpus.zipf_counts(distinct, distinct + extra, exponent)
    assert len(counts) == distinct
    assert sum(counts) == distinct + extra
    assert min(counts) >= 1
    assert counts == sorted(counts, reverse=True)


def test_one_seed_one_corpus_and_other_seeds_differ():
    again = ZipfSpec(SPEC.distinct_words, SPEC.total_words, SPEC.zipf_exponent, SPEC.seed)
    zipf_corpus._generate.cache_clear()
    assert zipf_corpus.texts(again) == zipf_corpus.texts(SPEC)
    other = ZipfSpec(SPEC.distinct_words, SPEC.total_words, SPEC.zipf_exponent, SPEC.seed + 1)
    assert zipf_corpus.texts(other) != zipf_corpus.texts(SPEC)


def test_a_fresh_interpreter_generates_the_same_corpus():
    """Nothing depends on hash randomization or process state, only on the seed."""
    script = (
        "import hashlib, json; from grader.families.bpe.zipf_corpus import ZipfSpec, texts; "
        f"print(hashlib.sha256(json.dumps(texts(ZipfSpec({SPEC.distinct_words}, "
        f"{SPEC.total_words}, {SPEC.zipf_exponent}, {SPEC.seed}))).encode()).hexdigest())"
    )
    here = hashlib.sha256(json.dumps(zipf_corpus.texts(SPEC)).encode()).hexdigest()
    there = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True,
        env={"PYTHONHASHSEED": "12345"},
    ).stdout.strip()
    assert there == here


def test_only_random_is_drawn_from_the_generator():
    """random() is the one method whose output is promised stable across Python versions."""

    class OnlyRandom(random.Random):
        def __getattribute__(self, name):
            if name in ("choices", "choice", "shuffle", "randrange", "randint", "sample",
                        "getrandbits", "_randbelow"):
                raise AssertionError(f"the generator used {name}()")
            return super().__getattribute__(name)

    rng = OnlyRandom(1)
    words = zipf_corpus.vocabulary(50, rng)
    assert len(set(words)) == 50
    assert len(zipf_corpus._shuffled(words, rng)) == 50


def test_generate_returns_the_exercise_corpus_form():
    assert zipf_corpus.generate(SPEC, "texts") == zipf_corpus.texts(SPEC)
    assert zipf_corpus.generate(SPEC, "word-counts") == zipf_corpus.word_counts(SPEC)
    with pytest.raises(CorpusSettingsError, match="unknown corpus form"):
        zipf_corpus.generate(SPEC, "bytes")


def test_impossible_settings_get_a_clear_error():
    with pytest.raises(CorpusSettingsError, match="total_words .* must be at least distinct_words"):
        zipf_corpus.texts(ZipfSpec(distinct_words=10, total_words=5, zipf_exponent=1.0, seed=1))


def test_asking_for_more_words_than_can_be_spelled_stops_with_an_error(monkeypatch):
    monkeypatch.setattr(zipf_corpus, "SYLLABLE_WEIGHTS", (1.0,))  # one syllable per word
    spellable = len(zipf_corpus.ONSETS) * len(zipf_corpus.VOWELS) * (len(zipf_corpus.CODAS) + 1)
    assert len(zipf_corpus.vocabulary(spellable // 2, random.Random(0))) == spellable // 2
    with pytest.raises(CorpusSettingsError, match="could not make"):
        zipf_corpus.vocabulary(spellable + 1, random.Random(0))


def test_zipf_weights_shape_counts_as_promised():
    counts = zipf_corpus.zipf_counts(1000, 300_000, 1.1)
    harmonic = math.fsum(r ** -1.1 for r in range(1, 1001))
    expected_top = 1 + (300_000 - 1000) / harmonic
    assert abs(counts[0] - expected_top) <= 1
