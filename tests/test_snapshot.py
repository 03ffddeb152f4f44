"""The validated KB snapshot: used only for its own KB revision and errkb, never trusted corrupt.

Issue 23: ``errkb match`` and start-up read the snapshot instead of parsing,
validating and linting every article; ``errkb lint`` and reload check it all.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from app.articles.yamlsource import LineTable, parse_yaml
from app.service import kb as kb_module
from app.service import snapshot as snapshot_module
from app.service.kb import prepare_kb, prepare_valid_kb
from app.service.snapshot import SnapshotError, dump_snapshot, load_snapshot
from tests.kbfactory import VALID_ARTICLE, write_article, write_kb


def _no_full_load(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Record full loads, so a test can tell whether the snapshot stood in for one."""
    loads: list[Path] = []
    real = kb_module.load_kb

    def counting(root: Path):  # type: ignore[no-untyped-def]
        loads.append(root)
        return real(root)

    monkeypatch.setattr(kb_module, "load_kb", counting)
    return loads


def _snapshots(index_dir: Path) -> list[Path]:
    return sorted(index_dir.glob("*.kb"))


def test_a_snapshot_stands_in_for_the_full_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    first = prepare_valid_kb(root, index_dir=index_dir)
    assert len(_snapshots(index_dir)) == 1
    loads = _no_full_load(monkeypatch)
    second = prepare_valid_kb(root, index_dir=index_dir, snapshot=True)
    assert loads == []
    assert second.revision == first.revision
    assert second.kb.articles["sample-error"].article == first.kb.articles["sample-error"].article
    shown = second.kb.articles["sample-error"].source
    assert shown.display_path == "kb/articles/sample-error.yaml"
    assert shown.line_of("signatures", "error", 0) == first.kb.articles[
        "sample-error"
    ].source.line_of("signatures", "error", 0)


def test_lint_and_reload_never_read_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    prepare_kb(root, index_dir=index_dir)
    loads = _no_full_load(monkeypatch)
    prepare_kb(root, index_dir=index_dir)  # the default: what lint and reload call
    assert loads == [root]


def test_a_snapshot_of_another_revision_is_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    prepare_kb(root, index_dir=index_dir)
    changed = copy.deepcopy(VALID_ARTICLE)
    changed["title"] = {"en": "Renamed", "zh": "改名"}
    write_article(root, changed)
    loads = _no_full_load(monkeypatch)
    live = prepare_valid_kb(root, index_dir=index_dir, snapshot=True)
    assert loads == [root]
    assert live.kb.articles["sample-error"].article.title.en == "Renamed"


