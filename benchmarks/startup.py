"""Whole-process ``errkb match`` on a 10 KB log, beside a baseline checkout (issue 23).

Each run is a fresh ``python -m app.cli match`` process, as a job hook or a
script calling the CLI per file runs it; the page cache is warm (one untimed
run per side first, which also builds that side's index and snapshot). Sides
run interleaved, run by run, in several rounds, so a busy machine slows all
of them alike; both wall time and the child's CPU time (user + system) are
reported, CPU time being the steadier one on a shared machine. Beside them
``python -c "import app"``: the floor any Python command pays.

    python -m benchmarks.startup --baseline DIR [--articles N] [--rounds 3] [--runs 5] [--keep DIR]

``DIR`` holds another commit's tree (``git archive COMMIT | tar -x -C DIR``);
it runs with this interpreter and packages. ``--articles N`` writes a KB of N
real-shaped articles (``real_shaped.py``: today's, then clones with their own
words, examples and repros).
``--keep DIR`` keeps the cloned KB, the log and each side's index and snapshot
in ``DIR`` between invocations (the first full load of 1,000 articles takes
minutes on a shared machine); the untimed first run then only warms the cache.

Bytecode: an installed errkb runs from compiled modules (``__pycache__``), so
each side's ``app`` is compiled first and the children run without
``PYTHONDONTWRITEBYTECODE`` (a shell that sets it would otherwise make every
run compile ~100 modules from source: 0.3-0.5 s of CPU, more than the whole
match). ``--source`` measures that case instead: nothing compiled, nothing
written.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.real_shaped import real_shaped_kb

ROOT = Path(__file__).resolve().parents[1]
LOG_SOURCES = (
    "tests/data/logs/cuda-oom-4ranks-nccl-timeouts-composed.log",
    "tests/data/logs/ddp-training-success-no-error.log",
)
LOG_BYTES = 10 * 1024


def ten_kb_log(folder: Path) -> Path:
    """A failing 4-rank job log followed by a clean one's lines, cut to 10 KB at a line end."""
    text = b"".join((ROOT / name).read_bytes() for name in LOG_SOURCES) * 2
    cut = text[:LOG_BYTES].rsplit(b"\n", 1)[0] + b"\n"
    path = folder / "job-10k.log"
    path.write_bytes(cut)
    return path


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def child_environment(source: bool) -> dict[str, str]:
    """This process's environment, with bytecode written and read unless ``source``."""
    env = dict(os.environ)
    if source:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def compile_tree(tree: Path, source: bool) -> None:
    """Compile ``tree/app`` as an install would; with ``source``, nothing is compiled."""
    if not source:
        compileall.compile_dir(tree / "app", quiet=1)


def sides(
    baseline: Path | None, log: Path, kb: Path, work: Path, *, source: bool = False
) -> dict[str, tuple]:
    """name -> (command, cwd, env) for the import floor, the baseline and this tree."""
    match = [sys.executable, "-m", "app.cli", "match", str(log), "--kb", str(kb)]
    found: dict[str, tuple] = {}
    base_env = child_environment(source)
    floor_env = {**base_env, "PYTHONPATH": str(ROOT)}
    found["python -c 'import app'"] = ([sys.executable, "-c", "import app"], ROOT, floor_env)
    trees = ([("baseline", baseline)] if baseline else []) + [("this tree", ROOT)]
    for name, tree in trees:
        env = {**base_env, "PYTHONPATH": str(tree), "ERRKB_INDEX_DIR": str(work / name)}
        found[f"errkb match ({name})"] = (match, tree, env)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another commit's tree")
    parser.add_argument("--articles", type=int, default=0, help="clone the KB to N articles")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", type=Path, help="work folder kept between invocations")
    parser.add_argument("--source", action="store_true", help="no bytecode: compile every run")
    args = parser.parse_args()
    for tree in ([args.baseline] if args.baseline else []) + [ROOT]:
        compile_tree(tree, args.source)
    print("bytecode:", "none (compiled from source every run)" if args.source else "compiled")
    with tempfile.TemporaryDirectory(prefix="errkb-startup-") as scratch:
        work = args.keep or Path(scratch)
        kb = work / "kb"
        if not args.articles:
            kb = ROOT / "kb"
        elif not (kb / "articles").is_dir():
            real_shaped_kb(ROOT / "kb", kb, args.articles)
        log = ten_kb_log(work)
        runs = sides(args.baseline, log, kb, work, source=args.source)
        for name, (command, cwd, env) in runs.items():  # warm the page cache, build caches
            wall, cpu = timed(command, cwd, env)
            print(f"first run {name}: {wall:.2f} s wall, {cpu:.2f} s CPU", flush=True)
        for number in range(1, args.rounds + 1):
            walls: dict[str, list[float]] = {name: [] for name in runs}
            cpus: dict[str, list[float]] = {name: [] for name in runs}
            for _ in range(args.runs):
                for name, (command, cwd, env) in runs.items():
                    wall, cpu = timed(command, cwd, env)
                    walls[name].append(wall)
                    cpus[name].append(cpu)
            print(f"round {number} (median of {args.runs}):")
            for name in runs:
                wall, cpu = statistics.median(walls[name]), statistics.median(cpus[name])
                print(f"  {name:36} {wall:6.3f} s wall  {cpu:6.3f} s CPU")
            if args.baseline:
                base, here = "errkb match (baseline)", "errkb match (this tree)"
                ratio = statistics.median(cpus[base]) / statistics.median(cpus[here])
                wall_ratio = statistics.median(walls[base]) / statistics.median(walls[here])
                print(f"  baseline / this tree: {ratio:.1f}x CPU, {wall_ratio:.1f}x wall")


if __name__ == "__main__":
    main()
