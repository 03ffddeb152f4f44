"""Reproduce: a JIT-built extension hangs forever at "Using ... as PyTorch
extensions root..." because a stale ``lock`` file is left in its build folder.

torch.utils.cpp_extension (used by DeepSpeed's op builders for cpu_adam,
fused_adam, ..., and by many repositories' custom ops) takes a file lock in
``$TORCH_EXTENSIONS_DIR/<name>/lock`` while it compiles; other processes wait
until the file disappears. A build that was killed (Ctrl-C, OOM, job time
limit, a crashed rank) leaves the file behind, and every later run waits on it
silently. Here the stale lock is created up front; after 8 s the script
interrupts itself like a user pressing Ctrl-C, which prints where it waited.

CPU only; needs ninja for the extension builder (launcher: python).
"""

import os
import signal
import sys
import tempfile
import threading

ROOT = tempfile.mkdtemp(prefix="torch_extensions_")
os.environ["TORCH_EXTENSIONS_DIR"] = ROOT

from torch.utils.cpp_extension import load_inline  # noqa: E402


def main() -> int:
    os.makedirs(os.path.join(ROOT, "add_one"), exist_ok=True)
    open(os.path.join(ROOT, "add_one", "lock"), "w").close()  # left by a build that was killed
    threading.Timer(8.0, os.kill, (os.getpid(), signal.SIGINT)).start()  # the user gives up: Ctrl-C
    module = load_inline(
        name="add_one",
        cpp_sources="int add_one(int x) { return x + 1; }",
        functions=["add_one"],
        verbose=True,
    )
    print("built", module.add_one(41), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
