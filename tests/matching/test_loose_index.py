"""The index compiles loosened patterns and confirms their hits: it answers for the exact ones.

Issue 23: Hyperscan compiles ``x{m,}`` about three times faster than
``x{m,n}`` on the real-shaped KB, so a database past ``EXACT_PATTERNS`` holds
``loosened`` patterns (forced here for small ones); a hit of a pattern that
loosening changed is confirmed by RE2 with its exact regex, so ``scan``
reports what the exact patterns match, no more.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import hyperscan
import pytest
import yaml

from app.articles.model import Article
from app.articles.patterns import hyperscan_flags
from app.matching import scanners
from app.matching.index import build_index, dump_index, load_index
from app.matching.scanners import HyperscanScanner, prefiltered_ids, widest_bytes
from tests.matching.test_pipeline import article

pytestmark = pytest.mark.skipif(not scanners.hyperscan_available(), reason="needs Hyperscan")


@pytest.fixture(autouse=True)
def prefilter_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every database here holds prefilter forms, as one past ``EXACT_PATTERNS`` does."""
    monkeypatch.setattr(scanners, "EXACT_PATTERNS", 0)


REPO = Path(__file__).resolve().parents[2]
PATTERNS = [
    r"widget.{0,3}exploded",  # loosened: .{0,} would also cross "widget 12345 exploded"
    r"gadget \d+ broke",  # no bounded repeat: compiled as it is, never confirmed
    r"café[^\n]{1,2}crème",  # not ASCII: confirmed as UTF-8
    r"(?i)TOKEN[a-z]{2,4}end",
]


def _exact(patterns: list[str]) -> Callable[[bytes], frozenset[int]]:
    """What one database of the exact patterns finds (the index before issue 23)."""
    database = hyperscan.Database()
    database.compile(
        expressions=[p.encode() for p in patterns],
        ids=list(range(len(patterns))),
        flags=[hyperscan_flags(p) for p in patterns],
    )
    scratch = hyperscan.Scratch(database)

    def hits(data: bytes) -> frozenset[int]:
        found: set[int] = set()
        database.scan(data, match_event_handler=lambda sid, *_: found.add(sid), scratch=scratch)
        return frozenset(found)

    return hits


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("widget 1 exploded", {0}),
        ("widget 12345 exploded", set()),  # the loose form hits, the exact one does not
        ("gadget 77 broke", {1}),
        ("un café àcrème", {2}),  # " à": two characters, three bytes
        ("un café très crème", set()),  # four characters between: too many
        ("tokenabend", {3}),
        ("TOKENabcdefend", set()),
    ],
)
def test_a_loose_hit_counts_only_when_the_exact_pattern_matches(
    text: str, expected: set[int]
) -> None:
    scanner = HyperscanScanner.compile(PATTERNS)
    data = text.encode()
    assert scanner.scan(data) == expected == _exact(PATTERNS)(data)
    again = HyperscanScanner.load(scanner.dump(), PATTERNS)
    assert again.scan(data) == expected


def test_only_changed_patterns_are_confirmed() -> None:
    assert set(prefiltered_ids(PATTERNS)) == {0, 2, 3}


@pytest.mark.parametrize(
    ("pattern", "widest"),
    [
        (r"widget.{0,3}exploded", 17),
        (r"café[^\n]{1,2}crème", 4 * 11),  # UTF-8: up to four bytes a character
        (r"widget \d+ exploded", None),  # unbounded: searched from the start
        (r"ab{,2}cdef.{0,3}", None),  # x{,n}: literal text to RE2, a repeat to Python
        (r"\Qa.b\E{1,2}", None),  # Python cannot read it
    ],
)
def test_widest_bytes_bounds_where_a_confirmation_starts(pattern: str, widest: int | None) -> None:
    assert widest_bytes(pattern) == widest


def test_a_match_far_after_the_first_loose_end_is_still_confirmed() -> None:
    """The first loose hit is a false one; the exact match comes 10 KB later."""
    scanner = HyperscanScanner.compile([r"widget.{0,3}exploded"])
    data = b"widget 12345 exploded\n" + b"x" * 10_000 + b"\nwidget 1 exploded\n"
    assert scanner.scan(data) == {0}


@pytest.mark.usefixtures("small_shards")
def test_shards_and_their_serialised_form_confirm_too() -> None:
    articles = [
        article(f"a{number}", error=[rf"widget{number}.{{0,3}}exploded", rf"gadget{number} \d+"])
        for number in range(6)
    ]
    index = build_index(articles, "r")
    assert isinstance(index.scanner, scanners.ShardedScanner)
    for candidate in (index, load_index(dump_index(index), "r")):
        assert candidate.scan(b"widget3 12345 exploded\n") == frozenset()
        assert candidate.scan(b"widget3 1 exploded\n") == {index.articles["a3"].error_sids[0]}


@pytest.fixture
def small_shards(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scanners, "SHARD_PATTERNS", 4)


def test_the_repository_kb_hits_what_its_exact_patterns_hit_on_every_example() -> None:
    """Every example log of today's KB: its loosened patterns confirm exactly what they hit.

    Patterns that loosening leaves alone are compiled as they are; the others
    are checked against one database of their exact forms.
    """
    patterns = []
    for path in sorted((REPO / "kb" / "articles").glob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        found = Article.model_validate(data).signatures.all_patterns()
        patterns += [p for _, _, p in found if p in prefiltered_ids([p]).values()]
    assert len(patterns) > 50  # the KB does carry bounded repeats
    scanner, exact_hits = HyperscanScanner.compile(patterns), _exact(patterns)
    logs = sorted(path for path in (REPO / "kb" / "examples").rglob("*") if path.is_file())
    assert len(logs) > 100
    confirmed = 0
    for path in logs:
        data = path.read_bytes()
        exact = exact_hits(data)
        assert scanner.scan(data) == exact, path.name
        confirmed += len(exact)
    assert confirmed > 0  # confirmed hits were kept, not only refused ones
