"""A TinyStories-like text drawn from a seed: the timed corpus of the byte-level efficiency check.

CS336 times its trainers on TinyStories-style text: short children's stories separated by
``<|endoftext|>``. The corpus here is the same kind of text, drawn afresh from a seed (the
spec's seed mixed with the course's secret), so no trainer can carry its merges in a table:
stories of five to twelve sentences from templates ("Once upon a time, there was a little
dog named Mia."), dialogue in curly quotes, paragraphs on new lines, numbers, contractions,
and a lexicon whose rarer words (names, things, places) are built from syllables per seed,
so that the text has about as many distinct pre-tokens as CS336's ``corpus.en`` at the same
size; words are drawn with Zipf-like frequencies. Everything comes from
``random.Random(seed).random()`` alone (no ``choices`` or ``shuffle``, whose algorithms have
changed between Python versions), so one seed gives one text on every supported Python.
"""

from __future__ import annotations

import functools
import random

NAMES = ("Ben", "Lily", "Tom", "Mia", "Max", "Sue", "Tim", "Anna", "Sam", "Lucy", "Jack", "Ellie")
ANIMALS = ("dog", "cat", "bird", "bunny", "bear", "fox", "duck", "frog", "mouse", "lion", "fish",
           "owl", "puppy", "kitten", "turtle", "horse")
THINGS = ("ball", "toy", "box", "kite", "hat", "book", "cake", "tree", "flower", "car", "boat",
          "shell", "rock", "apple", "cookie", "drum", "balloon", "blanket", "crayon", "stick")
PLACES = ("park", "forest", "garden", "house", "river", "beach", "school", "store", "hill",
          "pond", "farm", "kitchen", "sky", "town")
ADJECTIVES = ("little", "big", "happy", "sad", "red", "blue", "shiny", "soft", "tiny", "brave",
              "kind", "funny", "green", "old", "new", "pretty", "loud", "quiet", "silly", "warm")
VERBS = (("play", "played"), ("jump", "jumped"), ("look", "looked"), ("help", "helped"),
         ("find", "found"), ("run", "ran"), ("see", "saw"), ("share", "shared"), ("make", "made"),
         ("climb", "climbed"), ("draw", "drew"), ("sing", "sang"), ("hug", "hugged"),
         ("walk", "walked"), ("eat", "ate"), ("open", "opened"), ("fix", "fixed"), ("hide", "hid"))
FEELINGS = ("happy", "sad", "scared", "excited", "proud", "sorry", "tired", "surprised")
SAYINGS = ("Wow, look at that!", "Can I play too?", "Let's go!", "I'm sorry.", "Thank you!",
           "Don't be scared.", "We can do it!", "What is that?", "I love it!", "Be careful!")
ONSETS = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "sh", "ch", "br",
          "tr", "pl", "gl")
VOWELS = ("a", "e", "i", "o", "u", "oo", "ee", "ai", "ou")
CODAS = ("", "", "n", "r", "l", "t", "m", "sk", "nd", "p")
COINED = {"names": 1500, "things": 3000, "places": 800, "adjectives": 1000}
"""How many words of each kind the seed coins (the rare end of the lexicon)."""
ZIPF = 1.0
COMMON = 60
"""How many of a kind's words the Zipf-like draw ranks; the rest come only from even draws."""
RARE_SHARE = 0.75


def _pick(rng: random.Random, items: tuple) -> str:
    return items[int(rng.random() * len(items))]


def _zipf_pick(rng: random.Random, items: list[str]) -> str:
    """An item of ``items``: half the time a common one by Zipf-like rank (the first often,
    later ones less), else any one alike, so rare words are many and each is rare."""
    if rng.random() < RARE_SHARE:
        return items[int(rng.random() * len(items))]
    weights = _zipf_weights(min(len(items), COMMON))
    roll = rng.random() * weights[-1]
    low, high = 0, len(weights) - 1
    while low < high:
        middle = (low + high) // 2
        if weights[middle] < roll:
            low = middle + 1
        else:
            high = middle
    return items[low]


