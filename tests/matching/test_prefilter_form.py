"""Long top-level literals stand in for their patterns in the index (issue 23).

A literal compiles about twenty times faster in Hyperscan than a regex, so a
pattern with a top-level run of 16 plain characters or more is compiled as
that run alone (in a database past ``EXACT_PATTERNS``, forced here for small
ones); its hits are confirmed by the exact regex, as loosened patterns' are.
The form must be a superset of the pattern (every match of the pattern
contains it), or the index would miss matches.
"""

from __future__ import annotations

import json

import pytest
import re2
import yaml

from app.articles.loose import PREFILTER_LITERAL_CHARS, loosened, prefilter_form
from app.articles.model import Article
from app.matching import scanners
from app.matching.index import FORMAT, IndexFormatError, build_index, dump_index, load_index
from app.matching.scanners import HyperscanScanner, prefiltered_ids
from tests.matching.test_loose_index import REPO
from tests.matching.test_pipeline import article

pytestmark = pytest.mark.skipif(not scanners.hyperscan_available(), reason="needs Hyperscan")


@pytest.fixture(autouse=True)
def prefilter_forms(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every database here holds prefilter forms, as one past ``EXACT_PATTERNS`` does."""
    monkeypatch.setattr(scanners, "EXACT_PATTERNS", 0)


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        (r"CUDA out of memory\. Tried to allocate \d+", "CUDA out of memory. Tried to allocate "),
        (r"\d+ tensors differ in metadata: \w{1,}", " tensors differ in metadata: "),
        (r"abcdefghijklmnopqrs?\d", "abcdefghijklmnopqr"),  # s? is not in every match
        (r"abcdefgh(?:x|y)ijklmnopqrstuvwx\d", "ijklmnopqrstuvwx"),  # the longer run
        (r"\x41bcdefghijklmnopqrs\d", "bcdefghijklmnopqrs"),  # \x41 is one character
        (r"\x{41}bcdefghijklmnopqrs\d", "bcdefghijklmnopqrs"),
        (r"\pLbcdefghijklmnopqrs\d", "bcdefghijklmnopqrs"),
        (r"[a-z]{2,4}mismatch in module 'x'[^\n]{0,300}", "mismatch in module 'x'"),
        (r"^café au lait servi froid\d", "café au lait servi froid"),
        (r"a{2}bcdefghijklmnopqrstu\b", "bcdefghijklmnopqrstu"),
    ],
)
def test_a_long_top_level_literal_stands_in_for_its_pattern(pattern: str, literal: str) -> None:
    form = prefilter_form(pattern)
    assert re2.compile(form).fullmatch(literal) is not None, form
    assert form != pattern
    assert prefiltered_ids([pattern]) == {0: pattern}  # its hits are confirmed


@pytest.mark.parametrize(
    "pattern",
    [
        r"abcdefghijklmnopqrstuvwxyz|zz\d",  # | at the top level: neither side is in every match
        r"(?i)abcdefghijklmnopqrstuvwxyz\d",  # caseless: the literal is not plain
        r"(?s:x.)abcdefghijklmnopqrstuvwxyz\d",
        r"(ab)cdefghijklmnopqrstuvwxyz\1",  # numbered escape: not taken apart
        r"\Qabcdefghijklmnopqrstuvwxyz\E\d",
        r"short literal\d{1,4}",  # 13 characters: below the threshold
        r"(?:abcdefghijklmnopqrstuvwxyz)?\d{1,3}",  # inside an optional group
    ],
)
def test_other_patterns_are_only_loosened(pattern: str) -> None:
    assert prefilter_form(pattern) == loosened(pattern)


def test_a_plain_pattern_is_compiled_as_it_is_and_never_confirmed() -> None:
    pattern = r"torch\.distributed\.elastic\.multiprocessing\.errors\.ChildFailedError"
    assert prefilter_form(pattern) == pattern
    assert prefiltered_ids([pattern]) == {}


def test_the_threshold_counts_characters_not_escapes() -> None:
    plain = "a" * (PREFILTER_LITERAL_CHARS - 2) + r"\.\."
    assert prefilter_form(plain + r"\d") != plain + r"\d"
    assert prefilter_form(plain[:-2] + r"\d") == plain[:-2] + r"\d"


PATTERNS = [
    r"should not have been set yet or set to .?False.?",
    r"Expected \d-dimensional input for \d-dimensional weight \[[\d, ]{1,}\]",
    r"café au lait servi froid: \w+",
]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("should not have been set yet or set to 'False'", {0}),
        ("should not have been set yet or set to True", set()),  # the literal alone
        ("Expected 4-dimensional input for 3-dimensional weight [64, 3]", {1}),
        ("Expected 4-dimensional input for 3-dimensional weight [x]", set()),
        ("un café au lait servi froid: oui", {2}),
        ("un café au lait servi froid: ", set()),
    ],
)
def test_a_literal_hit_counts_only_when_the_exact_pattern_matches(
    text: str, expected: set[int]
) -> None:
    assert all(prefilter_form(p) != loosened(p) for p in PATTERNS)  # all three are literals
    scanner = HyperscanScanner.compile(PATTERNS)
    data = text.encode()
    assert scanner.scan(data) == expected
    assert HyperscanScanner.load(scanner.dump(), PATTERNS).scan(data) == expected


def test_an_exact_match_after_many_bare_literals_is_found() -> None:
    """The first literal hits are false; the exact match comes 100 KB later."""
    scanner = HyperscanScanner.compile([PATTERNS[1]])
    bare = b"Expected 1-dimensional input for 2-dimensional weight [?]\n" * 2000
    data = bare + b"Expected 1-dimensional input for 2-dimensional weight [7]\n"
    assert scanner.scan(data) == {0}
    assert scanner.scan(bare) == frozenset()


def test_every_form_of_the_repository_kb_is_a_superset_of_its_pattern() -> None:
    """Each pattern's own examples: wherever RE2 finds the exact pattern, the form is found."""
    checked = 0
    for path in sorted((REPO / "kb" / "articles").glob("*.yaml")):
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        article = Article.model_validate(data)
        folder = REPO / "kb" / "examples" / article.id
        logs = [p.read_text(errors="replace") for p in folder.rglob("*") if p.is_file()]
        for _, _, pattern in article.signatures.all_patterns():
            form = prefilter_form(pattern)
            if form == loosened(pattern):
                continue
            for log in logs:
                if re2.search(pattern, log):
                    assert re2.search(form, log), (pattern, form)
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize("shard_patterns", [4, 10**6])
def test_the_serialised_index_records_which_hits_to_confirm(
    monkeypatch: pytest.MonkeyPatch, shard_patterns: int
) -> None:
    """Working the forms out again costs ~20 µs a pattern at load; the index says instead."""
    monkeypatch.setattr(scanners, "SHARD_PATTERNS", shard_patterns)
    articles = [
        article(f"a{number}", error=[PATTERNS[number % 3] + f" {number}", rf"plain{number} text"])
        for number in range(6)
    ]
    index = build_index(articles, "r")
    patterns = [signature.pattern for signature in index.signatures]
    loaded = load_index(dump_index(index), "r")
    shards = getattr(loaded.scanner, "shards", [(loaded.scanner, tuple(range(len(patterns))))])
    assert len(shards) == (1 if shard_patterns > 100 else 4)
    recorded = {sids[local] for shard, sids in shards for local in shard.confirmed}
    assert recorded == set(prefiltered_ids(patterns)) == {0, 2, 4, 6, 8, 10}
    text = b"should not have been set yet or set to True 1\nplain3 text\n"
    assert loaded.scan(text) == index.scan(text) == {7}


def test_an_index_without_the_ids_to_confirm_is_not_used() -> None:
    blob = dump_index(build_index([article("a0", error=[PATTERNS[0]])], "r"))
    size = int.from_bytes(blob[len(FORMAT) : len(FORMAT) + 8], "big")
    header = json.loads(blob[len(FORMAT) + 8 : len(FORMAT) + 8 + size])
    del header["confirmed"]
    encoded = json.dumps(header).encode()
    stripped = FORMAT + len(encoded).to_bytes(8, "big") + encoded + blob[len(FORMAT) + 8 + size :]
    with pytest.raises(IndexFormatError):
        load_index(stripped, "r")
