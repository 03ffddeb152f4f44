"""The nearest-word search scores only the words that can reach its cut-off (issue 19).

``within_reach`` drops vocabulary words whose length alone keeps them below
the similarity; the search must still pick exactly the word that scoring the
whole vocabulary would pick, for every length.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein

from app.matching.fragments import CLOSE_SIMILARITY
from app.matching.literals import within_reach
from app.service.kb import prepare_valid_kb

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def vocabulary() -> tuple[str, ...]:
    return prepare_valid_kb(REPO / "kb", self_tests=False).index.error_words


def _typos(words: tuple[str, ...], count: int) -> list[str]:
    """Words with one letter dropped, doubled, swapped or changed: what people retype."""
    rng = random.Random(19)
    typos = []
    for word in rng.sample(words, count):
        at = rng.randrange(len(word))
        edits = [
            word[:at] + word[at + 1 :],
            word[:at] + word[at] + word[at:],
            word[:at] + rng.choice("aeiouxyz") + word[at + 1 :],
            word[:at] + word[at + 1 : at + 2] + word[at : at + 1] + word[at + 2 :],
        ]
        typos += [edit for edit in edits if len(edit) >= 4]
    return typos


def test_the_nearest_word_is_the_same_as_scoring_every_word(vocabulary: tuple[str, ...]) -> None:
    reach = within_reach(vocabulary, CLOSE_SIMILARITY)
    queries = [*_typos(vocabulary, 300), "configration", "devce", "tensros", "zzzzzzzz"]
    differing = []
    for word in queries:
        args = {"scorer": Levenshtein.normalized_similarity, "score_cutoff": CLOSE_SIMILARITY}
        whole = process.extractOne(word, vocabulary, **args)
        near = process.extractOne(word, reach.get(len(word), vocabulary), **args)
        if (whole and whole[:2]) != (near and near[:2]):
            differing.append((word, whole, near))
    assert differing == []
    assert sum(len(words) for words in reach.values()) < len(reach) * len(vocabulary) / 3


def test_every_length_keeps_the_words_a_length_away_and_drops_the_far_ones() -> None:
    words = ("abcd", "abcde", "abcdefghij", "abcdefghijklmnopqrstu")
    reach = within_reach(words, 0.8)
    assert reach[5] == ("abcd", "abcde")  # one letter apart: 1 - 1/5 = 0.8 reaches
    assert reach[8] == ("abcdefghij",)  # two apart: 1 - 2/10 = 0.8 still reaches
    assert reach[10] == ("abcdefghij",)  # five apart from abcde: 1 - 5/10 cannot
    assert reach[20] == ("abcdefghijklmnopqrstu",)
