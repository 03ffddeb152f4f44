"""The redaction prefilter in ``index_dir``: built once, keyed, rebuilt when damaged (issue 23)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.matching import redact
from app.matching.scanners import hyperscan_available
from app.service import redact_prefilter
from app.service.redact_prefilter import install_prefilter, prefilter_path

pytestmark = pytest.mark.skipif(not hyperscan_available(), reason="Hyperscan not installed")


@pytest.fixture(autouse=True)
def without_prefilter() -> Iterator[None]:
    redact.use_prefilter(None)
    yield
    redact.use_prefilter(None)


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    compile_prefilter = redact_prefilter.compile_prefilter

    def counted() -> bytes:
        calls.append(1)
        return compile_prefilter()

    monkeypatch.setattr(redact_prefilter, "compile_prefilter", counted)
    return calls


def test_built_once_then_loaded(tmp_path: Path, compiles: list[int]) -> None:
    assert install_prefilter(tmp_path)
    assert prefilter_path(tmp_path).is_file()
    assert redact._prefilter is not None
    redact.use_prefilter(None)
    assert install_prefilter(tmp_path)
    assert redact._prefilter is not None
    assert len(compiles) == 1


@pytest.mark.parametrize("damage", ["flip", "cut", "magic", "empty"])
def test_a_damaged_file_is_rebuilt_not_trusted(
    tmp_path: Path, compiles: list[int], damage: str
) -> None:
    assert install_prefilter(tmp_path)
    path = prefilter_path(tmp_path)
    blob = bytearray(path.read_bytes())
    if damage == "flip":
        blob[len(blob) // 2] ^= 0x40
    elif damage == "cut":
        del blob[len(blob) // 2 :]
    elif damage == "magic":
        blob[:5] = b"other"
    else:
        blob.clear()
    path.write_bytes(bytes(blob))
    redact.use_prefilter(None)
    assert install_prefilter(tmp_path)
    assert len(compiles) == 2
    assert redact_prefilter._checked(path.read_bytes())  # whole again


def test_another_errkb_build_uses_another_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiles: list[int]
) -> None:
    assert install_prefilter(tmp_path)
    first = prefilter_path(tmp_path)
    monkeypatch.setattr(redact_prefilter, "code_key", lambda: "9.9.9-0000000000000000")
    second = prefilter_path(tmp_path)
    assert second != first
    assert install_prefilter(tmp_path)
    assert len(compiles) == 2
    assert second.is_file()
    assert not first.exists()


def test_a_rule_hyperscan_refuses_leaves_redaction_with_re2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse() -> bytes:
        raise ValueError("Hyperscan refused a redaction rule")

    monkeypatch.setattr(redact_prefilter, "compile_prefilter", refuse)
    assert not install_prefilter(tmp_path)
    assert redact._prefilter is None
    assert not prefilter_path(tmp_path).exists()
    text = "see https://example.com/?token=" + "x9Kq2" * 6
    assert "x9Kq2" not in redact.redact(text).text


def test_a_folder_it_cannot_write_costs_no_compile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiles: list[int]
) -> None:
    """Compiling per call (0.5-1 s) when the result cannot be kept would cost more than RE2."""
    import tempfile

    def refuse(*args: object, **kwargs: object) -> tuple[int, str]:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", refuse)
    assert not install_prefilter(tmp_path)
    assert compiles == []
    assert redact._prefilter is None
    assert list(tmp_path.iterdir()) == []


def test_no_temporary_file_is_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> bytes:
        raise ValueError("Hyperscan refused a redaction rule")

    assert install_prefilter(tmp_path)
    assert [p.suffix for p in tmp_path.iterdir()] == [".hs"]
    prefilter_path(tmp_path).unlink()
    monkeypatch.setattr(redact_prefilter, "compile_prefilter", refuse)
    assert not install_prefilter(tmp_path)
    assert list(tmp_path.iterdir()) == []
