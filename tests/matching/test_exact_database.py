"""A database of up to ``EXACT_PATTERNS`` patterns holds them as they are (issue 19).

Prefilter forms (a long literal, or bounded repeats opened) compile a big KB
fast but make every hit of a changed pattern an RE2 confirmation, and a
loosened ``.{1,}`` after a literal that every step line prints keeps
Hyperscan busy: at today's KB size the scans cost more than the exact
database's. So a small database is compiled exact and confirms nothing, a
big one (or a shard of a 10,000-article KB) keeps the prefilter forms, and
the rule depends on the database's size alone, so a stored database loaded
without its ``confirmed`` list is read the way it was compiled.
"""

from __future__ import annotations

import pytest

from app.matching import scanners
from app.matching.index import build_index, dump_index, load_index
from app.matching.scanners import (
    HyperscanScanner,
    compiled_forms,
    prefiltered_ids,
    shard_key,
)
from tests.matching.test_pipeline import article

pytestmark = pytest.mark.skipif(not scanners.hyperscan_available(), reason="needs Hyperscan")

PATTERNS = [
    r"widget.{0,3}exploded",  # a bounded repeat: loosened in a big database
    r"CUDA out of memory\. Tried to allocate \d+",  # a long literal: prefiltered in a big one
    r"gadget \d+ broke",  # the same in either form
]
DATA = (
    b"widget 12345 exploded\n"  # .{0,} would cross it, .{0,3} does not
    b"CUDA out of memory. Tried to allocate MANY\n"  # the literal, not the pattern
    b"gadget 7 broke\n"
)


def test_a_small_database_holds_every_pattern_as_it_is() -> None:
    assert compiled_forms(PATTERNS) == PATTERNS
    assert prefiltered_ids(PATTERNS) == {}
    scanner = HyperscanScanner.compile(PATTERNS)
    assert scanner.confirmed == ()  # no hit waits for RE2
    assert scanner.scan(DATA) == {2}


def test_past_the_limit_the_prefilter_forms_are_compiled_and_confirmed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scanners, "EXACT_PATTERNS", len(PATTERNS) - 1)
    forms = compiled_forms(PATTERNS)
    assert [form == pattern for form, pattern in zip(forms, PATTERNS, strict=True)] == [
        False,
        False,
        True,
    ]
    scanner = HyperscanScanner.compile(PATTERNS)
    assert scanner.confirmed == (0, 1)
    assert scanner.scan(DATA) == {2}  # the loose forms hit 0 and 1; RE2 refuses both


@pytest.mark.parametrize("limit", [0, len(PATTERNS)])
def test_a_database_loaded_without_its_confirmed_list_is_read_as_it_was_compiled(
    monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    """A stored shard carries no ``confirmed`` list: the size rule works it out again."""
    monkeypatch.setattr(scanners, "EXACT_PATTERNS", limit)
    compiled = HyperscanScanner.compile(PATTERNS)
    loaded = HyperscanScanner.load(compiled.dump(), PATTERNS)
    assert loaded.confirmed == compiled.confirmed
    assert loaded.scan(DATA) == compiled.scan(DATA) == {2}


def test_the_serialised_index_of_a_small_kb_confirms_nothing_and_matches_the_same() -> None:
    index = build_index([article("a0", error=PATTERNS[:2]), article("a1", error=PATTERNS[2:])], "r")
    again = load_index(dump_index(index), "r")
    assert again.scanner.confirmed == ()  # type: ignore[attr-defined]
    assert again.scan(DATA) == index.scan(DATA) == {2}


def test_the_rule_is_part_of_every_stored_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """A shard stored under another rule is another key: never read with this rule's forms."""
    before = shard_key(PATTERNS)
    monkeypatch.setattr(scanners, "COMPILED_FORM", "another-rule")
    assert shard_key(PATTERNS) != before
