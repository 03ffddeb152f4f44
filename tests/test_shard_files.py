"""Compiled shards on disk: unchanged ones reused, a changed one recompiled, a damaged one rebuilt.

``ShardFiles`` is the service's ``CompiledStore`` (issue 23). Each file
carries the SHA-256 of its key and database: Hyperscan alone accepted a
database with one byte flipped, so the checksum decides what is trusted.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.matching import scanners
from app.matching.index import build_index
from app.service.shard_files import ShardFiles
from tests.matching.test_pipeline import article

pytestmark = pytest.mark.skipif(not scanners.hyperscan_available(), reason="needs Hyperscan")

LOG = b"widget 7 exploded in stage 3\npart3abc failed\n"


def _articles(changed: int | None = None) -> list:  # type: ignore[type-arg]
    return [
        article(
            f"article-{number:02d}",
            error=[
                rf"widget \d+ exploded in stage {number}" + (" again" if number == changed else ""),
                rf"part{number}[a-z]{{2,8}} failed",
            ],
        )
        for number in range(10)
    ]


class Counting(ShardFiles):
    """ShardFiles that counts the shards it was asked to store (each one compiled)."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        object.__setattr__(self, "puts", [])

    def put(self, key: str, blob: bytes) -> None:
        self.puts.append(key)  # type: ignore[attr-defined]
        super().put(key, blob)


@pytest.fixture(autouse=True)
def small_shards(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scanners, "SHARD_PATTERNS", 6)


def _files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.hsdb"))


def test_a_cold_start_reuses_every_unchanged_shard(tmp_path: Path) -> None:
    first = Counting(tmp_path)
    index = build_index(_articles(), "r1", store=first)
    assert isinstance(index.scanner, scanners.ShardedScanner)
    shards = len(index.scanner.shards)
    assert len(first.puts) == shards == len(_files(tmp_path)) > 2
    again = Counting(tmp_path)  # a new process: only the files are left
    reloaded = build_index(_articles(), "r1", store=again)
    assert again.puts == []
    assert reloaded.scan(LOG) == index.scan(LOG) != frozenset()


def test_a_changed_shard_alone_is_recompiled(tmp_path: Path) -> None:
    build_index(_articles(), "r1", store=ShardFiles(tmp_path))
    store = Counting(tmp_path)
    edited = build_index(_articles(changed=4), "r2", store=store)
    assert len(store.puts) == 1
    assert edited.scan(b"widget 1 exploded in stage 4 again\n")


@pytest.mark.parametrize("damage", ["flip", "truncate", "magic", "renamed"])
def test_a_damaged_shard_file_is_rebuilt_not_trusted(tmp_path: Path, damage: str) -> None:
    index = build_index(_articles(), "r1", store=ShardFiles(tmp_path))
    files = _files(tmp_path)
    victim = files[0]
    data = victim.read_bytes()
    if damage == "flip":  # one byte deep inside the database, past any header
        middle = len(data) // 2
        victim.write_bytes(data[:middle] + bytes([data[middle] ^ 0x01]) + data[middle + 1 :])
    elif damage == "truncate":
        victim.write_bytes(data[: len(data) - 1])
    elif damage == "magic":
        victim.write_bytes(b"X" + data[1:])
    else:  # another shard's valid file under this key: its checksum names its own key
        victim.write_bytes(files[1].read_bytes())
    assert ShardFiles(tmp_path).get(victim.stem) is None
    store = Counting(tmp_path)
    rebuilt = build_index(_articles(), "r1", store=store)
    assert store.puts == [victim.stem]
    assert ShardFiles(tmp_path).get(victim.stem) is not None  # written again, whole
    assert rebuilt.scan(LOG) == index.scan(LOG)


def test_an_unwritable_folder_costs_only_a_compile(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_bytes(b"")
    index = build_index(_articles(), "r1", store=ShardFiles(blocked / "shards"))
    assert index.scan(LOG)
