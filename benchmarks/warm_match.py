"""A warm, unique 10 KB match beside a baseline checkout (issue 18's cost bound).

Issue 18 allows the 10 KB whole match no more than 10% extra cost, measured
side by side with the previous commit in the same run. Each side runs in its
own process (its own ``app`` and ``kb``), loads its KB, warms up, then times
``match_text`` on the first 10 KB of ``tests/data/logs/*.log`` with a counter
line appended (so no cache answers) using CPU time. The sides alternate round
by round, so a busy machine slows both alike; the tenth percentile is the
least disturbed figure on a shared machine.

    python -m benchmarks.warm_match --baseline DIR [--rounds 3] [--matches 300]

``DIR`` holds another commit's tree: ``git archive COMMIT app kb | tar -x -C DIR``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from benchmarks.common import REPO

# Runs inside each side's process: only that side's ``app`` is importable.
_CHILD = """
import statistics, sys, time
from pathlib import Path
root = Path(sys.argv[1]); sys.path.insert(0, str(root))
from app.matching.pipeline import match_text
from app.service.kb import prepare_valid_kb
live = prepare_valid_kb(root / "kb", self_tests=False)
text = sys.stdin.read()
for _ in range(20):
    match_text(text, live.index)
times = []
for i in range(int(sys.argv[2])):
    body = text + f"\\nunique line {i}\\n"
    start = time.process_time()
    match_text(body, live.index)
    times.append(time.process_time() - start)
times.sort()
print(f"{statistics.median(times) * 1e3:.3f} {times[len(times) // 10] * 1e3:.3f}")
"""


def ten_kb_log() -> str:
    """The first 10 KB of the marked log fixtures, in name order."""
    text = ""
    for path in sorted((REPO / "tests" / "data" / "logs").glob("*.log")):
        text += path.read_text(encoding="utf-8", errors="replace")
        if len(text) >= 10 * 1024:
            break
    return text[: 10 * 1024]


def run_side(root: Path, log: str, matches: int) -> tuple[float, float]:
    """(median, p10) in ms of one side's unique warm matches."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), str(matches)],
        input=log,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), float(out[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--matches", type=int, default=300)
    args = parser.parse_args()
    log = ten_kb_log()
    print("| round | baseline median / p10 | this tree median / p10 | ratio of p10 |")
    print("|---|---|---|---|")
    for round_no in range(1, args.rounds + 1):
        base = run_side(args.baseline.resolve(), log, args.matches)
        here = run_side(REPO, log, args.matches)
        print(
            f"| {round_no} | {base[0]:.2f} / {base[1]:.2f} ms | {here[0]:.2f} / {here[1]:.2f} ms"
            f" | {here[1] / base[1]:.2f} |"
        )


if __name__ == "__main__":
    main()
