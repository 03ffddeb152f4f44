"""``errkb serve`` from spawn to a 200 on ``/readyz``, beside a baseline tree (issue 23).

Each run starts a fresh ``python -m app.cli serve`` (one worker) on a free port
of 127.0.0.1 and polls ``/readyz`` every 5 ms; the figure is the time from
spawn to the first 200, then the server is stopped (SIGTERM). One untimed run
per side first migrates that side's SQLite database and writes its index and
KB snapshot, so the timed runs are the "with a snapshot" start the issue asks
about. Sides run interleaved, run by run.

    python -m benchmarks.serve_ready [--baseline DIR] [--runs 5] [--kb DIR]

``DIR`` holds another commit's tree: ``git archive COMMIT app migrations
alembic.ini | tar -x -C DIR``; it runs with this interpreter and packages.
Beside the wall time, the server's CPU time (user + system, from
``/proc/PID/stat``) at the moment it first answered 200: the steadier figure
on a shared machine. Each tree's ``app`` is compiled first and the servers
run without ``PYTHONDONTWRITEBYTECODE``, as an installed errkb does
(``benchmarks.startup`` explains why).
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from benchmarks.startup import child_environment, compile_tree

ROOT = Path(__file__).resolve().parents[1]
POLL_SECONDS = 0.005
TIMEOUT_SECONDS = 180.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def ready(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=1) as answer:
            return bool(answer.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_to_ready(tree: Path, kb: Path, work: Path) -> tuple[float, float]:
    """Wall and CPU seconds from spawn to the first 200 on /readyz; the server is stopped after."""
    port = free_port()
    env = {
        **child_environment(source=False),
        "PYTHONPATH": str(tree),
        "ERRKB_KB_PATH": str(kb),
        "ERRKB_INDEX_DIR": str(work / "index"),
        "ERRKB_DATABASE_URL": f"sqlite:///{work / 'errkb.db'}",
        "ERRKB_PORT": str(port),
        "ERRKB_LOG_LEVEL": "warning",
    }
    command = [sys.executable, "-m", "app.cli", "serve", "--workers", "1"]
    start = time.perf_counter()
    server = subprocess.Popen(
        command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while not ready(port):
            if server.poll() is not None:
                raise RuntimeError(f"errkb serve exited with {server.returncode}")
            if time.perf_counter() - start > TIMEOUT_SECONDS:
                raise RuntimeError("errkb serve was not ready in time")
            time.sleep(POLL_SECONDS)
        return time.perf_counter() - start, cpu_seconds(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another commit's tree")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--kb", type=Path, default=ROOT / "kb")
    args = parser.parse_args()
    trees = ([("baseline", args.baseline)] if args.baseline else []) + [("this tree", ROOT)]
    for _, tree in trees:
        compile_tree(tree, source=False)
    with tempfile.TemporaryDirectory(prefix="errkb-ready-") as scratch:
        works = {name: Path(scratch) / name.replace(" ", "-") for name, _ in trees}
        for name, tree in trees:
            works[name].mkdir()
            first, cpu = time_to_ready(tree, args.kb, works[name])
            print(f"first start {name} (migrates, builds the snapshot): {first:.2f} s", flush=True)
        times: dict[str, list[float]] = {name: [] for name, _ in trees}
        cpus: dict[str, list[float]] = {name: [] for name, _ in trees}
        for _ in range(args.runs):
            for name, tree in trees:
                wall, cpu = time_to_ready(tree, args.kb, works[name])
                times[name].append(wall)
                cpus[name].append(cpu)
        print(f"spawn to /readyz 200, median of {args.runs} (min-max), wall and server CPU:")
        for name, _ in trees:
            found, used = times[name], cpus[name]
            median = statistics.median(found)
            print(
                f"  errkb serve ({name:9}) {median:6.3f} s  ({min(found):.3f}-{max(found):.3f})"
                f"  CPU {statistics.median(used):6.3f} s  ({min(used):.3f}-{max(used):.3f})"
            )
        if args.baseline:
            ratio = statistics.median(times["baseline"]) / statistics.median(times["this tree"])
            cpu_ratio = statistics.median(cpus["baseline"]) / statistics.median(cpus["this tree"])
            print(f"  baseline / this tree: {ratio:.2f}x wall, {cpu_ratio:.2f}x CPU")


if __name__ == "__main__":
    main()
