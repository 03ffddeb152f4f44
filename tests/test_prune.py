"""Old revisions' index and snapshot files leave ``index_dir``; the current and previous stay."""

from __future__ import annotations

import copy
import os
from pathlib import Path

from app.service.kb import prepare_kb, prepare_valid_kb
from app.service.prune import STALE_TEMPORARY_S, prune_revisions
from tests.kbfactory import VALID_ARTICLE, write_article, write_kb

NOW = 1_800_000_000.0


def _file(folder: Path, name: str, age: float) -> Path:
    path = folder / name
    path.write_bytes(b"x")
    os.utime(path, (NOW - age, NOW - age))
    return path


def _revision(letter: str) -> str:
    return letter * 64


def test_only_the_current_and_the_previous_revision_stay(tmp_path: Path) -> None:
    old, previous, current = _revision("a"), _revision("b"), _revision("c")
    kept = [
        _file(tmp_path, f"{current[:32]}-hs5.4.12.idx", 10),
        _file(tmp_path, f"{current[:32]}-0.1.0-0123456789abcdef.kb", 10),
        _file(tmp_path, f"{previous[:32]}-hs5.4.12.idx", 500),
        _file(tmp_path, f"{previous[:32]}-0.1.0-0123456789abcdef.kb", 500),
        _file(tmp_path, "revision-0123456789abcdef.json", 9000),  # the memo
        _file(tmp_path, "fresh.tmp", 60),  # a write under way
        _file(tmp_path, "notes.txt", 9000),  # not errkb's naming: not touched
    ]
    (tmp_path / "shards").mkdir()
    kept.append(_file(tmp_path / "shards", "ab12.hsdb", 9000))
    gone = [
        _file(tmp_path, f"{old[:32]}-hs5.4.12.idx", 1000),
        _file(tmp_path, f"{old[:32]}-0.1.0-0123456789abcdef.kb", 1000),
        _file(tmp_path, f"{old[:32]}-0.0.9-fedcba9876543210.kb", 900),
        _file(tmp_path, "left.tmp", STALE_TEMPORARY_S + 1),
    ]
    removed = prune_revisions(tmp_path, current, now=NOW)
    assert sorted(removed) == sorted(gone)
    assert all(path.exists() for path in kept)
    assert not any(path.exists() for path in gone)
    assert prune_revisions(tmp_path, current, now=NOW) == []  # nothing more to do


def test_the_previous_revision_is_the_newest_of_the_others(tmp_path: Path) -> None:
    older, newer, current = _revision("1"), _revision("2"), _revision("3")
    _file(tmp_path, f"{older[:32]}-hs5.idx", 100)
    _file(tmp_path, f"{newer[:32]}-hs5.idx", 50)
    prune_revisions(tmp_path, current, now=NOW)  # the current has no file yet: still kept apart
    assert [path.name[:1] for path in tmp_path.iterdir()] == ["2"]


def test_a_missing_folder_prunes_nothing(tmp_path: Path) -> None:
    assert prune_revisions(tmp_path / "none", _revision("a")) == []


def test_saving_a_third_revision_removes_the_first(tmp_path: Path) -> None:
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    revisions = []
    for title in ("First", "Second", "Third"):
        changed = copy.deepcopy(VALID_ARTICLE)
        changed["title"] = {"en": title, "zh": "标题"}
        write_article(root, changed)
        revisions.append(prepare_valid_kb(root, index_dir=index_dir).revision)
    left = {path.name[:32] for path in index_dir.iterdir() if path.suffix in (".idx", ".kb")}
    assert left == {revisions[1][:32], revisions[2][:32]}
    assert prepare_kb(root, index_dir=index_dir, snapshot=True).live is not None  # still served
