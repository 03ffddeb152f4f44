"""The revision memo: the KB's content hash reused only while every file is provably unchanged.

Issue 23: ``errkb match`` at 1,000 articles spent a third of its time hashing
the KB to find its snapshot. A stale hash would serve another revision's
verdict and index, so every way a file can change must reach ``kb_revision``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.articles.revision import kb_revision
from app.service import revision_memo
from app.service.revision_memo import memo_revision
from tests.kbfactory import write_kb


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Count full hashes; no margin for racy files (the tests write them just before)."""
    calls: list[Path] = []

    def counting(root: Path) -> str:
        calls.append(root)
        return kb_revision(root)

    monkeypatch.setattr(revision_memo, "kb_revision", counting)
    monkeypatch.setattr(revision_memo, "RACY_NS", 0)
    return calls


def test_an_unchanged_kb_is_hashed_once(tmp_path: Path, hashes: list[Path]) -> None:
    root = write_kb(tmp_path / "kb")
    first = memo_revision(root, tmp_path / "memo")
    assert memo_revision(root, tmp_path / "memo") == first == kb_revision(root)
    assert len(hashes) == 1


@pytest.mark.parametrize("change", ["edit same size", "edit and restore mtime", "add", "remove"])
def test_every_change_is_hashed_again(tmp_path: Path, hashes: list[Path], change: str) -> None:
    root = write_kb(tmp_path / "kb")
    before = memo_revision(root, tmp_path / "memo")
    example = root / "examples/sample-error/sample.log"
    stat = example.stat()
    if change == "edit same size":
        example.write_text(example.read_text().replace("3", "4"))
    elif change == "edit and restore mtime":  # only the ctime tells
        example.write_text(example.read_text().replace("3", "5"))
        os.utime(example, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    elif change == "add":
        (root / "examples/sample-error/more.log").write_text("x\n")
    else:
        example.unlink()
    after = memo_revision(root, tmp_path / "memo")
    assert after == kb_revision(root) != before
    assert len(hashes) == 2


def test_a_file_changed_in_the_same_tick_as_the_hash_is_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_kb(tmp_path / "kb")  # written just now: "racy" against a memo taken now
    calls: list[Path] = []
    monkeypatch.setattr(revision_memo, "kb_revision", lambda r: calls.append(r) or kb_revision(r))
    memo_revision(root, tmp_path / "memo")
    memo_revision(root, tmp_path / "memo")
    assert len(calls) == 2  # within RACY_NS of the files' ctime: computed every time
    monkeypatch.setattr(revision_memo, "RACY_NS", 0)  # as if the clock had moved on
    memo_revision(root, tmp_path / "memo")
    assert len(calls) == 2  # the memo was right all along, and is used once it can be trusted


def test_a_damaged_or_foreign_memo_is_ignored(tmp_path: Path, hashes: list[Path]) -> None:
    root = write_kb(tmp_path / "kb")
    memo_dir = tmp_path / "memo"
    real = memo_revision(root, memo_dir)
    (memo_file,) = memo_dir.glob("revision-*.json")
    memo = json.loads(memo_file.read_text())
    memo_file.write_text(json.dumps(memo | {"revision": "0" * 64}, indent=1)[:-20])
    assert memo_revision(root, memo_dir) == real
    other_stamps = {"stamps_sha256": "0" * 64}  # a memo of files that are not these
    memo_file.write_text(json.dumps(memo | {"revision": "0" * 64} | other_stamps))
    assert memo_revision(root, memo_dir) == real
    old_format = {key: value for key, value in memo.items() if key != "format"}
    memo_file.write_text(json.dumps(old_format | {"revision": "0" * 64}))
    assert memo_revision(root, memo_dir) == real
    assert len(hashes) == 4


def test_the_walk_sees_what_the_hash_reads(tmp_path: Path, hashes: list[Path]) -> None:
    """Nested files count, ``__pycache__`` does not, a link to a file is followed (as reading)."""
    root = write_kb(tmp_path / "kb")
    nested = root / "repros/sample-error/data/input.txt"
    nested.parent.mkdir(parents=True)
    nested.write_text("one\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("linked\n")
    (root / "examples/sample-error/linked.log").symlink_to(outside)
    cache = root / "repros/sample-error/__pycache__"
    cache.mkdir()
    memo_dir = tmp_path / "memo"
    first = memo_revision(root, memo_dir)
    (cache / "x.pyc").write_bytes(b"\0")
    assert memo_revision(root, memo_dir) == first  # not a revision file
    assert len(hashes) == 1
    nested.write_text("two\n")
    second = memo_revision(root, memo_dir)
    assert second == kb_revision(root) != first
    outside.write_text("changed through the link\n")
    assert memo_revision(root, memo_dir) == kb_revision(root) != second
    assert len(hashes) == 3


def test_a_change_no_folder_shows_is_seen(tmp_path: Path, hashes: list[Path]) -> None:
    """Why every file is stat'ed and every folder listed on every call (branch ``quick``).

    A folder's mtime moves when an entry is added, removed or renamed, not when
    a file in it is written in place, nor when the target of a dangling link in
    it appears: a shortcut that lists or stats only the folders whose mtime
    changed would miss both. The memo must see them.
    """
    root = write_kb(tmp_path / "kb")
    folder = root / "examples/sample-error"
    target = tmp_path / "appears-later.log"
    (folder / "later.log").symlink_to(target)  # dangling: not a file kb_revision reads
    memo_dir = tmp_path / "memo"
    first = memo_revision(root, memo_dir)
    folder_stamp = folder.stat().st_mtime_ns, folder.stat().st_ctime_ns
    target.write_text("now there is something to read\n")
    assert (folder.stat().st_mtime_ns, folder.stat().st_ctime_ns) == folder_stamp
    second = memo_revision(root, memo_dir)
    assert second == kb_revision(root) != first
    example = folder / "sample.log"
    example.write_text(example.read_text().replace("3", "6"))  # in place
    assert (folder.stat().st_mtime_ns, folder.stat().st_ctime_ns) == folder_stamp
    assert memo_revision(root, memo_dir) == kb_revision(root) != second
    assert len(hashes) == 3
