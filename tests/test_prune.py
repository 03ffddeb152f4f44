"""Old revisions' index and snapshot files leave ``index_dir``; the current and previous stay."""

from __future__ import annotations

import copy
import os
import time
from pathlib import Path

import pytest

from app.matching import scanners
from app.matching.index import build_index, dump_index, index_key, stored_shard_keys
from app.service.kb import prepare_kb, prepare_valid_kb
from app.service.prune import STALE_TEMPORARY_S, prune_revisions
from app.service.shard_files import ShardFiles
from tests.kbfactory import VALID_ARTICLE, write_article, write_kb
from tests.matching.test_pipeline import article
from tests.test_shard_files import Counting

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


# Compiled shards (``index_dir/shards``): kept while a kept revision's index names them.

FUTURE = 2 * STALE_TEMPORARY_S  # seconds after the writes: every shard file is old enough


def _sharded(changed: frozenset[int] = frozenset()) -> list:  # type: ignore[type-arg]
    return [
        article(
            f"article-{number:02d}",
            error=[
                rf"widget \d+ exploded in stage {number}" + (" again" if number in changed else ""),
                rf"part{number}[a-z]{{2,8}} failed",
            ],
        )
        for number in range(10)
    ]


def _save_revision(index_dir: Path, revision: str, articles: list, when: float) -> Path:  # type: ignore[type-arg]
    """What ``index_for`` does for a new revision: shards into the store, then the index file."""
    index = build_index(articles, revision, store=ShardFiles(index_dir / "shards"))
    assert isinstance(index.scanner, scanners.ShardedScanner)
    path = index_dir / f"{index_key(revision)}.idx"
    path.write_bytes(dump_index(index))
    os.utime(path, (when, when))
    return path


def _keys(path: Path) -> frozenset[str]:
    with path.open("rb") as head:
        keys = stored_shard_keys(head)
    assert keys is not None
    return keys


def _stored(index_dir: Path) -> set[str]:
    return {path.stem for path in (index_dir / "shards").glob("*.hsdb")}


@pytest.fixture
def three_revisions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    monkeypatch.setattr(scanners, "SHARD_PATTERNS", 6)  # 20 patterns: 4 shards
    now = time.time()
    return [
        _save_revision(tmp_path, _revision("1"), _sharded(), now - 300),
        _save_revision(tmp_path, _revision("2"), _sharded(frozenset({4})), now - 200),
        _save_revision(tmp_path, _revision("3"), _sharded(frozenset({4, 7})), now - 100),
    ]


@pytest.mark.skipif(not scanners.hyperscan_available(), reason="needs Hyperscan")
def test_shards_that_no_kept_index_names_are_removed(
    tmp_path: Path, three_revisions: list[Path]
) -> None:
    first, second, third = three_revisions
    every = _stored(tmp_path)
    wanted = _keys(second) | _keys(third)
    assert len(_keys(third)) == 4
    assert _keys(first) - wanted
    young = prune_revisions(tmp_path, _revision("3"))
    assert young == [first]  # its index goes; shard files written just now stay
    assert _stored(tmp_path) == every
    removed = prune_revisions(tmp_path, _revision("3"), now=time.time() + FUTURE)
    assert {path.stem for path in removed} == every - wanted != set()
    assert _stored(tmp_path) == wanted
    for articles, revision in ((_sharded(frozenset({4, 7})), "3"), (_sharded(frozenset({4})), "2")):
        store = Counting(tmp_path / "shards")
        build_index(articles, _revision(revision), store=store)
        assert store.puts == []  # every shard of a kept revision is still there


@pytest.mark.skipif(not scanners.hyperscan_available(), reason="needs Hyperscan")
def test_the_keys_an_index_names_are_the_keys_its_build_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scanners, "SHARD_PATTERNS", 6)
    store = Counting(tmp_path / "shards")
    index = build_index(_sharded(), _revision("1"), store=store)
    path = tmp_path / "one.idx"
    path.write_bytes(dump_index(index))
    assert _keys(path) == set(store.puts)
    assert len(store.puts) == 4
    monkeypatch.setattr(scanners, "SHARD_PATTERNS", 10**6)  # one database: it names no shard
    path.write_bytes(dump_index(build_index(_sharded(), _revision("1"))))
    assert _keys(path) == frozenset()


@pytest.mark.skipif(not scanners.hyperscan_available(), reason="needs Hyperscan")
@pytest.mark.parametrize("damage", ["garbage", "other-format", "cut"])
def test_no_shard_goes_while_a_kept_index_cannot_be_read(
    tmp_path: Path, three_revisions: list[Path], damage: str
) -> None:
    _, second, _ = three_revisions
    blob = second.read_bytes()
    when = second.stat().st_mtime
    second.write_bytes(
        {"garbage": b"x" * 100, "other-format": b"ERRKB-INDEX-4\n" + blob[14:], "cut": blob[:200]}[
            damage
        ]
    )
    os.utime(second, (when, when))
    every = _stored(tmp_path)
    removed = prune_revisions(tmp_path, _revision("3"), now=time.time() + FUTURE)
    assert [path.suffix for path in removed] == [".idx"]  # the first revision's index only
    assert _stored(tmp_path) == every


@pytest.mark.skipif(not scanners.hyperscan_available(), reason="needs Hyperscan")
def test_no_shard_goes_when_the_current_index_was_not_saved(
    tmp_path: Path, three_revisions: list[Path]
) -> None:
    every = _stored(tmp_path)
    three_revisions[2].unlink()  # a full disk: the current revision's index is missing
    prune_revisions(tmp_path, _revision("3"), now=time.time() + FUTURE)
    assert _stored(tmp_path) == every