@functools.lru_cache(maxsize=8)
def _zipf_weights(size: int) -> tuple[float, ...]:
    """Cumulative weights ``1 / rank ** ZIPF``."""
    total, cumulative = 0.0, []
    for rank in range(1, size + 1):
        total += rank ** -ZIPF
        cumulative.append(total)
    return tuple(cumulative)


def _coined(rng: random.Random, syllables: int) -> str:
    return "".join(_pick(rng, ONSETS) + _pick(rng, VOWELS) for _ in range(syllables)) + _pick(rng, CODAS)


def lexicon(rng: random.Random) -> dict[str, list[str]]:
    """Names, things and places: the common English ones first, then coined ones."""
    words: dict[str, list[str]] = {}
    for kind, common in (("names", NAMES), ("things", ANIMALS + THINGS), ("places", PLACES),
                         ("adjectives", ADJECTIVES)):
        coined: dict[str, None] = {}
        while len(coined) < COINED[kind]:
            word = _coined(rng, 1 + int(rng.random() * 3))
            coined.setdefault(word.capitalize() if kind == "names" else word, None)
        words[kind] = list(common) + list(coined)
    return words


def _sentence(rng: random.Random, words: dict[str, list[str]], hero: str, friend: str) -> str:
    """One sentence of a story about ``hero`` and ``friend``."""
    thing = _zipf_pick(rng, words["things"])
    place = _zipf_pick(rng, words["places"])
    adjective = _zipf_pick(rng, words["adjectives"])
    verb, past = VERBS[int(rng.random() * len(VERBS))]
    number = 2 + int(rng.random() * 20)
    templates = (
        f"{hero} {past} the {adjective} {thing} in the {place}.",
        f"One day, {hero} went to the {place} with {friend}.",
        f"{hero} and {friend} wanted to {verb} with the {thing}.",
        f"\u201c{_pick(rng, SAYINGS)}\u201d said {hero}.",
        f"{friend} felt {_pick(rng, FEELINGS)} because the {thing} was {adjective}.",
        f"{_zipf_pick(rng, words['names'])} gave {hero} a {adjective} {thing} from the {place}.",
        f"They saw {number} {thing}s and a {_zipf_pick(rng, words['things'])} near the {place}.",
        f"{hero} didn't know what to do, so {hero} asked {friend} for help.",
        f"The {thing} was so {adjective} that {friend} couldn't stop smiling.",
        f"\u201cLet's {verb} the {thing}!\u201d {friend} said, and {hero} said, \u201cYes!\u201d",
        f"At the {place}, they found a {adjective} {_zipf_pick(rng, words['things'])}.",
    )
    return templates[int(rng.random() * len(templates))]


def story(rng: random.Random, words: dict[str, list[str]]) -> str:
    """One story: an opening, five to twelve sentences in paragraphs, an ending."""
    hero = _zipf_pick(rng, words["names"])
    friend = _zipf_pick(rng, words["names"])
    creature = _zipf_pick(rng, words["things"])
    lines = [f"Once upon a time, there was a {_zipf_pick(rng, words['adjectives'])} {creature} "
             f"named {hero}."]
    for _ in range(5 + int(rng.random() * 8)):
        if rng.random() < 0.4:  # someone new joins the story
            friend = _zipf_pick(rng, words["names"])
        sentence = _sentence(rng, words, hero, friend)
        if rng.random() < 0.3:
            lines.append(sentence)
        else:
            lines[-1] += " " + sentence
    lines.append(f"From that day on, {hero} and {friend} were best friends.")
    return "\n".join(lines)


@functools.lru_cache(maxsize=4)
def generate(seed: int, characters: int, separator: str) -> str:
    """Stories joined by ``separator`` on lines of its own, until the text has at least
    ``characters`` characters."""
    rng = random.Random(seed)
    words = lexicon(rng)
    stories: list[str] = []
    size = 0
    joint = f"\n{separator}\n" if separator else "\n\n"
    while size < characters:
        stories.append(story(rng, words))
        size += len(stories[-1]) + len(joint)
    return joint.join(stories)