def test_a_snapshot_of_another_errkb_is_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    live = prepare_valid_kb(root, index_dir=index_dir)
    blob = _snapshots(index_dir)[0].read_bytes()
    monkeypatch.setattr(snapshot_module, "code_key", lambda: "9.9.9-0000")
    with pytest.raises(SnapshotError, match="another KB revision or errkb"):
        load_snapshot(blob, root, live.revision)
    loads = _no_full_load(monkeypatch)
    prepare_valid_kb(root, index_dir=index_dir, snapshot=True)
    assert loads == [root]


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty"])
def test_a_corrupt_snapshot_is_rebuilt_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str
) -> None:
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    prepare_valid_kb(root, index_dir=index_dir)
    path = _snapshots(index_dir)[0]
    blob = path.read_bytes()
    if damage == "flip":  # a title changed on disk, checksum left as it was
        blob = blob.replace(b"Sample failure", b"Simple failure")
    elif damage == "truncate":
        blob = blob[: len(blob) // 2]
    else:
        blob = b""
    path.write_bytes(blob)
    loads = _no_full_load(monkeypatch)
    live = prepare_valid_kb(root, index_dir=index_dir, snapshot=True)
    assert loads == [root]
    assert live.kb.articles["sample-error"].article.title.en == "Sample failure"
    assert load_snapshot(path.read_bytes(), root, live.revision).kb.revision == live.revision


def test_a_snapshot_without_self_tests_does_not_stand_in_for_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    prepare_valid_kb(root, index_dir=index_dir, self_tests=False)
    loads = _no_full_load(monkeypatch)
    prepare_valid_kb(root, index_dir=index_dir, self_tests=False, snapshot=True)
    assert loads == []
    prepare_valid_kb(root, index_dir=index_dir, snapshot=True)  # start-up runs self-tests
    assert loads == [root]


def test_a_kb_with_errors_leaves_no_snapshot(tmp_path: Path) -> None:
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    broken = copy.deepcopy(VALID_ARTICLE)
    broken["signatures"] = {"error": ["(?<=lookbehind)SampleError"]}
    write_article(root, broken)
    assert prepare_kb(root, index_dir=index_dir, snapshot=True).live is None
    assert _snapshots(index_dir) == []


def test_the_snapshot_round_trips_the_problems(tmp_path: Path) -> None:
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    (root / "examples/sample-error/stray.log").write_text("not listed\n")
    full = prepare_kb(root, index_dir=index_dir)
    assert full.problems
    assert full.live is not None
    cached = prepare_kb(root, index_dir=index_dir, snapshot=True)
    assert cached.problems == full.problems
    record = snapshot_module.Snapshot(full.live.kb, full.problems, self_tested=True)
    again = load_snapshot(dump_snapshot(record), root, full.live.revision)
    assert again.problems == full.problems


def test_line_table_gives_the_lines_of_the_node_tree() -> None:
    text = yaml.safe_dump(VALID_ARTICLE, allow_unicode=True, sort_keys=False)
    document = parse_yaml(text)
    table = LineTable(data=document.data, lines=document.line_table())
    for loc in [
        (),
        ("id",),
        ("signatures",),
        ("signatures", "error", 0),
        ("signatures", "traceback", "frames", 0),
        ("examples", 0, "file"),
        ("signatures", "error", 7),  # past the end: the deepest existing node
        ("nowhere", "at", "all"),
    ]:
        assert table.line_of(loc) == document.line_of(loc), loc


def test_the_revision_key_follows_every_behaviour_file_and_nothing_else(tmp_path: Path) -> None:
    from app.articles.load import kb_revision

    root = write_kb(tmp_path / "kb")
    first = kb_revision(root)
    cache = root / "repros/sample-error/__pycache__"
    cache.mkdir()
    (cache / "repro.cpython-311.pyc").write_bytes(b"\0compiled")
    (root / "notes.txt").write_text("outside the revision folders\n")
    assert kb_revision(root) == first
    (root / "examples/sample-error/sample.log").write_text("SampleError: widget 4 exploded\n")
    second = kb_revision(root)
    assert second != first
    (root / "examples/sample-error/nested").mkdir()
    (root / "examples/sample-error/nested/more.log").write_text("x\n")
    assert kb_revision(root) not in (first, second)


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 20])
def test_the_verdict_read_in_chunks_is_the_verdict_of_the_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    """``errkb match`` reads the verdict in chunks; it answers and refuses as the whole blob does.

    Chunks of 1 and 7 bytes put the digest, the header and its end across
    reads; every damage that ``load_verdict`` refuses is refused here too.
    """
    root, index_dir = write_kb(tmp_path / "kb"), tmp_path / "index"
    (root / "examples/sample-error/stray.log").write_text("not listed\n")  # a problem to carry
    live = prepare_kb(root, index_dir=index_dir).live
    assert live is not None
    path = _snapshots(index_dir)[0]
    intact = path.read_bytes()
    monkeypatch.setattr(snapshot_module, "CHUNK", max(chunk, 1))
    whole = snapshot_module.load_verdict(intact, live.revision)
    assert whole.problems
    assert snapshot_module.verdict_from_file(path, live.revision) == whole
    with pytest.raises(SnapshotError):
        snapshot_module.verdict_from_file(path, "0" * 64)  # another revision
    newline = intact.index(b"\n", len(snapshot_module.FORMAT))
    damaged = {
        "flip": intact.replace(b"Sample failure", b"Simple failure"),
        "header": intact.replace(b'"self_tested": true', b'"self_tested": 1234'),
        "truncate": intact[: len(intact) // 2],
        "one byte short": intact[:-1],
        "one byte more": intact + b" ",
        "empty": b"",
        "format only": snapshot_module.FORMAT,
        "no digest": snapshot_module.FORMAT + intact[newline:],
        "digest only": intact[: newline + 1],
        "long digest line": intact[:newline] + b"0" + intact[newline:],
        "other format": b"errkb-kb-snapshot/1\n" + intact[len(snapshot_module.FORMAT) :],
    }
    for name, blob in damaged.items():
        path.write_bytes(blob)
        with pytest.raises(SnapshotError):
            snapshot_module.load_verdict(blob, live.revision)
        with pytest.raises(SnapshotError):
            snapshot_module.verdict_from_file(path, live.revision)
        assert snapshot_module.read_verdict(index_dir, live.revision) is None, name
