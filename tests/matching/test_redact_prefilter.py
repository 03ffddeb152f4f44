"""Redaction with the rules' set as a stored Hyperscan prefilter: the same redactions (issue 23).

``compile_prefilter`` puts the set's patterns (loose forms, multi-line
triggers, the placeholder) into one Hyperscan database in prefilter mode, a
superset; ``use_prefilter`` loads it, and ASCII blocks without a vertical tab
then ask it which rules to run instead of the RE2 set. These tests hold both
to the same answers: on every block the prefilter names at least the set
indexes RE2 names, and ``redact`` returns the same text and records with
either, over the rule table's cases, the recall corpus's lines, the
false-positive corpus, the test logs and the KB's examples.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.matching import redact
from app.matching.decode import decode
from app.matching.scanners import hyperscan_available
from tests.matching.redact_cases import CASES
from tests.matching.secret_formats import FORMATS, line

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not hyperscan_available(), reason="Hyperscan not installed")


@pytest.fixture(scope="module")
def blob() -> bytes:
    return redact.compile_prefilter()


@pytest.fixture
def prefilter(blob: bytes) -> Iterator[None]:
    assert redact.use_prefilter(blob)
    try:
        yield
    finally:
        redact.use_prefilter(None)


def corpus() -> list[str]:
    texts = [case.text for case in CASES] + [case.expected for case in CASES]
    texts += [line(fmt, seed)[0] for fmt in FORMATS for seed in range(3)]
    files = sorted((ROOT / "tests" / "matching" / "data").glob("*.log"))
    files += sorted((ROOT / "tests" / "data" / "logs").glob("*.log"))
    files += sorted((ROOT / "kb" / "examples").rglob("*"))
    texts += [decode(path.read_bytes()).text for path in files if path.is_file()]
    return texts


def re2_fired(data: bytes) -> set[int]:
    return set(redact._line_set().Match(data) or [])


def test_the_prefilter_names_every_rule_the_re2_set_names(blob: bytes) -> None:
    prefilter = _loaded(blob)
    checked = 0
    for text in corpus():
        for start, end in redact._blocks(text, 4096):
            block = text[start:end]
            if not block.isascii() or "\x0b" in block:
                continue
            data = block.encode()
            missing = re2_fired(data) - set(prefilter.fired(data))
            assert not missing, (missing, block[:200])
            checked += 1
    assert checked > 1000


def test_redact_gives_the_same_answer_with_the_prefilter(blob: bytes) -> None:
    texts = corpus()
    without = [redact.redact(text) for text in texts]
    assert redact.use_prefilter(blob)
    try:
        with_prefilter = [redact.redact(text) for text in texts]
    finally:
        redact.use_prefilter(None)
    assert with_prefilter == without
    assert sum(len(r.redactions) for r in without) > 100  # the corpus does redact things


@pytest.mark.usefixtures("prefilter")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.rule)
def test_every_table_case_with_the_prefilter(case: object) -> None:
    assert redact.redact(case.text).text == case.expected  # type: ignore[attr-defined]


PIECES = st.sampled_from(
    [
        *("https://", "http://", "url: ", "/home/", "C:\\Users\\", "token=", "password: ", "key"),
        *("ghp_", "hf_", "sk-", "AKIA", "eyJ", "-----BEGIN PRIVATE KEY-----", "@", ".corp", ":"),
        *("10.0.", "192.168.1.", "[REDACTED:api-key]", "<ip-1>", " ", "\n", "\t", "\r", "=", "/"),
    ]
)
WORDS = st.text(alphabet="abcdefABCDEF0123456789_-.+/=%", min_size=0, max_size=40)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(PIECES, WORDS), max_size=30))
def test_a_superset_on_drawn_ascii_text(blob: bytes, parts: list[str]) -> None:
    data = "".join(parts).encode()
    prefilter = _loaded(blob)
    assert re2_fired(data) <= set(prefilter.fired(data))


_LOADED: dict[bytes, redact._Prefilter] = {}


def _loaded(blob: bytes) -> redact._Prefilter:
    if blob not in _LOADED:
        import hyperscan

        _LOADED[blob] = redact._Prefilter(hyperscan.loadb(blob, hyperscan.HS_MODE_BLOCK))
    return _LOADED[blob]


@pytest.mark.usefixtures("prefilter")
@pytest.mark.parametrize("text", ["token=\u00e9" + "x9Kq2" * 6, "url: https://a\x0bb/" + "k3" * 9])
def test_blocks_the_engines_may_read_apart_go_to_re2(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    seen: list[bytes] = []
    fired = redact._Prefilter.fired

    def spy(self: redact._Prefilter, data: bytes) -> list[int]:
        seen.append(data)
        return fired(self, data)

    expected = redact._passes(redact._engine(), text, redact.BLOCK_CHARS)
    monkeypatch.setattr(redact._Prefilter, "fired", spy)
    assert redact.redact(text) == expected
    assert all(data.isascii() and b"\x0b" not in data for data in seen)


def test_bytes_that_do_not_load_leave_redaction_with_re2() -> None:
    text = "see https://example.com/?token=" + "x9Kq2" * 6
    expected = redact.redact(text)
    assert not redact.use_prefilter(b"not a database")
    assert redact._prefilter is None
    assert redact.redact(text) == expected
