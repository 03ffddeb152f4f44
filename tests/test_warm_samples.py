"""The warm-up's samples: must-match example logs of active articles, one each, within a budget.

Issue 23 (goal P6): RE2 builds its automata lazily, so the service matches a
slice of the KB's own example logs before it says it is ready.
"""

from __future__ import annotations

from pathlib import Path

from app.articles.load import load_kb
from app.matching.index import build_index
from app.matching.pipeline import match_text, warm_up
from app.service.kb import served
from app.service.warm_samples import warm_samples
from tests.kbfactory import variant, write_kb


def _kb(root: Path) -> Path:
    articles = [
        variant(id=f"sample-{n}", examples=[{"file": "a.log", "expect": "match"}]) for n in range(4)
    ]
    articles.append(variant(id="sample-draft", status="draft"))
    articles.append(
        variant(id="sample-nomatch", examples=[{"file": "n.log", "expect": "no-match"}])
    )
    write_kb(root, *articles)
    for n in range(4):  # different sizes, so the budget picks some
        (root / "examples" / f"sample-{n}" / "a.log").write_text("x" * (100 * (n + 1)) + "\n")
    return root


def test_samples_are_must_match_logs_of_active_articles_within_the_budget(tmp_path: Path) -> None:
    kb = load_kb(_kb(tmp_path)).kb
    everything = warm_samples(kb, budget=10_000)
    assert sorted(len(s) for s in everything) == [101, 201, 301, 401]  # no draft, no no-match
    assert sum(map(len, warm_samples(kb, budget=450))) <= 450
    assert [len(s) for s in warm_samples(kb, budget=450)] == [101, 201]
    assert warm_samples(kb, budget=0) == []


def test_a_missing_example_is_skipped(tmp_path: Path) -> None:
    root = _kb(tmp_path)
    kb = load_kb(root).kb
    (root / "examples" / "sample-0" / "a.log").unlink()
    assert len(warm_samples(kb, budget=10_000)) == 3


def test_warm_up_takes_samples_and_matching_is_unchanged(tmp_path: Path) -> None:
    kb = load_kb(_kb(tmp_path)).kb
    index = build_index(served(kb), kb.revision)
    log = b"SampleError: widget 3 exploded\n"
    before = match_text(log, index).to_json()
    warm_up(index, [*warm_samples(kb), log])
    assert match_text(log, index).to_json() == before
