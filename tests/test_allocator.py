"""The served process gives big freed buffers back to the OS (app/service/allocator.py).

Each case runs in a fresh interpreter: malloc's settings last for the life of
a process, and the test's own process must keep glibc's defaults.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.service.allocator import tune_malloc
from tests.kbfactory import write_kb

CHURN = """
import sys, threading
from pathlib import Path

def rss_mib():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

if sys.argv[1] == "factory":
    from app.main import create_app_from_env
    create_app_from_env()

def uploads(seed):
    # What a big body leaves behind: blocks of 4-8 MiB and their decoded copies,
    # made and dropped by several threads at once, as bodies are joined in threads.
    for i in range(30):
        block = bytes([seed]) * ((4 + i % 5) << 20)
        text = block.decode("latin-1")
        del block, text

before = rss_mib()
threads = [threading.Thread(target=uploads, args=(n,)) for n in range(3)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(rss_mib() - before)
"""


def kept_mib(mode: str, tmp_path: Path) -> float:
    """RSS the churn leaves behind in a fresh process: ``plain`` or via the app ``factory``."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("MALLOC_", "GLIBC_TUNABLES"))
    }
    env |= {
        "ERRKB_DATABASE_URL": f"sqlite:///{tmp_path / 'errkb.db'}",
        "ERRKB_KB_PATH": str(write_kb(tmp_path / "kb")),
        "ERRKB_INDEX_DIR": str(tmp_path / "index"),
    }
    done = subprocess.run(
        [sys.executable, "-c", CHURN, mode],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return float(done.stdout.split()[-1])


def test_the_app_factory_returns_freed_big_buffers_to_the_os(tmp_path: Path) -> None:
    # glibc's default keeps tens of MiB of such blocks in its arenas; the factory
    # that `errkb serve` runs fixes the mmap threshold, so they are unmapped on free.
    assert kept_mib("plain", tmp_path) > 16
    assert kept_mib("factory", tmp_path) < 4


def test_an_operators_malloc_settings_are_kept() -> None:
    assert tune_malloc({"MALLOC_MMAP_THRESHOLD_": "65536"}) is False
    assert tune_malloc({"GLIBC_TUNABLES": "glibc.malloc.arena_max=2"}) is False
