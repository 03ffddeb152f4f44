"""A big KB compiles as shards: same hits as one database, and unchanged shards are reused.

Issue 23: one Hyperscan database of 10,000 articles took 37-57 s to compile.
``SHARD_PATTERNS`` is lowered here so a few articles make several shards.
"""

from __future__ import annotations

import pytest

from app.matching import scanners
from app.matching.index import IndexFormatError, build_index, dump_index, load_index
from app.matching.pipeline import MatchOptions, match_text
from app.matching.scanners import HyperscanScanner, ShardedScanner
from tests.matching.test_pipeline import article

pytestmark = pytest.mark.skipif(not scanners.hyperscan_available(), reason="needs Hyperscan")

LOG = (
    b"Traceback (most recent call last):\n"
    b"RuntimeError: widget 7 exploded in stage 3\n"
    b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
)


def _articles(changed: int | None = None) -> list:  # type: ignore[type-arg]
    found = []
    for number in range(12):
        word = f"stage {number}" + (" edited" if number == changed else "")
        found.append(
            article(
                f"article-{number:02d}",
                error=[rf"widget \d+ exploded in {word}", rf"part{number}[a-z]{{2,8}} failed"],
                context=[rf"module_{number}\.py"],
            )
        )
    found.append(article("oom", error=[r"CUDA out of memory\. Tried to allocate"]))
    return found


class CountingStore:
    def __init__(self) -> None:
        self.blobs: dict[str, bytes] = {}
        self.compiled = 0

    def get(self, key: str) -> bytes | None:
        return self.blobs.get(key)

    def put(self, key: str, blob: bytes) -> None:
        self.compiled += 1
        self.blobs[key] = blob


@pytest.fixture
def small_shards(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scanners, "SHARD_PATTERNS", 8)


@pytest.mark.usefixtures("small_shards")
def test_shards_hit_what_one_database_hits() -> None:
    articles = _articles()
    sharded = build_index(articles, "r")
    assert isinstance(sharded.scanner, ShardedScanner)
    assert len(sharded.scanner.shards) > 2
    whole = HyperscanScanner.compile([s.pattern for s in sharded.signatures])
    assert sharded.scan(LOG) == whole.scan(LOG) != frozenset()
    result = match_text(LOG, sharded, MatchOptions(top_k=3))
    assert result.top is not None
    again = load_index(dump_index(sharded), "r")
    assert isinstance(again.scanner, ShardedScanner)
    assert again.scan(LOG) == sharded.scan(LOG)
    assert match_text(LOG, again).to_json() == match_text(LOG, sharded).to_json()


@pytest.mark.usefixtures("small_shards")
def test_an_edit_recompiles_only_its_shard() -> None:
    store = CountingStore()
    first = build_index(_articles(), "r1", store=store)
    assert isinstance(first.scanner, ShardedScanner)
    shards = len(first.scanner.shards)
    assert store.compiled == shards
    build_index(_articles(), "r1", store=store)
    assert store.compiled == shards  # nothing changed: every shard came from the store
    edited = build_index(_articles(changed=5), "r2", store=store)
    assert store.compiled == shards + 1  # article-05's shard alone
    assert edited.scan(b"widget 1 exploded in stage 5 edited\n")


@pytest.mark.usefixtures("small_shards")
def test_a_damaged_stored_shard_is_compiled_again() -> None:
    store = CountingStore()
    build_index(_articles(), "r", store=store)
    store.blobs = {key: blob[: len(blob) // 2] for key, blob in store.blobs.items()}
    before = store.compiled
    index = build_index(_articles(), "r", store=store)
    assert store.compiled == before + len(store.blobs)
    assert index.scan(LOG)


def test_a_small_kb_stays_one_database() -> None:
    assert scanners.shard_count(scanners.SHARD_PATTERNS) == 1
    assert scanners.shard_count(scanners.SHARD_PATTERNS + 1) == 2
    assert isinstance(build_index(_articles(), "r").scanner, HyperscanScanner)


@pytest.mark.usefixtures("small_shards")
@pytest.mark.parametrize("damage", ["flip", "truncate", "header"])
def test_a_damaged_index_file_is_refused_not_loaded(damage: str) -> None:
    blob = dump_index(build_index(_articles(), "r"))
    if damage == "flip":  # one byte inside the last database
        middle = len(blob) - 200
        blob = blob[:middle] + bytes([blob[middle] ^ 0xFF]) + blob[middle + 1 :]
    elif damage == "truncate":
        blob = blob[: len(blob) - 10]
    else:
        blob = blob.replace(b'"database_bytes"', b'"database_bytez"')
    with pytest.raises(IndexFormatError):
        load_index(blob, "r")
