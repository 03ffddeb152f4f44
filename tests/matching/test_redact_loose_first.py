"""Rules with long one-character repeats are searched loose first: the exact matches (issue 23).

``url-token``'s ``[^\\s...]{8,1000}`` unrolls into a thousand RE2 states: 20 ms
to compile and 20 ms more for the automaton's first 10 KB, in every one-shot
``errkb match`` whose log holds a URL. ``_rule_matches`` searches with the
``loosened`` form and keeps its matches when none is longer than the smallest
bound (``longest_exact``), else runs the exact regex. These tests hold it to
the exact regex's matches: spans and every group.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.matching import redact
from app.matching.decode import decode
from app.matching.redact import LOOSE_FIRST_BOUND, longest_exact
from app.matching.redact_rules import RULES
from tests.matching.redact_cases import CASES
from tests.matching.secret_formats import FORMATS, line

ROOT = Path(__file__).resolve().parents[2]
LOOSE_FIRST = [
    index
    for index, rule in enumerate(RULES)
    if not rule.multiline and (longest_exact(rule.pattern) or 0) >= LOOSE_FIRST_BOUND
]


@pytest.mark.parametrize(
    ("pattern", "longest"),
    [
        ("a{1,3}", 3),
        ("[a-z]{2,5}x{1,9}", 5),
        ("\\\\{1,2}", 2),
        ("[\\]]{1,4}b", 4),
        ("(?i)\\bkey=([^\\s'\"]{8,1000})", 1000),
        ("\\p{Greek}{1,7}", None),  # read conservatively: a brace is no atom
        ("(?:ab){1,3}", None),  # a group: two characters an iteration
        ("(a){1,3}", None),
        ("\\b{1,2}", None),  # an assertion takes no character
        ("x{3}y{2,}", None),  # nothing that loosened opens
        ("a{1,2}(?:b[c-d]{1,5}){2,6}", None),
        ("no repeat", None),
    ],
)
def test_longest_exact(pattern: str, longest: int | None) -> None:
    assert longest_exact(pattern) == longest


def test_url_token_is_searched_loose_first() -> None:
    ids = {RULES[index].id for index in LOOSE_FIRST}
    assert "url-token" in ids


def exact(index: int, subject: str | bytes) -> list[tuple[object, ...]]:
    regex = redact._rule_regex(redact._engine(), index)
    return [_groups(match) for match in regex.finditer(subject)]


def loose_first(index: int, subject: str | bytes) -> list[tuple[object, ...]]:
    return [_groups(match) for match in redact._rule_matches(redact._engine(), index, subject)]


def _groups(match: object) -> tuple[object, ...]:
    count = match.re.groups  # type: ignore[attr-defined]
    return tuple(match.span(group) for group in range(count + 1))  # type: ignore[attr-defined]


def subjects() -> list[str | bytes]:
    texts = [case.text for case in CASES]
    texts += [line(fmt, seed)[0] for fmt in FORMATS for seed in range(3)]
    files = sorted((ROOT / "tests" / "matching" / "data").glob("*.log"))
    files += sorted((ROOT / "tests" / "data" / "logs").glob("*.log"))
    texts += [decode(path.read_bytes()).text for path in files]
    return [text.encode() if text.isascii() else text for text in texts]


@pytest.mark.parametrize("index", LOOSE_FIRST, ids=lambda index: RULES[index].id)
def test_the_same_matches_as_the_exact_regex(index: int) -> None:
    for subject in subjects():
        assert loose_first(index, subject) == exact(index, subject)


@pytest.mark.parametrize("run", [8, 999, 1000, 1001, 1500, 2600])
def test_a_match_longer_than_the_bound_takes_the_exact_regex(run: int) -> None:
    index = next(i for i, rule in enumerate(RULES) if rule.id == "url-token")
    text = f"see https://{'a' * run} and url: {'b' * 20} https://{'c' * (run // 2)}x"
    for subject in (text, text.encode(), "é " + text):
        assert loose_first(index, subject) == exact(index, subject)


PIECES = st.sampled_from(
    [
        *("https://", "url: ", "ftp://", "wss://", "hvs.", "ghp_", "github_pat_", "sk_live_"),
        *("pcsk_", "sl.", "jina_", "xai-", " ", "\n", "'", '"', "<", "\\", "é", "密码"),
    ]
)
RUNS = st.builds(lambda char, size: char * size, st.sampled_from("aZ9_-./=+"), st.integers(0, 1100))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(PIECES, RUNS), max_size=12))
def test_drawn_text(parts: list[str]) -> None:
    text = "".join(parts)
    subject: str | bytes = text.encode() if text.isascii() else text
    for index in LOOSE_FIRST:
        assert loose_first(index, subject) == exact(index, subject)
