"""``make test``: the real-repro module runs beside the rest of the suite, not after it.

Both halves spend most of their wall time waiting, not computing: the
repros on interpreter start-up, timeouts and Ray, the rest on servers,
browsers and databases (docs/verification.md, "CI cost": about 840 s and
570 s of CPU against 18 and 25 minutes of wall time on 2 CPUs). Run one
after the other, CI took 43 minutes; side by side, the slower half sets the
time. Each half is a plain pytest process with its own exit status; the
repro module's output goes to ``tests/artifacts/real-repros.log`` and is
printed after the suite's, so neither interleaves with the other.

The tests that measure the service's latency (``ALONE``: the soak's
``/healthz`` under 100 ms) run last, on their own, once both halves are done:
beside ninja compiling ``cpu_adam`` on both CPUs they measured the
neighbour, not errkb (CI at stop 29: ``/healthz`` max 123-130 ms, 22 ms
median). They cost about 90 s of wall time. The run fails when any part fails.

    python -m tests.beside [pytest args for the rest of the suite]
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REPROS = "tests/verify/test_real_repros.py"
ALONE = ("tests/test_soak.py",)
LOG = REPO / "tests" / "artifacts" / "real-repros.log"


def commands(extra: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """The repro module's pytest, the rest of the suite's, and the one run after both."""
    pytest = [sys.executable, "-m", "pytest"]
    repros = [*pytest, REPROS, "-p", "no:cacheprovider"]
    rest = [*pytest, f"--ignore={REPROS}", *(f"--ignore={path}" for path in ALONE), *extra]
    alone = [*pytest, *ALONE, "-p", "no:cacheprovider"]
    return repros, rest, alone


def main(argv: Sequence[str] | None = None, log_path: Path = LOG) -> int:
    extra = list(sys.argv[1:] if argv is None else argv)
    repros_command, rest_command, alone_command = commands(extra)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("wb") as log:
        repros = subprocess.Popen(
            repros_command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            rest_status = subprocess.run(rest_command, cwd=REPO, check=False).returncode
            print(f"\n=== {REPROS} (ran beside the suite; waiting for it)", flush=True)
            repros_status = repros.wait()
        except BaseException:
            os.killpg(repros.pid, signal.SIGTERM)  # its own session: the repros' children too
            repros.wait()
            raise
    sys.stdout.write(log_path.read_text(encoding="utf-8", errors="replace"))
    print(f"\n=== {' '.join(ALONE)} (alone, after both)", flush=True)
    alone_status = subprocess.run(alone_command, cwd=REPO, check=False).returncode
    print(
        f"=== the suite exited {rest_status}, {REPROS} exited {repros_status}, "
        f"{' '.join(ALONE)} exited {alone_status}",
        flush=True,
    )
    return rest_status or repros_status or alone_status


if __name__ == "__main__":
    raise SystemExit(main())
