"""Self-checks of the synthetic data: every pattern passes lint, every log hits what it should.

Run by ``python -m benchmarks.synth --check``. It proves the two facts the
throughput tables rely on: the generated KB could be loaded by errkb (every
regex passes ``check_pattern``), and every log, at every KB size, hits the
error signatures of exactly ``EXPECTED_HITS`` (so all engines do the same
work and the whole match must rank ``EXPECTED_TOP`` first).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from app.articles.model import Article
from app.articles.patterns import check_pattern
from app.matching.scanners import compile_scanner
from benchmarks.common import progress
from benchmarks.vocab import EXPECTED_HITS


def check_kb(articles: Sequence[Article]) -> list[str]:
    """Lint messages for every pattern (all KB sizes are prefixes, so the largest is enough)."""
    failures = []
    for number, article in enumerate(articles):
        if number % 1000 == 0:
            progress(f"lint: {number}/{len(articles)} articles")
        for kind, position, pattern in article.signatures.all_patterns():
            for problem in check_pattern(pattern):
                failures.append(f"{article.id} {kind}[{position}] {pattern!r}: {problem}")
    return failures


class ErrorHits:
    """Articles with an error regex anywhere in a text, by one Hyperscan scan."""

    def __init__(self, articles: Sequence[Article]) -> None:
        self.rows = [
            (a.id, kind, p) for a in articles for kind, _, p in a.signatures.all_patterns()
        ]
        self.scanner = compile_scanner([p for _, _, p in self.rows])

    def __call__(self, data: bytes) -> set[str]:
        return {
            self.rows[sid][0] for sid in self.scanner.scan(data) if self.rows[sid][1] == "error"
        }


def naive_error_hits(articles: Sequence[Article], text: str) -> set[str]:
    """The same question answered by Python's ``re`` (the naive baseline's engine)."""
    return {
        a.id for a in articles if any(re.search(pattern, text) for pattern in a.signatures.error)
    }


def check_logs(articles: Sequence[Article], paths: Sequence[Path]) -> list[str]:
    """Each log hits exactly EXPECTED_HITS; the smallest also agrees with ``re``."""
    failures = []
    progress(f"compiling {len(articles)} articles")
    error_hits = ErrorHits(articles)
    for path in paths:
        progress(f"scan: {path.name}")
        data = path.read_bytes()
        found = error_hits(data)
        if found != EXPECTED_HITS:
            failures.append(f"{path.name}: hits {sorted(found)}, expected {sorted(EXPECTED_HITS)}")
        if len(data) <= 100_000:
            naive = naive_error_hits(articles, data.decode())
            if naive != found:
                failures.append(f"{path.name}: re finds {sorted(naive)}, Hyperscan {sorted(found)}")
    return failures
