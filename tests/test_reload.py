"""Reload builds the new KB beside the old and swaps only a clean one (issue 2, target B6)."""

from __future__ import annotations

import copy
from pathlib import Path

from app.matching.pipeline import match_text
from app.service.kb import prepare_valid_kb
from app.service.reload import KbHolder, reload_kb
from tests.kbfactory import VALID_ARTICLE, write_article, write_kb


def test_broken_kb_keeps_the_old_one_serving(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    holder = KbHolder(prepare_valid_kb(kb_root))
    old = holder.current
    broken = copy.deepcopy(VALID_ARTICLE)
    broken["signatures"] = {"error": ["(?<=lookbehind)SampleError"]}
    write_article(kb_root, broken)
    outcome = reload_kb(holder, kb_root, index_dir=None)
    assert not outcome.swapped
    assert outcome.revision == old.revision
    assert any("unsupported regex construct" in p.message for p in outcome.problems)
    assert holder.current is old
    assert match_text("SampleError: widget 3 exploded", holder.current.index).top is not None


def test_clean_kb_is_swapped_whole(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    holder = KbHolder(prepare_valid_kb(kb_root))
    changed = copy.deepcopy(VALID_ARTICLE)
    changed["title"] = {"en": "Renamed", "zh": "改名"}
    write_article(kb_root, changed)
    outcome = reload_kb(holder, kb_root, index_dir=tmp_path / "index")
    assert outcome.swapped
    assert holder.current.revision == outcome.revision
    assert holder.current.index.articles["sample-error"].title_en == "Renamed"
    assert list((tmp_path / "index").glob("*.idx"))  # serialised for the next start


def test_self_test_failure_refuses_the_reload(tmp_path: Path) -> None:
    kb_root = write_kb(tmp_path / "kb")
    holder = KbHolder(prepare_valid_kb(kb_root))
    (kb_root / "examples/sample-error/sample.log").write_text("nothing relevant\n")
    outcome = reload_kb(holder, kb_root, index_dir=None)
    assert not outcome.swapped
    assert [p.message for p in outcome.problems] == [
        "example sample.log ranks nothing first, not this article"
    ]
