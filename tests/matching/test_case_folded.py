"""The case-folded reading of error patterns: one caseless database, or RE2 sets without it.

A lower-cased paste (``cuda out of memory. tried to allocate 20 mib``) is
read against every error pattern with case ignored (``fragments.py``). With
Hyperscan that is one caseless database whatever the KB's size (issue 19:
RE2 sets of 64 patterns each cost one call per set and grew with the KB);
without it, RE2 sets. Both must name the same signatures.
"""

from __future__ import annotations

import pytest

from app.matching import scanners
from app.matching.index import build_index
from tests.matching.test_pipeline import article

ARTICLES = [
    article("oom", error=[r"CUDA out of memory\. Tried to allocate \d+(?:\.\d+)? [MG]iB"]),
    article("widget", error=[r"Widget.{0,3}Exploded"], context=[r"Gadget"]),
]
CASES = [
    (b"torch.outofmemoryerror: cuda out of memory. tried to allocate 20.00 mib", {"oom"}),
    (b"widget 1 exploded", {"widget"}),
    (b"widget 12345 exploded", set()),  # the loose form hits; the exact one, without case, not
    (b"gadget", set()),  # a context pattern is not an error pattern
    (b"CUDA OUT OF MEMORY. TRIED TO ALLOCATE 2 GIB", {"oom"}),
]


@pytest.mark.parametrize("engine", ["hyperscan", "re2"])
@pytest.mark.parametrize(("data", "expected"), CASES)
def test_both_engines_name_the_error_patterns_that_hit_without_case(
    engine: str, data: bytes, expected: set[str]
) -> None:
    if engine == "hyperscan" and not scanners.hyperscan_available():
        pytest.skip("needs Hyperscan")
    index = build_index(ARTICLES, "r", engine=engine)
    hits = index.folded_errors.hits(data)
    assert {index.signatures[sid].article_id for sid in hits} == expected
    assert all(index.signatures[sid].kind == "error" for sid in hits)


def test_with_hyperscan_the_folded_reading_is_one_caseless_database() -> None:
    if not scanners.hyperscan_available():
        pytest.skip("needs Hyperscan")
    index = build_index(ARTICLES, "r")
    assert isinstance(index.folded_errors.scanner, scanners.HyperscanScanner)
