"""Target G6 in the suite: a short atheris run of fuzz/pipeline.py (``make fuzz`` runs 10 min).

Short, so it proves the harness works and the seed corpus (the KB's example
logs) and its first mutations pass; the long run is where crashes are found.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SECONDS = 20


def test_g6_atheris_finds_no_crash_or_slow_input_in_a_short_run() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "fuzz.pipeline", f"-max_total_time={SECONDS}", "-timeout=10"],
        cwd=ROOT, capture_output=True, text=True, timeout=SECONDS + 120, check=False,
    )  # fmt: skip
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    done = re.search(r"Done (\d+) runs in (\d+) second", output)
    assert done, output[-3000:]
    assert int(done.group(1)) >= 100, output[-3000:]
    assert "SlowInput" not in output
