"""Coverage-guided fuzzing of the matching core with atheris (target G6).

Every input goes through what a paste goes through: ``decode`` (bytes to
clean text), ``redact`` and the whole ``match_text`` pipeline (excerpts,
events, signatures) against the real KB. A crash is any exception, or an
input that takes longer than ``SLOW_S``: the core must stay linear on
whatever a terminal captured. The seed corpus is the KB's own example logs.

    python -m fuzz.pipeline [-max_total_time=600] [libFuzzer flags]

``make fuzz`` runs it for ``FUZZ_SECONDS`` (600); the suite runs it for a
few seconds (tests/test_fuzz.py) so a broken harness cannot go unnoticed.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import atheris

with atheris.instrument_imports(include=["app.matching"]):
    from app.matching.decode import decode
    from app.matching.pipeline import match_text
    from app.matching.redact import redact

from app.service.kb import prepare_valid_kb

ROOT = Path(__file__).resolve().parents[1]
SLOW_S = 1.0
MAX_LEN = 64 * 1024  # big inputs are the benchmarks' job; here, variety


class SlowInput(Exception):
    """An input took longer than ``SLOW_S``: reported by libFuzzer as a crash."""


def seed_corpus(into: Path) -> Path:
    """The KB's example logs, each cut to ``MAX_LEN``, as libFuzzer's starting corpus."""
    for number, log in enumerate(sorted((ROOT / "kb" / "examples").glob("*/*.log"))):
        (into / f"seed-{number:03d}").write_bytes(log.read_bytes()[:MAX_LEN])
    return into


def main(argv: list[str]) -> None:
    index = prepare_valid_kb(ROOT / "kb", self_tests=False).index

    def one_input(data: bytes) -> None:
        started = time.perf_counter()
        text = decode(data).text
        redact(text)
        match_text(data, index)
        elapsed = time.perf_counter() - started
        if elapsed > SLOW_S:
            raise SlowInput(f"{len(data)} bytes took {elapsed:.2f} s")

    with tempfile.TemporaryDirectory(prefix="errkb-fuzz-") as work:
        corpus = seed_corpus(Path(work))
        atheris.Setup([argv[0], f"-max_len={MAX_LEN}", *argv[1:], str(corpus)], one_input)
        atheris.Fuzz()


if __name__ == "__main__":
    main(sys.argv)
